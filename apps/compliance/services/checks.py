"""The shipment compliance check: screen every party, classify every line, determine licence
needs, draw down licences held, check import requirements — then write the whole result in one
transaction, pass or hold with reasons.

A hold reason is resolved by the fact that answers it, not by words: a licence-required line by a
licence held (its number, checked and drawn down), a possible match by deciding the screening hit,
a blocked party only by reversing the match (four eyes), an incomplete classification by
classifying the part; a prohibited line never. Only an import requirement or an end-use flag can
be resolved with an officer's written note.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind, Registration, User
from apps.core.audit import record
from apps.core.jsonable import jsonable
from apps.core.tasks_outbox import enqueue_on_commit
from apps.core.validators import text_problem
from apps.shipments import selectors as shipment_selectors
from apps.shipments.models import PartyRole, Shipment, ShipmentStatus

from ..engines.classification import RULE_VERSION as CLASSIFICATION_RULES
from ..engines.countries import UnknownCountryError
from ..engines.determination import RULE_VERSION as DETERMINATION_RULES
from ..engines.determination import EndUser, determine
from ..models import (
    CheckLineResult,
    CheckPartyResult,
    CheckResult,
    ClassificationSource,
    ComplianceCheck,
    HitStatus,
    HoldKind,
    HoldReason,
    ImportRequirement,
    Licence,
    LicenceDrawdown,
    PartCertification,
    PartClassification,
    PartyBlock,
    RequirementKind,
    ResolvedVia,
)
from . import classification as classification_services
from .alerts import alert_if_departed
from .countries import active_country_data, active_country_data_key
from .inputs import InputsChanged, inputs_changed
from .licences import remaining
from .screening import (
    active_index,
    default_threshold,
    find_hits,
    open_hits_for,
    organisation_names,
    screening_record,
)

logger = logging.getLogger(__name__)
Progress = Callable[[int, str], None]
LICENCE_OUTCOMES = ("licence_required",)
# Statuses in which the goods have not left: a changed answer still stops them.
RECHECK_STATUSES = (
    ShipmentStatus.COMPLIANCE_REVIEW,
    ShipmentStatus.ON_HOLD,
    ShipmentStatus.APPROVED,
    ShipmentStatus.BOOKED,
)
OPEN_STATUSES = tuple(s for s in ShipmentStatus.values if s not in ("delivered", "cancelled"))
# Kinds an officer may resolve with a written note; every other kind needs the fact that answers it.
NOTE_KINDS = (HoldKind.IMPORT, HoldKind.END_USE)
MIN_NOTE = 15
UNRESOLVABLE = {
    HoldKind.PROHIBITED: "A prohibited line cannot be resolved: remove the line, or change the destination "
    "or parties, and run the check again.",
    HoldKind.BLOCKED: "A confirmed restricted-party match is resolved only by reversing the match decision "
    "(with a reason, approved by a second compliance officer) on the organisation's page.",
    HoldKind.SCREENING: "Decide the screening hit in the review queue (clear or confirm it): the decision "
    "resolves this reason.",
    HoldKind.CLASSIFICATION: "Add the missing figures to the part, or classify it as a compliance officer; "
    "the check then runs again.",
    HoldKind.CHECK_ERROR: "Fix what stopped the check and run it again.",
}


@dataclass
class _LineOutcome:
    line: object
    eccn: str = ""
    source: str = ""
    determination: object = None
    licence: Licence | None = None
    reasons: list[str] = field(default_factory=list)
    # (kind, text, licence concerned)
    holds: list[tuple[str, str, Licence | None]] = field(default_factory=list)


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


# --- what the answer depends on -----------------------------------------------------------


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


def _all_candidates(by_line: dict[int, list[Licence]]) -> list[Licence]:
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
        "licences": [[lic.pk, lic.updated_at] for lic in _all_candidates(by_line)],
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


# --- running the check --------------------------------------------------------------------


def compliance_check_start(*, shipment: Shipment, actor: User | None, automatic: bool = False) -> str:
    """Queue the check (after the current transaction commits); returns the task id to poll.

    The check is recorded as owed in this transaction (the outbox, `apps.core.tasks_outbox`): when
    the broker cannot be reached the status change still commits, the task status says the check
    waits for the background worker, and the outbox sweep sends it once the broker answers."""
    from ..tasks import run_compliance_check

    return enqueue_on_commit(
        run_compliance_check,
        kwargs={
            "shipment_id": shipment.pk,
            "actor_id": actor.pk if actor else None,
            "only_in_review": automatic,
        },
        kind="compliance check",
        actor=actor,
        object_repr=shipment.reference,
        object_url=shipment.get_absolute_url(),
    ).task_id


def compliance_check_run(
    *, shipment: Shipment, actor: User | None = None, task_id: str = "", progress: Progress | None = None
) -> ComplianceCheck:
    """Run the check for the shipment's current version, or apply the one already made for it.

    Never raises for bad data: anything the engines cannot answer becomes a hold reason that says
    what to fix. Only database outages propagate (the task retries them)."""
    progress = progress or (lambda percent, step: None)
    shipment = Shipment.objects.select_related("origin", "destination").get(pk=shipment.pk)
    started = timezone.now()
    try:
        # Bring the parts' engine classifications up to date first: they are part-level records the
        # fingerprint includes, so the version is stable from here to the end of the check.
        for part in {
            line.part for line in shipment.lines.select_related("part__manufacturer", "part__accelerator")
        }:
            classification_services.part_classify(part=part, actor=actor)
        version = shipment_fingerprint(shipment)
        existing = ComplianceCheck.objects.filter(shipment=shipment, shipment_version=version).first()
        if existing is not None:
            progress(100, "Already checked")
            if existing.stale_since is not None:
                _confirm(shipment, existing, actor)
            _apply_to_shipment(shipment, existing, actor)
            return existing
        check = _run(shipment, version, started, task_id, actor, progress)
    except OperationalError:
        raise
    except Exception as exc:  # noqa: BLE001 — a check must end in a result, never a 500
        logger.exception("Compliance check of %s failed", shipment.reference)
        check = _write_error(shipment, started, task_id, actor, exc)
    _apply_to_shipment(shipment, check, actor)
    alert_if_departed(shipment=shipment, check=check)
    progress(100, check.summary)
    return check


def _confirm(shipment: Shipment, check: ComplianceCheck, actor: User | None) -> None:
    """Checked again after it was marked stale, the shipment's answer rests on the same facts as
    before (the change did not touch them): the answer is current again; its history says so."""
    reason = check.stale_reason
    ComplianceCheck.objects.filter(pk=check.pk).update(stale_since=None, stale_reason="")
    check.stale_since, check.stale_reason = None, ""
    record(
        shipment,
        action="update",
        actor=actor,
        message=f"Compliance answer checked again after “{reason}”: it rests on the same facts and stands.",
    )


def _run(shipment, version, started, task_id, actor, progress) -> ComplianceCheck:
    country_data = active_country_data()
    parties = shipment_selectors.acting_parties(shipment)
    roles = Roles.of(p for p in parties if p.pk)
    lines = list(
        shipment.lines.select_related(
            "part__manufacturer", "part__accelerator__manufacturer", "shipper", "exporter_of_record"
        ).order_by("line_number")
    )

    # 1. Screen every party (in memory; stored with the check).
    progress(5, "Screening parties")
    threshold = default_threshold()
    blocks = {
        b.organisation_id: b
        for b in PartyBlock.objects.filter(
            organisation__in=[p.organisation_id for p in parties], lifted_at__isnull=True
        )
        .select_related("hit__entry")
        .order_by("created_at")
    }
    # One screening per organisation, however many roles it plays (one reason per hit, not per role).
    by_org: dict[int, list] = {}
    for party in parties:
        by_org.setdefault(party.organisation_id, []).append(party)
    party_screens = []
    # In primary-key order: recording a screening locks the organisation's row.
    for n, org_parties in enumerate((by_org[pk] for pk in sorted(by_org)), start=1):
        organisation = org_parties[0].organisation
        names = organisation_names(organisation)
        hits, versions = find_hits(names, organisation.country, threshold)
        party_screens.append((organisation, org_parties, names, hits, versions))
        progress(5 + int(35 * n / max(len(by_org), 1)), f"Screened {organisation}")

    # 2. Classify every line and determine licence needs.
    end_user = _end_user_facts(roles.end_user, blocks) if roles.end_user else None
    current = {
        c.part_id: c
        for c in PartClassification.objects.filter(part__in=shipment.lines.values("part_id"), is_current=True)
    }
    outcomes: list[_LineOutcome] = []
    for n, line in enumerate(lines, start=1):
        outcomes.append(
            _line_outcome(
                shipment, line, current.get(line.part_id), end_user, country_data, country_data.as_of
            )
        )
        progress(40 + int(40 * n / max(len(lines), 1)), f"Line {line.line_number} classified")

    # 3. Licences held, import requirements.
    progress(85, "Checking licences and import requirements")
    _assign_licences(shipment, outcomes, roles, licences_by_line(shipment, roles))
    import_holds = _import_requirements(shipment, roles, lines)

    progress(95, "Recording the result")
    try:
        return _write(
            shipment,
            version,
            started,
            task_id,
            actor,
            party_screens,
            blocks,
            outcomes,
            import_holds,
            threshold,
        )
    except IntegrityError:
        # Another worker wrote the same version first (a retried or duplicated task).
        return ComplianceCheck.objects.get(shipment=shipment, shipment_version=version)


def _end_user_facts(org: Organisation, blocks: dict) -> EndUser:
    block = blocks.get(org.pk)
    kind = block.list_kind if block else ""
    return EndUser(
        name=org.legal_name,
        # The confirmed match the block rests on: the determination names the entry, not only a list.
        listed_entry=block.hit.entry.as_listed if block else "",
        country=org.country,
        headquarters_country=org.country,
        entity_list=kind == "entity_list",
        denied_persons=kind == "denied_persons",
        unverified_list=kind == "unverified_list",
        military_end_user=kind == "military_end_user",
    )


def _line_outcome(shipment, line, classification, end_user, country_data, as_of) -> _LineOutcome:
    outcome = _LineOutcome(line=line)
    if classification is None:
        result = classification_services.engine_classification(line.part)
        eccn, complete, source = result.eccn or "", result.status == "classified", ClassificationSource.ENGINE
        missing, needs_confirmation = result.missing, result.needs_confirmation
        outcome.reasons.extend(result.reasoning)
    else:
        eccn, complete, source = classification.eccn, classification.is_complete, classification.source
        missing, needs_confirmation = classification.missing, classification.needs_confirmation
        outcome.reasons.append(
            f"{classification.get_source_display()} classification {eccn or '(incomplete)'} "
            f"of {classification.created_at:%Y-%m-%d}."
        )
    outcome.eccn, outcome.source = eccn, source
    if not complete or not eccn:
        outcome.holds.append(
            (
                HoldKind.CLASSIFICATION,
                f"Line {line.line_number} ({line.part}): cannot classify — missing {', '.join(missing)}. "
                "Add the figures to the part or have a compliance officer classify it.",
                None,
            )
        )
        return outcome
    if needs_confirmation and source == ClassificationSource.ENGINE:
        outcome.holds.append(
            (
                HoldKind.UNCONFIRMED,
                f"Line {line.line_number} ({line.part}): {eccn} is the engine's default for the category, "
                "not a result of figures checked against a CCL entry. A compliance officer confirms it "
                "(the manufacturer's classification) before the shipment relies on it.",
                None,
            )
        )
    part = line.part
    tpp = part.computed_tpp or (part.accelerator.computed_tpp if part.accelerator_id else None)
    data_centre = getattr(part, "data_centre", None)
    if data_centre is None and part.accelerator_id:
        data_centre = getattr(part.accelerator, "data_centre", None)
    try:
        determination = determine(
            eccn,
            shipment.destination.country,
            data=country_data,
            end_user=end_user,
            end_use_flags=list(shipment.end_use_flags or []),
            tpp=tpp,
            # Unknown means a data-centre item: the conservative reading (no NAC/ACA for .a items).
            data_centre=True if data_centre is None else data_centre,
        )
    except UnknownCountryError as exc:
        outcome.holds.append(
            (
                HoldKind.CHECK_ERROR,
                f"Line {line.line_number} ({eccn}): the licence position cannot be determined — {exc} "
                f"(EAR country data of {as_of}). Load country data that covers it, or correct the "
                "destination or the end user's country.",
                None,
            )
        )
        return outcome
    except ValueError as exc:
        outcome.holds.append(
            (
                HoldKind.CHECK_ERROR,
                f"Line {line.line_number}: the ECCN {eccn!r} cannot be assessed — {exc}. "
                "Have a compliance officer classify the part with a valid ECCN.",
                None,
            )
        )
        return outcome
    outcome.determination = determination
    outcome.reasons.extend(rule.text for rule in determination.rules)
    if determination.outcome == "prohibited":
        # Quote the rule that made the line prohibited, not the last rule the engine evaluated.
        deciding = [r for r in determination.rules if r.effect == "prohibited"]
        outcome.holds.append(
            (
                HoldKind.PROHIBITED,
                f"Line {line.line_number} ({eccn}) to {shipment.destination.country}: prohibited — "
                + "; ".join(f"{r.code}: {r.text}" for r in deciding),
                None,
            )
        )
    return outcome


def _licence_unusable(
    licence: Licence, eccn: str, quantity: int, value: Decimal, left: tuple[int, Decimal], today
) -> str | None:
    """Why `licence` cannot cover a line (None when it can)."""
    if not licence.covers_eccn(eccn):
        return f"licence {licence.number} does not cover {eccn} (it covers {', '.join(licence.eccn_list)})"
    if not licence.valid_from <= today <= licence.expires_on:
        return (
            f"licence {licence.number} is not valid today "
            f"(valid {licence.valid_from} to {licence.expires_on})"
        )
    if left[0] < quantity or left[1] < value:
        return (
            f"licence {licence.number} has only {left[0]} units and {left[1]:,.2f} {licence.currency} left; "
            f"the line needs {quantity} units worth {value:,.2f}"
        )
    return None


def _assign_licences(
    shipment: Shipment, outcomes: list[_LineOutcome], roles: Roles, by_line: dict[int, list[Licence]]
) -> None:
    """Give each line that needs a licence one of its exporter's licences with room for it.

    The room left does not count this shipment's own earlier drawdowns: a re-check replaces them."""
    needing = [
        o for o in outcomes if o.determination is not None and o.determination.outcome in LICENCE_OUTCOMES
    ]
    if not needing:
        return
    left = remaining(_all_candidates(by_line), exclude_shipment=shipment)
    today = timezone.localdate()
    destination = shipment.destination.country
    for outcome in needing:
        line, value = outcome.line, outcome.line.unit_value * outcome.line.quantity
        candidates = by_line.get(line.pk, [])
        exporter = _line_exporter(line, roles)
        problems = []
        for licence in candidates:
            problem = _licence_unusable(licence, outcome.eccn, line.quantity, value, left[licence.pk], today)
            if problem is None:
                left[licence.pk] = (left[licence.pk][0] - line.quantity, left[licence.pk][1] - value)
                outcome.licence = licence
                break
            problems.append((licence, problem))
        if outcome.licence is not None:
            continue
        covering = [(lic, p) for lic, p in problems if lic.covers_eccn(outcome.eccn)]
        if covering:
            licence, problem = covering[0]
            text = f"Line {line.line_number} ({outcome.eccn}) to {destination}: licence required — {problem}."
        else:
            licence = None
            text = (
                f"Line {line.line_number} ({outcome.eccn}) to {destination}: a licence is required and none "
                f"held by the exporter ({exporter or 'not named'}) for consignee "
                f"{roles.consignee or '(not named)'} and end user {roles.end_user or '(not named)'} covers "
                "this ECCN and destination."
            )
        outcome.holds.append((HoldKind.LICENCE, text, licence))


def _line_exporter(line, roles: Roles) -> Organisation | None:
    """The line's own exporter (its exporter of record, else its shipper), else the shipment's."""
    if line.shipper_id:
        return line.exporter_of_record or line.shipper
    return line.exporter_of_record or roles.exporter


def _import_requirements(shipment: Shipment, roles: Roles, lines) -> list[tuple[str, str, object]]:
    """What the destination needs of the importer and of the products, and what is missing."""
    country = shipment.destination.country
    requirements = list(ImportRequirement.objects.filter(country=country))
    if not requirements:
        return []
    importer = roles.importer
    today = timezone.localdate()
    holds = []
    valid_schemes = set()
    if importer is not None:
        valid_schemes = {
            r.scheme
            for r in importer.registrations.all()
            if r.country == country and (r.valid_until is None or r.valid_until >= today)
        }
    certs = {}
    for cert in PartCertification.objects.filter(part__in=shipment.lines.values("part_id"), country=country):
        certs[(cert.part_id, cert.scheme)] = cert
    for req in requirements:
        if req.kind == RequirementKind.IMPORTER_REGISTRATION:
            if importer is None:
                holds.append((HoldKind.IMPORT, f"No importer is named to hold the {req.name}.", None))
            elif req.scheme not in valid_schemes:
                holds.append(
                    (HoldKind.IMPORT, f"{importer} has no valid {req.name} for imports into {country}.", None)
                )
            continue
        for line in lines:
            if not req.applies_to(hs_code=line.hs_code, category=line.part.category):
                continue
            cert = certs.get((line.part_id, req.scheme))
            if cert is None:
                holds.append(
                    (
                        HoldKind.IMPORT,
                        f"Line {line.line_number} ({line.part}): no {req.name} on record for {country}.",
                        line,
                    )
                )
            elif cert.valid_until and cert.valid_until < today:
                holds.append(
                    (
                        HoldKind.IMPORT,
                        f"Line {line.line_number} ({line.part}): {req.name} {cert.number} expired on "
                        f"{cert.valid_until}.",
                        line,
                    )
                )
    return holds


# Until the goods leave, the shipment's licence use follows its newest check; from departure on it
# is what was used, and a later re-check (for the record) leaves it as it is.
BEFORE_DEPARTURE = (
    ShipmentStatus.DRAFT,
    ShipmentStatus.COMPLIANCE_REVIEW,
    ShipmentStatus.APPROVED,
    ShipmentStatus.BOOKED,
)


def _drawdowns_follow_checks(shipment: Shipment) -> bool:
    shipment.refresh_from_db(fields=["status", "held_from"])
    if shipment.status == ShipmentStatus.ON_HOLD:
        return shipment.held_from in BEFORE_DEPARTURE
    return shipment.status in BEFORE_DEPARTURE


def _release_drawdowns(shipment: Shipment, reason: str) -> int:
    return LicenceDrawdown.objects.filter(line__shipment=shipment, released_at__isnull=True).update(
        released_at=timezone.now(), released_reason=reason[:300]
    )


@transaction.atomic
def _write(
    shipment, version, started, task_id, actor, party_screens, blocks, outcomes, import_holds, threshold
):
    """Everything the check found, in one transaction: a killed worker leaves nothing half-written."""
    # Lock licences in primary-key order before drawing down, then re-check the room left
    # (without this shipment's own drawdowns, which this check replaces).
    licence_ids = sorted({o.licence.pk for o in outcomes if o.licence is not None})
    locked = {
        lic.pk: lic for lic in Licence.objects.select_for_update().filter(pk__in=licence_ids).order_by("pk")
    }
    left = remaining(list(locked.values()), exclude_shipment=shipment)
    for outcome in outcomes:
        if outcome.licence is None:
            continue
        value = outcome.line.unit_value * outcome.line.quantity
        qty_left, value_left = left[outcome.licence.pk]
        if qty_left < outcome.line.quantity or value_left < value:
            outcome.holds.append(
                (
                    HoldKind.LICENCE,
                    f"Line {outcome.line.line_number}: licence {outcome.licence.number} "
                    "was used up by another shipment meanwhile.",
                    outcome.licence,
                )
            )
            outcome.licence = None
        else:
            left[outcome.licence.pk] = (qty_left - outcome.line.quantity, value_left - value)

    holds: list[dict] = []
    party_rows = []
    for organisation, org_parties, names, hits, versions in party_screens:
        screening = screening_record(
            names=names,
            country=organisation.country,
            threshold=threshold,
            hits=hits,
            versions=versions,
            organisation=organisation,
            actor=actor,
            trigger="compliance_check",
        )
        roles_text = " and ".join(str(p.get_role_display()) for p in org_parties)
        roles_text = roles_text[:1].upper() + roles_text[1:].lower()
        reasons = []
        open_hits = _open_hits(organisation, screening)
        for hit in open_hits:
            reasons.append(f"Possible match ({hit.score}) with {hit.entry.name} on {hit.entry.source}.")
            holds.append(
                {
                    "kind": HoldKind.SCREENING,
                    "text": f"{roles_text} {organisation}: possible match with {hit.entry.name} "
                    f"({hit.entry.source}, score {hit.score}). Decide it in the screening review queue.",
                    "organisation": organisation,
                    "hit": hit,
                }
            )
        blocked = blocks.get(organisation.pk)
        if blocked is not None:
            reasons.append(f"Blocked: {blocked.reason}")
            holds.append(
                {
                    "kind": HoldKind.BLOCKED,
                    "text": f"{roles_text} {organisation} is blocked "
                    f"({blocked.list_kind.replace('_', ' ')}): {blocked.reason}",
                    "organisation": organisation,
                }
            )
        if not reasons:
            reasons.append(
                f"No match at threshold {threshold} against {', '.join(versions) or 'no active list'}."
            )
        party_rows.extend(
            CheckPartyResult(
                role=party.role,
                organisation=organisation,
                screening=screening,
                result=CheckResult.HOLD if (open_hits or blocked is not None) else CheckResult.PASS,
                reasons=reasons,
            )
            for party in org_parties
        )
    flags = list(shipment.end_use_flags or [])
    if flags:
        holds.append({"kind": HoldKind.END_USE, "text": f"End-use red flags recorded: {', '.join(flags)}."})
    for outcome in outcomes:
        holds.extend(
            {"kind": kind, "text": text, "line": outcome.line, "licence": licence}
            for kind, text, licence in outcome.holds
        )
    holds.extend({"kind": kind, "text": text, "line": line} for kind, text, line in import_holds)

    result = CheckResult.HOLD if holds else CheckResult.PASS
    check = ComplianceCheck.objects.create(
        shipment=shipment,
        shipment_version=version,
        result=result,
        summary=_summary(holds, len(outcomes), len(party_rows)),
        task_id=task_id,
        rule_versions={"classification": CLASSIFICATION_RULES, "determination": DETERMINATION_RULES},
        list_versions=sorted({v for *_, versions in party_screens for v in versions}),
        requested_by=actor,
        started_at=started,
    )
    for row in party_rows:
        row.compliance_check = check
    CheckPartyResult.objects.bulk_create(party_rows)
    CheckLineResult.objects.bulk_create(
        [
            CheckLineResult(
                compliance_check=check,
                line=o.line,
                eccn=o.eccn,
                classification_source=o.source,
                outcome=o.determination.outcome if o.determination else "",
                licence_exception=(o.determination.exception or "") if o.determination else "",
                licence=o.licence,
                rules=jsonable(o.determination.rules) if o.determination else [],
                result=CheckResult.HOLD if o.holds else CheckResult.PASS,
                reasons=o.reasons + [text for _, text, _ in o.holds],
            )
            for o in outcomes
        ]
    )
    HoldReason.objects.bulk_create(
        [
            HoldReason(
                compliance_check=check,
                kind=h["kind"],
                text=h["text"][:600],
                line=h.get("line"),
                organisation=h.get("organisation"),
                hit=h.get("hit"),
                licence=h.get("licence"),
            )
            for h in holds
        ]
    )
    # The shipment's drawdowns are those of its newest check: a re-check replaces them, and a check
    # that holds leaves none (the licence's room goes back to other shipments).
    if not _drawdowns_follow_checks(shipment):
        return check
    _release_drawdowns(shipment, f"Replaced by compliance check {check.pk}")
    if result == CheckResult.PASS:
        LicenceDrawdown.objects.bulk_create(
            [
                LicenceDrawdown(
                    licence=o.licence,
                    compliance_check=check,
                    line=o.line,
                    quantity=o.line.quantity,
                    value=o.line.unit_value * o.line.quantity,
                )
                for o in outcomes
                if o.licence is not None
            ]
        )
    return check


def _open_hits(organisation, screening) -> list:
    """The open hits (one per list entry) that this screening found for the organisation: a hit
    found again while an earlier one awaits review points at that earlier one."""
    entry_ids = [
        h.entry.entry_id
        for h in screening.hits.select_related("entry")
        if h.status in (HitStatus.OPEN, HitStatus.DUPLICATE)
    ]
    if not entry_ids:
        return []
    return sorted(open_hits_for(organisation, entry_ids).values(), key=lambda h: (-h.score, h.pk))


def _summary(holds, line_count: int, party_count: int) -> str:
    if holds:
        return f"Hold: {len(holds)} reason{'s' if len(holds) != 1 else ''} to resolve."
    return (
        f"Pass: {line_count} line{'s' if line_count != 1 else ''} and {party_count} "
        f"part{'ies' if party_count != 1 else 'y'} clear."
    )


@transaction.atomic
def _write_error(shipment, started, task_id, actor, exc: Exception) -> ComplianceCheck:
    """A check that could not be completed: a hold with the reason, under a version of its own
    so that running the check again computes it afresh."""
    check = ComplianceCheck.objects.create(
        shipment=shipment,
        shipment_version=f"error-{uuid.uuid4().hex}",
        result=CheckResult.HOLD,
        summary="Hold: the check could not be completed.",
        task_id=task_id,
        rule_versions={"classification": CLASSIFICATION_RULES, "determination": DETERMINATION_RULES},
        requested_by=actor,
        started_at=started,
    )
    HoldReason.objects.create(
        compliance_check=check,
        kind=HoldKind.CHECK_ERROR,
        text=f"The compliance check could not be completed ({type(exc).__name__}: {str(exc)[:300]}). "
        "Correct the data it names, or tell the Rackpass team, and run the check again.",
    )
    if _drawdowns_follow_checks(shipment):
        _release_drawdowns(shipment, f"Compliance check {check.pk} could not be completed")
    return check


# --- applying a result to the shipment ------------------------------------------------------


def _passes(check: ComplianceCheck) -> bool:
    return (
        check.result == CheckResult.PASS or not check.hold_reasons.filter(resolved_at__isnull=True).exists()
    )


def _hold_text(check: ComplianceCheck) -> str:
    """The shipment's hold reason, which every party of the shipment reads: a licence's number and
    figures stay on the compliance page, where only the licence's own parties see them, and so do
    the list entries a party's name matched and the officers' decisions (apps.compliance.disclosure)."""
    from ..disclosure import RESTRICTED_PARTY_KINDS, RESTRICTED_PARTY_TEXT

    texts = []
    for hold in check.hold_reasons.filter(resolved_at__isnull=True).select_related("line")[:3]:
        if hold.licence_id is not None:
            line = f"Line {hold.line.line_number}" if hold.line else "A line"
            texts.append(f"{line}: a licence is required and the exporter's licence does not cover it.")
        elif hold.kind in RESTRICTED_PARTY_KINDS:
            if RESTRICTED_PARTY_TEXT not in texts:
                texts.append(RESTRICTED_PARTY_TEXT)
        else:
            texts.append(hold.text)
    return f"{check.summary} {'; '.join(texts)}"[:500]


def _apply_to_shipment(shipment: Shipment, check: ComplianceCheck, actor: User | None) -> None:
    """Move the shipment to where the check's answer puts it.

    In review: a pass approves, a hold holds. Held for compliance: a pass (or every reason
    resolved) releases it and moves it on. Approved or booked: a hold sends it back (approved →
    review → on hold; booked → on hold), with the reasons."""
    from apps.shipments.services import TransitionRefused, shipment_transition

    def move(target: str, reason: str, hold_kind: str = "") -> None:
        shipment_transition(
            shipment=shipment,
            target=target,
            actor=actor,
            reason=reason,
            hold_kind=hold_kind,
            check_capability=False,
        )
        shipment.refresh_from_db(fields=["status", "hold_kind", "held_from"])

    shipment.refresh_from_db(fields=["status", "hold_kind", "held_from"])
    if check.shipment_version.startswith("error-"):
        current = False
    else:
        current = ComplianceCheck.objects.filter(
            pk=check.pk, shipment_version=shipment_fingerprint(shipment)
        ).exists()
    passes = current and _passes(check)
    try:
        with transaction.atomic():
            if shipment.status == ShipmentStatus.ON_HOLD and shipment.hold_kind == "compliance" and passes:
                move("release", f"Compliance check passed: {check.summary}")
            if shipment.status == ShipmentStatus.COMPLIANCE_REVIEW:
                if passes:
                    move(ShipmentStatus.APPROVED, f"Compliance check passed: {check.summary}")
                else:
                    move(ShipmentStatus.ON_HOLD, _hold_text(check), "compliance")
            elif shipment.status in (ShipmentStatus.APPROVED, ShipmentStatus.BOOKED) and not passes:
                if shipment.status == ShipmentStatus.APPROVED:
                    move(
                        ShipmentStatus.COMPLIANCE_REVIEW,
                        f"Compliance answer changed since approval: {check.summary}",
                    )
                if shipment.status != ShipmentStatus.ON_HOLD:
                    move(ShipmentStatus.ON_HOLD, _hold_text(check), "compliance")
    except TransitionRefused:
        # Another guard (not this check) still blocks the move; the check result stands on its own.
        logger.info("Compliance result of %s not applied: another guard refused the move", shipment)


def latest_check(shipment: Shipment) -> ComplianceCheck | None:
    return shipment.compliance_checks.prefetch_related("hold_reasons").order_by("-finished_at", "-id").first()


def approval_problems(shipment: Shipment) -> list[str]:
    """The guard on approval: a check of this version passed, or all its hold reasons are resolved."""
    version = shipment_fingerprint(shipment)
    check = ComplianceCheck.objects.filter(shipment=shipment, shipment_version=version).first()
    if check is None:
        return ["No compliance check has run on this version of the shipment: run the check."]
    if check.result == CheckResult.PASS:
        return []
    open_holds = [h for h in check.hold_reasons.all() if h.resolved_at is None]
    return [f"Unresolved hold: {h.text}" for h in open_holds]


# --- resolving hold reasons ---------------------------------------------------------------


@transaction.atomic
def hold_reason_resolve(
    *, hold: HoldReason, actor: User, resolution: str = "", licence_number: str = ""
) -> HoldReason:
    """A compliance officer resolves one hold reason with the fact that answers it (see the module
    docstring); when none is left open, the shipment moves on. A default classification's reason
    is answered by confirming the default, a four-eyes decision: `services.hold_reason_resolve`
    (apps.compliance.services.approvals) asks for it and `confirmed_default_close` closes the
    reason once it is decided."""
    hold = _open_hold(hold)
    resolution = (resolution or "").strip()
    if problem := text_problem(resolution, "free_text"):
        raise ValidationError({"resolution": problem})
    check = hold.compliance_check
    shipment = check.shipment
    if hold.kind in UNRESOLVABLE:
        raise ValidationError({"resolution": UNRESOLVABLE[hold.kind]})
    if hold.kind == HoldKind.LICENCE:
        licence = _resolve_with_licence(hold, check, shipment, licence_number, actor)
        hold.licence, hold.resolved_via = licence, ResolvedVia.LICENCE
        resolution = f"Licence {licence.number} covers it. {resolution}".strip()
    elif hold.kind == HoldKind.UNCONFIRMED:
        raise ValidationError(
            {"resolution": "Confirming a default classification needs a compliance officer's request "
             "and, with four eyes on, a second officer's approval (services.hold_reason_resolve)."}
        )  # fmt: skip
    else:  # NOTE_KINDS
        if len(resolution) < MIN_NOTE:
            raise ValidationError(
                {
                    "resolution": "Say how the reason was resolved and on what evidence "
                    f"(at least {MIN_NOTE} characters)."
                }
            )
        hold.resolved_via = ResolvedVia.OFFICER_NOTE
    _close(hold, actor, resolution)
    return hold


def _open_hold(hold: HoldReason) -> HoldReason:
    hold = (
        HoldReason.objects.select_for_update(of=("self",))
        .select_related("compliance_check__shipment__destination", "line__part")
        .get(pk=hold.pk)
    )
    if hold.resolved_at is not None:
        raise ValidationError({"resolution": "This reason is already resolved."})
    return hold


def confirmed_default_problems(hold: HoldReason, resolution: str) -> dict[str, str]:
    """What stops `resolution` from confirming the default classification `hold` is about."""
    if hold.kind != HoldKind.UNCONFIRMED:
        return {"hold_reason": "This reason is not about a default classification."}
    if problem := text_problem(resolution, "free_text"):
        return {"resolution": problem}
    if len(resolution) < MIN_NOTE:
        return {
            "resolution": "Say on what the default classification is confirmed "
            "(e.g. the manufacturer's published ECCN and where it is stated)."
        }
    current = classification_services.current_classification(hold.line.part) if hold.line else None
    if current is None or not current.eccn:
        return {"resolution": "The part has no classification to confirm; classify it."}
    return {}


def confirmed_default_close(*, hold: HoldReason, actor: User, resolution: str) -> HoldReason | None:
    """Close a default classification's reason once confirming the default was decided (with four
    eyes, by the approving officer); the shipment moves on when nothing is left open. A reason
    closed meanwhile (a newer check answered it) is left as it is: None."""
    try:
        hold = _open_hold(hold)
    except ValidationError:
        return None
    hold.resolved_via = ResolvedVia.CLASSIFICATION
    _close(hold, actor, resolution.strip())
    return hold


def _close(hold: HoldReason, actor: User, resolution: str) -> None:
    check = hold.compliance_check
    shipment = check.shipment
    hold.resolved_by, hold.resolved_at, hold.resolution = actor, timezone.now(), resolution
    hold.save(update_fields=["resolved_by", "resolved_at", "resolution", "resolved_via", "licence"])
    if hold.kind == HoldKind.LICENCE:
        # The shipment's history is read by all its parties; the licence's own history has the detail.
        line = hold.line.line_number if hold.line else "?"
        record(
            shipment,
            action="update",
            actor=actor,
            message=f"Licence-required reason of line {line} resolved.",
        )
        record(
            hold.licence,
            action="update",
            actor=actor,
            message=f"Applied to {shipment.reference} line {line}: {hold.text}",
        )
    else:
        record(
            shipment,
            action="update",
            actor=actor,
            message=f"Hold reason resolved ({hold.get_resolved_via_display()}): {hold.text} — "
            f"{hold.resolution}",
        )
    _settle(check, actor)


def _resolve_with_licence(hold, check, shipment, licence_number: str, actor) -> Licence:
    """The licence named must be one this shipment may use, cover the line, be valid and have room;
    it is drawn down now, under a row lock."""
    number = (licence_number or "").strip()
    if not number:
        raise ValidationError({"licence_number": "Give the number of the licence that covers this line."})
    if hold.line is None:
        raise ValidationError({"licence_number": "This reason concerns no line."})
    line_result = check.line_results.filter(line=hold.line).first()
    eccn = line_result.eccn if line_result else ""
    roles = Roles.of(shipment.parties.select_related("organisation"))
    line_licences = licences_by_line(shipment, roles).get(hold.line_id, [])
    candidates = {lic.number.lower(): lic for lic in line_licences}
    licence = candidates.get(number.lower())
    if licence is None:
        raise ValidationError(
            {
                "licence_number": f"No licence {number} held by the exporter "
                f"({_line_exporter(hold.line, roles) or 'not named'}) for consignee "
                f"{roles.consignee or '(not named)'} "
                f"and end user {roles.end_user or '(not named)'} to {shipment.destination.country}."
            }
        )
    licence = Licence.objects.select_for_update().get(pk=licence.pk)
    line = hold.line
    value = line.unit_value * line.quantity
    left = remaining([licence], exclude_shipment=shipment)[licence.pk]
    problem = _licence_unusable(licence, eccn, line.quantity, value, left, timezone.localdate())
    if problem:
        raise ValidationError({"licence_number": problem[0].upper() + problem[1:] + "."})
    if check.shipment_version == shipment_fingerprint(shipment):
        # The check of this version stands: the line draws on the licence now.
        LicenceDrawdown.objects.create(
            licence=licence, compliance_check=check, line=line, quantity=line.quantity, value=value
        )
        # Documents read the line's licence from the check.
        check.line_results.filter(line=line).update(licence=licence)
    # Otherwise the licence is newer than the check: the re-check `_settle` queues draws on it.
    return licence


def _settle(check: ComplianceCheck, actor: User | None) -> None:
    """After reasons were resolved: move the shipment on when nothing is left open. When a fact
    changed meanwhile (a licence recorded, a hit decided), the check of the new version runs."""
    if check.hold_reasons.filter(resolved_at__isnull=True).exists():
        return
    shipment = check.shipment
    if check.shipment_version == shipment_fingerprint(shipment):
        _apply_to_shipment(shipment, check, actor)
    else:
        _recheck(Shipment.objects.filter(pk=shipment.pk), actor)


def release_drawdowns_on_cancel(event) -> None:
    """A cancelled shipment gives its licence room back."""
    released = _release_drawdowns(event.shipment, f"Shipment cancelled: {event.reason}")
    if released:
        record(
            event.shipment,
            action="update",
            actor=event.actor,
            message=f"{released} licence drawdown{'s' if released != 1 else ''} released "
            "(shipment cancelled).",
        )


def start_check_on_review(event) -> None:
    """Entering review (a submission, or a release from a compliance hold) runs the check: it
    applies the result already made for this version, or computes it."""
    compliance_check_start(shipment=event.shipment, actor=event.actor, automatic=True)


# --- facts that change after a check: hit decisions, lifted blocks, new classifications ---------


def _open_shipments_naming(organisation_id: int):
    return Shipment.objects.filter(
        parties__organisation_id=organisation_id, status__in=OPEN_STATUSES
    ).distinct()


def hit_decided(*, hit, actor: User | None) -> None:
    """Call inside the transaction that cleared or confirmed `hit` (a ScreeningHit of an
    organisation): resolves the hold reasons the hit raised (cleared) or turns them into blocked-party
    reasons (confirmed), and moves on shipments with nothing left open."""
    organisation_id = hit.screening.organisation_id
    if organisation_id is None:
        return
    reasons = list(
        HoldReason.objects.select_for_update(of=("self",))
        .filter(
            kind=HoldKind.SCREENING,
            resolved_at__isnull=True,
            organisation_id=organisation_id,
            hit__entry__entry_id=hit.entry.entry_id,
        )
        .select_related("compliance_check__shipment")
    )
    who = (actor.get_full_name() or actor.username) if actor else "the system"
    if hit.status == HitStatus.CLEARED:
        now = timezone.now()
        for reason in reasons:
            reason.resolved_by, reason.resolved_at = actor, now
            reason.resolved_via = ResolvedVia.HIT_CLEARED
            reason.resolution = f"Screening hit cleared by {who}: {hit.decision_reason}"
            reason.save(update_fields=["resolved_by", "resolved_at", "resolved_via", "resolution"])
        for check in {r.compliance_check_id: r.compliance_check for r in reasons}.values():
            _settle(check, actor)
    elif hit.status == HitStatus.CONFIRMED:
        for reason in reasons:
            reason.kind = HoldKind.BLOCKED
            reason.text = (
                f"{reason.text.split(':')[0]}: confirmed match with {hit.entry.name} ({hit.entry.source}) by "
                f"{who} — the party is blocked: {hit.decision_reason}"
            )[:600]
            reason.save(update_fields=["kind", "text"])
        # Held shipments stay held; approved or booked ones naming the party are checked again.
        _recheck(_open_shipments_naming(organisation_id), actor)


def block_lifted(*, block: PartyBlock, actor: User | None) -> None:
    """Call inside the transaction that lifted `block`: resolves the blocked-party reasons it
    caused and re-checks the open shipments naming the organisation."""
    now = timezone.now()
    reasons = HoldReason.objects.filter(
        kind=HoldKind.BLOCKED, resolved_at__isnull=True, organisation_id=block.organisation_id
    )
    reasons.update(
        resolved_by=actor,
        resolved_at=now,
        resolved_via=ResolvedVia.BLOCK_LIFTED,
        resolution=f"Match reversed and block lifted: {block.lift_reason}"[:2000],
    )
    _recheck(_open_shipments_naming(block.organisation_id), actor)


def part_classification_changed(*, part, actor: User | None, reason: str) -> None:
    """Call inside the transaction that made a new current classification of `part` with a different
    answer: the checks of open shipments containing it go stale and run again (`services.stale`)."""
    inputs_changed(InputsChanged(reason=reason, shipments=Q(lines__part=part), actor=actor))


def mark_stale_on_amend(event) -> None:
    """An approved shipment sent back to draft to be corrected (a `shipments.hooks` hook for
    `draft`): its answers are marked stale with the amendment's reason. It is checked again when
    resubmitted: the amendment count is part of the fingerprint, so the old pass cannot approve it."""
    if event.before != ShipmentStatus.APPROVED:
        return
    ComplianceCheck.objects.filter(shipment=event.shipment, stale_since__isnull=True).update(
        stale_since=timezone.now(), stale_reason=f"Shipment amended: {event.reason}"[:500]
    )
    record(
        event.shipment,
        action="update",
        actor=event.actor,
        message="Compliance answer stale: the shipment was amended; it is checked again when resubmitted.",
    )


def _recheck(shipments, actor: User | None) -> None:
    """Queue a check of each shipment whose goods have not left and that has been checked before."""
    for shipment in shipments.filter(status__in=RECHECK_STATUSES, compliance_checks__isnull=False).distinct():
        if shipment.status == ShipmentStatus.ON_HOLD and shipment.hold_kind != "compliance":
            continue
        compliance_check_start(shipment=shipment, actor=actor)


def register_hooks() -> None:
    """Called from the app's ready(): what compliance does when a shipment enters a status, and
    what approval needs (a passing check of this version, or every hold reason resolved)."""
    from apps.shipments import hooks

    hooks.on_enter(ShipmentStatus.COMPLIANCE_REVIEW, start_check_on_review)
    hooks.on_enter(ShipmentStatus.CANCELLED, release_drawdowns_on_cancel)
    hooks.on_enter(ShipmentStatus.DRAFT, mark_stale_on_amend)
    hooks.guard(ShipmentStatus.APPROVED, approval_problems)
    _register_part_columns()
    # Booking rests on the same answer: a classification, party or licence change since approval
    # makes a new version whose check must pass first (no Book button after an override).
    hooks.guard(ShipmentStatus.BOOKED, approval_problems)


def _register_part_columns() -> None:
    """The parts list shows each part's current ECCN in a column of its own."""
    from django.db.models import OuterRef, Subquery

    from apps.catalog.hooks import PartColumn, part_column

    def annotate(queryset):
        current = PartClassification.objects.filter(part=OuterRef("pk"), is_current=True).values("eccn")[:1]
        return queryset.annotate(current_eccn=Subquery(current))

    part_column(
        PartColumn(header="ECCN", attribute="current_eccn", annotate=annotate, empty="not classified")
    )
