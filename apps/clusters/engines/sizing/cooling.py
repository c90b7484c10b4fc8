"""Cooling: the heat removed by liquid and by air, whether the densest rack needs liquid, and
the coolant distribution units. An in-rack CDU is sized for its rack's liquid heat with the
redundancy per rack (it takes units in the rack it cools: see `racks`); an in-row CDU serves a
row of compute racks, with the redundancy per row, and stands in the row as a cabinet.
"""

from __future__ import annotations

from typing import Any

from ..fabric import ceil_div
from ..types import (
    BomRole,
    Cooling,
    SizingWarning,
)
from .common import (
    _EPS,
    SizerBase,
    _ceil,
    _RackPlan,
    num,
)


class CoolingSizing(SizerBase):
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

    def _liquid_kw_each(self) -> float:
        s, f = self.i.system, self.i.facility
        share = {Cooling.AIR: 0.0, Cooling.IMMERSION: 1.0}.get(f.cooling, s.liquid_fraction)
        return s.power_w / 1000 * share

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
