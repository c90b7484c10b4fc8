"""Importer and exporter of record: which a shipment needs (one importer need at the destination,
one exporter need per origin country and shipper), who is named for each and who could act."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch
from django.utils import timezone

from apps.accounts.models import Organisation, RecordService, ServiceCoverage

from ..engines.record_parties import (
    PartyFacts,
    RecordPartyNeed,
    RegistrationFact,
    exporter_of_record_need,
    importer_of_record_need,
    named_party_problem,
)
from ..models import Leg, LegRole, PartyRole, Shipment
from ..readiness import number_runs
from .parties import parties_queryset


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


def record_party_needs(shipment: Shipment) -> list[RecordPartyNeed]:
    """Whether the consignee can import and each shipper can export, or providers are needed."""
    return [n.need for n in record_needs(shipment)]


def record_party_problems(shipment: Shipment) -> list[str]:
    """What stops review for want of an importer or exporter of record that can act."""
    return [problem for n in record_needs(shipment) if (problem := n.open_problem)]


def record_party_providers(country: str, service: str, *, for_user=None) -> list[Organisation]:
    """IOR/EOR providers covering `country`; with `for_user`, only those the user may name (a
    partner is shown the providers it is connected with, not every organisation)."""
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
        Prefetch("parties", queryset=parties_queryset())
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
