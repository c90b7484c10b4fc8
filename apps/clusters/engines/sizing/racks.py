"""Racks and their elevation: what each rack type holds, how many of each, PDUs, rows and the
heaviest rack.

A compute rack holds min(by units, by power) systems, fewer where its in-rack CDUs (sized for
that rack's liquid heat, with the redundancy per rack) need the units. Every network's switches
share network racks, filled in order by units and power; switch and storage racks, cooled by air,
are filled to min(rack limit, air limit). PDUs per rack = ⌈rack kW ÷ PDU kW⌉ + redundancy, at
least the planner's count in a compute rack.
"""

from __future__ import annotations

from dataclasses import replace

from ..fabric import ceil_div
from ..types import (
    BomRole,
    RackSlot,
    RackType,
    SizingWarning,
)
from .common import (
    _EPS,
    _ceil,
    _floor,
    _Load,
    _RackPlan,
    num,
)
from .cooling import CoolingSizing


class RackSizing(CoolingSizing):
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
