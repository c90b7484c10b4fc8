"""Power: the IT load by component (systems, switches, optics and active cables, storage), the
facility load through the PUE, in kW and MW, and the densest rack; warnings when the site or a
rack's power limit is exceeded.
"""

from __future__ import annotations

from ..types import (
    SizingWarning,
)
from .common import (
    _EPS,
    SizerBase,
    _FabricOut,
    num,
)


class PowerSizing(SizerBase):
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
