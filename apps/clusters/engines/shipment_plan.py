"""A cluster's shipment plan: which bill-of-materials lines travel together, from where, by air or
by sea, and what the freight costs on the rate table.

No Django imports: `apps/clusters/shipment_plan.py` adapts the BOM, the site and the rate table to
these dataclasses. Freight is priced with the shipments app's freight engine
(`apps.shipments.engines.freight`): a direct shipment with `freight_options` on its lane, a
consolidation leg by leg with `plan_route`. A proposal the rate table cannot price says so
(`cost` None and the lane that has no rate) rather than show a made-up figure.

Each line has its own ready date: the day its supplier has the goods ready to ship (the plan's
date plus the BOM line's lead time), or the plan's date when it gives none.

How a line's mode is chosen, by the required date (each line says why):
- Every line goes by sea when the fastest ocean rate valid on its ready date (direct, or through
  the hub) arrives by the required date: 64 DGX servers ready in January for a March need go by
  sea, at a fraction of the air freight. Otherwise by air, saying when the ocean would have
  arrived (or that no ocean rate serves the lane).
- Without a required date, light, high-value hardware (GPU systems, accelerators, NICs, switches,
  optics, storage — the freight engine's AIR_FIRST categories — up to `heavy_kg` a unit) goes by
  air; everything else (racks, CDUs, PDUs, cables, UPS, anything heavier) by sea.
- A line ready after the required date is late whatever the mode: it flies, and says so.
- A line is grouped with the others of its origin and ready date: its supplier (manufacturer),
  its country of origin and the day it is ready. Where one mode's goods come from two or more
  countries that have rates to the hub and the hub has a rate on to the site, they are
  consolidated there (an inbound leg per origin, leaving on its ready date, then one main
  carriage once the last has arrived); the others go direct, leaving on their ready date.

Each proposal says why in `reasons` (its grouping, its mode, its total and arrival); the freight
engine's working, which quotes the rate card, is kept apart in `breakdown` for operator staff.

Simplifications, on purpose: pieces are the catalogue units as they are (one unit a piece, the
part's weight and dimensions; packaging is not known before packing); goods are ready on
their line's ready date at the factory; transit is the rate's transit days.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from apps.shipments.engines import freight

CENT = Decimal("0.01")
DEFAULT_HEAVY_KG = Decimal("500")
AIR = "air"
OCEAN = "ocean"
DIRECT = "direct"
CONSOLIDATED = "consolidated"


class PlanError(ValueError):
    """An input the plan cannot use, naming it (`field`: the input or the BOM line)."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name
        self.message = message


@dataclass(frozen=True)
class PlanLine:
    """One bill-of-materials line as the plan reads it. `key` identifies it (the BOM line id);
    weights and dimensions are one unit's; `unit_value` is in `currency`."""

    key: str
    description: str
    category: str
    quantity: int
    unit_weight_kg: Decimal
    length_cm: Decimal
    width_cm: Decimal
    height_cm: Decimal
    unit_value: Decimal
    currency: str
    country_of_origin: str
    supplier: str
    dangerous_goods: tuple[freight.DangerousGoods, ...] = ()
    # The day the supplier has it ready to ship; None: the plan's own `ready_date`.
    ready_date: date | None = None

    @property
    def gross_kg(self) -> Decimal:
        return self.unit_weight_kg * self.quantity

    @property
    def value(self) -> Decimal:
        return self.unit_value * self.quantity


@dataclass(frozen=True)
class Hub:
    """The consolidation warehouse (the demo's Singapore bonded hub) and what it charges a gross kg."""

    name: str
    country: str
    handling_per_kg: Decimal | None = None
    handling_minimum: Decimal = Decimal("0")
    handling_currency: str = ""


@dataclass(frozen=True)
class PlanInputs:
    lines: tuple[PlanLine, ...]
    destination_country: str
    ready_date: date
    required_by: date | None
    rates: tuple[freight.Rate, ...]
    hub: Hub | None = None
    heavy_kg: Decimal = DEFAULT_HEAVY_KG
    limits: freight.FreightLimits = freight.DEFAULT_LIMITS


@dataclass(frozen=True)
class PlannedLine:
    key: str
    description: str
    quantity: int
    value: Decimal
    currency: str
    gross_kg: Decimal
    country_of_origin: str
    supplier: str
    why: str
    ready_date: date | None = None


@dataclass(frozen=True)
class PlannedLeg:
    """A leg of a proposal: `inbound` (origin → hub), `main` (hub → site) or `direct`."""

    role: str
    origin_country: str
    destination_country: str
    supplier: str
    line_keys: tuple[str, ...]
    mode: str
    cost: Decimal | None
    currency: str
    service: str
    departure: date | None
    arrival: date | None


@dataclass(frozen=True)
class Proposal:
    """One proposed shipment. `cost` is the freight (and hub handling) in `currency`; None when
    the rate table cannot price it, with `missing` saying which lane lacks what."""

    key: str
    kind: str
    mode: str
    origin_countries: tuple[str, ...]
    suppliers: tuple[str, ...]
    destination_country: str
    hub: str
    lines: tuple[PlannedLine, ...]
    legs: tuple[PlannedLeg, ...]
    goods_value: dict[str, Decimal]
    gross_kg: Decimal
    cost: Decimal | None
    currency: str
    arrival: date | None
    on_time: bool | None
    reasons: tuple[str, ...]
    missing: tuple[str, ...] = ()
    # The freight engine's working (chargeable weights × rates, hub handling per kg …): it quotes
    # the operator's rate card, so only operator staff read it (apps/shipments/disclosure.py).
    breakdown: tuple[str, ...] = ()
    # The day the last of its goods is ready at the factory.
    ready_date: date | None = None

    @property
    def priced(self) -> bool:
        return self.cost is not None


@dataclass(frozen=True)
class ShipmentPlan:
    proposals: tuple[Proposal, ...]
    ready_date: date
    required_by: date | None
    freight_by_currency: dict[str, Decimal]
    unpriced: tuple[str, ...]
    reasons: tuple[str, ...] = field(default_factory=tuple)


def _money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _kg(value: Decimal) -> str:
    return f"{value.normalize():,f}"


def _check(inputs: PlanInputs) -> None:
    if not inputs.lines:
        raise PlanError("bom", "The bill of materials has no lines with a quantity: nothing to ship.")
    if inputs.required_by is not None and inputs.required_by < inputs.ready_date:
        raise PlanError(
            "required_on_site",
            f"The required date {inputs.required_by.isoformat()} is before the goods can be ready "
            f"({inputs.ready_date.isoformat()}).",
        )
    if inputs.heavy_kg <= 0:
        raise PlanError("heavy_kg", f"heavy_kg must be greater than 0 (got {inputs.heavy_kg}).")
    for line in inputs.lines:
        name = f"BOM line {line.key} ({line.description})"
        if isinstance(line.quantity, bool) or not isinstance(line.quantity, int) or line.quantity < 1:
            raise PlanError(line.key, f"{name}: the quantity must be a whole number of at least 1.")
        missing = []
        if not line.unit_weight_kg or line.unit_weight_kg <= 0:
            missing.append("no weight")
        if any(not side or side <= 0 for side in (line.length_cm, line.width_cm, line.height_cm)):
            missing.append("no dimensions")
        if missing:
            raise PlanError(
                line.key, f"{name}: {' and '.join(missing)} in the catalogue; add them to the part."
            )
        if not line.country_of_origin:
            raise PlanError(line.key, f"{name}: no country of origin in the catalogue.")
        if line.ready_date is not None and line.ready_date < inputs.ready_date:
            raise PlanError(
                line.key,
                f"{name}: ready {line.ready_date.isoformat()}, before the plan's date "
                f"{inputs.ready_date.isoformat()}.",
            )


def ready_of(line: PlanLine, inputs: PlanInputs) -> date:
    """The day the line's goods are ready to ship."""
    return line.ready_date or inputs.ready_date


def _fastest(
    rates: tuple[freight.Rate, ...], mode: str, origin: str, destination: str, on: date
) -> int | None:
    days = [
        r.transit_days
        for r in rates
        if r.mode == mode
        and r.origin_country == origin
        and r.destination_country == destination
        and r.is_valid_on(on)
    ]
    return min(days) if days else None


def _via_hub_days(inputs: PlanInputs, mode: str, origin: str, on: date) -> int | None:
    hub = inputs.hub
    if hub is None or origin in (hub.country, inputs.destination_country):
        return None
    first = _fastest(inputs.rates, mode, origin, hub.country, on)
    second = _fastest(inputs.rates, mode, hub.country, inputs.destination_country, on)
    return None if first is None or second is None else first + second


def _lane(origin: str, destination: str) -> str:
    return f"{origin} → {destination}"


def choose_mode(line: PlanLine, inputs: PlanInputs) -> tuple[str, str]:
    """(mode, why) for one line; see the module's docstring."""
    unit = _kg(line.unit_weight_kg)
    ready = ready_of(line, inputs)
    light = line.category in freight.AIR_FIRST and line.unit_weight_kg <= inputs.heavy_kg
    if light:
        what = f"light, high-value hardware ({unit} kg a unit, {line.category.replace('_', ' ')})"
    elif line.category in freight.AIR_FIRST:
        what = f"heavy ({unit} kg a unit, over {_kg(inputs.heavy_kg)} kg)"
    else:
        what = f"{line.category.replace('_', ' ')}, bulky or low value for its weight"
    required = inputs.required_by
    ready_note = "" if line.ready_date is None else f"ready {ready.isoformat()}, "
    if required is not None and ready > required:
        return AIR, (
            f"air: {what}; {ready_note}after the required {required.isoformat()}: late whatever "
            "the mode, so the fastest"
        )
    if required is None and light:
        return AIR, f"air: {what}; no required date, so the fastest"
    origin, destination = line.country_of_origin, inputs.destination_country
    direct = _fastest(inputs.rates, OCEAN, origin, destination, ready)
    via = _via_hub_days(inputs, OCEAN, origin, ready)
    options = [d for d in (direct, via) if d is not None]
    if not options:
        return AIR, (
            f"air: {what}, {'and' if light else 'but'} no ocean rate on {_lane(origin, destination)}"
            + (f" or through {inputs.hub.name}" if inputs.hub is not None else "")
            + f" valid on {ready.isoformat()}"
        )
    days = min(options)
    arrival = ready + timedelta(days=days)
    if required is None:
        return OCEAN, f"ocean: {what}; no required date, so the sea ({days} days) is in time"
    if arrival <= required:
        return OCEAN, (
            f"ocean: {what}; {ready_note}the fastest sea route ({days} days) arrives {arrival.isoformat()}, "
            f"by the required {required.isoformat()}"
        )
    return AIR, (
        f"air: {what}, but {ready_note}the fastest sea route ({days} days) would arrive "
        f"{arrival.isoformat()}, after the required {required.isoformat()}"
    )


def _piece(line: PlanLine) -> freight.Piece:
    return freight.Piece(
        length_cm=line.length_cm,
        width_cm=line.width_cm,
        height_cm=line.height_cm,
        gross_kg=line.unit_weight_kg,
        quantity=line.quantity,
        value=line.value,
        category=line.category,
        label=f"BOM line {line.key}",
        dangerous_goods=line.dangerous_goods,
    )


def _planned(line: PlanLine, why: str) -> PlannedLine:
    return PlannedLine(
        key=line.key,
        description=line.description,
        quantity=line.quantity,
        value=line.value,
        currency=line.currency,
        gross_kg=line.gross_kg,
        country_of_origin=line.country_of_origin,
        supplier=line.supplier,
        why=why,
        ready_date=line.ready_date,
    )


def _goods(lines: list[PlanLine]) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = {}
    for line in lines:
        totals[line.currency] = totals.get(line.currency, Decimal("0")) + line.value
    return totals


def _choose(
    options: list[freight.FreightOption], required_by: date | None
) -> tuple[freight.FreightOption, str]:
    if required_by is None:
        return options[0], "no required date: the cheapest"
    on_time = [o for o in options if o.on_time]
    if on_time:
        return on_time[0], f"the cheapest arriving by {required_by.isoformat()}"
    chosen = min(options, key=lambda o: (o.arrival, o.cost))
    return (
        chosen,
        f"none arrives by {required_by.isoformat()}: the earliest, "
        f"{chosen.late_by_days(required_by)} days late",
    )


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")[:40] or "supplier"


def _direct(
    inputs: PlanInputs,
    mode: str,
    origin: str,
    supplier: str,
    group: list[tuple[PlanLine, str]],
    *,
    ready: date,
    key: str,
) -> Proposal:
    lines = [line for line, _ in group]
    destination = inputs.destination_country
    reasons = [
        f"{supplier}'s goods from {origin}, {mode} straight to the site ({_lane(origin, destination)})"
        + (": no consolidation hub" if inputs.hub is None else "")
        + (f"; ready {ready.isoformat()}" if ready != inputs.ready_date else "")
    ]
    mode_rates = [r for r in inputs.rates if r.mode == mode]
    breakdown: list[str] = []
    cost = arrival = None
    currency = service = ""
    missing: list[str] = []
    on_time = None
    if origin == destination:
        missing.append(f"{origin} is the site's own country: a domestic delivery, not priced here")
    else:
        try:
            options = freight.freight_options(
                [_piece(line) for line in lines],
                mode_rates,
                ready,
                inputs.required_by,
                origin_country=origin,
                destination_country=destination,
                limits=inputs.limits,
            )
        except freight.NoRateError:
            missing.append(
                f"no {mode} rate for lane {_lane(origin, destination)} valid on "
                f"{ready.isoformat()}: add one in the rate table"
            )
        except freight.FreightError as error:
            missing.append(f"{_lane(origin, destination)} by {mode}: {error}")
        else:
            chosen, why = _choose(options, inputs.required_by)
            cost, currency, arrival, on_time = chosen.cost, chosen.currency, chosen.arrival, chosen.on_time
            service = chosen.summary()
            reasons.append(
                f"Priced {chosen.summary()}: {chosen.cost:,.2f} {chosen.currency}, "
                f"{chosen.transit_days} days, arriving {chosen.arrival.isoformat()} ({why})"
            )
            breakdown.extend(chosen.breakdown)
    reasons.extend(f"Not priced: {text}" for text in missing)
    leg = PlannedLeg(
        role=DIRECT,
        origin_country=origin,
        destination_country=destination,
        supplier=supplier,
        line_keys=tuple(line.key for line in lines),
        mode=mode,
        cost=cost,
        currency=currency,
        service=service,
        departure=ready if cost is not None else None,
        arrival=arrival,
    )
    return Proposal(
        key=key,
        kind=DIRECT,
        mode=mode,
        origin_countries=(origin,),
        suppliers=(supplier,),
        destination_country=destination,
        hub="",
        lines=tuple(_planned(line, why) for line, why in group),
        legs=(leg,),
        goods_value=_goods(lines),
        gross_kg=sum((line.gross_kg for line in lines), Decimal("0")),
        cost=cost,
        currency=currency,
        arrival=arrival,
        on_time=on_time,
        reasons=tuple(reasons),
        missing=tuple(missing),
        breakdown=tuple(breakdown),
        ready_date=ready,
    )


# One origin of a consolidation: (country, supplier, ready date, its lines with why).
Origin = tuple[str, str, date, list[tuple[PlanLine, str]]]


def _consolidated(inputs: PlanInputs, mode: str, origins: list[Origin]) -> Proposal:
    hub = inputs.hub
    assert hub is not None
    destination = inputs.destination_country
    countries = sorted({country for country, _, _, _ in origins})
    all_lines = [line for _, _, _, group in origins for line, _ in group]
    if len(countries) > 1:
        why = (
            f"Consolidated at {hub.name} ({hub.country}): the {mode} goods come from {len(countries)} "
            f"countries ({', '.join(countries)}); inbound legs meet there and one {mode} main carriage takes "
            f"them to the site ({_lane(hub.country, destination)}): one import clearance instead of "
            f"{len(countries)}"
        )
    else:
        why = (
            f"Through {hub.name} ({hub.country}): no {mode} rate straight from {countries[0]} to the site, "
            f"but the rate table has {_lane(countries[0], hub.country)} and {_lane(hub.country, destination)}"
        )
    reasons = [why]
    route_legs = []
    for sequence, (country, supplier, ready, group) in enumerate(origins, start=1):
        route_legs.append(
            freight.RouteLeg(
                sequence=sequence,
                role=freight.LEG_INBOUND,
                origin_country=country,
                destination_country=hub.country,
                pieces=tuple(_piece(line) for line, _ in group),
                ready_date=ready,
                label=f"{supplier} from {country}"
                + (f", ready {ready.isoformat()}" if ready != inputs.ready_date else ""),
            )
        )
    route_legs.append(
        freight.RouteLeg(
            sequence=len(origins) + 1,
            role="main",
            origin_country=hub.country,
            destination_country=destination,
            pieces=tuple(_piece(line) for line in all_lines),
            ready_date=inputs.ready_date,
            label=f"Main carriage from {hub.name}",
        )
    )
    gross = sum((line.gross_kg for line in all_lines), Decimal("0"))
    handling = None
    if hub.handling_per_kg is not None:
        handling = _money(max(hub.handling_per_kg * gross, hub.handling_minimum))
    leg_lines = [[line for line, _ in group] for _, _, _, group in origins] + [all_lines]
    leg_suppliers = [supplier for _, supplier, _, _ in origins] + [""]
    missing: list[str] = []
    breakdown: list[str] = []
    cost = arrival = on_time = None
    currency = ""
    chosen_by_leg: list[freight.FreightOption | None] = [None] * len(route_legs)
    try:
        route = freight.plan_route(
            route_legs,
            [r for r in inputs.rates if r.mode == mode],
            inputs.required_by,
            hub_handling=handling,
            hub_handling_currency=hub.handling_currency,
            hub_handling_basis=(
                f"{_kg(gross)} kg gross × {hub.handling_per_kg.normalize():f} {hub.handling_currency}/kg"
                f", at least {hub.handling_minimum:,.2f}"
                if handling is not None
                else ""
            ),
            hub_name=hub.name,
            limits=inputs.limits,
        )
    except freight.NoRateError as error:
        missing.append(str(error))
    except freight.FreightError as error:
        missing.append(f"through {hub.name} by {mode}: {error}")
    else:
        cost, currency, arrival, on_time = route.cost, route.currency, route.arrival, route.on_time
        reasons.append(
            f"Priced leg by leg: {route.cost:,.2f} {route.currency} with the hub's handling, arriving "
            f"{route.arrival.isoformat()}"
            + ("" if route.on_time is None else (" (in time)" if route.on_time else " (late)"))
        )
        breakdown.extend(route.reasons)
        for leg in route.legs:
            if leg.chosen is not None:
                name = f"{leg.label} ({leg.origin_country} → {leg.destination_country})"
                breakdown.extend(f"{name}: {step}" for step in leg.chosen.breakdown)
        by_sequence = {leg.sequence: leg.chosen for leg in route.legs}
        chosen_by_leg = [by_sequence.get(request.sequence) for request in route_legs]
    reasons.extend(f"Not priced: {text}" for text in missing)
    planned_legs = [
        PlannedLeg(
            role=request.role,
            origin_country=request.origin_country,
            destination_country=request.destination_country,
            supplier=supplier,
            line_keys=tuple(line.key for line in lines),
            mode=mode,
            cost=chosen.cost if chosen else None,
            currency=chosen.currency if chosen else "",
            service=chosen.summary() if chosen else "",
            departure=chosen.departure if chosen else None,
            arrival=chosen.arrival if chosen else None,
        )
        for request, lines, supplier, chosen in zip(
            route_legs, leg_lines, leg_suppliers, chosen_by_leg, strict=True
        )
    ]
    return Proposal(
        key=f"{mode}-via-{hub.country.lower()}",
        kind=CONSOLIDATED,
        mode=mode,
        origin_countries=tuple(countries),
        suppliers=tuple(sorted({supplier for _, supplier, _, _ in origins})),
        destination_country=destination,
        hub=hub.name,
        lines=tuple(_planned(line, why) for _, _, _, group in origins for line, why in group),
        legs=tuple(planned_legs),
        goods_value=_goods(all_lines),
        gross_kg=gross,
        cost=cost,
        currency=currency,
        arrival=arrival,
        on_time=on_time,
        reasons=tuple(reasons),
        missing=tuple(missing),
        breakdown=tuple(breakdown),
        ready_date=max(ready for _, _, ready, _ in origins),
    )


def _hub_serves(inputs: PlanInputs, mode: str, country: str, ready: date) -> bool:
    """Whether goods from `country` ready on `ready` can go by `mode` through the hub: rates on
    both lanes, and (by sea) still in time."""
    days = _via_hub_days(inputs, mode, country, ready)
    if days is None:
        return False
    if inputs.required_by is None or mode == AIR:
        return True
    return ready + timedelta(days=days) <= inputs.required_by


def _direct_key(mode: str, country: str, supplier: str, ready: date, dated: bool) -> str:
    """A direct proposal's key; the ready date is part of it only where one supplier's goods from
    one country are ready on several days (the key stays as it was for everyone else)."""
    key = f"{mode}-{country.lower()}-{_slug(supplier)}"
    return f"{key}-{ready.isoformat()}" if dated else key


def plan(inputs: PlanInputs) -> ShipmentPlan:
    """Propose shipments for the BOM lines; raises PlanError naming an input it cannot use."""
    _check(inputs)
    # origin (country, supplier, ready date) → mode → lines with why, in the BOM's order
    Group = tuple[str, str, date]
    by_mode: dict[str, dict[Group, list[tuple[PlanLine, str]]]] = {AIR: {}, OCEAN: {}}
    for line in inputs.lines:
        mode, why = choose_mode(line, inputs)
        group = (line.country_of_origin, line.supplier, ready_of(line, inputs))
        by_mode[mode].setdefault(group, []).append((line, why))
    proposals: list[Proposal] = []
    reasons: list[str] = []
    for mode in (AIR, OCEAN):
        groups = by_mode[mode]
        if not groups:
            continue
        via = {key: group for key, group in groups.items() if _hub_serves(inputs, mode, key[0], key[2])}
        if len({country for country, _, _ in via}) < 2:
            countries = {country for country, _, _ in groups}
            if inputs.hub is not None and len(countries) >= 2:
                reasons.append(
                    f"The {mode} goods come from {len(countries)} countries, but fewer than two "
                    f"have {mode} rates to {inputs.hub.name} and on to the site"
                    + (" in time" if mode == OCEAN and inputs.required_by else "")
                    + ": nothing is consolidated"
                )
            # Nothing to consolidate; the hub still carries goods with no direct rate to the site.
            via = {
                key: group
                for key, group in via.items()
                if _fastest(inputs.rates, mode, key[0], inputs.destination_country, key[2]) is None
            }
        if via:
            proposals.append(
                _consolidated(
                    inputs,
                    mode,
                    [(country, supplier, ready, group) for (country, supplier, ready), group in via.items()],
                )
            )
        days_of: dict[tuple[str, str], set[date]] = {}
        for country, supplier, ready in groups:
            if (country, supplier, ready) not in via:
                days_of.setdefault((country, supplier), set()).add(ready)
        for (country, supplier, ready), group in groups.items():
            if (country, supplier, ready) not in via:
                dated = len(days_of[(country, supplier)]) > 1
                key = _direct_key(mode, country, supplier, ready, dated)
                proposals.append(_direct(inputs, mode, country, supplier, group, ready=ready, key=key))
    freight_by_currency: dict[str, Decimal] = {}
    for proposal in proposals:
        if proposal.cost is not None:
            freight_by_currency[proposal.currency] = (
                freight_by_currency.get(proposal.currency, Decimal("0")) + proposal.cost
            )
    unpriced = tuple(p.key for p in proposals if p.cost is None)
    if unpriced:
        reasons.append(
            f"{len(unpriced)} of {len(proposals)} proposals are not priced (no rate on their lane): "
            "the freight total leaves them out"
        )
    return ShipmentPlan(
        proposals=tuple(proposals),
        ready_date=inputs.ready_date,
        required_by=inputs.required_by,
        freight_by_currency=freight_by_currency,
        unpriced=unpriced,
        reasons=tuple(reasons),
    )
