"""What a shipment's compliance answer rests on, and nothing else: who plays the roles the rules
read, which licences each line may use, and the fingerprint of all of it (same inputs, same
fingerprint, one check)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from decimal import Decimal

from django.db.models import Q

from apps.accounts.models import Organisation, OrganisationKind, Registration
from apps.shipments import selectors as shipment_selectors
from apps.shipments.models import PartyRole, Shipment

from ..engines.classification import RULE_VERSION as CLASSIFICATION_RULES
from ..engines.determination import RULE_VERSION as DETERMINATION_RULES
from ..models import ImportRequirement, Licence, PartCertification, PartClassification, PartyBlock
from .countries import active_country_data_key
from .screening import active_index, default_threshold, find_hits, organisation_names


@dataclass(frozen=True)
class Roles:
    """Who plays the roles the licence and end-user rules read (never "any party")."""

    exporter: Organisation | None
    consignee: Organisation | None
    end_user: Organisation | None
    importer: Organisation | None

    @classmethod
    def of(cls, parties) -> Roles:
        by_role = {p.role: p.organisation for p in parties}
        consignee = by_role.get(PartyRole.CONSIGNEE)
        return cls(
            exporter=by_role.get(PartyRole.EXPORTER_OF_RECORD) or by_role.get(PartyRole.SHIPPER),
            consignee=consignee,
            end_user=by_role.get(PartyRole.ULTIMATE_CONSIGNEE) or consignee,
            importer=by_role.get(PartyRole.IMPORTER_OF_RECORD) or consignee,
        )


def licence_candidates(shipment: Shipment, roles: Roles) -> list[Licence]:
    """Licences this shipment may use: issued to its exporter, for its consignee and (as the
    licence states it) its end user, to its destination; and only on a shipment that belongs to
    the licensee or to the operator acting for it, so a partner cannot spend another's licence
    by naming parties."""
    if roles.exporter is None or roles.consignee is None:
        return []
    owner_kind = Organisation.objects.filter(pk=shipment.owner_id).values_list("kind", flat=True).first()
    if owner_kind != OrganisationKind.OPERATOR and shipment.owner_id != roles.exporter.pk:
        return []
    end_user = roles.end_user or roles.consignee
    query = Licence.objects.filter(licensee=roles.exporter, consignee=roles.consignee).filter(
        Q(end_user=end_user) | Q(end_user__isnull=True, consignee=end_user)
    )
    destination = shipment.destination.country
    return [lic for lic in query.order_by("expires_on", "pk") if destination in lic.country_list]


def licences_by_line(
    shipment: Shipment, roles: Roles, exporters: dict[int, int | None] | None = None
) -> dict[int, list[Licence]]:
    """The licences each line may use: those of its own exporter (a consolidation's line exported
    by another supplier uses that supplier's licences, never the shipment shipper's)."""
    if exporters is None:
        exporters = shipment_selectors.line_exporter_ids(shipment)
    organisations = {roles.exporter.pk: roles.exporter} if roles.exporter else {}
    if missing := {pk for pk in exporters.values() if pk and pk not in organisations}:
        organisations |= Organisation.objects.in_bulk(missing)
    by_exporter = {
        pk: licence_candidates(shipment, replace(roles, exporter=organisations.get(pk)))
        for pk in set(exporters.values())
    }
    return {line_id: by_exporter[pk] for line_id, pk in exporters.items()}


def all_candidates(by_line: dict[int, list[Licence]]) -> list[Licence]:
    unique = {lic.pk: lic for licences in by_line.values() for lic in licences}
    return sorted(unique.values(), key=lambda lic: (lic.expires_on, lic.pk))


def _screening_state(parties, threshold: Decimal) -> list:
    """The hits each party's names find now (entry and its content fingerprint), not the list
    edition: importing a list that finds nothing new for these parties changes nothing here."""
    _, ids, _ = active_index()
    state = []
    for party in parties:
        hits, _ = find_hits(organisation_names(party.organisation), party.organisation.country, threshold)
        state.append([party.organisation_id, sorted({(h.entry_id, ids[h.entry_id][1]) for h in hits})])
    return state


def shipment_fingerprint(shipment: Shipment) -> str:
    """Everything this shipment's answer depends on, and nothing else: same inputs, same
    fingerprint, one check. Another shipment's licence, an unrelated list entry or a licence
    of other parties does not change it."""
    shipment = Shipment.objects.select_related("origin", "destination").get(pk=shipment.pk)
    lines = list(
        shipment.lines.order_by("line_number").values_list(
            "line_number", "part_id", "quantity", "unit_value", "hs_code", "country_of_origin"
        )
    )
    # The shipment's parties and the suppliers named on its lines (a consolidation's exporters).
    parties = shipment_selectors.acting_parties(shipment)
    org_ids = [p.organisation_id for p in parties]
    part_ids = sorted({row[1] for row in lines})
    roles = Roles.of(p for p in parties if p.pk)
    exporters = shipment_selectors.line_exporter_ids(shipment, [p for p in parties if p.pk])
    by_line = licences_by_line(shipment, roles, exporters)
    state = {
        "shipment": [
            shipment.destination.country,
            shipment.origin.country,
            shipment.owner_id,
            sorted(shipment.end_use_flags or []),
        ],
        "lines": [[str(v) for v in row] for row in lines],
        "parties": [
            [
                p.role,
                p.organisation_id,
                p.organisation.legal_name,
                p.organisation.trading_name,
                p.organisation.country,
            ]
            for p in parties
        ],
        "parts": list(
            shipment.lines.order_by("part_id").values_list("part_id", "part__updated_at").distinct()
        ),
        "classifications": list(
            PartClassification.objects.filter(part_id__in=part_ids, is_current=True)
            .order_by("part_id")
            .values_list("part_id", "pk")
        ),
        "blocks": sorted(
            PartyBlock.objects.filter(organisation_id__in=org_ids, lifted_at__isnull=True).values_list(
                "pk", flat=True
            )
        ),
        "screening": _screening_state(parties, default_threshold()),
        "country_data": active_country_data_key(),
        "licences": [[lic.pk, lic.updated_at] for lic in all_candidates(by_line)],
        "line_exporters": sorted(exporters.items()),
        "registrations": list(
            Registration.objects.filter(organisation_id__in=org_ids)
            .order_by("pk")
            .values_list("pk", "updated_at")
        ),
        "certifications": list(
            PartCertification.objects.filter(part_id__in=part_ids)
            .order_by("pk")
            .values_list("pk", "updated_at")
        ),
        "requirements": list(
            ImportRequirement.objects.filter(country=shipment.destination.country)
            .order_by("pk")
            .values_list("pk", "updated_at")
        ),
        "rules": [CLASSIFICATION_RULES, DETERMINATION_RULES],
    }
    if shipment.amendments:
        # An amended shipment is a new version even when nothing above changed: its resubmission
        # is checked again, never approved by the answer given before the amendment.
        state["amendments"] = shipment.amendments
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()
