"""The cluster sizing engine: `size(inputs) -> SizingResult`, in closed form.

No Django imports and no per-GPU or per-rack objects: every count is arithmetic on a handful of
integers, so sizing 131,072 GPUs costs what sizing 8 does. Every output is a `Figure` whose
formula carries the numbers it was worked out from. Bad inputs are refused all at once with one
`SizingInputError` naming each bad input by its dotted path; nothing is defaulted silently.

Conventions (sources: ../shared/reference/sizing.md):
- Links are counted at the endpoint speed. A switch whose ports are faster than the endpoint
  (an 800G port for 400G GPUs) splits each port into port ÷ endpoint lanes, so its radix k is
  ports × lanes; an endpoint faster than the switch's ports is refused.
- Compute fabric: rail-optimised, built for whole scalable units (SU) as NVIDIA's DGX SuperPOD
  designs are: leaves and leaf–spine cables for the whole SU even when fewer systems are
  installed; node–leaf cables only for installed systems. A leaf has d = ⌊k·r/(r+1)⌋ down-ports
  and k − d up-ports for oversubscription r:1. When a leaf can take the same rail of every system
  of the SU (SU ≤ d) it takes ⌊d ÷ SU⌋ rails, so leaves per SU = ⌈rails ÷ rails per leaf⌉ (a DGX
  SU: 8 rails, 1 per leaf, 8 leaves); otherwise each rail needs ⌈SU ÷ d⌉ leaves.
- Storage, in-band and out-of-band networks are plain fat trees: one switch while the endpoints
  fit on one, else ⌈endpoints ÷ d⌉ leaves (fabric.py for spines and cores).
- Transceivers: a link on an optical tier needs a module at each end. Node side: ⌈links per
  device ÷ links per module⌉ per device (a DGX H100: 8 NICs on 4 twin-port modules). Switch side:
  one module per min(module links, ports per cage) ports, i.e. per ports × lanes links, counted
  over the tier's links. Copper (no optic given) needs none.
- Node-side modules follow the system's compute cages (`SystemSpec.ports_per_cage`): a module
  carries as many links as a cage has ports, else it is refused (twin-port in single-port cages
  does not fit; single-port in twin-port cages leaves NICs unlinked).
- Racks: a compute rack holds min(by units, by power) systems, fewer where its in-rack CDUs
  (sized for that rack's liquid heat, with the redundancy per rack) need the units; in-row CDUs
  serve a row of compute racks, with the redundancy per row. Every network's switches share
  network racks, filled in order by units and power; switch and storage racks, cooled by air, are
  filled to min(rack limit, air limit). PDUs per rack = ⌈rack kW ÷ PDU kW⌉ + redundancy, at least
  the planner's count in a compute rack.
- Checkpoint write bandwidth: the smaller of what the storage appliances write together and what
  the compute systems can push into the storage fabric (their storage ports at its port speed):
  a sharded checkpoint is written by every node at once, so the narrower of the two sets the pace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from . import checkpoint as ckpt
from .fabric import Tree, TreeError, build_tree, ceil_div
from .types import (
    ENGINE_VERSION,
    BomItem,
    BomRole,
    CableSpec,
    Cooling,
    DesignInputs,
    FabricInputs,
    Figure,
    OpticSpec,
    RackSlot,
    RackType,
    SizingInputError,
    SizingResult,
    SizingWarning,
    SwitchSpec,
    Topology,
)

__all__ = ["size", "what_if"]

_EPS = 1e-9


def num(value: int | float) -> str:
    """A number as the formulas show it: 1,024 · 10.2 · 0.0034."""
    if isinstance(value, int):
        return f"{value:,}"
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.1f}"
    if abs(value) >= 1:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"


def _ceil(x: float) -> int:
    """ceil() that does not turn 11.000000000000002 (1.1 ÷ 0.1) into 12."""
    return math.ceil(round(x, 9))


def _floor(x: float) -> int:
    return math.floor(round(x, 9))


# --- Validation --------------------------------------------------------------------------------


class _Checks:
    def __init__(self) -> None:
        self.errors: dict[str, str] = {}

    def add(self, path: str, message: str) -> None:
        self.errors.setdefault(path, message)

    def number(
        self, path: str, value: Any, *, integer: bool = False, minimum: float = 0, strict: bool = True
    ) -> bool:
        """value must be a (whole) number > minimum (strict) or ≥ minimum."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.add(path, "must be a number")
            return False
        if integer and not isinstance(value, int):
            self.add(path, "must be a whole number")
            return False
        if not math.isfinite(value):
            self.add(path, "must be a finite number")
            return False
        if (strict and value <= minimum) or (not strict and value < minimum):
            self.add(
                path, f"must be {'greater than' if strict else 'at least'} {num(minimum)} (got {num(value)})"
            )
            return False
        return True

    def switch(self, path: str, switch: SwitchSpec) -> None:
        if not self.number(f"{path}.ports", switch.ports, integer=True):
            # A switch part without a radix (ports ≤ 0) cannot carry a fabric: say which part.
            self.errors[f"{path}.ports"] = (
                f"{switch.name or 'the switch'} has no radix: {self.errors[f'{path}.ports']}"
            )
        self.number(f"{path}.port_gbps", switch.port_gbps, integer=True)
        self.number(f"{path}.power_w", switch.power_w, strict=False)
        self.number(f"{path}.rack_units", switch.rack_units, integer=True)
        self.number(f"{path}.ports_per_cage", switch.ports_per_cage, integer=True)
        self.number(f"{path}.weight_kg", switch.weight_kg, strict=False)

    def optic(self, path: str, optic: OpticSpec | None) -> None:
        if optic is not None:
            self.number(f"{path}.links", optic.links, integer=True)
            self.number(f"{path}.power_w", optic.power_w, strict=False)

    def cable(self, path: str, cable: CableSpec | None) -> None:
        if cable is not None:
            self.number(f"{path}.power_w_per_end", cable.power_w_per_end, strict=False)

    def medium(
        self, optic_path: str, optic: OpticSpec | None, cable_path: str, cable: CableSpec | None
    ) -> None:
        """An optical cable needs transceivers; a copper one takes none."""
        if cable is None:
            return
        if cable.optical and optic is None:
            self.add(optic_path, f"{cable.name} is an optical cable: give the transceiver at its ends")
        if not cable.optical and optic is not None:
            self.add(cable_path, f"{cable.name} is copper: it takes no transceiver ({optic.name} given)")

    def fabric(self, path: str, fabric: FabricInputs, *, compute: bool) -> None:
        self.switch(f"{path}.switch", fabric.switch)
        if compute:
            self.number(f"{path}.bandwidth_per_gpu_gbps", fabric.bandwidth_per_gpu_gbps, integer=True)
            self.number(f"{path}.su_systems", fabric.su_systems, integer=True)
        self.number(f"{path}.oversubscription", fabric.oversubscription)
        self.optic(f"{path}.node_optic", fabric.node_optic)
        self.optic(f"{path}.switch_optic", fabric.switch_optic)
        self.cable(f"{path}.cable", fabric.cable)
        self.cable(f"{path}.switch_cable", fabric.switch_cable)
        self.medium(f"{path}.node_optic", fabric.node_optic, f"{path}.cable", fabric.cable)
        switch_cable_path = f"{path}.switch_cable" if fabric.switch_cable is not None else f"{path}.cable"
        self.medium(
            f"{path}.switch_optic",
            fabric.switch_optic,
            switch_cable_path,
            fabric.switch_cable or fabric.cable,
        )


def validate(inputs: DesignInputs) -> None:
    """Raise one SizingInputError naming every bad input; return quietly when all are usable."""
    c = _Checks()
    s = inputs.system
    c.number("gpus", inputs.gpus, integer=True)
    system_gpus_ok = c.number("system.gpus", s.gpus, integer=True)
    c.number("system.power_w", s.power_w)
    c.number("system.rack_units", s.rack_units, integer=True)
    if s.compute_ports is not None:
        c.number("system.compute_ports", s.compute_ports, integer=True)
    if s.compute_port_gbps is not None:
        c.number("system.compute_port_gbps", s.compute_port_gbps, integer=True)
    c.number("system.storage_ports", s.storage_ports, integer=True, strict=False)
    c.number("system.inband_ports", s.inband_ports, integer=True, strict=False)
    c.number("system.oob_ports", s.oob_ports, integer=True, strict=False)
    c.number("system.weight_kg", s.weight_kg, strict=False)
    if s.ports_per_cage is not None:
        c.number("system.ports_per_cage", s.ports_per_cage, integer=True)
    if c.number("system.liquid_fraction", s.liquid_fraction, strict=False) and s.liquid_fraction > 1:
        c.add("system.liquid_fraction", f"must be a share between 0 and 1 (got {num(s.liquid_fraction)})")
    if system_gpus_ok and "gpus" not in c.errors and inputs.gpus % s.gpus:
        c.add(
            "gpus",
            f"{inputs.gpus:,} GPUs is not a multiple of {s.gpus} GPUs per {s.name} "
            f"(nearest: {inputs.gpus // s.gpus * s.gpus:,} or {(inputs.gpus // s.gpus + 1) * s.gpus:,})",
        )

    compute = inputs.compute
    c.fabric("compute", compute, compute=True)
    endpoint_gbps = s.compute_port_gbps or compute.bandwidth_per_gpu_gbps
    if (
        isinstance(endpoint_gbps, int)
        and isinstance(compute.switch.port_gbps, int)
        and endpoint_gbps > compute.switch.port_gbps > 0
    ):
        path = "system.compute_port_gbps" if s.compute_port_gbps else "compute.bandwidth_per_gpu_gbps"
        c.add(
            path,
            f"{endpoint_gbps} Gb/s per endpoint is faster than the {compute.switch.port_gbps} Gb/s ports of "
            f"{compute.switch.name}",
        )

    node_optic = compute.node_optic
    if node_optic is not None and "compute.node_optic.links" not in c.errors:
        if s.ports_per_cage is None:
            c.add(
                "system.ports_per_cage",
                f"{s.name} has no cage layout: give the ports per compute cage (1 single-port, 2 "
                f"twin-port) to place {node_optic.name} at the node",
            )
        elif "system.ports_per_cage" not in c.errors and node_optic.links != s.ports_per_cage:
            cages = "single-port" if s.ports_per_cage == 1 else f"{s.ports_per_cage}-port"
            module = "twin-port" if node_optic.links == 2 else f"{node_optic.links}-link"
            module = "single-port" if node_optic.links == 1 else module
            effect = (
                "does not fit them"
                if node_optic.links > s.ports_per_cage
                else f"reaches {node_optic.links} of each cage's {s.ports_per_cage} ports, leaving NICs "
                "unlinked"
            )
            c.add(
                "compute.node_optic",
                f"{node_optic.name} is a {module} module; {s.name}'s compute NICs sit in {cages} cages "
                f"(system.ports_per_cage = {s.ports_per_cage}): it {effect}. Choose a module of "
                f"{s.ports_per_cage} link{'s' if s.ports_per_cage != 1 else ''}.",
            )

    st = inputs.storage
    c.number("storage.usable_capacity_tb", st.usable_capacity_tb)
    c.number("storage.read_gbs_per_node", st.read_gbs_per_node)
    c.number("storage.write_gbs_per_node", st.write_gbs_per_node)
    c.number("storage.appliance.capacity_tb", st.appliance.capacity_tb)
    c.number("storage.appliance.read_gbs", st.appliance.read_gbs)
    c.number("storage.appliance.write_gbs", st.appliance.write_gbs)
    c.number("storage.appliance.power_w", st.appliance.power_w, strict=False)
    c.number("storage.appliance.rack_units", st.appliance.rack_units, integer=True)
    c.number("storage.appliance.ports", st.appliance.ports, integer=True)
    c.number("storage.appliance.weight_kg", st.appliance.weight_kg, strict=False)
    c.fabric("storage.fabric", st.fabric, compute=False)

    m = inputs.management
    c.switch("management.inband_switch", m.inband_switch)
    c.switch("management.oob_switch", m.oob_switch)
    c.cable("management.inband_cable", m.inband_cable)
    c.cable("management.oob_cable", m.oob_cable)
    c.number("management.inband_oversubscription", m.inband_oversubscription)
    oob_ports = m.oob_switch.ports if isinstance(m.oob_switch.ports, int) else 0
    if c.number("management.oob_uplinks", m.oob_uplinks, integer=True) and m.oob_uplinks >= oob_ports > 0:
        c.add("management.oob_uplinks", f"must leave ports for endpoints on a {oob_ports}-port switch")

    r = inputs.racks
    c.number("racks.rack.rack_units", r.rack.rack_units, integer=True)
    c.number("racks.power_limit_kw", r.power_limit_kw)
    c.number("racks.pdu.kw", r.pdu.kw)
    c.number("racks.pdus_per_rack", r.pdus_per_rack, integer=True)
    c.number("racks.pdu_redundancy", r.pdu_redundancy, integer=True, strict=False)
    c.number("racks.racks_per_row", r.racks_per_row, integer=True)
    c.number("racks.pdu.weight_kg", r.pdu.weight_kg, strict=False)
    if r.rack.static_load_kg is not None:
        c.number("racks.rack.static_load_kg", r.rack.static_load_kg)

    f = inputs.facility
    if c.number("facility.pue", f.pue) and f.pue < 1:
        c.add("facility.pue", f"PUE is facility ÷ IT power and cannot be below 1 (got {num(f.pue)})")
    if f.cooling != Cooling.AIR and f.cdu is None:
        c.add("facility.cdu", f"{f.cooling} cooling needs a coolant distribution unit")
    if f.cdu is not None:
        c.number("facility.cdu.kw", f.cdu.kw)
        c.number("facility.cdu.weight_kg", f.cdu.weight_kg, strict=False)
        rack_units_ok = c.number("facility.cdu.rack_units", f.cdu.rack_units, integer=True, strict=False)
        if rack_units_ok and f.cdu.in_rack and s.rack_scale and f.cooling != Cooling.AIR:
            c.add(
                "facility.cdu",
                f"{f.cdu.name} is an in-rack CDU ({f.cdu.rack_units} U) and {s.name} fills its rack: "
                "choose an in-row CDU (one without rack units)",
            )
    c.number("facility.cdu_redundancy", f.cdu_redundancy, integer=True, strict=False)
    c.number("facility.cdu_margin", f.cdu_margin, strict=False)
    c.number("facility.air_max_kw_per_rack", f.air_max_kw_per_rack)
    if f.site_power_mw is not None:
        c.number("facility.site_power_mw", f.site_power_mw)

    t = inputs.training
    c.number("training.params_billion", t.params_billion)
    c.number("training.bytes_per_param", t.bytes_per_param)
    c.number("training.restart_minutes", t.restart_minutes, strict=False)
    if t.chosen_interval_minutes is not None:
        c.number("training.chosen_interval_minutes", t.chosen_interval_minutes)
    if (t.gpu_mtbf_hours is None) == (t.cluster_interruptions_per_day is None):
        message = (
            "give either the per-GPU MTBF or the cluster's interruptions per day, not both"
            if t.gpu_mtbf_hours is not None
            else "give the per-GPU MTBF or the cluster's interruptions per day"
        )
        c.add("training.gpu_mtbf_hours", message)
        c.add("training.cluster_interruptions_per_day", message)
    elif t.gpu_mtbf_hours is not None:
        c.number("training.gpu_mtbf_hours", t.gpu_mtbf_hours)
    else:
        c.number("training.cluster_interruptions_per_day", t.cluster_interruptions_per_day)

    if c.errors:
        raise SizingInputError(c.errors)


# --- Fabrics -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Endpoints:
    label: str  # "DGX H100", "storage appliance"
    devices: int
    links_each: int


@dataclass
class _FabricOut:
    name: str
    tree: Tree
    switch: SwitchSpec
    # W drawn by what hangs off each device (node-side modules, active cable ends), by label
    attached_w_per_device: dict[str, float] = field(default_factory=dict)
    # W drawn at the switch ends of each tier's links (modules, active cable ends), by tier
    attached_w_by_tier: dict[str, float] = field(default_factory=dict)
    optics: int = 0
    optics_w: float = 0.0
    cables: int = 0
    cable_w: float = 0.0

    def switches(self) -> int:
        return self.tree.leaves + self.tree.spines + self.tree.cores

    def counts_by_tier(self) -> dict[str, int]:
        return {"leaf": self.tree.leaves, "spine": self.tree.spines, "core": self.tree.cores}


@dataclass(frozen=True)
class _Load:
    """`count` pieces of one kind in a rack, each `rack_units` high, drawing `kw` (IT load; an
    in-rack CDU's pumps count in the PUE, not here) and weighing `weight_kg`."""

    label: str
    rack_units: int
    count: int
    kw: float
    weight_kg: float


@dataclass
class _RackPlan:
    """`count` racks laid out alike; `min_pdus` is the planner's PDUs per compute rack."""

    kind: str
    count: int
    loads: list[_Load]
    min_pdus: int = 0


_EMPTY_TREE = Tree(tiers=0, leaves=0, spines=0, cores=0, leaf_spine_links=0, spine_core_links=0)


class _Sizer:
    def __init__(self, inputs: DesignInputs) -> None:
        self.i = inputs
        self.figures: list[Figure] = []
        self.bom: list[BomItem] = []
        self.warnings: list[SizingWarning] = []
        self.errors: dict[str, str] = {}
        self.racks: list[RackType] = []

    # helpers
    def fig(
        self, key: str, section: str, label: str, value: int | float, unit: str, formula: str, **inputs: Any
    ) -> int | float:
        self.figures.append(Figure(key, section, label, value, unit, formula, dict(inputs)))
        return value

    def add_bom(self, role: BomRole, part_key: str, quantity: int, figure: str) -> None:
        if quantity > 0:
            self.bom.append(BomItem(role, part_key, quantity, figure))

    # --- systems -------------------------------------------------------------------------------
    def systems(self) -> None:
        i, s = self.i, self.i.system
        self.n_systems = i.gpus // s.gpus
        self.fig(
            "systems.systems",
            "systems",
            f"{s.name} systems",
            self.n_systems,
            "systems",
            f"systems = {num(i.gpus)} GPUs ÷ {s.gpus} per {s.name} = {num(self.n_systems)}",
            gpus=i.gpus,
            gpus_per_system=s.gpus,
        )
        self.fig("systems.gpus", "systems", "GPUs", i.gpus, "GPUs", f"GPUs = {num(i.gpus)}", gpus=i.gpus)
        su = i.compute.su_systems
        self.n_su = ceil_div(self.n_systems, su)
        self.fig(
            "systems.scalable_units",
            "systems",
            "Scalable units",
            self.n_su,
            "SU",
            f"scalable units = ⌈{num(self.n_systems)} systems ÷ {su} per SU⌉ = {num(self.n_su)}",
            systems=self.n_systems,
            su_systems=su,
        )
        self.add_bom(BomRole.SYSTEM, s.key, self.n_systems, "systems.systems")

    # --- a fabric ------------------------------------------------------------------------------
    def fabric(
        self,
        *,
        name: str,
        section: str,
        title: str,
        path: str,
        endpoints: list[_Endpoints],
        switch: SwitchSpec,
        lanes: int,
        oversubscription: float,
        topology: Topology,
        node_optic: OpticSpec | None,
        switch_optic: OpticSpec | None,
        cable: CableSpec | None,
        switch_cable: CableSpec | None,
        leaves_override: tuple[int, int, str] | None = None,  # (leaves, pod leaves, formula)
        down_ports: int | None = None,
        error_path_beyond: str,
        error_path_fixed: str,
    ) -> _FabricOut:
        key = f"fabric.{name}"
        k = switch.ports * lanes
        links = sum(e.devices * e.links_each for e in endpoints)
        self.fig(
            f"{key}.endpoints",
            section,
            f"{title}: endpoint links",
            links,
            "links",
            "endpoint links = "
            + " + ".join(f"{num(e.devices)} {e.label} × {e.links_each}" for e in endpoints)
            + f" = {num(links)}",
        )
        lane_text = f" × {lanes} lanes" if lanes > 1 else ""
        self.fig(
            f"{key}.radix",
            section,
            f"{title}: switch radix",
            k,
            "ports",
            f"radix k = {switch.ports} ports{lane_text} of {switch.name} = {k}",
            ports=switch.ports,
            lanes=lanes,
        )
        if down_ports is None:
            d = _floor(k * oversubscription / (oversubscription + 1))
            formula = f"down-ports d = ⌊{k} × {num(oversubscription)} ÷ ({num(oversubscription)} + 1)⌋ = {d}"
        else:
            d = down_ports
            formula = f"down-ports d = {k} − {k - d} uplinks = {d}"
        u = k - d
        if d < 1 or u < 1:
            self.errors.setdefault(
                f"{path}.oversubscription" if down_ports is None else error_path_fixed,
                f"leaves of {k} ports need at least one port down and one up (d = {d})",
            )
            return _FabricOut(name, _EMPTY_TREE, switch)
        self.fig(f"{key}.down_ports", section, f"{title}: leaf down-ports", d, "ports", formula, k=k)
        self.fig(
            f"{key}.up_ports", section, f"{title}: leaf up-ports", u, "ports", f"up-ports = {k} − {d} = {u}"
        )

        if leaves_override is not None:
            leaves, pod_leaves, leaves_formula = leaves_override
        elif links <= k and topology == Topology.AUTO:
            leaves, pod_leaves = (1 if links else 0), k // 2
            leaves_formula = f"leaves = 1 ({num(links)} endpoint links fit on one {k}-port switch)"
        else:
            leaves, pod_leaves = ceil_div(links, d), k // 2
            leaves_formula = f"leaves = ⌈{num(links)} endpoint links ÷ {d} down-ports⌉ = {num(leaves)}"
        try:
            tree = build_tree(leaves=leaves, uplinks=u, k=k, pod_leaves=pod_leaves, topology=topology)
        except TreeError as exc:
            self.errors.setdefault(
                error_path_beyond if exc.beyond else error_path_fixed, f"{title}: {exc.reason}"
            )
            return _FabricOut(name, _EMPTY_TREE, switch)
        out = _FabricOut(name, tree, switch)
        self.fig(
            f"{key}.leaves",
            section,
            f"{title}: leaf switches",
            tree.leaves,
            "switches",
            leaves_formula,
            endpoint_links=links,
            down_ports=d,
        )
        self.fig(
            f"{key}.tiers",
            section,
            f"{title}: tiers",
            tree.tiers,
            "tiers",
            f"tiers = {tree.tiers} ({topology}; two tiers reach {k} leaves, three reach {k} pods of "
            f"{pod_leaves} leaves)",
        )
        self.fig(
            f"{key}.spines",
            section,
            f"{title}: spine switches",
            tree.spines,
            "switches",
            tree.spines_formula or "spines = 0 (one tier)",
            leaves=tree.leaves,
            up_ports=u,
            radix=k,
            pods=tree.pods,
        )
        self.fig(
            f"{key}.cores",
            section,
            f"{title}: core switches",
            tree.cores,
            "switches",
            tree.cores_formula or "cores = 0",
            spine_core_links=tree.spine_core_links,
            radix=k,
        )

        # cables: one per link
        node_cables = links
        self.fig(
            f"{key}.cables.node_leaf",
            section,
            f"{title}: node–leaf cables",
            node_cables,
            "cables",
            f"node–leaf cables = {num(links)} endpoint links = {num(node_cables)}",
        )
        self.fig(
            f"{key}.cables.leaf_spine",
            section,
            f"{title}: leaf–spine cables",
            tree.leaf_spine_links,
            "cables",
            f"leaf–spine cables = {num(tree.leaves)} leaves × {u if tree.tiers > 1 else 0} up-ports = "
            f"{num(tree.leaf_spine_links)}",
        )
        self.fig(
            f"{key}.cables.spine_core",
            section,
            f"{title}: spine–core cables",
            tree.spine_core_links,
            "cables",
            f"spine–core cables = {num(tree.spine_core_links)} (one per leaf–spine link in three tiers)",
        )
        between = tree.leaf_spine_links + tree.spine_core_links
        self.fig(
            f"{key}.cables.between_switches",
            section,
            f"{title}: cables between switches",
            between,
            "cables",
            f"cables between switches = {num(tree.leaf_spine_links)} + {num(tree.spine_core_links)} = "
            f"{num(between)}",
        )
        total_cables = node_cables + between
        self.fig(
            f"{key}.cables",
            section,
            f"{title}: cables",
            total_cables,
            "cables",
            f"cables = {num(node_cables)} + {num(between)} = {num(total_cables)}",
        )
        out.cables = total_cables
        sw_cable = switch_cable or cable
        cable_end_w = cable.power_w_per_end if cable else 0.0
        sw_cable_end_w = sw_cable.power_w_per_end if sw_cable else 0.0

        # transceivers
        def per_switch_module(optic: OpticSpec) -> int:
            return min(optic.links, switch.ports_per_cage) * lanes

        node_modules = 0
        node_switch_side = 0
        node_formula = "node-side transceivers = 0 (copper)"
        switch_side_formula = "switch-side transceivers for node links = 0 (copper)"
        leaf_optic = switch_optic or node_optic
        for e in endpoints:
            out.attached_w_per_device[e.label] = e.links_each * cable_end_w
        if node_optic is not None and leaf_optic is not None:
            parts = []
            for e in endpoints:
                each = ceil_div(e.links_each, node_optic.links) if e.links_each else 0
                node_modules += e.devices * each
                out.attached_w_per_device[e.label] += each * node_optic.power_w
                parts.append(f"{num(e.devices)} {e.label} × ⌈{e.links_each} ÷ {node_optic.links}⌉")
            node_formula = (
                f"node-side transceivers = {' + '.join(parts)} = {num(node_modules)} {node_optic.name}"
            )
            pm = per_switch_module(leaf_optic)
            node_switch_side = ceil_div(links, pm)
            switch_side_formula = (
                f"switch-side transceivers for node links = ⌈{num(links)} links ÷ {pm} per "
                f"{leaf_optic.name}⌉ "
                f"= {num(node_switch_side)}"
            )
        self.fig(
            f"{key}.optics.node_leaf.node_side",
            section,
            f"{title}: transceivers at the nodes",
            node_modules,
            "modules",
            node_formula,
        )
        self.fig(
            f"{key}.optics.node_leaf.switch_side",
            section,
            f"{title}: transceivers at the leaves for node links",
            node_switch_side,
            "modules",
            switch_side_formula,
        )
        ls_end = sc_end = 0
        if switch_optic is not None:
            pm = per_switch_module(switch_optic)
            ls_end = ceil_div(tree.leaf_spine_links, pm)
            sc_end = ceil_div(tree.spine_core_links, pm)
            ls_formula = (
                f"leaf–spine transceivers = 2 ends × ⌈{num(tree.leaf_spine_links)} links ÷ {pm} per module⌉ "
                f"= {num(2 * ls_end)}"
            )
            sc_formula = (
                f"spine–core transceivers = 2 ends × ⌈{num(tree.spine_core_links)} links ÷ {pm} per module⌉ "
                f"= {num(2 * sc_end)}"
            )
        else:
            ls_formula = "leaf–spine transceivers = 0 (copper between switches)"
            sc_formula = "spine–core transceivers = 0 (copper between switches)"
        self.fig(
            f"{key}.optics.leaf_spine",
            section,
            f"{title}: leaf–spine transceivers",
            2 * ls_end,
            "modules",
            ls_formula,
        )
        self.fig(
            f"{key}.optics.spine_core",
            section,
            f"{title}: spine–core transceivers",
            2 * sc_end,
            "modules",
            sc_formula,
        )
        switch_modules = node_switch_side + 2 * ls_end + 2 * sc_end
        self.fig(
            f"{key}.optics.node",
            section,
            f"{title}: node-side transceivers",
            node_modules,
            "modules",
            f"node-side transceivers = {num(node_modules)}",
        )
        self.fig(
            f"{key}.optics.switch",
            section,
            f"{title}: switch-side transceivers",
            switch_modules,
            "modules",
            f"switch-side transceivers = {num(node_switch_side)} + {num(2 * ls_end)} + {num(2 * sc_end)} = "
            f"{num(switch_modules)}",
        )
        out.optics = node_modules + switch_modules
        leaf_w = leaf_optic.power_w if leaf_optic else 0.0
        sw_w = switch_optic.power_w if switch_optic else 0.0
        out.attached_w_by_tier = {
            "leaf": node_switch_side * leaf_w
            + ls_end * sw_w
            + links * cable_end_w
            + tree.leaf_spine_links * sw_cable_end_w,
            "spine": ls_end * sw_w
            + sc_end * sw_w
            + (tree.leaf_spine_links + tree.spine_core_links) * sw_cable_end_w,
            "core": sc_end * sw_w + tree.spine_core_links * sw_cable_end_w,
        }
        node_w = node_optic.power_w if node_optic is not None and leaf_optic is not None else 0.0
        out.optics_w = node_modules * node_w + node_switch_side * leaf_w + 2 * (ls_end + sc_end) * sw_w
        out.cable_w = 2 * (links * cable_end_w + between * sw_cable_end_w)
        return out

    def compute_fabric(self) -> _FabricOut:
        s, c = self.i.system, self.i.compute
        rails = s.compute_ports or s.gpus
        gbps = s.compute_port_gbps or c.bandwidth_per_gpu_gbps
        lanes = max(1, c.switch.port_gbps // gbps)
        k = c.switch.ports * lanes
        d = _floor(k * c.oversubscription / (c.oversubscription + 1))
        su = c.su_systems
        if d >= 1 and su <= d:
            rails_per_leaf = d // su
            per_su = ceil_div(rails, rails_per_leaf)
            if rails_per_leaf == 1:
                text = f"{rails} rails × 1 per SU"
            else:
                text = f"⌈{rails} rails ÷ {rails_per_leaf} rails per leaf ({d} down-ports ÷ {su} systems)⌉"
        else:
            per_rail = ceil_div(su, max(d, 1))
            per_su = rails * per_rail
            text = f"{rails} rails × ⌈{su} systems ÷ {d} down-ports⌉ per SU"
        leaves = per_su * self.n_su
        formula = f"leaves = {text} × {num(self.n_su)} SU = {num(leaves)}"
        half = k // 2
        pod_leaves = (half // per_su) * per_su if 0 < per_su <= half else half
        self.fig(
            "fabric.compute.leaves_per_su",
            "compute_fabric",
            "Compute fabric: leaves per scalable unit",
            per_su,
            "switches",
            f"leaves per SU = {text} = {per_su}",
        )
        out = self.fabric(
            name="compute",
            section="compute_fabric",
            title="Compute fabric",
            path="compute",
            endpoints=[_Endpoints(s.name, self.n_systems, rails)],
            switch=c.switch,
            lanes=lanes,
            oversubscription=c.oversubscription,
            topology=c.topology,
            node_optic=c.node_optic,
            switch_optic=c.switch_optic,
            cable=c.cable,
            switch_cable=c.switch_cable,
            leaves_override=(leaves, pod_leaves, formula),
            error_path_beyond="gpus",
            error_path_fixed="compute.topology",
        )
        self._fabric_bom(
            out,
            c,
            BomRole.COMPUTE_LEAF,
            BomRole.COMPUTE_SPINE,
            BomRole.COMPUTE_CORE,
            BomRole.COMPUTE_NODE_OPTIC,
            BomRole.COMPUTE_SWITCH_OPTIC,
            BomRole.COMPUTE_CABLE,
        )
        return out

    def _fabric_bom(
        self,
        out: _FabricOut,
        f: FabricInputs,
        leaf: BomRole,
        spine: BomRole,
        core: BomRole,
        node_optic: BomRole,
        switch_optic: BomRole,
        cable: BomRole,
    ) -> None:
        key = f"fabric.{out.name}"
        t = out.tree
        self.add_bom(leaf, f.switch.key, t.leaves, f"{key}.leaves")
        self.add_bom(spine, f.switch.key, t.spines, f"{key}.spines")
        self.add_bom(core, f.switch.key, t.cores, f"{key}.cores")
        if f.node_optic is not None:
            self.add_bom(
                node_optic, f.node_optic.key, self._value(f"{key}.optics.node"), f"{key}.optics.node"
            )
        leaf_side = self._value(f"{key}.optics.node_leaf.switch_side")
        between = self._value(f"{key}.optics.leaf_spine") + self._value(f"{key}.optics.spine_core")
        leaf_optic = f.switch_optic or f.node_optic
        if f.switch_optic is not None:
            self.add_bom(switch_optic, f.switch_optic.key, leaf_side + between, f"{key}.optics.switch")
        elif leaf_optic is not None:
            self.add_bom(switch_optic, leaf_optic.key, leaf_side, f"{key}.optics.node_leaf.switch_side")
        sw_cable = f.switch_cable or f.cable
        if f.cable is not None and sw_cable is not None and sw_cable.key == f.cable.key:
            self.add_bom(cable, f.cable.key, self._value(f"{key}.cables"), f"{key}.cables")
        else:
            if f.cable is not None:
                self.add_bom(
                    cable, f.cable.key, self._value(f"{key}.cables.node_leaf"), f"{key}.cables.node_leaf"
                )
            if sw_cable is not None:
                self.add_bom(
                    cable,
                    sw_cable.key,
                    self._value(f"{key}.cables.between_switches"),
                    f"{key}.cables.between_switches",
                )

    def _value(self, key: str) -> int:
        for item in reversed(self.figures):
            if item.key == key:
                return int(item.value)
        return 0

    # --- storage -------------------------------------------------------------------------------
    def storage(self) -> None:
        st, a = self.i.storage, self.i.storage.appliance
        n = self.n_systems
        by_capacity = _ceil(st.usable_capacity_tb / a.capacity_tb)
        read_total = st.read_gbs_per_node * n
        write_total = st.write_gbs_per_node * n
        by_read = _ceil(read_total / a.read_gbs)
        by_write = _ceil(write_total / a.write_gbs)
        self.n_appliances = max(by_capacity, by_read, by_write)
        binding = [
            name
            for name, v in (("capacity", by_capacity), ("read", by_read), ("write", by_write))
            if v == self.n_appliances
        ]
        self.fig(
            "storage.appliances",
            "storage",
            f"{a.name} appliances",
            self.n_appliances,
            "appliances",
            f"storage appliances = max(capacity ⌈{num(st.usable_capacity_tb)} TB ÷ {num(a.capacity_tb)} TB⌉ "
            f"= {num(by_capacity)}, "
            f"read ⌈{num(n)} systems × {num(st.read_gbs_per_node)} GB/s ÷ {num(a.read_gbs)} GB/s⌉ = "
            f"{num(by_read)}, "
            f"write ⌈{num(n)} × {num(st.write_gbs_per_node)} GB/s ÷ {num(a.write_gbs)} GB/s⌉ = "
            f"{num(by_write)}) "
            f"= {num(self.n_appliances)} ({' and '.join(binding)} "
            f"{'binds' if len(binding) == 1 else 'bind'})",
            by_capacity=by_capacity,
            by_read=by_read,
            by_write=by_write,
            binding=", ".join(binding),
        )
        self.storage_write_gbs = self.n_appliances * a.write_gbs
        for key, label, value, unit, per in (
            (
                "storage.capacity_tb",
                "Usable capacity delivered",
                self.n_appliances * a.capacity_tb,
                "TB",
                a.capacity_tb,
            ),
            (
                "storage.read_gbs",
                "Aggregate read bandwidth",
                self.n_appliances * a.read_gbs,
                "GB/s",
                a.read_gbs,
            ),
            ("storage.write_gbs", "Aggregate write bandwidth", self.storage_write_gbs, "GB/s", a.write_gbs),
        ):
            self.fig(
                key,
                "storage",
                label,
                value,
                unit,
                f"{label.lower()} = {num(self.n_appliances)} × {num(per)} {unit} = {num(value)} {unit}",
            )
        self.fig(
            "storage.required_read_gbs",
            "storage",
            "Read bandwidth required",
            read_total,
            "GB/s",
            f"read required = {num(n)} systems × {num(st.read_gbs_per_node)} GB/s = {num(read_total)} GB/s",
        )
        self.fig(
            "storage.required_write_gbs",
            "storage",
            "Write bandwidth required",
            write_total,
            "GB/s",
            f"write required = {num(n)} systems × {num(st.write_gbs_per_node)} GB/s = {num(write_total)} "
            "GB/s",
        )
        self.add_bom(BomRole.STORAGE_APPLIANCE, a.key, self.n_appliances, "storage.appliances")

    def storage_fabric(self) -> _FabricOut:
        s, st = self.i.system, self.i.storage
        f = st.fabric
        endpoints = [
            _Endpoints(s.name, self.n_systems, s.storage_ports),
            _Endpoints(st.appliance.name, self.n_appliances, st.appliance.ports),
        ]
        endpoints = [e for e in endpoints if e.links_each]
        out = self.fabric(
            name="storage",
            section="storage_fabric",
            title="Storage fabric",
            path="storage.fabric",
            endpoints=endpoints,
            switch=f.switch,
            lanes=1,
            oversubscription=f.oversubscription,
            topology=f.topology,
            node_optic=f.node_optic,
            switch_optic=f.switch_optic,
            cable=f.cable,
            switch_cable=f.switch_cable,
            error_path_beyond="storage.fabric.switch.ports",
            error_path_fixed="storage.fabric.topology",
        )
        self._fabric_bom(
            out,
            f,
            BomRole.STORAGE_LEAF,
            BomRole.STORAGE_SPINE,
            BomRole.STORAGE_CORE,
            BomRole.STORAGE_NODE_OPTIC,
            BomRole.STORAGE_SWITCH_OPTIC,
            BomRole.STORAGE_CABLE,
        )
        return out

    # --- management ----------------------------------------------------------------------------
    def inband(self) -> _FabricOut:
        s, m = self.i.system, self.i.management
        endpoints = [
            _Endpoints(s.name, self.n_systems, s.inband_ports),
            _Endpoints(self.i.storage.appliance.name, self.n_appliances, 1),
        ]
        out = self.fabric(
            name="inband",
            section="management",
            title="In-band management",
            path="management",
            endpoints=[e for e in endpoints if e.links_each],
            switch=m.inband_switch,
            lanes=1,
            oversubscription=m.inband_oversubscription,
            topology=Topology.AUTO,
            node_optic=None,
            switch_optic=None,
            cable=m.inband_cable,
            switch_cable=None,
            error_path_beyond="management.inband_switch.ports",
            error_path_fixed="management.inband_switch.ports",
        )
        return out

    def oob(self, pdus: int, other_switches: int) -> _FabricOut:
        s, m = self.i.system, self.i.management
        endpoints = [
            _Endpoints(f"{s.name} BMC", self.n_systems, s.oob_ports),
            _Endpoints("storage appliance BMC", self.n_appliances, 1),
            _Endpoints("switch", other_switches, 1),
            _Endpoints("PDU", pdus, 1),
            _Endpoints("CDU", self.n_cdus, 1),
        ]
        return self.fabric(
            name="oob",
            section="management",
            title="Out-of-band management",
            path="management",
            endpoints=[e for e in endpoints if e.links_each and e.devices],
            switch=m.oob_switch,
            lanes=1,
            oversubscription=1.0,
            topology=Topology.AUTO,
            node_optic=None,
            switch_optic=None,
            cable=m.oob_cable,
            switch_cable=None,
            down_ports=m.oob_switch.ports - m.oob_uplinks,
            error_path_beyond="management.oob_switch.ports",
            error_path_fixed="management.oob_uplinks",
        )

    # --- racks ---------------------------------------------------------------------------------
    def air_limit_kw(self) -> tuple[float, str]:
        """The kW a rack of air-cooled pieces (switches, storage appliances) is filled to: the rack
        limit, or less where air cooling tops out, whatever the compute racks' liquid takes."""
        r, f = self.i.racks, self.i.facility
        if f.air_max_kw_per_rack < r.power_limit_kw:
            return f.air_max_kw_per_rack, "facility.air_max_kw_per_rack"
        return r.power_limit_kw, "racks.power_limit_kw"

    def _fits(self, load: _Load, limit: tuple[float, str] | None = None) -> tuple[int, int] | None:
        """(by rack units, by power) of one kind of piece in an empty rack filled to `limit` (kW
        and the input it comes from; the rack's power limit when None); None (refused, naming the
        input) when not even one fits."""
        r = self.i.racks
        limit_kw, limit_path = limit or (r.power_limit_kw, "racks.power_limit_kw")
        by_ru = r.rack.rack_units // load.rack_units
        by_kw = _floor(limit_kw / load.kw) if load.kw > 0 else load.count
        if by_ru == 0:
            self.errors.setdefault(
                "racks.rack.rack_units",
                f"a {load.rack_units}U {load.label} does not fit a {r.rack.rack_units}U rack",
            )
            return None
        if by_kw == 0:
            self.errors.setdefault(
                limit_path,
                f"one {load.label} draws {num(load.kw)} kW, more than the {num(limit_kw)} kW rack limit",
            )
            return None
        return by_ru, by_kw

    def pack_alone(self, kind: str, load: _Load, limit: tuple[float, str]) -> list[_RackPlan]:
        """Racks of one kind of piece, filled to `limit` kW: full racks, plus one for the rest."""
        if load.count <= 0:
            return []
        fits = self._fits(load, limit)
        if fits is None:
            return []
        per = min(*fits, load.count)
        full, rest = divmod(load.count, per)
        plans = [_RackPlan(kind, full, [replace(load, count=per)])] if full else []
        if rest:
            plans.append(_RackPlan(kind, 1, [replace(load, count=rest)]))
        return plans

    def pack_shared(self, kind: str, loads: list[_Load], limit: tuple[float, str]) -> list[_RackPlan]:
        """Racks shared by several kinds of piece, filled in the order given by units and power
        (as NVIDIA's reference architectures rack leaves, spines and management switches together
        rather than a rack per tier). Closed form: a kind that fills racks on its own gives one
        rack type with its count; only the racks where kinds meet are laid out one by one, at most
        one per kind. Racks are filled to `limit` kW."""
        units, limit_kw = self.i.racks.rack.rack_units, limit[0]
        plans: list[_RackPlan] = []
        shared: list[_Load] = []
        used_ru, used_kw = 0, 0.0
        for load in loads:
            if load.count <= 0:
                continue
            fits = self._fits(load, limit)
            if fits is None:
                return []
            left = load.count
            while left:
                if shared:
                    room_kw = _floor((limit_kw - used_kw) / load.kw) if load.kw > 0 else left
                    fit = min(left, (units - used_ru) // load.rack_units, room_kw)
                    if fit <= 0:
                        plans.append(_RackPlan(kind, 1, shared))
                        shared, used_ru, used_kw = [], 0, 0.0
                        continue
                    shared.append(replace(load, count=fit))
                    used_ru += fit * load.rack_units
                    used_kw += fit * load.kw
                    left -= fit
                else:
                    per = min(*fits)
                    full, left = divmod(left, per)
                    if full:
                        plans.append(_RackPlan(kind, full, [replace(load, count=per)]))
                    if left:
                        shared = [replace(load, count=left)]
                        used_ru, used_kw = left * load.rack_units, left * load.kw
                        left = 0
        if shared:
            plans.append(_RackPlan(kind, 1, shared))
        return plans

    def compute_racks(self, unit_kw: float, liquid_kw_each: float) -> list[_RackPlan]:
        """The systems' racks. An in-rack CDU takes its units in the rack it cools, sized for that
        rack's liquid heat with the redundancy per rack, so a rack holds the most systems that fit
        with their CDUs; an in-row CDU stands in the row (`in_row_cdus`)."""
        s, r, f = self.i.system, self.i.racks, self.i.facility
        system = _Load(s.name, s.rack_units, self.n_systems, unit_kw, s.weight_kg)
        self.in_rack_cdu = f.cdu is not None and f.cdu.in_rack and liquid_kw_each > 0
        if s.rack_scale:
            self.by_ru = self.by_kw = self.per_rack = 1
            return [_RackPlan("compute", self.n_systems, [replace(system, count=1)], r.pdus_per_rack)]
        fits = self._fits(system)
        if fits is None:
            return []
        self.by_ru, self.by_kw = fits
        per = min(fits)
        if self.in_rack_cdu:
            cdu = f.cdu
            while per > 0 and per * s.rack_units + self.cdus_for(per, liquid_kw_each) * cdu.rack_units > (
                r.rack.rack_units
            ):
                per -= 1
            if per == 0:
                one = self.cdus_for(1, liquid_kw_each)
                need = s.rack_units + one * cdu.rack_units
                self.errors.setdefault(
                    "racks.rack.rack_units",
                    f"one {s.name} ({s.rack_units} U) and its {one} in-rack CDUs ({cdu.rack_units} U each) "
                    f"need {need} U, more than the {r.rack.rack_units} U rack",
                )
                return []
        self.per_rack = per
        per = min(per, self.n_systems)
        full, rest = divmod(self.n_systems, per)
        plans = []
        for racks, n in ((full, per), (1 if rest else 0, rest)):
            if not racks:
                continue
            loads = [replace(system, count=n)]
            if self.in_rack_cdu:
                loads.append(_Load(f.cdu.name, f.cdu.rack_units, self.cdus_for(n, liquid_kw_each), 0.0,
                                   f.cdu.weight_kg))  # fmt: skip
            plans.append(_RackPlan("compute", racks, loads, r.pdus_per_rack))
        return plans

    def cdus_for(self, systems: int, liquid_kw_each: float) -> int:
        """CDUs for the liquid heat of `systems` systems, with margin and redundancy."""
        f = self.i.facility
        if not systems or f.cdu is None:
            return 0
        return _ceil(systems * liquid_kw_each * (1 + f.cdu_margin) / f.cdu.kw) + f.cdu_redundancy

    def count_cdus(self, plans: list[_RackPlan], liquid_kw_each: float) -> None:
        """CDUs per rack (in-rack) or per row of compute racks (in-row), with their formula."""
        f, r = self.i.facility, self.i.racks
        self.n_cdus, self.in_row_cdus = 0, 0
        self.cdu_formula = "CDUs = 0 (no liquid heat)"
        if f.cdu is None or liquid_kw_each <= 0 or not plans:
            return
        if self.in_rack_cdu:
            where = "rack"
            groups = [(p.count, p.loads[0].count) for p in plans]
        else:
            where = "row"
            racks = sum(p.count for p in plans)
            rows = ceil_div(racks, r.racks_per_row)
            per_row = r.racks_per_row * self.per_rack
            last = self.n_systems - (rows - 1) * per_row
            groups = [(rows - 1, per_row), (1, last)] if rows > 1 and last != per_row else [(rows, last)]
        terms, sums = [], []
        for count, systems in groups:
            each = self.cdus_for(systems, liquid_kw_each)
            self.n_cdus += count * each
            terms.append(
                f"{count:,} {where}{'s' if count != 1 else ''} × (⌈{num(systems)} × {num(liquid_kw_each)} "
                f"kW × (1 + {num(f.cdu_margin)} margin) ÷ {num(f.cdu.kw)} kW⌉ + {f.cdu_redundancy} redundant)"
            )
            sums.append(f"{count:,} × {each}")
        if not self.in_rack_cdu:
            self.in_row_cdus = self.n_cdus
        self.cdu_formula = f"CDUs = {' + '.join(terms)} = {' + '.join(sums)} = {self.n_cdus:,}"

    def rack_types(self, plans: list[_RackPlan]) -> tuple[list[RackType], int]:
        """Rack types with their PDUs (by power: ⌈rack kW ÷ PDU kW⌉ + redundancy, and at least the
        planner's PDUs per rack in a compute rack) and their weight."""
        r = self.i.racks
        types: list[RackType] = []
        pdus = 0
        for plan in plans:
            kw = sum(load.count * load.kw for load in plan.loads)
            per_rack_pdus = max(plan.min_pdus, _ceil(kw / r.pdu.kw) + r.pdu_redundancy)
            pdus += plan.count * per_rack_pdus
            weight = sum(load.count * load.weight_kg for load in plan.loads) + per_rack_pdus * r.pdu.weight_kg
            types.append(
                RackType(
                    kind=plan.kind,
                    count=plan.count,
                    slots=(
                        *(RackSlot(load.label, load.rack_units, load.count) for load in plan.loads),
                        RackSlot(r.pdu.name, 0, per_rack_pdus),
                    ),
                    it_kw=round(kw, 3),
                    weight_kg=round(weight, 3),
                )
            )
        return types, pdus

    # --- run -----------------------------------------------------------------------------------
    def run(self) -> SizingResult:
        i, s, f = self.i, self.i.system, self.i.facility
        self.systems()
        compute = self.compute_fabric()
        self.storage()
        storage = self.storage_fabric()
        inband = self.inband()

        system_kw = s.power_w / 1000
        systems_kw = system_kw * self.n_systems
        if f.cooling == Cooling.AIR:
            liquid_share = 0.0
            share_text = "air cooling: no liquid"
        elif f.cooling == Cooling.IMMERSION:
            liquid_share = 1.0
            share_text = "immersion: all of the systems' heat"
        else:
            liquid_share = s.liquid_fraction
            share_text = f"direct liquid: {num(s.liquid_fraction)} of the systems' heat"
        liquid_kw = systems_kw * liquid_share

        # Compute and storage racks first: the CDUs (OOB endpoints) follow from the compute racks.
        system_attached_w = compute.attached_w_per_device.get(
            s.name, 0.0
        ) + storage.attached_w_per_device.get(s.name, 0.0)
        unit_system_kw = system_kw + system_attached_w / 1000
        self.unit_system_kw = unit_system_kw
        compute_plans = self.compute_racks(unit_system_kw, system_kw * liquid_share)
        self.count_cdus(compute_plans, system_kw * liquid_share)
        a = i.storage.appliance
        appliance_kw = a.power_w / 1000 + storage.attached_w_per_device.get(a.name, 0.0) / 1000
        air = self.air_limit_kw()
        storage_plans = self.pack_alone(
            "storage", _Load(a.name, a.rack_units, self.n_appliances, appliance_kw, a.weight_kg), air
        )
        base_types, base_pdus = self.rack_types(compute_plans + storage_plans)

        def switch_loads(fab: _FabricOut, title: str) -> list[_Load]:
            loads = []
            for tier, count in fab.counts_by_tier().items():
                if count:
                    unit_kw = fab.switch.power_w / 1000 + fab.attached_w_by_tier.get(tier, 0.0) / count / 1000
                    loads.append(
                        _Load(f"{fab.switch.name} {title} {tier}", fab.switch.rack_units, count, unit_kw,
                              fab.switch.weight_kg)
                    )  # fmt: skip
            return loads

        fabric_loads = switch_loads(compute, "compute") + switch_loads(storage, "storage")
        fabric_loads += switch_loads(inband, "in-band")
        # The OOB network takes every PDU, and its switches share the network racks, whose PDUs it
        # takes too: iterate to the fixed point (it moves by a switch or two and stops in a few rounds).
        other_switches = compute.switches() + storage.switches() + inband.switches()
        network_pdus = 0
        for _ in range(20):
            saved = len(self.figures)
            oob = self.oob(base_pdus + network_pdus, other_switches)
            network_plans = self.pack_shared("network", fabric_loads + switch_loads(oob, "out-of-band"), air)
            network_types, new_pdus = self.rack_types(network_plans)
            if new_pdus == network_pdus:
                break
            del self.figures[saved:]
            network_pdus = new_pdus
        cabinets = []
        if self.in_row_cdus:
            cabinets.append(
                RackType(
                    kind="cooling",
                    count=self.in_row_cdus,
                    slots=(RackSlot(f.cdu.name, i.racks.rack.rack_units, 1),),
                    it_kw=0.0,
                    weight_kg=f.cdu.weight_kg,
                )
            )
        compute_types = [t for t in base_types if t.kind == "compute"]
        storage_types = [t for t in base_types if t.kind == "storage"]
        self.racks = compute_types + network_types + storage_types + cabinets
        self._management_bom(inband, oob)

        if self.errors:
            raise SizingInputError(self.errors)

        self.rack_figures(base_pdus + network_pdus)
        self.cable_warnings(compute, storage, inband, oob)
        self.power(compute, storage, inband, oob, systems_kw)
        self.cooling(liquid_kw, liquid_share, share_text, self.cdu_formula)
        self.checkpoint()

        switches_by_tier = {}
        for fab, title in (
            (compute, "compute"),
            (storage, "storage"),
            (inband, "in-band"),
            (oob, "out-of-band"),
        ):
            for tier, count in fab.counts_by_tier().items():
                switches_by_tier[f"{title} {tier}"] = count
        return SizingResult(
            engine_version=ENGINE_VERSION,
            figures=tuple(self.figures),
            bom=tuple(self.bom),
            warnings=tuple(self.warnings),
            racks=tuple(self.racks),
            power_by_component_kw=self.power_by_component,
            switches_by_tier=switches_by_tier,
        )

    def cable_warnings(
        self, compute: _FabricOut, storage: _FabricOut, inband: _FabricOut, oob: _FabricOut
    ) -> None:
        """A network whose links have no cable part chosen: its cables are missing from the bill of
        materials, said rather than left as a silent gap."""
        i = self.i
        for out, cable, path, title in (
            (compute, i.compute.cable, "compute.cable", "compute fabric"),
            (storage, i.storage.fabric.cable, "storage.fabric.cable", "storage fabric"),
            (inband, i.management.inband_cable, "management.inband_cable", "in-band management network"),
            (oob, i.management.oob_cable, "management.oob_cable", "out-of-band management network"),
        ):
            if cable is None and out.cables > 0:
                self.warnings.append(
                    SizingWarning(
                        "cable_not_chosen",
                        path,
                        f"no cable part is chosen for the {title}'s {num(out.cables)} links: they are not in "
                        "the bill of materials",
                    )
                )

    def _management_bom(self, inband: _FabricOut, oob: _FabricOut) -> None:
        m = self.i.management
        n_inband, n_oob = inband.switches(), oob.switches()
        self.fig(
            "management.inband_switches",
            "management",
            "In-band management switches",
            n_inband,
            "switches",
            f"in-band switches = {inband.tree.leaves} + {inband.tree.spines} + {inband.tree.cores} = "
            f"{n_inband}",
        )
        self.fig(
            "management.oob_switches",
            "management",
            "Out-of-band management switches",
            n_oob,
            "switches",
            f"out-of-band switches = {oob.tree.leaves} + {oob.tree.spines} + {oob.tree.cores} = {n_oob}",
        )
        self.add_bom(BomRole.INBAND_SWITCH, m.inband_switch.key, n_inband, "management.inband_switches")
        self.add_bom(BomRole.OOB_SWITCH, m.oob_switch.key, n_oob, "management.oob_switches")
        if m.inband_cable is not None:
            self.add_bom(BomRole.INBAND_CABLE, m.inband_cable.key, inband.cables, "fabric.inband.cables")
        if m.oob_cable is not None:
            self.add_bom(BomRole.OOB_CABLE, m.oob_cable.key, oob.cables, "fabric.oob.cables")

    def rack_figures(self, pdus: int) -> None:
        s, r = self.i.system, self.i.racks
        if s.rack_scale:
            self.fig(
                "racks.systems_per_rack",
                "racks",
                "Systems per compute rack",
                1,
                "systems",
                f"systems per rack = 1 ({s.name} is a rack-scale system)",
            )
        else:
            by_ru, by_kw, per = self.by_ru, self.by_kw, self.per_rack
            binds = "space binds" if by_ru < by_kw else ("power binds" if by_kw < by_ru else "both bind")
            self.fig(
                "racks.systems_per_rack_by_space",
                "racks",
                "Systems per rack by rack units",
                by_ru,
                "systems",
                f"by space = ⌊{r.rack.rack_units} U ÷ {s.rack_units} U⌋ = {by_ru}",
                rack_units=r.rack.rack_units,
                system_rack_units=s.rack_units,
            )
            self.fig(
                "racks.systems_per_rack_by_power",
                "racks",
                "Systems per rack by power limit",
                by_kw,
                "systems",
                f"by power = ⌊{num(r.power_limit_kw)} kW ÷ {num(self.unit_system_kw)} kW⌋ = {by_kw}",
                power_limit_kw=r.power_limit_kw,
                system_kw=round(self.unit_system_kw, 6),
            )
            if self.in_rack_cdu:
                cdu = self.i.facility.cdu
                liquid_each = self._liquid_kw_each()
                cdus = self.cdus_for(per, liquid_each)
                formula = (
                    f"systems per rack = {per}: the most of min({by_ru} by space, {by_kw} by power) that fit "
                    f"with their {cdus} in-rack CDUs ({per} × {s.rack_units} U + {cdus} × {cdu.rack_units} U "
                    f"= {per * s.rack_units + cdus * cdu.rack_units} U ≤ {r.rack.rack_units} U)"
                )
            else:
                formula = f"systems per rack = min({by_ru} by space, {by_kw} by power) = {per} ({binds})"
            self.fig("racks.systems_per_rack", "racks", "Systems per compute rack", per, "systems", formula)
        counts = {kind: 0 for kind in ("compute", "network", "storage", "management")}
        for rack in self.racks:
            if rack.kind in counts:
                counts[rack.kind] += rack.count
        for kind, count in counts.items():
            if kind == "compute":
                formula = (
                    f"compute racks = ⌈{num(self.n_systems)} systems ÷ "
                    f"{self._value('racks.systems_per_rack')} per rack⌉ = {count:,}"
                )
            elif kind in ("network", "storage"):
                shared = "every network's switches share them, " if kind == "network" else ""
                formula = (
                    f"{kind} racks = {count:,} ({shared}filled by units and to "
                    f"{num(self.air_limit_kw()[0])} kW air cooling takes)"
                )
            elif kind == "management":
                formula = "management racks = 0 (the management switches share the network racks)"
            else:
                formula = f"{kind} racks = {count:,}"
            self.fig(f"racks.{kind}", "racks", f"{kind.capitalize()} racks", count, "racks", formula)
        total = sum(counts.values())
        self.fig(
            "racks.total",
            "racks",
            "Racks",
            total,
            "racks",
            "racks = " + " + ".join(f"{c:,} {k}" for k, c in counts.items()) + f" = {total:,}",
        )
        positions = total + self.in_row_cdus
        rows = ceil_div(positions, r.racks_per_row)
        cabinets = f" + {self.in_row_cdus:,} in-row CDUs" if self.in_row_cdus else ""
        self.fig(
            "racks.rows",
            "racks",
            "Rows",
            rows,
            "rows",
            f"rows = ⌈({total:,} racks{cabinets}) ÷ {r.racks_per_row} per row⌉ = {rows:,}",
            racks=total,
            racks_per_row=r.racks_per_row,
        )
        self.fig(
            "racks.pdus",
            "racks",
            "PDUs",
            pdus,
            "PDUs",
            f"PDUs = Σ racks × (⌈rack kW ÷ {num(r.pdu.kw)} kW⌉ + {r.pdu_redundancy}), at least "
            f"{r.pdus_per_rack} in a compute rack = {pdus:,}",
            pdus_per_rack=r.pdus_per_rack,
            pdu_kw=r.pdu.kw,
            pdu_redundancy=r.pdu_redundancy,
        )
        racked = [t for t in self.racks if t.kind != "cooling"]
        heaviest = max(racked, key=lambda t: t.weight_kg)
        contents = ", ".join(f"{slot.count} × {slot.label}" for slot in heaviest.slots if slot.count)
        self.fig(
            "racks.max_weight_kg",
            "racks",
            "Heaviest rack",
            heaviest.weight_kg,
            "kg",
            f"heaviest rack = {heaviest.kind}: {contents} = {num(heaviest.weight_kg)} kg",
        )
        limit = r.rack.static_load_kg
        if limit is not None and heaviest.weight_kg > limit + _EPS:
            self.warnings.append(
                SizingWarning(
                    "rack_weight_exceeded",
                    "racks.rack.static_load_kg",
                    f"a {heaviest.kind} rack carries {num(heaviest.weight_kg)} kg ({contents}), over the "
                    f"{num(limit)} kg static load of {r.rack.name}",
                )
            )
        self.add_bom(BomRole.RACK, r.rack.key, total, "racks.total")
        self.add_bom(BomRole.PDU, r.pdu.key, pdus, "racks.pdus")

    def _liquid_kw_each(self) -> float:
        s, f = self.i.system, self.i.facility
        share = {Cooling.AIR: 0.0, Cooling.IMMERSION: 1.0}.get(f.cooling, s.liquid_fraction)
        return s.power_w / 1000 * share

    def power(
        self, compute: _FabricOut, storage: _FabricOut, inband: _FabricOut, oob: _FabricOut, systems_kw: float
    ) -> None:
        i, f = self.i, self.i.facility
        comp = {
            "systems": systems_kw,
            "compute switches": compute.switches() * compute.switch.power_w / 1000,
            "storage switches": storage.switches() * storage.switch.power_w / 1000,
            "management switches": (
                inband.switches() * inband.switch.power_w + oob.switches() * oob.switch.power_w
            )
            / 1000,
            "optics": sum(x.optics_w + x.cable_w for x in (compute, storage, inband, oob)) / 1000,
            "storage": self.n_appliances * i.storage.appliance.power_w / 1000,
        }
        self.power_by_component = {k: round(v, 3) for k, v in comp.items()}
        self.fig(
            "power.systems_kw",
            "power",
            "Systems",
            round(systems_kw, 3),
            "kW",
            f"systems = {num(self.n_systems)} × {num(i.system.power_w / 1000)} kW = {num(systems_kw)} kW",
        )
        n_opt = compute.optics + storage.optics
        self.fig(
            "power.optics_kw",
            "power",
            "Optics and active cables",
            round(comp["optics"], 3),
            "kW",
            f"optics = {num(n_opt)} transceivers and active cable ends = {num(comp['optics'])} kW",
        )
        it_kw = sum(comp.values())
        self.fig(
            "power.it_kw",
            "power",
            "IT load",
            round(it_kw, 3),
            "kW",
            "IT load = " + " + ".join(f"{num(v)} {k}" for k, v in comp.items() if v) + f" = {num(it_kw)} kW",
            **{k.replace(" ", "_") + "_kw": round(v, 3) for k, v in comp.items()},
        )
        facility_kw = it_kw * f.pue
        self.fig(
            "power.facility_kw",
            "power",
            "Facility load",
            round(facility_kw, 3),
            "kW",
            f"facility load = {num(it_kw)} kW × PUE {num(f.pue)} = {num(facility_kw)} kW",
            it_kw=round(it_kw, 3),
            pue=f.pue,
        )
        self.fig(
            "power.it_mw",
            "power",
            "IT load",
            round(it_kw / 1000, 6),
            "MW",
            f"IT load = {num(it_kw)} kW ÷ 1,000 = {num(it_kw / 1000)} MW",
        )
        self.fig(
            "power.facility_mw",
            "power",
            "Facility load",
            round(facility_kw / 1000, 6),
            "MW",
            f"facility load = {num(facility_kw)} kW ÷ 1,000 = {num(facility_kw / 1000)} MW",
        )
        densest = max(self.racks, key=lambda t: t.it_kw)
        self.max_rack_kw = densest.it_kw
        self.fig(
            "power.max_rack_kw",
            "power",
            "Densest rack",
            densest.it_kw,
            "kW",
            f"densest rack = {densest.slots[0].count} × {densest.slots[0].label} = {num(densest.it_kw)} kW",
        )
        if f.site_power_mw is not None and facility_kw / 1000 > f.site_power_mw + _EPS:
            self.warnings.append(
                SizingWarning(
                    "site_power_exceeded",
                    "facility.site_power_mw",
                    f"the facility load of {num(facility_kw / 1000)} MW exceeds the site's "
                    f"{num(f.site_power_mw)} MW",
                )
            )
        if densest.it_kw > self.i.racks.power_limit_kw + _EPS:
            self.warnings.append(
                SizingWarning(
                    "rack_power_exceeded",
                    "racks.power_limit_kw",
                    f"a {densest.slots[0].label} rack draws {num(densest.it_kw)} kW, over the "
                    f"{num(self.i.racks.power_limit_kw)} kW limit",
                )
            )

    def cooling(self, liquid_kw: float, share: float, share_text: str, cdu_formula: str) -> None:
        f = self.i.facility
        heat = self._figure_value("power.it_kw")
        self.fig(
            "cooling.heat_kw", "cooling", "Heat to remove", heat, "kW", f"heat = IT load = {num(heat)} kW"
        )
        self.fig(
            "cooling.liquid_kw",
            "cooling",
            "Heat removed by liquid",
            round(liquid_kw, 3),
            "kW",
            f"liquid = {num(self._figure_value('power.systems_kw'))} kW systems × {num(share)} "
            f"({share_text}) = {num(liquid_kw)} kW",
        )
        air = heat - liquid_kw
        self.fig(
            "cooling.air_kw",
            "cooling",
            "Heat removed by air",
            round(air, 3),
            "kW",
            f"air = {num(heat)} − {num(liquid_kw)} = {num(air)} kW",
        )
        needs_liquid = self.max_rack_kw > f.air_max_kw_per_rack + _EPS
        self.fig(
            "cooling.liquid_required",
            "cooling",
            "Rack density needs liquid cooling",
            int(needs_liquid),
            "yes/no",
            f"densest rack {num(self.max_rack_kw)} kW {'>' if needs_liquid else '≤'} "
            f"{num(f.air_max_kw_per_rack)} kW air limit",
        )
        if needs_liquid and f.cooling == Cooling.AIR:
            self.warnings.append(
                SizingWarning(
                    "liquid_required",
                    "facility.cooling",
                    f"racks of {num(self.max_rack_kw)} kW are beyond air cooling (about "
                    f"{num(f.air_max_kw_per_rack)} kW per rack): choose liquid cooling",
                )
            )
        if f.cooling != Cooling.AIR and liquid_kw == 0:
            self.warnings.append(
                SizingWarning(
                    "no_liquid_load",
                    "system.liquid_fraction",
                    f"{f.cooling} cooling was chosen but {self.i.system.name} puts no heat into liquid",
                )
            )
        cdu_inputs: dict[str, Any] = {"liquid_kw": round(liquid_kw, 3), "redundancy": f.cdu_redundancy}
        if f.cdu is not None:
            cdu_inputs.update(cdu_kw=f.cdu.kw, margin=f.cdu_margin)
        self.fig(
            "cooling.cdus",
            "cooling",
            "Coolant distribution units",
            self.n_cdus,
            "CDUs",
            cdu_formula,
            **cdu_inputs,
        )
        if f.cdu is not None:
            self.add_bom(BomRole.CDU, f.cdu.key, self.n_cdus, "cooling.cdus")

    def _figure_value(self, key: str) -> float:
        for item in reversed(self.figures):
            if item.key == key:
                return item.value
        raise KeyError(key)

    def checkpoint(self) -> None:
        i, t = self.i, self.i.training
        size_gb = t.params_billion * t.bytes_per_param
        self.fig(
            "checkpoint.size_gb",
            "checkpoint",
            "Checkpoint size",
            size_gb,
            "GB",
            f"size = {num(t.params_billion)} B params × {num(t.bytes_per_param)} bytes = {num(size_gb)} GB",
        )
        sf = i.storage.fabric
        injection = self.n_systems * i.system.storage_ports * sf.switch.port_gbps / 8
        storage_w = self.storage_write_gbs
        if injection and injection < storage_w:
            bw, binds = injection, "the systems' storage ports bind"
        else:
            bw, binds = storage_w, "the storage appliances bind"
        self.fig(
            "checkpoint.write_gbs",
            "checkpoint",
            "Checkpoint write bandwidth",
            bw,
            "GB/s",
            f"write bandwidth = min({num(storage_w)} GB/s storage, {num(self.n_systems)} systems × "
            f"{i.system.storage_ports} ports × {sf.switch.port_gbps} Gb/s ÷ 8 = {num(injection)} GB/s) = "
            f"{num(bw)} GB/s ({binds})",
        )
        delta = size_gb / bw
        self.fig(
            "checkpoint.write_seconds",
            "checkpoint",
            "Checkpoint write time δ",
            delta,
            "s",
            f"δ = {num(size_gb)} GB ÷ {num(bw)} GB/s = {num(delta)} s",
            size_gb=size_gb,
            write_gbs=bw,
        )
        if t.gpu_mtbf_hours is not None:
            mtbf = t.gpu_mtbf_hours * 3600 / i.gpus
            text = f"M = {num(t.gpu_mtbf_hours)} h per-GPU MTBF ÷ {num(i.gpus)} GPUs = {num(mtbf / 3600)} h"
        else:
            mtbf = 86400 / t.cluster_interruptions_per_day
            per_day = t.cluster_interruptions_per_day
            text = f"M = 24 h ÷ {num(per_day)} interruptions a day = {num(mtbf / 3600)} h"
        mtbf_inputs: dict[str, Any] = (
            {"gpu_mtbf_hours": t.gpu_mtbf_hours, "gpus": i.gpus}
            if t.gpu_mtbf_hours is not None
            else {"interruptions_per_day": t.cluster_interruptions_per_day}
        )
        self.fig(
            "checkpoint.mtbf_hours", "checkpoint", "Cluster MTBF M", mtbf / 3600, "h", text, **mtbf_inputs
        )
        young = ckpt.young_interval(delta, mtbf)
        self.fig(
            "checkpoint.young_minutes",
            "checkpoint",
            "Optimal interval (Young)",
            young / 60,
            "min",
            f"τ = √(2 × {num(delta)} s × {num(mtbf)} s) = {num(young)} s = {num(young / 60)} min",
            delta_s=delta,
            mtbf_s=mtbf,
        )
        daly = ckpt.daly_interval(delta, mtbf)
        if delta < 2 * mtbf:
            ratio = delta / (2 * mtbf)
            daly_text = (
                f"τ = {num(young)} s × [1 + ⅓√{num(ratio)} + {num(ratio)}/9] − {num(delta)} s "
                f"= {num(daly)} s = {num(daly / 60)} min"
            )
        else:
            daly_text = f"δ = {num(delta)} s ≥ 2M: τ = M = {num(mtbf)} s = {num(daly / 60)} min"
            self.warnings.append(
                SizingWarning(
                    "checkpoint_slower_than_failures",
                    "training.params_billion",
                    f"writing a checkpoint ({num(delta)} s) takes at least twice the cluster MTBF "
                    f"({num(mtbf)} s)",
                )
            )
        self.fig(
            "checkpoint.daly_minutes",
            "checkpoint",
            "Optimal interval (Daly)",
            daly / 60,
            "min",
            daly_text,
            delta_s=delta,
            mtbf_s=mtbf,
        )
        restart = t.restart_minutes * 60
        lost = ckpt.work_lost_per_failure(daly, restart)
        self.fig(
            "checkpoint.work_lost_minutes",
            "checkpoint",
            "Work lost per failure",
            lost / 60,
            "min",
            f"lost per failure = τ/2 + R = {num(daly / 60)}/2 + {num(t.restart_minutes)} = {num(lost / 60)} "
            "min",
        )
        frac = ckpt.fraction_lost(daly, delta, mtbf, restart)
        self.fig(
            "checkpoint.fraction_lost_pct",
            "checkpoint",
            "Time lost to checkpoints and failures",
            frac * 100,
            "%",
            f"lost = δ/τ + (τ/2 + R)/M = {num(delta)}/{num(daly)} + ({num(daly / 2)} + "
            f"{num(restart)})/{num(mtbf)} = {num(frac * 100)} %",
        )
        if frac >= 1:
            self.warnings.append(
                SizingWarning(
                    "checkpoint_no_progress",
                    "training.gpu_mtbf_hours"
                    if t.gpu_mtbf_hours is not None
                    else "training.cluster_interruptions_per_day",
                    f"checkpoints and failures cost {num(frac * 100)} % of the time even at the optimum "
                    f"interval: the cluster makes no progress (a failure every {num(mtbf / 3600)} h, "
                    f"{num(t.restart_minutes)} min to restart, {num(delta)} s to write a checkpoint)",
                )
            )
        if t.chosen_interval_minutes is not None:
            chosen = t.chosen_interval_minutes * 60
            frac_c = ckpt.fraction_lost(chosen, delta, mtbf, restart)
            self.fig(
                "checkpoint.chosen_fraction_lost_pct",
                "checkpoint",
                "Time lost at the chosen interval",
                frac_c * 100,
                "%",
                f"lost = {num(delta)}/{num(chosen)} + ({num(chosen / 2)} + {num(restart)})/{num(mtbf)} = "
                f"{num(frac_c * 100)} % "
                f"at every {num(t.chosen_interval_minutes)} min",
            )
            extra = frac_c - frac
            self.fig(
                "checkpoint.chosen_extra_pct",
                "checkpoint",
                "Extra time lost against the optimum",
                extra * 100,
                "%",
                f"extra = {num(frac_c * 100)} % − {num(frac * 100)} % = {num(extra * 100)} %",
            )
            if frac_c >= 1:
                self.warnings.append(
                    SizingWarning(
                        "checkpoint_chosen_no_progress",
                        "training.chosen_interval_minutes",
                        f"at a checkpoint every {num(t.chosen_interval_minutes)} min, checkpoints and "
                        f"failures cost {num(frac_c * 100)} % of the time: the cluster makes no progress",
                    )
                )
            gpu_hours = extra * i.gpus * 24
            self.fig(
                "checkpoint.chosen_extra_gpu_hours_per_day",
                "checkpoint",
                "GPU-hours lost a day against the optimum",
                gpu_hours,
                "GPU-h/day",
                f"{num(extra * 100)} % × {num(i.gpus)} GPUs × 24 h = {num(gpu_hours)} GPU-hours a day",
            )


def size(inputs: DesignInputs) -> SizingResult:
    """Size a cluster design; SizingInputError (every bad input named) when it cannot be sized."""
    validate(inputs)
    return _Sizer(inputs).run()


def what_if(inputs: DesignInputs, gpu_counts: list[int]) -> list[dict[str, Any]]:
    """The design sized at other GPU counts, for the page's what-if table: one JSON-safe dict per
    count, {"gpus", "systems", "switches", "optics", "cables", "it_mw", "facility_mw", "racks"},
    or {"gpus", "error": {path: message}} when that count cannot be sized."""
    rows: list[dict[str, Any]] = []
    for gpus in gpu_counts:
        try:
            result = size(replace(inputs, gpus=gpus))
        except SizingInputError as exc:
            rows.append({"gpus": gpus, "error": dict(exc.errors)})
            continue
        optics = sum(
            result.value(f"fabric.{name}.optics.{side}")
            for name in ("compute", "storage")
            for side in ("node", "switch")
        )
        cables = sum(
            result.value(f"fabric.{name}.cables") for name in ("compute", "storage", "inband", "oob")
        )
        rows.append(
            {
                "gpus": gpus,
                "systems": result.value("systems.systems"),
                "switches": sum(result.switches_by_tier.values()),
                "compute_switches": sum(
                    v for k, v in result.switches_by_tier.items() if k.startswith("compute ")
                ),
                "optics": optics,
                "cables": cables,
                "it_mw": result.value("power.it_mw"),
                "facility_mw": result.value("power.facility_mw"),
                "racks": result.value("racks.total"),
            }
        )
    return rows
