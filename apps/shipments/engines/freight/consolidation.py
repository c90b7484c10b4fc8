"""A consolidation priced leg by leg: inbound legs to a hub, hub handling, then the main carriage
(and any onward leg), each leg taking its cheapest option that still lets the legs after it meet
the required date.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from .common import (
    DEFAULT_LIMITS,
    CannotCarryError,
    FreightError,
    FreightLimits,
    NoRateError,
    Piece,
    Rate,
    RateTableConflict,
    _applicable_rates,
    _days,
    _fmt_money,
    _labelled,
    as_decimal,
    money,
)
from .options import FreightOption, _alternatives, _describe, _options

LEG_INBOUND = "inbound"


@dataclass(frozen=True)
class RouteLeg:
    """One leg to price: its lane, the pieces it carries and the first day it can leave (its planned
    departure, or the shipment's ready date). Inbound legs end at the hub; every other leg (the
    main carriage, an onward leg) carries all the pieces, in sequence order, after the hub."""

    sequence: int
    role: str
    origin_country: str
    destination_country: str
    pieces: tuple[Piece, ...]
    ready_date: date
    label: str = ""
    # The mode the leg records (a draft's plan, or the booking): when the plan prices it by
    # another, it says so rather than putting that mode silently in its place.
    planned_mode: str = ""


@dataclass
class LegPlan:
    """A leg's options (priced on its own lane and dates) and the one chosen for it. `deadline` is
    the day it must arrive so that the legs after it can still meet the required date."""

    sequence: int
    role: str
    label: str
    origin_country: str
    destination_country: str
    pieces_labels: tuple[str, ...]
    departure: date
    deadline: date | None
    options: list[FreightOption]
    chosen: FreightOption | None
    reasons: list[str]


@dataclass
class RoutePlan:
    """The route as it is: inbound legs to the hub, hub handling, then the main carriage. `cost` is the
    sum of the chosen options and the hub handling charge; `main` is the sequence of the leg that
    carries the goods to the destination's border (its freight is the customs freight)."""

    legs: list[LegPlan]
    hub_handling: Decimal | None
    hub_handling_note: str
    cost: Decimal
    currency: str
    arrival: date
    on_time: bool | None
    main: int
    reasons: list[str]


def _leg_name(leg: RouteLeg) -> str:
    name = leg.label or f"Leg {leg.sequence}"
    return f"{name} ({leg.origin_country} → {leg.destination_country})"


def _leg_options(
    leg: RouteLeg,
    rates: list[Rate],
    departure: date,
    deadline: date | None,
    limits: FreightLimits,
    priced: dict[int, FreightOption | ValueError] | None = None,
) -> list[FreightOption]:
    try:
        applicable = _applicable_rates(rates, departure, leg.origin_country, leg.destination_country)
    except NoRateError as error:
        raise NoRateError(f"{_leg_name(leg)}: {error}. Add one in the rate table.") from None
    options, notes = _options(_labelled(leg.pieces), applicable, departure, deadline, limits, priced)
    if not options:
        raise CannotCarryError(f"{_leg_name(leg)}: no rate can carry its load: " + "; ".join(notes))
    return options


def _plan_leg(
    leg: RouteLeg,
    rates: list[Rate],
    departure: date,
    deadline: date | None,
    why_deadline: str,
    limits: FreightLimits,
    priced: dict[int, FreightOption | ValueError] | None = None,
) -> LegPlan:
    """The cheapest option arriving by the deadline; if none does, the earliest arrival."""
    name = _leg_name(leg)
    if not leg.pieces:
        return LegPlan(
            leg.sequence, leg.role, leg.label, leg.origin_country, leg.destination_country, (),
            departure, deadline, [], None, [f"{name} carries no lines: not priced"],
        )  # fmt: skip
    options = _leg_options(leg, rates, departure, deadline, limits, priced)
    if deadline is None:
        chosen = options[0]
        reason = f"{name}: no required date, cheapest option is {_describe(chosen)}"
    else:
        on_time = [o for o in options if o.on_time]
        if on_time:
            chosen = on_time[0]  # sorted by cost
            reason = (
                f"{name}: cheapest option arriving by {deadline.isoformat()} ({why_deadline}): "
                f"{_describe(chosen)}{_alternatives(chosen, options, deadline)}"
            )
        else:
            chosen = min(options, key=lambda o: (o.arrival, o.cost))
            reason = (
                f"{name}: no option arrives by {deadline.isoformat()} ({why_deadline}): the earliest is "
                f"{_describe(chosen)}, {_days(chosen.late_by_days(deadline))} late"
            )
    reasons = [reason]
    if leg.planned_mode and chosen.mode != leg.planned_mode:
        why = (
            "the cheapest"
            if deadline is None
            else "cheaper and on time"
            if chosen.on_time
            else "the earliest to arrive"
        )
        reasons.append(
            f"{name}: planned by {leg.planned_mode}, but the plan prices it by {chosen.mode} ({why}); "
            "the leg keeps its planned mode until you change it, and is booked by it."
        )
    return LegPlan(
        sequence=leg.sequence,
        role=leg.role,
        label=leg.label,
        origin_country=leg.origin_country,
        destination_country=leg.destination_country,
        pieces_labels=tuple(p.label for p in _labelled(leg.pieces)),
        departure=departure,
        deadline=deadline,
        options=options,
        chosen=chosen,
        reasons=reasons,
    )


def plan_route(
    legs: Sequence[RouteLeg],
    rates: Iterable[Rate],
    required_by: date | None = None,
    *,
    hub_handling: Decimal | None = None,
    hub_handling_currency: str = "",
    hub_handling_basis: str = "",
    hub_name: str = "the hub",
    limits: FreightLimits = DEFAULT_LIMITS,
) -> RoutePlan:
    """Price a consolidation leg by leg and choose an option per leg.

    Inbound legs leave on their own dates and must reach the hub by the required date less the
    fastest transit of the legs after the hub; the main carriage (then any onward leg) leaves on
    its own date or when the last chosen inbound leg reaches the hub, whichever is later, and must
    arrive by the required date (less the fastest transit of the legs after it). Each leg takes
    its cheapest option meeting its deadline, or its earliest when none does. The legs' rates
    must share one currency (RateTableConflict otherwise); a leg without a rate is a NoRateError
    naming it.
    """
    rates = list(rates)
    inbound = sorted((leg for leg in legs if leg.role == LEG_INBOUND), key=lambda leg: leg.sequence)
    after_hub = sorted((leg for leg in legs if leg.role != LEG_INBOUND), key=lambda leg: leg.sequence)
    if not after_hub:
        raise FreightError(
            "The route has no main carriage from the hub to the destination: add the main leg."
        )
    if not any(leg.pieces for leg in after_hub):
        raise FreightError("Nothing to carry: add lines (with catalogue dimensions) or packages.")
    # The fastest each leg after the hub can be, to give the legs before it a deadline.
    # Each leg after the hub is priced once: asked again from the day the goods reach the hub, its
    # options are only moved to that day (`priced`, per leg, by rate).
    priced: list[dict[int, FreightOption | ValueError]] = [{} for _ in after_hub]
    fastest = [
        min(o.transit_days for o in _leg_options(leg, rates, leg.ready_date, None, limits, known))
        for leg, known in zip(after_hub, priced, strict=True)
    ]

    def deadline_before(index: int) -> date | None:
        """The day leg `index` of after_hub must leave by (the hub deadline for index 0)."""
        if required_by is None:
            return None
        return required_by - timedelta(days=sum(fastest[index:]))

    plans: list[LegPlan] = []
    hub_deadline = deadline_before(0)
    for leg in inbound:
        why = f"the fastest main carriage then takes {_days(fastest[0])}" if fastest else ""
        plans.append(_plan_leg(leg, rates, leg.ready_date, hub_deadline, why, limits))
    reached = [p.chosen.arrival for p in plans if p.chosen is not None]
    previous = max(reached) if reached else None
    for index, leg in enumerate(after_hub):
        departure = leg.ready_date if previous is None else max(leg.ready_date, previous)
        deadline = deadline_before(index + 1)
        later = sum(fastest[index + 1 :])
        why = "the required date" if not later else f"the legs after it take at least {_days(later)}"
        plan = _plan_leg(leg, rates, departure, deadline, why, limits, priced[index])
        if previous is not None and departure > leg.ready_date:
            plan.reasons.insert(
                0, f"{_leg_name(leg)} leaves {departure.isoformat()}, when the goods are at {hub_name}"
            )
        plans.append(plan)
        if plan.chosen is not None:
            previous = plan.chosen.arrival

    chosen = [p.chosen for p in plans if p.chosen is not None]
    currencies = sorted({o.currency for o in chosen} | ({hub_handling_currency} if hub_handling else set()))
    if len(currencies) > 1:
        raise RateTableConflict(
            f"the route's legs are priced in several currencies ({', '.join(currencies)}); "
            f"convert the rates to one currency before adding them up"
        )
    currency = currencies[0]
    if hub_handling is None:
        hub_note = f"No hub handling charge is recorded for {hub_name}: none is counted."
    else:
        hub_handling = money(as_decimal(hub_handling, "hub_handling"))
        basis = f"{hub_handling_basis} = " if hub_handling_basis else ""
        hub_note = f"Hub handling at {hub_name}: {basis}{_fmt_money(hub_handling)} {currency}."
    cost = money(sum((o.cost for o in chosen), hub_handling or Decimal(0)))
    last = plans[-1]
    arrival = last.chosen.arrival if last.chosen is not None else max(o.arrival for o in chosen)
    main = next((p.sequence for p in plans if p.role == "main"), after_hub[-1].sequence)
    terms = " + ".join(f"{_fmt_money(o.cost)}" for o in chosen)
    if hub_handling is not None:
        terms += f" + {_fmt_money(hub_handling)} hub handling"
    reasons = [
        *(reason for p in plans for reason in p.reasons),
        hub_note,
        f"Route total: {terms} = {_fmt_money(cost)} {currency}, arriving {arrival.isoformat()}"
        + ("" if required_by is None else (" (on time)" if arrival <= required_by else
           f", {_days((arrival - required_by).days)} after {required_by.isoformat()}")),
    ]  # fmt: skip
    return RoutePlan(
        legs=plans,
        hub_handling=hub_handling,
        hub_handling_note=hub_note,
        cost=cost,
        currency=currency,
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
        main=main,
        reasons=reasons,
    )
