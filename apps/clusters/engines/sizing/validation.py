"""Input validation: every input of a design checked before anything is sized, and one
`SizingInputError` naming each bad input by its dotted path (`compute.switch.ports`,
`facility.cdu` …); nothing is defaulted silently.
"""

from __future__ import annotations

import math
from typing import Any

from ..types import (
    CableSpec,
    Cooling,
    DesignInputs,
    FabricInputs,
    OpticSpec,
    SizingInputError,
    SwitchSpec,
)
from .common import num


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
