"""Reads for shipments: what blocks a transition, who must act as importer/exporter of record,
ETA and lateness, freight options and landed cost. Each is written to a fixed number of queries."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, F, OuterRef, Prefetch, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import Organisation

from .engines import freight as freight_engine
from .engines import landed_cost as landed_cost_engine
from .engines.record_parties import (
    PartyFacts,
    RecordPartyNeed,
    RegistrationFact,
    exporter_of_record_need,
    importer_of_record_need,
)
from .models import (
    DestinationTax,
    EventCode,
    FreightRate,
    Leg,
    LineSerial,
    Package,
    PackageItem,
    PartyRole,
    Shipment,
    ShipmentLine,
    ShipmentStatus,
    TariffRate,
    TrackingEvent,
)

# --- lists ------------------------------------------------------------------------------------


def late_q(today: dt.date | None = None) -> Q:
    """Shipments that will miss (or missed) their required date: ETA after it, or no ETA and the
    date already passed without delivery."""
    today = today or timezone.localdate()
    return ~Q(status=ShipmentStatus.CANCELLED) & (
        Q(eta__gt=F("required_by"))
        | (Q(required_by__lt=today) & ~Q(status=ShipmentStatus.DELIVERED) & Q(eta__isnull=True))
    )


def is_late(shipment: Shipment, today: dt.date | None = None) -> bool:
    today = today or timezone.localdate()
    if shipment.status == ShipmentStatus.CANCELLED:
        return False
    if shipment.eta is not None:
        return shipment.eta > shipment.required_by
    return shipment.status != ShipmentStatus.DELIVERED and shipment.required_by < today


def shipment_refresh_eta(shipment: Shipment) -> dt.date | None:
    """ETA: the delivery date once delivered; else the newest ETA a partner reported; else the
    planned arrival of the last leg."""
    delivered = shipment.events.filter(code=EventCode.DELIVERED).order_by("occurred_at").first()
    if delivered is not None:
        eta = delivered.occurred_at.date()
    else:
        reported = shipment.events.filter(eta__isnull=False).order_by("-occurred_at", "-id").first()
        last_leg = shipment.legs.filter(planned_arrival__isnull=False).order_by("-sequence").first()
        eta = reported.eta if reported else (last_leg.planned_arrival if last_leg else None)
    if eta != shipment.eta:
        Shipment.objects.filter(pk=shipment.pk).update(eta=eta)
        shipment.eta = eta
    return eta


def shipment_detail_queryset():
    return Shipment.objects.select_related("origin", "destination", "owner", "created_by").prefetch_related(
        Prefetch("parties", queryset=_parties_queryset()),
        Prefetch(
            "lines",
            queryset=ShipmentLine.objects.select_related("part__manufacturer").annotate(
                # Subqueries, not joins: two aggregates over joins would multiply each other.
                serial_count=Coalesce(
                    Subquery(
                        LineSerial.objects.filter(line=OuterRef("pk"))
                        .values("line")
                        .annotate(n=Count("id"))
                        .values("n")
                    ),
                    0,
                ),
                packed=Coalesce(
                    Subquery(
                        PackageItem.objects.filter(line=OuterRef("pk"))
                        .values("line")
                        .annotate(n=Sum("quantity"))
                        .values("n")
                    ),
                    0,
                ),
            ),
        ),
        Prefetch(
            "packages",
            queryset=Package.objects.prefetch_related(
                Prefetch("items", queryset=PackageItem.objects.select_related("line__part")),
                Prefetch("serials", queryset=LineSerial.objects.only("serial", "package_id", "line_id")),
            ),
        ),
        Prefetch(
            "legs", queryset=Leg.objects.select_related("origin", "destination").prefetch_related("lines")
        ),
        Prefetch("events", queryset=TrackingEvent.objects.select_related("posted_by", "organisation", "leg")),
    )


def _parties_queryset():
    from .models import ShipmentParty

    return ShipmentParty.objects.select_related("organisation").prefetch_related(
        "organisation__registrations"
    )


# --- importer / exporter of record -----------------------------------------------------------


def _facts(organisation: Organisation | None) -> PartyFacts | None:
    if organisation is None:
        return None
    return PartyFacts(
        name=organisation.legal_name,
        country=organisation.country,
        registrations=tuple(
            RegistrationFact(r.scheme, r.country, r.valid_until) for r in organisation.registrations.all()
        ),
    )


def record_party_needs(shipment: Shipment) -> list[RecordPartyNeed]:
    """Whether the consignee can import and the shipper can export, or providers are needed."""
    parties = {p.role: p.organisation for p in shipment.parties.all()}
    if any(not hasattr(o, "_prefetched_objects_cache") for o in parties.values()):
        orgs = Organisation.objects.prefetch_related("registrations").in_bulk(
            [o.pk for o in parties.values()]
        )
        parties = {role: orgs[o.pk] for role, o in parties.items()}
    today = timezone.localdate()
    return [
        importer_of_record_need(
            shipment.destination.country, _facts(parties.get(PartyRole.CONSIGNEE)), today=today
        ),
        exporter_of_record_need(shipment.origin.country, _facts(parties.get(PartyRole.SHIPPER)), today=today),
    ]


def record_party_providers(country: str, service: str, *, for_user=None) -> list[Organisation]:
    """IOR/EOR providers covering `country`; with `for_user`, only those the user may name (a
    partner is shown the providers it is connected with, not every organisation, issue 9)."""
    providers = Organisation.objects.filter(
        is_active=True, coverage__service=service, coverage__country=country
    )
    if for_user is not None:
        providers = providers.filter(pk__in=Organisation.objects.nameable_by(for_user).values("pk"))
    return list(providers.order_by("legal_name").distinct())


# --- guards (simple rules until the compliance and documents apps fill them in) --------------


def compliance_problems(shipment: Shipment) -> list[str]:
    """Approval needs a passing compliance check of this version (or every hold reason resolved)."""
    from apps.compliance.services import approval_problems

    return approval_problems(shipment)


@dataclass(frozen=True)
class PackingProblem:
    field: str  # "packages", "lines[3].packed" or "lines[3].serials"
    message: str
    section: str = "packages"  # where the shipment page fixes it: "packages" or "lines" (serials)


def packing_issues(shipment: Shipment) -> list[PackingProblem]:
    """Every unit packed; for serialised parts, one serial per unit, each in a package.

    Booking needs this, and so does every document that states packages or weights."""
    problems = []
    lines = shipment.lines.select_related("part").annotate(
        packed=Sum("package_items__quantity"),
    )
    serial_counts = dict(
        LineSerial.objects.filter(line__shipment=shipment).values_list("line_id").annotate(n=Count("id"))
    )
    unpacked_serials = dict(
        LineSerial.objects.filter(line__shipment=shipment, package__isnull=True)
        .values_list("line_id")
        .annotate(n=Count("id"))
    )
    if not shipment.packages.exists():
        problems.append(PackingProblem("packages", "Nothing is packed yet."))
    for line in lines:
        number = line.line_number
        if (line.packed or 0) != line.quantity:
            problems.append(
                PackingProblem(
                    f"lines[{number}].packed",
                    f"Line {number}: {line.packed or 0} of {line.quantity} units packed.",
                )
            )
        if line.part.is_serialised:
            count = serial_counts.get(line.pk, 0)
            if count != line.quantity:
                problems.append(
                    PackingProblem(
                        f"lines[{number}].serials",
                        f"Line {number}: {count} serial numbers for {line.quantity} units.",
                        "lines",
                    )
                )
            elif unpacked_serials.get(line.pk):
                problems.append(
                    PackingProblem(
                        f"lines[{number}].serials",
                        f"Line {number}: {unpacked_serials[line.pk]} serial numbers not in a package.",
                    )
                )
    return problems


def packing_problems(shipment: Shipment) -> list[str]:
    """What stops booking on the packing side, as sentences."""
    return [problem.message for problem in packing_issues(shipment)]


def document_problems(shipment: Shipment) -> list[str]:
    """Booking needs every required document issued."""
    from apps.documents.models import DocumentType
    from apps.documents.services import missing_documents

    return [
        f"The {DocumentType(doc_type).label.lower()} is not issued. {why}"
        for doc_type, why, _latest in missing_documents(shipment)
    ]


# --- freight ----------------------------------------------------------------------------------


def shipment_pieces(shipment: Shipment) -> list[freight_engine.Piece]:
    """The packages as freight pieces; before packing, each line's parts by catalogue dimensions."""
    packages = list(
        shipment.packages.prefetch_related(
            Prefetch("items", queryset=PackageItem.objects.select_related("line__part"))
        )
    )
    if packages:
        pieces = []
        for package in packages:
            items = list(package.items.all())
            value = sum((i.line.unit_value * i.quantity for i in items), Decimal("0"))
            top = max(items, key=lambda i: i.line.unit_value * i.quantity, default=None)
            pieces.append(
                freight_engine.Piece(
                    length_cm=package.length_cm,
                    width_cm=package.width_cm,
                    height_cm=package.height_cm,
                    gross_kg=package.gross_kg,
                    quantity=1,
                    value=value,
                    category=top.line.part.category if top else "other",
                    label=f"package {package.number}",
                )
            )
        return pieces
    # Before packing: plain values, not model instances (a 1,000-line shipment reads 8 figures a line).
    rows = shipment.lines.filter(part__unit_weight_kg__gt=0, part__length_cm__gt=0).values_list(
        "line_number",
        "quantity",
        "unit_value",
        "part__length_cm",
        "part__width_cm",
        "part__height_cm",
        "part__unit_weight_kg",
        "part__category",
    )
    return [
        freight_engine.Piece(
            length_cm=length,
            width_cm=width,
            height_cm=height,
            gross_kg=weight,
            quantity=quantity,
            value=unit_value * quantity,
            category=category,
            label=f"line {number}",
        )
        for number, quantity, unit_value, length, width, height, weight, category in rows
    ]


def lane_rates(origin_country: str, destination_country: str, on: dt.date) -> list[freight_engine.Rate]:
    rows = FreightRate.objects.filter(
        origin_country=origin_country,
        destination_country=destination_country,
        valid_from__lte=on,
        valid_to__gte=on,
    )
    return [
        freight_engine.Rate(
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
        for r in rows
    ]


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
    recommendation = freight_engine.recommend(pieces, rates, ready, shipment.required_by)
    return recommendation, recommendation.options


def landed_cost(shipment: Shipment, freight_cost: Decimal):
    tax = DestinationTax.objects.filter(country=shipment.destination.country).first()
    tariff = [
        landed_cost_engine.TariffLine(hs_prefix=t.hs_prefix, duty_rate=t.duty_rate, note=t.note)
        for t in TariffRate.objects.filter(destination_country=shipment.destination.country)
    ]
    # Duty depends on the HS code only: one line per code keeps the estimate (and its explanation)
    # the size of the tariff, not of the shipment.
    by_code: dict[str, Decimal] = {}
    for hs_code, unit_value, quantity in shipment.lines.values_list("hs_code", "unit_value", "quantity"):
        by_code[hs_code] = by_code.get(hs_code, Decimal("0")) + unit_value * quantity
    lines = sorted(by_code.items())
    goods = sum((value for _, value in lines), Decimal("0"))
    insurance = None
    if shipment.insurance_value:
        insurance = (shipment.insurance_value * landed_cost_engine.DEFAULT_INSURANCE_RATE).quantize(
            Decimal("0.01")
        )
    return landed_cost_engine.landed_cost(
        landed_cost_engine.LandedCostInput(
            incoterm=shipment.incoterm,
            valuation_basis=tax.valuation_basis if tax else "CIF",
            goods_value=goods,
            freight_cost=freight_cost,
            insurance_cost=insurance,
            lines=lines,
            tariff=tariff,
            vat_rate=tax.vat_rate if tax else Decimal("0"),
            social_welfare_surcharge_rate=tax.levy_on_duty_rate if tax else Decimal("0"),
            brokerage_fee=tax.brokerage_fee if tax else Decimal("0"),
            handling_fee=tax.handling_fee if tax else Decimal("0"),
            currency=shipment.currency,
        )
    )


UN3481 = "UN3481 Lithium ion batteries contained in equipment, class 9, PI967 Section II"


def package_dangerous_goods(package: Package) -> list[str]:
    """Uses the package's prefetched items when present (no query per package in lists)."""
    if any(item.line.part.contains_lithium_batteries for item in package.items.all()):
        return [UN3481]
    return []
