"""The whole sizing: the subjects' steps run in order (systems and storage, the networks, racks
and CDUs, the out-of-band network to its fixed point, power, cooling, checkpointing) and the
result gathered; `what_if` sizes the design again at other GPU counts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..types import (
    ENGINE_VERSION,
    Cooling,
    DesignInputs,
    RackSlot,
    RackType,
    SizingInputError,
    SizingResult,
)
from .checkpointing import CheckpointSizing
from .common import (
    _FabricOut,
    _Load,
    num,
)
from .networks import NetworkSizing
from .power import PowerSizing
from .racks import RackSizing
from .systems import SystemsSizing
from .validation import validate


class _Sizer(SystemsSizing, NetworkSizing, RackSizing, PowerSizing, CheckpointSizing):
    """Every subject's steps on one design; `run` calls them in order."""

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
