"""Reads for shipments: what blocks a transition, who must act as importer/exporter of record,
ETA and lateness, freight options and landed cost. Each is written to a fixed number of queries."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, F, OuterRef, Prefetch, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import Organisation, RecordService, ServiceCoverage
from apps.catalog.models import Part

from . import readiness
from .engines import freight as freight_engine
from .engines import landed_cost as landed_cost_engine
from .engines.record_parties import (
    PartyFacts,
    RecordPartyNeed,
    RegistrationFact,
    exporter_of_record_need,
    importer_of_record_need,
    named_party_problem,
)
from .models import (
    DestinationTax,
    EventCode,
    ExchangeRate,
    FreightRate,
    Leg,
    LegRole,
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
from .readiness import number_runs

# --- lists ------------------------------------------------------------------------------------


def late_q(today: dt.date | None = None) -> Q:
    """Shipments that will miss (or missed) their required date: ETA after it, or no ETA and the
    date already passed without delivery."""
    today = today or timezone.localdate()
    return ~Q(status=ShipmentStatus.CANCELLED) & (
        Q(eta__gt=F("required_by"))
        | (Q(required_by__lt=today) & ~Q(status=ShipmentStatus.DELIVERED) & Q(eta__isnull=True))
    )


def status_now(shipment: Shipment) -> ShipmentStatus:
    """The shipment's status as stored now: what every flash and answer states. An object in
    memory may hold the status from before hooks moved it (the compliance check that approves it
    when the review commits, the steps a milestone infers)."""
    return ShipmentStatus(Shipment.objects.filter(pk=shipment.pk).values_list("status", flat=True).get())


def is_late(shipment: Shipment, today: dt.date | None = None) -> bool:
    today = today or timezone.localdate()
    if shipment.status == ShipmentStatus.CANCELLED:
        return False
    if shipment.eta is not None:
        return shipment.eta > shipment.required_by
    return shipment.status != ShipmentStatus.DELIVERED and shipment.required_by < today


def shipment_refresh_eta(shipment: Shipment) -> dt.date | None:
    """ETA at the destination: the delivery date once delivered; else the newest ETA a partner
    reported (not on an inbound leg: that is the hub's); else the planned arrival of the leg that
    reaches the destination, else of the main carriage. An inbound leg, whatever its sequence,
    reaches only the hub (issue 11)."""
    delivered = shipment.events.filter(code=EventCode.DELIVERED).order_by("occurred_at").first()
    if delivered is not None:
        eta = delivered.occurred_at.date()
    else:
        reported = (
            shipment.events.filter(eta__isnull=False)
            .exclude(leg__role=LegRole.INBOUND)
            .order_by("-occurred_at", "-id")
            .first()
        )
        eta = reported.eta if reported else planned_destination_arrival(shipment)
    if eta != shipment.eta:
        Shipment.objects.filter(pk=shipment.pk).update(eta=eta)
        shipment.eta = eta
    return eta


def planned_destination_arrival(shipment: Shipment) -> dt.date | None:
    """The planned arrival of the leg that reaches the destination, else of the main carriage
    (then the goods are at the destination's gateway); never of an inbound leg."""
    legs = list(
        shipment.legs.filter(planned_arrival__isnull=False)
        .exclude(role=LegRole.INBOUND)
        .only("sequence", "destination_id", "planned_arrival")
    )
    reaching = [leg for leg in legs if leg.destination_id == shipment.destination_id]
    last = max(reaching or legs, key=lambda leg: leg.sequence, default=None)
    return last.planned_arrival if last else None


def leg_line_numbers(shipment: Shipment) -> dict[int, list[int]]:
    """The line numbers each leg of the shipment carries, by leg id, in one query of plain values."""
    carried: dict[int, list[int]] = {}
    rows = Leg.lines.through.objects.filter(leg__shipment=shipment).values_list(
        "leg_id", "shipmentline__line_number"
    )
    for leg_id, number in rows:
        carried.setdefault(leg_id, []).append(number)
    return carried


def detail_lines_queryset():
    """A shipment page's lines: part, own shipper and exporter, serials and units packed."""
    return ShipmentLine.objects.select_related(
        "part__manufacturer", "shipper", "exporter_of_record"
    ).annotate(
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
    )


def detail_lines(shipment: Shipment, *, limit: int | None) -> tuple[list[ShipmentLine], dict]:
    """The lines a shipment page shows (the first `limit`, or all) and totals over every line, in
    two queries: a 3,000-line consolidation's page reads 200 lines, not 3,000 (issue 11)."""
    shown = detail_lines_queryset().filter(shipment=shipment).order_by("line_number")
    totals = shipment.lines.aggregate(
        count=Count("id"),
        units=Coalesce(Sum("quantity"), 0),
        value=Coalesce(Sum(F("unit_value") * F("quantity")), Decimal("0")),
        own_parties=Count("id", filter=Q(shipper__isnull=False) | Q(exporter_of_record__isnull=False)),
    )
    return list(shown[:limit] if limit else shown), totals


def shipment_detail_queryset():
    """A shipment with what its page reads. Every line is loaded plainly (the documents' problems
    and the record-party needs read them all); the rows shown, with their serial and packing
    figures, are paged by `detail_lines`."""
    return Shipment.objects.select_related("origin", "destination", "owner", "created_by").prefetch_related(
        Prefetch("parties", queryset=_parties_queryset()),
        Prefetch("lines", queryset=ShipmentLine.objects.select_related("part__manufacturer")),
        Prefetch(
            "packages",
            queryset=Package.objects.prefetch_related(
                Prefetch("items", queryset=PackageItem.objects.select_related("line__part")),
                Prefetch(
                    "serials",
                    queryset=LineSerial.objects.select_related("unit").only(
                        "unit__serial", "package_id", "line_id"
                    ),
                ),
            ),
        ),
        Prefetch(
            "legs",
            # The page shows the numbers of the lines each leg carries (`leg_line_numbers`), read as
            # plain values: a consolidation's legs carry thousands of lines.
            queryset=Leg.objects.select_related("origin", "destination"),
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


@dataclass(frozen=True)
class RecordNeed:
    """One importer / exporter of record need of a shipment, with who is assessed and named for it.

    A consolidation has one exporter need per origin country and shipper: the Mexican supplier's
    lines are exported from Mexico by it (or its exporter of record), not by the Taiwanese one."""

    need: RecordPartyNeed
    assessed: Organisation | None  # the consignee (importer) or shipper (exporter) assessed
    named: Organisation | None  # the importer / exporter of record acting for these lines
    named_problem: str | None  # why the one named cannot act in the country, if it cannot

    @property
    def open_problem(self) -> str | None:
        """What still stops review: a needed party not named, or one named that cannot act."""
        role = "importer" if self.need.role == "importer" else "exporter"
        lines = ""
        if self.need.lines and self.need.role == "exporter":
            lines = f" for line{'s' if len(self.need.lines) > 1 else ''} {number_runs(self.need.lines)}"
        if self.need.needed and self.named is None:
            return f"{self.need.reasons[0]} Name an {role} of record{lines}."
        if self.named is not None and self.named_problem:
            return self.named_problem
        return None


def line_export_countries(shipment: Shipment) -> dict[int, str]:
    """The country each line is exported from: the origin of the inbound leg that carries it to
    the hub, else the shipment's origin. One query."""
    through = Leg.lines.through.objects.filter(leg__shipment=shipment, leg__role=LegRole.INBOUND)
    countries: dict[int, str] = {}
    rows = through.order_by("leg__sequence").values_list("shipmentline_id", "leg__origin__country")
    for line_id, country in rows:
        countries.setdefault(line_id, country)
    return countries


def record_needs(shipment: Shipment) -> list[RecordNeed]:
    """The importer of record need at the destination, then one exporter of record need per origin
    country and shipper of the lines (the shipment's origin first). Six queries, however many
    lines: parties, lines, their inbound legs, the organisations, registrations and coverage."""
    loaded_parties = list(shipment.parties.all())
    parties = {p.role: p.organisation_id for p in loaded_parties}
    if "lines" in getattr(shipment, "_prefetched_objects_cache", {}):  # the detail page's
        lines = sorted(
            (
                (line.pk, line.line_number, line.shipper_id, line.exporter_of_record_id)
                for line in shipment.lines.all()
            ),
            key=lambda row: row[1],
        )
    else:
        lines = list(
            shipment.lines.order_by("line_number").values_list(
                "pk", "line_number", "shipper_id", "exporter_of_record_id"
            )
        )
    exported_from = line_export_countries(shipment) if lines else {}
    origin = shipment.origin.country
    shipper, eor = parties.get(PartyRole.SHIPPER), parties.get(PartyRole.EXPORTER_OF_RECORD)
    groups: dict[tuple[str, int | None, int | None], list[int]] = {}
    for pk, number, line_shipper, line_eor in lines:
        # A line with its own shipper has its own exporter of record (or none): the shipment's acts
        # for the shipment's shipper.
        line_eor = line_eor or (None if line_shipper else eor)
        key = (exported_from.get(pk, origin), line_shipper or shipper, line_eor)
        groups.setdefault(key, []).append(number)
    if not groups:
        groups[(origin, shipper, eor)] = []
    single = len(groups) == 1
    org_ids = {pk for key in groups for pk in key[1:] if pk} | {
        pk for role in (PartyRole.CONSIGNEE, PartyRole.IMPORTER_OF_RECORD) if (pk := parties.get(role))
    }
    # Parties loaded with their registrations (`record_party_queryset`, the detail page) are reused.
    orgs = {
        p.organisation_id: p.organisation
        for p in loaded_parties
        if "registrations" in getattr(p.organisation, "_prefetched_objects_cache", {})
    }
    if missing := org_ids - set(orgs):
        orgs |= Organisation.objects.prefetch_related("registrations").in_bulk(missing)
    destination = shipment.destination.country
    countries = {destination} | {key[0] for key in groups}
    named_ids = {key[2] for key in groups if key[2]} | (
        {parties[PartyRole.IMPORTER_OF_RECORD]} if PartyRole.IMPORTER_OF_RECORD in parties else set()
    )
    covered: dict[tuple[int, str], set[str]] = {}
    coverage = ServiceCoverage.objects.filter(organisation_id__in=named_ids, country__in=countries)
    for org_id, service, country in (
        coverage.values_list("organisation_id", "service", "country") if named_ids else ()
    ):
        covered.setdefault((org_id, service), set()).add(country)
    today = timezone.localdate()

    def need_for(role, country, assessed_id, named_id, numbers):
        assessed, named = orgs.get(assessed_id), orgs.get(named_id)
        evaluate = importer_of_record_need if role == "importer" else exporter_of_record_need
        need = evaluate(country, _facts(assessed), today=today)
        need.lines = tuple(numbers)
        problem = None
        if named is not None:
            service = RECORD_ROLES[role][2]
            problem = named_party_problem(
                role, country, _facts(named), covered.get((named.pk, service), set()), today=today
            )
        return RecordNeed(need, assessed, named, problem)

    needs = [
        need_for(
            "importer",
            destination,
            parties.get(PartyRole.CONSIGNEE),
            parties.get(PartyRole.IMPORTER_OF_RECORD),
            (),
        )
    ]
    ordered = sorted(groups.items(), key=lambda item: (item[0][0] != origin, item[0][0], item[1][:1]))
    for (country, shipper_id, eor_id), numbers in ordered:
        needs.append(need_for("exporter", country, shipper_id, eor_id, () if single else numbers))
    return needs


def line_exporter_ids(shipment: Shipment, parties=None) -> dict[int, int | None]:
    """The exporter (principal party for export control: the exporter of record, else the shipper)
    of each line, by line id: a line's own, else the shipment's. One query given the parties."""
    parties = {p.role: p.organisation_id for p in (shipment.parties.all() if parties is None else parties)}
    default = parties.get(PartyRole.EXPORTER_OF_RECORD) or parties.get(PartyRole.SHIPPER)
    return {
        pk: (line_eor or line_shipper) if line_shipper else (line_eor or default)
        for pk, line_shipper, line_eor in shipment.lines.values_list(
            "pk", "shipper_id", "exporter_of_record_id"
        )
    }


def acting_parties(shipment: Shipment) -> list:
    """Every organisation acting on the shipment in a role: its parties, then the shippers and
    exporters of record named on its lines (unsaved `ShipmentParty` rows in those roles). Screening
    and the compliance answer read these, so a consolidation's Mexican exporter is screened too."""
    from .models import ShipmentParty

    parties = list(shipment.parties.select_related("organisation").order_by("role"))
    seen = {(p.role, p.organisation_id) for p in parties}
    extra = []
    rows = (
        shipment.lines.filter(Q(shipper__isnull=False) | Q(exporter_of_record__isnull=False))
        .select_related("shipper", "exporter_of_record")
        .order_by("line_number")
    )
    for line in rows:
        for role, organisation in (
            (PartyRole.SHIPPER, line.shipper),
            (PartyRole.EXPORTER_OF_RECORD, line.exporter_of_record),
        ):
            if organisation is not None and (role, organisation.pk) not in seen:
                seen.add((role, organisation.pk))
                extra.append(ShipmentParty(shipment=shipment, role=role, organisation=organisation))
    return parties + extra


def record_party_needs(shipment: Shipment) -> list[RecordPartyNeed]:
    """Whether the consignee can import and each shipper can export, or providers are needed."""
    return [n.need for n in record_needs(shipment)]


def record_party_problems(shipment: Shipment) -> list[str]:
    """What stops review for want of an importer or exporter of record that can act."""
    return [problem for n in record_needs(shipment) if (problem := n.open_problem)]


def record_party_providers(country: str, service: str, *, for_user=None) -> list[Organisation]:
    """IOR/EOR providers covering `country`; with `for_user`, only those the user may name (a
    partner is shown the providers it is connected with, not every organisation, issue 9)."""
    providers = Organisation.objects.filter(
        is_active=True, coverage__service=service, coverage__country=country
    )
    if for_user is not None:
        providers = providers.filter(pk__in=Organisation.objects.nameable_by(for_user).values("pk"))
    return list(providers.order_by("legal_name").distinct())


@dataclass(frozen=True)
class RecordProvider:
    organisation: Organisation
    services: list[str]  # what it covers in the country: "ior", "eor"


@dataclass(frozen=True)
class RecordPartyAssessment:
    """One record role of a shipment: the engine's need, who is named for it, who could be."""

    need: RecordPartyNeed
    assessed: Organisation | None  # the consignee (importer) or shipper (exporter) assessed
    named: Organisation | None  # the importer / exporter of record named on the shipment
    providers: list[RecordProvider]
    named_problem: str | None = None  # why the one named cannot act in the country

    @property
    def lines_text(self) -> str:
        return number_runs(self.need.lines)


RECORD_ROLES = {
    "importer": (PartyRole.CONSIGNEE, PartyRole.IMPORTER_OF_RECORD, RecordService.IMPORTER_OF_RECORD),
    "exporter": (PartyRole.SHIPPER, PartyRole.EXPORTER_OF_RECORD, RecordService.EXPORTER_OF_RECORD),
}


def record_party_queryset():
    """A shipment with what `record_party_assessments` reads."""
    return Shipment.objects.select_related("origin", "destination").prefetch_related(
        Prefetch("parties", queryset=_parties_queryset())
    )


def record_party_assessments(shipment: Shipment, *, for_user) -> list[RecordPartyAssessment]:
    """Importer of record, then exporter of record per origin country and shipper: needed or not
    and why, who is named, and the providers covering the country that `for_user` may name
    (`nameable_by`, as the party fields) — one query for the providers of every need."""
    needs = record_needs(shipment)
    coverage = (
        ServiceCoverage.objects.filter(
            country__in={n.need.country for n in needs},
            organisation__in=Organisation.objects.nameable_by(for_user),
        )
        .select_related("organisation")
        .order_by("organisation__legal_name", "organisation_id", "service")
    )
    covered: dict[tuple[str, str], list[Organisation]] = {}
    services: dict[tuple[int, str], list[str]] = {}
    for row in coverage:
        services.setdefault((row.organisation_id, row.country), []).append(row.service)
        covered.setdefault((row.service, row.country), []).append(row.organisation)
    assessments = []
    for n in needs:
        service = RECORD_ROLES[n.need.role][2]
        providers = [
            RecordProvider(organisation, services[(organisation.pk, n.need.country)])
            for organisation in covered.get((service, n.need.country), [])
        ]
        assessments.append(RecordPartyAssessment(n.need, n.assessed, n.named, providers, n.named_problem))
    return assessments


# --- guards (compliance and documents add theirs through `hooks.guard`) ------------------------


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
    # The same rule review flags (readiness): a serial number for every unit of a serialised part.
    short = {number: count for number, count, _units in readiness.serial_gaps(shipment)}
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
            if number in short:
                problems.append(
                    PackingProblem(
                        f"lines[{number}].serials",
                        f"Line {number}: {short[number]} serial numbers for {line.quantity} units.",
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


# --- freight ----------------------------------------------------------------------------------


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
    """A shipment with inbound legs is a route through a hub, priced leg by leg (issue 11); without
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
    from .models import HubHandlingRate

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


def landed_cost_for_route(shipment: Shipment, route, *, today: dt.date | None = None):
    """The landed cost of a route. The freight counted is the carriage to the place of importation:
    the inbound legs to the hub, the hub's handling and the main carriage (India's valuation rules
    count "the cost of transport ... to the place of importation", loading and handling included);
    an onward leg inside the destination country comes after importation and is not counted. The
    air legs among them are the air freight a destination may cap. None while a leg is unpriced."""
    main_index = next(i for i, leg in enumerate(route.legs) if leg.sequence == route.main)
    counted = route.legs[: main_index + 1]
    if any(leg.chosen is None for leg in counted if leg.pieces_labels):
        return None
    chosen = [(leg, leg.chosen) for leg in counted if leg.chosen is not None]
    hub = route.hub_handling or Decimal("0")
    freight = sum((option.cost for _, option in chosen), hub)
    air = sum((option.cost for _, option in chosen if option.mode == "air"), Decimal("0"))
    terms = [f"{option.cost:,.2f} leg {leg.sequence} ({leg.role}, {option.mode})" for leg, option in chosen]
    if route.hub_handling is not None:
        terms.insert(-1, f"{hub:,.2f} hub handling")
    basis = (
        f"{' + '.join(terms)} = {freight:,.2f} {route.currency}: the carriage to the place of importation "
        "(inbound legs, hub handling, main carriage)"
    )
    if len(route.legs) > main_index + 1:
        basis += "; legs after the goods reach the destination country are not counted"
    return landed_cost(
        shipment,
        freight,
        freight_currency=route.currency,
        air_freight_cost=air,
        today=today,
        freight_basis=basis,
    )


def plan_date(shipment: Shipment, today: dt.date | None = None) -> dt.date:
    """The date a freight plan is priced on: the later of the ready date and today. Freight rates and
    (for the landed cost) exchange rates are read as of this date."""
    return max(shipment.ready_date, today or timezone.localdate())


def _line_refs(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in sorted(numbers)[:5])
    more = f" and {len(numbers) - 5} more" if len(numbers) > 5 else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"


def landed_cost(
    shipment: Shipment,
    freight_cost: Decimal,
    *,
    freight_currency: str | None = None,
    air_freight_cost: Decimal = Decimal("0"),
    air_goods_value: Decimal | None = None,
    today: dt.date | None = None,
    freight_basis: str = "",
):
    """The landed-cost estimate of the shipment with `freight_cost` (in `freight_currency`, default the
    shipment's), by the destination's tax and valuation rules (`DestinationTax`) and tariff.

    Freight and fees in another currency than the shipment's are converted at the latest
    `ExchangeRate` on or before the plan date (`plan_date`: the later of the ready date and today,
    the date the freight rates are read on); without one the engine raises `CurrencyMismatch`.
    A charged insurance premium (`insurance_charge`) is used as it is; otherwise insurance is
    estimated from the insured value or the goods and freight."""
    country = shipment.destination.country
    tax = DestinationTax.objects.filter(country=country).first()
    tariff = [
        landed_cost_engine.TariffLine(hs_prefix=t.hs_prefix, duty_rate=t.duty_rate, note=t.note)
        for t in TariffRate.objects.filter(destination_country=country)
    ]
    # Duty depends on the HS code only: one line per code keeps the estimate (and its explanation)
    # the size of the tariff, not of the shipment.
    by_code: dict[str, Decimal] = {}
    numbers: dict[str, list[int]] = {}
    rows = shipment.lines.values_list("hs_code", "unit_value", "quantity", "line_number")
    for hs_code, unit_value, quantity, number in rows:
        by_code[hs_code] = by_code.get(hs_code, Decimal("0")) + unit_value * quantity
        numbers.setdefault(hs_code, []).append(number)
    lines = sorted(by_code.items())
    goods = sum((value for _, value in lines), Decimal("0"))
    currency = shipment.currency
    freight_currency = freight_currency or currency
    fees_currency = tax.currency if tax else currency
    on = plan_date(shipment, today)
    foreign = {freight_currency, fees_currency} - {currency}
    exchange_rates = []
    if foreign:
        exchange_rates = [
            landed_cost_engine.ExchangeRate(r.base, r.quote, r.rate, r.valid_on, r.source)
            for r in ExchangeRate.objects.filter(
                Q(base=currency, quote__in=foreign) | Q(base__in=foreign, quote=currency), valid_on__lte=on
            )
        ]
    rules = landed_cost_engine.ValuationRules()
    if tax:
        rules = landed_cost_engine.ValuationRules(
            air_freight_cap_of_fob=tax.air_freight_cap_of_fob,
            insurance_of_fob_when_unknown=tax.insurance_of_fob_when_unknown,
            citation=tax.valuation_rules_citation,
        )
    return landed_cost_engine.landed_cost(
        landed_cost_engine.LandedCostInput(
            incoterm=shipment.incoterm,
            valuation_basis=tax.valuation_basis if tax else "CIF",
            goods_value=goods,
            freight_cost=freight_cost,
            freight_currency=freight_currency,
            air_freight_cost=air_freight_cost,
            air_goods_value=air_goods_value,
            insurance_cost=shipment.insurance_charge,
            insured_value=shipment.insurance_value or None,
            lines=lines,
            line_refs={code: _line_refs(found) for code, found in numbers.items()},
            tariff=tariff,
            vat_rate=tax.vat_rate if tax else None,
            social_welfare_surcharge_rate=tax.levy_on_duty_rate if tax else Decimal("0"),
            brokerage_fee=tax.brokerage_fee if tax else Decimal("0"),
            handling_fee=tax.handling_fee if tax else Decimal("0"),
            fees_currency=fees_currency,
            currency=currency,
            destination=country,
            valuation_rules=rules,
            exchange_rates=exchange_rates,
            exchange_date=on,
            freight_basis=freight_basis,
        )
    )


def landed_cost_for_plan(shipment: Shipment, recommendation, *, today: dt.date | None = None):
    """The landed cost of a recommended freight plan (one option or an air/ocean split); None when the
    recommendation has neither. Air freight is marked as such so that a cap on it can apply."""
    if recommendation.split is not None:
        air = recommendation.split.air
        flown = set(air.pieces_labels)
        air_goods = sum((p.value for p in shipment_pieces(shipment) if p.label in flown), Decimal("0"))
        return landed_cost(
            shipment,
            recommendation.split.cost,
            freight_currency=air.currency,
            air_freight_cost=air.cost,
            air_goods_value=air_goods or None,  # no values on the flown pieces: cap on all the goods
            today=today,
        )
    option = recommendation.option
    if option is None:
        return None
    return landed_cost(
        shipment,
        option.cost,
        freight_currency=option.currency,
        air_freight_cost=option.cost if option.mode == "air" else Decimal("0"),
        today=today,
    )


# The commonest line (a server's small cell); the classification below decides each package's.
UN3481 = "UN3481 Lithium ion batteries contained in equipment, class 9, PI967 Section II"


def package_dangerous_goods(package: Package) -> list[str]:
    """The dangerous-goods lines of a package, classified from its parts' battery data
    (freight_engine.classify_lithium_batteries), the same classification freight is planned on.
    Uses the package's prefetched items when present (no query per package in lists)."""
    texts = [goods.text for goods in _package_goods(package.items.all())]
    return list(dict.fromkeys(texts))
