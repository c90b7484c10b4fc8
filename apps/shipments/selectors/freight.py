"""Freight reads: the shipment as freight pieces (packages, and unpacked units by catalogue
figures), lane rates, the freight plan and the route as legged, hub handling, and the dangerous
goods a package carries."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.conf import settings
from django.db.models import F, Prefetch, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.catalog.models import Part

from ..engines import freight as freight_engine
from ..models import FreightRate, Leg, LegRole, Package, PackageItem, Shipment


def freight_limits() -> freight_engine.FreightLimits:
    """The engine's aircraft and container limits, with any overrides from
    settings.RACKPASS_FREIGHT_LIMITS (a dict of FreightLimits field → number)."""
    overrides = getattr(settings, "RACKPASS_FREIGHT_LIMITS", None) or {}
    if not overrides:
        return freight_engine.DEFAULT_LIMITS
    return freight_engine.FreightLimits(**{name: Decimal(str(value)) for name, value in overrides.items()})


def part_dangerous_goods(part, units: int = 1) -> freight_engine.DangerousGoods | None:
    """How `units` units of a part in one package are classified (None without lithium batteries).
    A part with batteries and no recorded packing is read as batteries contained in equipment."""
    if not part.contains_lithium_batteries:
        return None
    batteries = freight_engine.LithiumBatteries(
        packing=part.lithium_battery_packing or freight_engine.BATTERIES_IN_EQUIPMENT,
        battery_wh=part.lithium_battery_wh,
        net_kg_per_unit=part.lithium_battery_net_kg,
    )
    return freight_engine.classify_lithium_batteries(batteries, units)


def _package_goods(items) -> tuple[freight_engine.DangerousGoods, ...]:
    """One classification per part in the package, for the units of it the package holds."""
    units: dict[int, list] = {}
    for item in items:
        entry = units.setdefault(item.line.part_id, [item.line.part, 0])
        entry[1] += item.quantity
    goods = (part_dangerous_goods(part, n) for part, n in units.values())
    return tuple(g for g in goods if g is not None)


_PART_FIGURES = (
    "part__unit_weight_kg",
    "part__length_cm",
    "part__width_cm",
    "part__height_cm",
)


def _missing_figures(number: int, quantity: int, name: str, weight, length, width, height) -> str:
    missing = []
    if not weight or weight <= 0:
        missing.append("no weight")
    if any(not side or side <= 0 for side in (length, width, height)):
        missing.append("no dimensions")
    return f"line {number} ({quantity} × {name}): {' and '.join(missing)}" if missing else ""


def shipment_pieces(shipment: Shipment) -> list[freight_engine.Piece]:
    """The packages as freight pieces, and the units not yet packed by catalogue dimensions.

    Raises MissingFiguresError naming every unpacked line whose part has no weight or dimensions,
    rather than leave it out of the plan. Packages are not stackable: nothing records that one
    may bear another."""
    return [piece for piece, _lines in shipment_pieces_by_line(shipment)]


def shipment_pieces_by_line(shipment: Shipment) -> list[tuple[freight_engine.Piece, frozenset[int]]]:
    """`shipment_pieces`, each with the ids of the lines it holds (to put it on its inbound leg)."""
    packages = list(
        shipment.packages.prefetch_related(
            Prefetch("items", queryset=PackageItem.objects.select_related("line__part"))
        )
    )
    pieces = []
    for package in packages:
        items = list(package.items.all())
        value = sum((i.line.unit_value * i.quantity for i in items), Decimal("0"))
        top = max(items, key=lambda i: i.line.unit_value * i.quantity, default=None)
        pieces.append(
            (
                freight_engine.Piece(
                    length_cm=package.length_cm,
                    width_cm=package.width_cm,
                    height_cm=package.height_cm,
                    gross_kg=package.gross_kg,
                    quantity=1,
                    value=value,
                    category=top.line.part.category if top else "other",
                    label=f"package {package.number}",
                    dangerous_goods=_package_goods(items),
                ),
                frozenset(i.line_id for i in items),
            )
        )
    # Units not packed (all of them before packing): plain values, not model instances, so a
    # 1,000-line shipment reads a dozen figures a line; battery parts are read once each.
    rows = (
        shipment.lines.annotate(packed=Coalesce(Sum("package_items__quantity"), 0))
        .filter(quantity__gt=F("packed"))
        .values_list(
            "line_number",
            "quantity",
            "packed",
            "unit_value",
            "description",
            "part_id",
            "part__contains_lithium_batteries",
            "part__category",
            *_PART_FIGURES,
            "id",
        )
        .order_by("line_number")
    )
    rows = list(rows)
    missing = [
        problem
        for number, quantity, packed, _v, description, _p, _b, _c, *figures, _id in rows
        if (problem := _missing_figures(number, quantity - packed, description, *figures))
    ]
    if missing:
        raise freight_engine.MissingFiguresError(missing)
    battery_parts = {
        part.pk: part
        for part in Part.objects.filter(pk__in={row[5] for row in rows if row[6]}).only(
            "contains_lithium_batteries",
            "lithium_battery_packing",
            "lithium_battery_wh",
            "lithium_battery_net_kg",
        )
    }
    for row in rows:
        number, quantity, packed, unit_value = row[:4]
        part_id, category = row[5], row[7]
        weight, length, width, height, line_id = row[8:]
        left = quantity - packed
        goods = part_dangerous_goods(battery_parts[part_id]) if part_id in battery_parts else None
        pieces.append(
            (
                freight_engine.Piece(
                    length_cm=length,
                    width_cm=width,
                    height_cm=height,
                    gross_kg=weight,
                    quantity=left,
                    value=unit_value * left,
                    category=category,
                    label=f"line {number}" if not packed else f"line {number} (unpacked)",
                    dangerous_goods=(goods,) if goods else (),
                ),
                frozenset({line_id}),
            )
        )
    return pieces


def lane_rates(origin_country: str, destination_country: str, on: dt.date) -> list[freight_engine.Rate]:
    rows = FreightRate.objects.filter(
        origin_country=origin_country,
        destination_country=destination_country,
        valid_from__lte=on,
        valid_to__gte=on,
    )
    return [engine_rate(r) for r in rows]


def freight_plan(shipment: Shipment, *, today: dt.date | None = None):
    """Options per mode and a recommendation for the shipment's lane, from the rate table."""
    ready = max(shipment.ready_date, today or timezone.localdate())
    pieces = shipment_pieces(shipment)
    if not pieces:
        return None, []
    rates = lane_rates(shipment.origin.country, shipment.destination.country, ready)
    if not rates:
        raise freight_engine.NoRateError(
            f"No air, ocean or road rate for lane {shipment.origin.country} → {shipment.destination.country} "
            f"valid on {ready.isoformat()}. Add one in the rate table."
        )
    # `recommend` prices every rate once and keeps the single-mode options it compared.
    recommendation = freight_engine.recommend(
        pieces, rates, ready, shipment.required_by, limits=freight_limits()
    )
    return recommendation, recommendation.options


def engine_rate(r: FreightRate) -> freight_engine.Rate:
    """A rate table row as the freight engine reads it (also the clusters' shipment plan)."""
    return freight_engine.Rate(
        mode=r.mode,
        origin_country=r.origin_country,
        destination_country=r.destination_country,
        currency=r.currency,
        transit_days=r.transit_days,
        price_per_kg=r.price_per_kg,
        container_prices=r.container_prices,
        price_per_cbm=r.price_per_cbm,
        price_per_tonne=r.price_per_tonne,
        minimum_charge=r.minimum_charge,
        valid_from=r.valid_from,
        valid_to=r.valid_to,
        carrier=r.carrier,
        service=r.service,
    )


def route_legs(shipment: Shipment) -> list[Leg]:
    """The shipment's legs in sequence with their sites, each with `line_ids`: the ids of the lines
    it carries, read as plain ids from the link table (two queries, no line instances: a
    3,000-line consolidation has 3,000 links)."""
    legs = sorted(shipment.legs.select_related("origin", "destination"), key=lambda leg: leg.sequence)
    carried: dict[int, set[int]] = {leg.pk: set() for leg in legs}
    links = Leg.lines.through.objects.filter(leg__shipment=shipment).values_list("leg_id", "shipmentline_id")
    for leg_id, line_id in links:
        carried.setdefault(leg_id, set()).add(line_id)
    for leg in legs:
        leg.line_ids = frozenset(carried[leg.pk])
    return legs


def is_consolidation(legs: list[Leg]) -> bool:
    """A shipment with inbound legs is a route through a hub, priced leg by leg; without
    them its lane is origin → destination, as before."""
    return any(leg.role == LegRole.INBOUND for leg in legs)


def freight_route(shipment: Shipment, *, today: dt.date | None = None, legs: list[Leg] | None = None):
    """The consolidation priced leg by leg (freight_engine.plan_route), or None without inbound legs.

    Each inbound leg carries the pieces of its lines (Leg.lines) from its origin's country to the
    hub's, leaving on its planned departure or the plan date; the main carriage carries every piece
    from the hub to the destination. Lines on no inbound leg are taken to be at the hub already,
    and the plan says so. Without a main leg, the main carriage is hub → shipment destination.
    Rates of every lane are read in one query; the hub's handling rate valid on the plan date in
    another (`hub_handling`)."""
    legs = route_legs(shipment) if legs is None else legs
    if not is_consolidation(legs):
        return None
    start = plan_date(shipment, today)
    pieces = shipment_pieces_by_line(shipment)
    if not pieces:
        return None
    inbound = [leg for leg in legs if leg.role == LegRole.INBOUND]
    hub = inbound[0].destination
    requests = []
    carried: set[int] = set()
    for leg in inbound:
        lines = getattr(leg, "line_ids", None)
        if lines is None:  # legs not read by route_legs
            lines = frozenset(line.pk for line in leg.lines.all())
        carried |= lines
        requests.append(
            freight_engine.RouteLeg(
                sequence=leg.sequence,
                role=leg.role,
                origin_country=leg.origin.country,
                destination_country=leg.destination.country,
                pieces=tuple(piece for piece, held in pieces if held & lines),
                ready_date=leg.planned_departure or start,
                label=f"Leg {leg.sequence}: {leg.origin.name} → {leg.destination.name}",
                planned_mode=leg.mode,
            )
        )
    after = [leg for leg in legs if leg.role != LegRole.INBOUND]
    everything = tuple(piece for piece, _held in pieces)
    for leg in after:
        requests.append(
            freight_engine.RouteLeg(
                sequence=leg.sequence,
                role=leg.role,
                origin_country=leg.origin.country,
                destination_country=leg.destination.country,
                pieces=everything,
                ready_date=leg.planned_departure or start,
                label=f"Leg {leg.sequence}: {leg.origin.name} → {leg.destination.name}",
                planned_mode=leg.mode,
            )
        )
    if not after:
        requests.append(
            freight_engine.RouteLeg(
                sequence=max(leg.sequence for leg in legs) + 1,
                role=LegRole.MAIN,
                origin_country=hub.country,
                destination_country=shipment.destination.country,
                pieces=everything,
                ready_date=start,
                label=f"Main carriage (no leg yet): {hub.name} → {shipment.destination.name}",
            )
        )
    lanes = Q()
    for request in requests:
        lanes |= Q(origin_country=request.origin_country, destination_country=request.destination_country)
    rates = [engine_rate(r) for r in FreightRate.objects.filter(lanes)]
    handling, handling_currency, handling_basis = hub_handling(hub, everything, start)
    route = freight_engine.plan_route(
        requests,
        rates,
        shipment.required_by,
        hub_name=hub.name,
        limits=freight_limits(),
        hub_handling=handling,
        hub_handling_currency=handling_currency,
        hub_handling_basis=handling_basis,
    )
    at_hub = [piece.label for piece, held in pieces if not held & carried]
    if at_hub:
        route.reasons.insert(
            0,
            f"On no inbound leg, so taken to be at {hub.name} already: {', '.join(at_hub[:10])}"
            + (f" and {len(at_hub) - 10} more" if len(at_hub) > 10 else ""),
        )
    return route


def hub_handling(hub, pieces, on: dt.date) -> tuple[Decimal | None, str, str]:
    """What the hub charges for every piece passing through it (gross kg × its rate, at least the
    minimum), its currency and how it was worked out; (None, "", "") when the hub keeps no rate
    valid on that date."""
    from ..models import HubHandlingRate

    rate = (
        HubHandlingRate.objects.filter(site=hub, valid_from__lte=on, valid_to__gte=on)
        .order_by("-valid_from", "-pk")
        .first()
    )
    if rate is None:
        return None, "", ""
    gross = sum((piece.total_gross_kg for piece in pieces), Decimal(0))
    charge = rate.charge(gross)
    basis = f"{gross.normalize():,f} kg gross × {rate.price_per_kg.normalize():f} {rate.currency}/kg"
    if charge == rate.minimum_charge and rate.price_per_kg * gross < rate.minimum_charge:
        basis += f", below the minimum of {rate.minimum_charge:,.2f}"
    return charge, rate.currency, basis


def plan_date(shipment: Shipment, today: dt.date | None = None) -> dt.date:
    """The date a freight plan is priced on: the later of the ready date and today. Freight rates and
    (for the landed cost) exchange rates are read as of this date."""
    return max(shipment.ready_date, today or timezone.localdate())


# The commonest line (a server's small cell); the classification below decides each package's.
UN3481 = "UN3481 Lithium ion batteries contained in equipment, class 9, PI967 Section II"


def package_dangerous_goods(package: Package) -> list[str]:
    """The dangerous-goods lines of a package, classified from its parts' battery data
    (freight_engine.classify_lithium_batteries), the same classification freight is planned on.
    Uses the package's prefetched items when present (no query per package in lists)."""
    texts = [goods.text for goods in _package_goods(package.items.all())]
    return list(dict.fromkeys(texts))
