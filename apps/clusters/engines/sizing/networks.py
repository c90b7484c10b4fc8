"""The four networks sized: the compute fabric, the storage fabric, and the in-band and
out-of-band management networks, each as a fat tree with its switches per tier, cables,
transceivers, the power they attach, and their bill of materials. The tree arithmetic itself
(spines, cores, pods) is `engines/fabric.py`.

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
"""

from __future__ import annotations

from dataclasses import dataclass

from ..fabric import Tree, TreeError, build_tree, ceil_div
from ..types import (
    BomRole,
    CableSpec,
    FabricInputs,
    OpticSpec,
    SizingWarning,
    SwitchSpec,
    Topology,
)
from .common import (
    SizerBase,
    _FabricOut,
    _floor,
    num,
)


@dataclass(frozen=True)
class _Endpoints:
    label: str  # "DGX H100", "storage appliance"
    devices: int
    links_each: int


_EMPTY_TREE = Tree(tiers=0, leaves=0, spines=0, cores=0, leaf_spine_links=0, spine_core_links=0)


class NetworkSizing(SizerBase):
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
