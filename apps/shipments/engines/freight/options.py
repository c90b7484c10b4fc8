"""Freight options and the choice of mode: every applicable rate priced for a load (air and road
by chargeable weight, ocean by its container plan), and the recommendation among them, a split
(compact, time-critical hardware by air, the rest by sea) included.

Dates: departure is the ready date and arrival is departure + the rate's transit days; there are
no sailing schedules, cut-offs or port dwell times.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from .air import AIRCRAFT_ANY, air_acceptance, air_chargeable_weight
from .common import (
    _CM3_PER_M3,
    AIR_FIRST,
    AIR_VOLUMETRIC_DIVISOR,
    DEFAULT_LIMITS,
    MODES,
    ROAD_VOLUMETRIC_DIVISOR,
    CannotCarryError,
    FreightLimits,
    Mode,
    Piece,
    Rate,
    _applicable_rates,
    _days,
    _fmt_money,
    _fmt_price,
    _fmt_qty,
    _labelled,
    money,
)
from .ocean import OceanPlan, plan_ocean

# ---------------------------------------------------------------------------------------------
# Options


@dataclass
class FreightOption:
    """One priced way to move the pieces under one rate."""

    mode: Mode
    service: str
    carrier: str
    cost: Decimal
    currency: str
    transit_days: int
    departure: date
    arrival: date
    on_time: bool | None
    chargeable_kg: Decimal | None
    ocean_plan: OceanPlan | None
    breakdown: list[str]
    pieces_labels: tuple[str, ...]
    aircraft: str = ""  # for air: AIRCRAFT_ANY, AIRCRAFT_CARGO_ONLY or AIRCRAFT_MAIN_DECK

    def summary(self) -> str:
        """'Ocean FCL 1×40HC', 'Air freight (Cathay Cargo)'."""
        text = self.service
        if self.ocean_plan is not None and self.ocean_plan.chosen == "FCL":
            text += f" {self.ocean_plan.container_summary}"
        if self.carrier:
            text += f" ({self.carrier})"
        return text

    def late_by_days(self, required_by: date) -> int:
        return max(0, (self.arrival - required_by).days)


def _price(
    rate: Rate,
    pieces: list[Piece],
    ready_date: date,
    required_by: date | None,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> FreightOption:
    """Price the pieces under one rate; ValueError when the rate cannot carry them."""
    currency = rate.currency
    breakdown: list[str] = []
    chargeable: Decimal | None = None
    plan: OceanPlan | None = None
    aircraft = ""
    if rate.mode == "air":
        aircraft, why = air_acceptance(pieces, limits)
        breakdown.extend(why)
        if aircraft != AIRCRAFT_ANY:
            breakdown.append(f"{aircraft}: confirm the rate covers freighter space")
    if rate.mode in ("air", "road"):
        divisor = AIR_VOLUMETRIC_DIVISOR if rate.mode == "air" else ROAD_VOLUMETRIC_DIVISOR
        weight = air_chargeable_weight(pieces, divisor)
        chargeable = weight.chargeable_kg
        assert rate.price_per_kg is not None  # checked in Rate
        cost = money(chargeable * rate.price_per_kg)
        kg_per_m3 = (_CM3_PER_M3 / divisor).quantize(Decimal(1))
        breakdown.append(
            f"gross {_fmt_qty(weight.gross_kg)} kg, volumetric {_fmt_qty(weight.volumetric_kg)} kg "
            f"({_fmt_qty(weight.volume_m3)} m³ at 1 m³ = {_fmt_qty(kg_per_m3)} kg, "
            f"L×W×H cm / {_fmt_qty(divisor)}); the greater, rounded up to 0.5 kg, is chargeable"
        )
        breakdown.append(
            f"{_fmt_qty(chargeable)} kg chargeable × {_fmt_price(rate.price_per_kg)} {currency}/kg = "
            f"{_fmt_money(cost)} {currency}"
        )
        service = rate.service or ("Air freight" if rate.mode == "air" else "Road freight")
    else:
        plan = plan_ocean(
            pieces,
            rate.container_prices,
            rate.price_per_cbm,
            rate.price_per_tonne,
            lcl_minimum=rate.minimum_charge,
            limits=limits,
        )
        cost = plan.cost
        breakdown.extend(plan.reasons)
        breakdown.append(f"Ocean {plan.chosen}: {_fmt_money(cost)} {currency}")
        if rate.service:
            service = rate.service if plan.chosen in rate.service else f"{rate.service} ({plan.chosen})"
        else:
            service = f"Ocean {plan.chosen}"
    if cost < rate.minimum_charge:
        breakdown.append(
            f"below the minimum charge, so {_fmt_money(rate.minimum_charge)} {currency} "
            f"(instead of {_fmt_money(cost)})"
        )
        cost = money(rate.minimum_charge)
    arrival = ready_date + timedelta(days=rate.transit_days)
    return FreightOption(
        mode=rate.mode,
        service=service,
        carrier=rate.carrier,
        cost=cost,
        currency=currency,
        transit_days=rate.transit_days,
        departure=ready_date,
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
        chargeable_kg=chargeable,
        ocean_plan=plan,
        breakdown=breakdown,
        pieces_labels=tuple(p.label for p in pieces),
        aircraft=aircraft,
    )


def _options(
    pieces: list[Piece],
    rates: list[Rate],
    ready_date: date,
    required_by: date | None,
    limits: FreightLimits = DEFAULT_LIMITS,
    priced: dict[int, FreightOption | ValueError] | None = None,
) -> tuple[list[FreightOption], list[str]]:
    """Options for the rates that can carry the pieces, and a note for each that cannot.

    `priced` (by id of the rate) keeps what each rate made of these pieces: asked again for another
    date, a rate's option is only moved to it, not priced again (a route prices its legs after the
    hub twice: for their fastest transit, then from the day the goods reach the hub)."""
    options, notes = [], []
    for rate in rates:
        try:
            known = None if priced is None else priced.get(id(rate))
            if known is None:
                try:
                    known = _price(rate, pieces, ready_date, required_by, limits)
                except ValueError as error:
                    known = error
                if priced is not None:
                    priced[id(rate)] = known
            if isinstance(known, ValueError):
                raise known
            options.append(_dated(known, ready_date, required_by))
        except ValueError as error:
            notes.append(f"{rate.mode} rate {rate.carrier or rate.service or rate.lane} skipped: {error}")
    options.sort(key=lambda o: (o.cost, o.arrival, o.mode))
    return options, notes


def _dated(option: FreightOption, departure: date, required_by: date | None) -> FreightOption:
    """The option leaving on `departure` (its price does not depend on the day)."""
    if option.departure == departure and option.on_time == (
        None if required_by is None else option.arrival <= required_by
    ):
        return option
    arrival = departure + timedelta(days=option.transit_days)
    return replace(
        option,
        departure=departure,
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
        breakdown=list(option.breakdown),
    )


def freight_options(
    pieces: Iterable[Piece],
    rates: Iterable[Rate],
    ready_date: date,
    required_by: date | None = None,
    *,
    origin_country: str | None = None,
    destination_country: str | None = None,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> list[FreightOption]:
    """One option per rate valid on the ready date (optionally only on the given lane), by cost.

    Raises NoRateError when no rate applies, RateTableConflict for mixed currencies or lanes, and
    CannotCarryError when rates apply but none can carry the load (saying why for each).
    """
    items = _labelled(pieces)
    applicable = _applicable_rates(rates, ready_date, origin_country, destination_country)
    options, notes = _options(items, applicable, ready_date, required_by, limits)
    if not options:
        raise CannotCarryError("No rate can carry this load: " + "; ".join(notes))
    return options


# Recommendation


@dataclass
class SplitPlan:
    """Air for the time-critical, compact hardware and ocean for the rest."""

    air: FreightOption
    ocean: FreightOption
    cost: Decimal
    arrival: date
    on_time: bool | None


@dataclass
class Recommendation:
    """Exactly one of `option` (one mode for everything) and `split` is set. `options` lists the
    single-mode options considered, cheapest first."""

    option: FreightOption | None
    split: SplitPlan | None
    reasons: list[str]
    options: list[FreightOption] = field(default_factory=list)


def _describe(option: FreightOption) -> str:
    cost = f"{_fmt_money(option.cost)} {option.currency}"
    return f"{option.summary()}, {cost}, arrives {option.arrival.isoformat()}"


def _alternatives(chosen: FreightOption, options: list[FreightOption], required_by: date | None) -> str:
    """'air would cost 48,300.00 USD' for the cheapest option of each other mode."""
    parts = []
    for mode in MODES:
        if mode == chosen.mode:
            continue
        of_mode = [o for o in options if o.mode == mode]
        if not of_mode:
            continue
        cheapest = min(of_mode, key=lambda o: (o.cost, o.arrival))
        text = f"{mode} would cost {_fmt_money(cheapest.cost)} {cheapest.currency}"
        if required_by is not None and not cheapest.on_time:
            text += f" but arrive {_days(cheapest.late_by_days(required_by))} late"
        parts.append(text)
    return "; " + "; ".join(parts) if parts else ""


def _best_leg(options: list[FreightOption], required_by: date | None) -> FreightOption | None:
    candidates = options if required_by is None else [o for o in options if o.on_time]
    return min(candidates, key=lambda o: (o.cost, o.arrival), default=None)


def _consider_split(
    items: list[Piece],
    rates: list[Rate],
    ready_date: date,
    required_by: date | None,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> tuple[SplitPlan | None, list[str]]:
    by_air = [p for p in items if p.category in AIR_FIRST]
    by_sea = [p for p in items if p.category not in AIR_FIRST]
    if not by_air or not by_sea or not {"air", "ocean"} <= {r.mode for r in rates}:
        return None, []
    air_options, air_notes = _options(
        by_air, [r for r in rates if r.mode == "air"], ready_date, required_by, limits
    )
    sea_options, sea_notes = _options(
        by_sea, [r for r in rates if r.mode == "ocean"], ready_date, required_by, limits
    )
    air, sea = _best_leg(air_options, required_by), _best_leg(sea_options, required_by)
    if air is None or sea is None:
        missing = "air" if air is None else "ocean"
        when = "" if required_by is None else f" arriving by {required_by.isoformat()}"
        return None, [f"No split: no {missing} option{when} for its share", *air_notes, *sea_notes]
    arrival = max(air.arrival, sea.arrival)
    split = SplitPlan(
        air=air,
        ocean=sea,
        cost=money(air.cost + sea.cost),
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
    )
    return split, []


def _split_legs(split: SplitPlan, items: list[Piece]) -> str:
    text = (
        f"air for {', '.join(split.air.pieces_labels)} ({_describe(split.air)}) and ocean for "
        f"{', '.join(split.ocean.pieces_labels)} ({_describe(split.ocean)})"
    )
    total_value = sum((p.value for p in items), Decimal(0))
    if total_value > 0:
        air_value = sum((p.value for p in items if p.category in AIR_FIRST), Decimal(0))
        share = (air_value / total_value * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        text += f"; the air leg carries {share} % of the goods value"
    return text


def recommend(
    pieces: Iterable[Piece],
    rates: Iterable[Rate],
    ready_date: date,
    required_by: date | None = None,
    *,
    origin_country: str | None = None,
    destination_country: str | None = None,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> Recommendation:
    """The cheapest option arriving by `required_by` (or the cheapest at all without a date); if
    none is on time, the earliest arrival. Then a split (AIR_FIRST categories by air, the rest by
    ocean) replaces it when the split is on time and cheaper, or on time where the single is not.
    """
    items = _labelled(pieces)
    applicable = _applicable_rates(rates, ready_date, origin_country, destination_country)
    options, notes = _options(items, applicable, ready_date, required_by, limits)
    split, split_notes = _consider_split(items, applicable, ready_date, required_by, limits)
    if not options and split is None:
        raise CannotCarryError("No rate can carry this load: " + "; ".join(notes + split_notes))

    reasons: list[str] = []
    single: FreightOption | None = None
    if options:
        if required_by is None:
            single = options[0]
            reasons.append(f"No required date: cheapest option is {_describe(single)}")
        else:
            on_time = [o for o in options if o.on_time]
            if on_time:
                single = on_time[0]  # options are sorted by cost
                reasons.append(
                    f"Cheapest option arriving by {required_by.isoformat()}: {_describe(single)}"
                    f"{_alternatives(single, options, required_by)}"
                )
            else:
                single = min(options, key=lambda o: (o.arrival, o.cost))
                reasons.append(
                    f"No option arrives by {required_by.isoformat()}: the earliest is {_describe(single)}, "
                    f"{_days(single.late_by_days(required_by))} late"
                )
    reasons.extend(notes)

    if split is not None:
        legs = _split_legs(split, items)
        total = f"{_fmt_money(split.cost)} {split.air.currency}"
        split_ok = split.on_time is not False
        if single is None and split_ok:
            reasons.append(f"Split shipment: {legs}; total {total}; no single mode carries everything")
            return Recommendation(option=None, split=split, reasons=reasons, options=options)
        if single is not None and split_ok and split.cost < single.cost:
            saving = _fmt_money(single.cost - split.cost)
            reasons.append(
                f"Split shipment instead: {legs}; total {total}, {saving} {split.air.currency} less than "
                f"{single.summary()}"
            )
            return Recommendation(option=None, split=split, reasons=reasons, options=options)
        if single is not None and split.on_time and not single.on_time:
            reasons.append(
                f"Split shipment instead: {legs}; total {total}, arriving {split.arrival.isoformat()} "
                f"by the required date, which no single option does"
            )
            return Recommendation(option=None, split=split, reasons=reasons, options=options)
        if single is not None:
            if split.on_time is False:
                why = f"arriving {split.arrival.isoformat()}, after {required_by}"
            else:
                why = f"{_fmt_money(split.cost - single.cost)} {split.air.currency} more"
            reasons.append(f"Splitting would cost {total}, {why}: {legs}")
    reasons.extend(split_notes)
    return Recommendation(option=single, split=None, reasons=reasons, options=options)


# ---------------------------------------------------------------------------------------------
