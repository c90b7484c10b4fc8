"""The shipment compliance check: screen every party, classify every line, determine licence
needs, draw down licences held, check import requirements — then write the whole result in one
transaction, pass or hold with reasons."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from apps.accounts.models import Organisation, Registration, User
from apps.core.jsonable import jsonable
from apps.core.models import TaskRecord
from apps.shipments.models import PartyRole, Shipment, ShipmentStatus

from ..engines.classification import RULE_VERSION as CLASSIFICATION_RULES
from ..engines.determination import RULE_VERSION as DETERMINATION_RULES
from ..engines.determination import EndUser, determine
from ..models import (
    CheckLineResult,
    CheckPartyResult,
    CheckResult,
    ClassificationSource,
    ComplianceCheck,
    HitStatus,
    HoldReason,
    ImportRequirement,
    Licence,
    LicenceDrawdown,
    PartCertification,
    PartClassification,
    PartyBlock,
    RequirementKind,
    ScreeningList,
)
from . import classification as classification_services
from .countries import active_country_data
from .licences import remaining
from .screening import default_threshold, find_hits, organisation_names, screening_record

Progress = Callable[[int, str], None]
LICENCE_OUTCOMES = ("licence_required",)


@dataclass
class _LineOutcome:
    line: object
    eccn: str = ""
    source: str = ""
    determination: object = None
    licence: Licence | None = None
    reasons: list[str] = field(default_factory=list)
    holds: list[tuple[str, str]] = field(default_factory=list)
    new_classification: object = None


def shipment_fingerprint(shipment: Shipment) -> str:
    """Everything the check reads: same inputs, same fingerprint, one check (idempotency)."""
    lines = list(
        shipment.lines.order_by("line_number").values_list(
            "line_number", "part_id", "quantity", "unit_value", "hs_code", "country_of_origin"
        )
    )
    parties = list(shipment.parties.order_by("role").values_list("role", "organisation_id"))
    org_ids = [o for _, o in parties]
    part_ids = shipment.lines.values("part_id")  # a subquery, not a list of every part
    state = {
        "shipment": [
            shipment.destination.country,
            shipment.origin.country,
            sorted(shipment.end_use_flags or []),
        ],
        "lines": [[str(v) for v in row] for row in lines],
        "parties": parties,
        "classifications": list(
            PartClassification.objects.filter(part_id__in=part_ids, is_current=True)
            .order_by("part_id")
            .values_list("part_id", "pk")
        ),
        "blocks": list(
            PartyBlock.objects.filter(organisation_id__in=org_ids, lifted_at__isnull=True).values_list(
                "pk", flat=True
            )
        ),
        "lists": list(
            ScreeningList.objects.filter(is_active=True).order_by("pk").values_list("pk", flat=True)
        ),
        "licences": str(Licence.objects.aggregate(m=Max("updated_at"))["m"]),
        "registrations": str(
            Registration.objects.filter(organisation_id__in=org_ids).aggregate(m=Max("updated_at"))["m"]
        ),
        "certifications": str(
            PartCertification.objects.filter(part_id__in=part_ids).aggregate(m=Max("updated_at"))["m"]
        ),
        "rules": [CLASSIFICATION_RULES, DETERMINATION_RULES],
    }
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def compliance_check_start(*, shipment: Shipment, actor: User | None, automatic: bool = False) -> str:
    """Queue the check (after the current transaction commits); returns the task id to poll."""
    import uuid

    from ..tasks import run_compliance_check

    task_id = str(uuid.uuid4())
    TaskRecord.objects.create(
        task_id=task_id,
        kind="compliance check",
        user=actor,
        organisation=actor.organisation if actor else None,
        object_repr=shipment.reference,
        object_url=shipment.get_absolute_url(),
    )
    transaction.on_commit(
        lambda: run_compliance_check.apply_async(
            kwargs={
                "shipment_id": shipment.pk,
                "actor_id": actor.pk if actor else None,
                "only_in_review": automatic,
            },
            task_id=task_id,
        )
    )
    return task_id


def compliance_check_run(
    *, shipment: Shipment, actor: User | None = None, task_id: str = "", progress: Progress | None = None
) -> ComplianceCheck:
    """Run the check for the shipment's current version, or return the one already made for it."""
    progress = progress or (lambda percent, step: None)
    shipment = Shipment.objects.select_related("origin", "destination").get(pk=shipment.pk)
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
        _apply_to_shipment(shipment, existing, actor)
        return existing
    started = timezone.now()
    country_data = active_country_data()
    parties = list(shipment.parties.select_related("organisation"))
    lines = list(
        shipment.lines.select_related("part__manufacturer", "part__accelerator__manufacturer").order_by(
            "line_number"
        )
    )

    # 1. Screen every party (in memory; stored with the check).
    progress(5, "Screening parties")
    threshold = default_threshold()
    blocks = {
        b.organisation_id: b
        for b in PartyBlock.objects.filter(
            organisation__in=[p.organisation_id for p in parties], lifted_at__isnull=True
        )
    }
    party_screens = []
    for n, party in enumerate(parties, start=1):
        names = organisation_names(party.organisation)
        hits, versions = find_hits(names, party.organisation.country, threshold)
        party_screens.append((party, names, hits, versions))
        progress(5 + int(35 * n / max(len(parties), 1)), f"Screened {party.organisation}")

    # 2. Classify every line and determine licence needs.
    end_user_org = _end_user(parties)
    end_user = _end_user_facts(end_user_org, blocks) if end_user_org else None
    current = {
        c.part_id: c
        for c in PartClassification.objects.filter(part__in=shipment.lines.values("part_id"), is_current=True)
    }
    outcomes: list[_LineOutcome] = []
    for n, line in enumerate(lines, start=1):
        outcomes.append(_line_outcome(shipment, line, current.get(line.part_id), end_user, country_data))
        progress(40 + int(40 * n / max(len(lines), 1)), f"Line {line.line_number} classified")

    # 3. Licences held, import requirements.
    progress(85, "Checking licences and import requirements")
    _assign_licences(shipment, outcomes, parties)
    import_holds = _import_requirements(shipment, parties, lines)

    progress(95, "Recording the result")
    try:
        check = _write(
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
        check = ComplianceCheck.objects.get(shipment=shipment, shipment_version=version)
    _apply_to_shipment(shipment, check, actor)
    progress(100, check.summary)
    return check


def _end_user(parties) -> Organisation | None:
    by_role = {p.role: p.organisation for p in parties}
    return by_role.get(PartyRole.ULTIMATE_CONSIGNEE) or by_role.get(PartyRole.CONSIGNEE)


def _end_user_facts(org: Organisation, blocks: dict) -> EndUser:
    kind = blocks[org.pk].list_kind if org.pk in blocks else ""
    return EndUser(
        name=org.legal_name,
        country=org.country,
        headquarters_country=org.country,
        entity_list=kind == "entity_list",
        denied_persons=kind == "denied_persons",
        unverified_list=kind == "unverified_list",
        military_end_user=kind == "military_end_user",
    )


def _line_outcome(shipment, line, classification, end_user, country_data) -> _LineOutcome:
    outcome = _LineOutcome(line=line)
    if classification is None or (
        classification.source == ClassificationSource.ENGINE
        and classification.rule_version != CLASSIFICATION_RULES
    ):
        result = classification_services.engine_classification(line.part)
        outcome.new_classification = result
        eccn, complete, source = result.eccn or "", result.status == "classified", "engine"
        missing = result.missing
        outcome.reasons.extend(result.reasoning)
    else:
        eccn, complete, source = classification.eccn, classification.is_complete, classification.source
        missing = classification.missing
        outcome.reasons.append(
            f"{classification.get_source_display()} classification {eccn or '(incomplete)'} "
            f"of {classification.created_at:%Y-%m-%d}."
        )
    outcome.eccn, outcome.source = eccn, source
    if not complete or not eccn:
        text = (
            f"Line {line.line_number} ({line.part}): cannot classify — missing {', '.join(missing)}. "
            "Add the figures to the part or have a compliance officer classify it."
        )
        outcome.holds.append(("classification", text))
        return outcome
    tpp = line.part.computed_tpp or (line.part.accelerator.computed_tpp if line.part.accelerator_id else None)
    determination = determine(
        eccn,
        shipment.destination.country,
        data=country_data,
        end_user=end_user,
        end_use_flags=list(shipment.end_use_flags or []),
        tpp=tpp,
    )
    outcome.determination = determination
    outcome.reasons.extend(rule.text for rule in determination.rules)
    if determination.outcome == "prohibited":
        outcome.holds.append(
            (
                "prohibited",
                f"Line {line.line_number} ({eccn}) to {shipment.destination.country}: "
                f"prohibited — {determination.rules[-1].text if determination.rules else ''}",
            )
        )
    return outcome


def _assign_licences(shipment: Shipment, outcomes: list[_LineOutcome], parties) -> None:
    """Give each line that needs a licence one that covers it and still has room for it."""
    needing = [
        o for o in outcomes if o.determination is not None and o.determination.outcome in LICENCE_OUTCOMES
    ]
    if not needing:
        return
    org_ids = {p.organisation_id for p in parties}
    destination = shipment.destination.country
    candidates = [
        lic
        for lic in Licence.objects.filter(consignee_id__in=org_ids).order_by("expires_on", "pk")
        if destination in lic.country_list
    ]
    left = remaining(candidates)
    today = timezone.localdate()
    for outcome in needing:
        line, value = outcome.line, outcome.line.unit_value * outcome.line.quantity
        covering = [lic for lic in candidates if lic.covers_eccn(outcome.eccn)]
        usable = [lic for lic in covering if lic.valid_from <= today <= lic.expires_on]
        fitting = [lic for lic in usable if left[lic.pk][0] >= line.quantity and left[lic.pk][1] >= value]
        if fitting:
            licence = fitting[0]
            left[licence.pk] = (left[licence.pk][0] - line.quantity, left[licence.pk][1] - value)
            outcome.licence = licence
            outcome.reasons.append(
                f"Licence {licence.number} covers it: {left[licence.pk][0]} units and "
                f"{left[licence.pk][1]:,.2f} {licence.currency} left after this line."
            )
            continue
        if usable:
            lic = usable[0]
            text = (
                f"Line {line.line_number} ({outcome.eccn}): licence {lic.number} has only "
                f"{left[lic.pk][0]} units "
                f"and {left[lic.pk][1]:,.2f} {lic.currency} left; the line needs {line.quantity} units worth "
                f"{value:,.2f}."
            )
        elif covering:
            lic = covering[0]
            text = (
                f"Line {line.line_number} ({outcome.eccn}): licence {lic.number} is not valid today "
                f"(valid {lic.valid_from} to {lic.expires_on})."
            )
        else:
            text = (
                f"Line {line.line_number} ({outcome.eccn}) to {destination}: a licence is required and "
                "none held "
                "covers this ECCN, destination and consignee."
            )
        outcome.holds.append(("licence", text))


def _import_requirements(shipment: Shipment, parties, lines) -> list[tuple[str, str, object]]:
    """What the destination needs of the importer and of the products, and what is missing."""
    country = shipment.destination.country
    requirements = list(ImportRequirement.objects.filter(country=country))
    if not requirements:
        return []
    by_role = {p.role: p.organisation for p in parties}
    importer = by_role.get(PartyRole.IMPORTER_OF_RECORD) or by_role.get(PartyRole.CONSIGNEE)
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
                holds.append(("import", f"No importer is named to hold the {req.name}.", None))
            elif req.scheme not in valid_schemes:
                holds.append(
                    ("import", f"{importer} has no valid {req.name} for imports into {country}.", None)
                )
            continue
        for line in lines:
            if not req.applies_to(hs_code=line.hs_code, category=line.part.category):
                continue
            cert = certs.get((line.part_id, req.scheme))
            if cert is None:
                holds.append(
                    (
                        "import",
                        f"Line {line.line_number} ({line.part}): no {req.name} on record for {country}.",
                        line,
                    )
                )
            elif cert.valid_until and cert.valid_until < today:
                holds.append(
                    (
                        "import",
                        f"Line {line.line_number} ({line.part}): {req.name} {cert.number} expired on "
                        f"{cert.valid_until}.",
                        line,
                    )
                )
    return holds


@transaction.atomic
def _write(
    shipment, version, started, task_id, actor, party_screens, blocks, outcomes, import_holds, threshold
):
    """Everything the check found, in one transaction: a killed worker leaves nothing half-written."""
    # Lock licences in primary-key order before drawing down, then re-check the room left.
    licence_ids = sorted({o.licence.pk for o in outcomes if o.licence is not None})
    locked = {
        lic.pk: lic for lic in Licence.objects.select_for_update().filter(pk__in=licence_ids).order_by("pk")
    }
    left = remaining(list(locked.values()))
    for outcome in outcomes:
        if outcome.licence is None:
            continue
        value = outcome.line.unit_value * outcome.line.quantity
        qty_left, value_left = left[outcome.licence.pk]
        if qty_left < outcome.line.quantity or value_left < value:
            outcome.holds.append(
                (
                    "licence",
                    f"Line {outcome.line.line_number}: licence {outcome.licence.number} "
                    "was used up by another shipment meanwhile.",
                )
            )
            outcome.licence = None
        else:
            left[outcome.licence.pk] = (qty_left - outcome.line.quantity, value_left - value)

    holds: list[tuple[str, str, object]] = []
    party_rows = []
    for party, names, hits, versions in party_screens:
        screening = screening_record(
            names=names,
            country=party.organisation.country,
            threshold=threshold,
            hits=hits,
            versions=versions,
            organisation=party.organisation,
            actor=actor,
            trigger="compliance_check",
        )
        reasons = []
        open_hits = list(screening.hits.filter(status=HitStatus.OPEN).select_related("entry"))
        for hit in open_hits:
            reasons.append(f"Possible match ({hit.score}) with {hit.entry.name} on {hit.entry.source}.")
            holds.append(
                (
                    "screening",
                    f"{party.get_role_display()} {party.organisation}: possible match with "
                    f"{hit.entry.name} ({hit.entry.source}, score {hit.score}). Review it in the "
                    "screening queue.",
                    None,
                )
            )
        if party.organisation_id in blocks:
            block = blocks[party.organisation_id]
            reasons.append(f"Blocked: {block.reason}")
            holds.append(
                (
                    "screening",
                    f"{party.get_role_display()} {party.organisation} is blocked "
                    f"({block.list_kind.replace('_', ' ')}): {block.reason}",
                    None,
                )
            )
        if not reasons:
            reasons.append(
                f"No match at threshold {threshold} against {', '.join(versions) or 'no active list'}."
            )
        party_rows.append(
            CheckPartyResult(
                role=party.role,
                organisation=party.organisation,
                screening=screening,
                result=CheckResult.HOLD
                if (open_hits or party.organisation_id in blocks)
                else CheckResult.PASS,
                reasons=reasons,
            )
        )
    flags = list(shipment.end_use_flags or [])
    if flags:
        holds.append(("end_use", f"End-use red flags recorded: {', '.join(flags)}.", None))
    for outcome in outcomes:
        holds.extend((kind, text, outcome.line) for kind, text in outcome.holds)
    holds.extend(import_holds)

    result = CheckResult.HOLD if holds else CheckResult.PASS
    summary = (
        f"Hold: {len(holds)} reason{'s' if len(holds) != 1 else ''} to resolve."
        if holds
        else f"Pass: {len(outcomes)} line{'s' if len(outcomes) != 1 else ''} and "
        f"{len(party_rows)} parties clear."
    )
    check = ComplianceCheck.objects.create(
        shipment=shipment,
        shipment_version=version,
        result=result,
        summary=summary,
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
                reasons=o.reasons + [text for _, text in o.holds],
            )
            for o in outcomes
        ]
    )
    HoldReason.objects.bulk_create(
        [
            HoldReason(compliance_check=check, kind=kind, text=text[:600], line=line)
            for kind, text, line in holds
        ]
    )
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


def _apply_to_shipment(shipment: Shipment, check: ComplianceCheck, actor: User | None) -> None:
    """A pass approves a shipment waiting in review; a hold puts it on hold with the reasons."""
    from apps.shipments.services import TransitionRefused, shipment_transition

    shipment.refresh_from_db(fields=["status"])
    if shipment.status != ShipmentStatus.COMPLIANCE_REVIEW:
        return
    try:
        if check.result == CheckResult.PASS:
            shipment_transition(
                shipment=shipment,
                target=ShipmentStatus.APPROVED,
                actor=actor,
                reason=f"Compliance check passed: {check.summary}",
                check_capability=False,
            )
        else:
            reasons = "; ".join(h.text for h in check.hold_reasons.all()[:3])
            shipment_transition(
                shipment=shipment,
                target=ShipmentStatus.ON_HOLD,
                actor=actor,
                hold_kind="compliance",
                reason=f"{check.summary} {reasons}"[:500],
                check_capability=False,
            )
    except TransitionRefused:
        # Another guard (not this check) still blocks the move; the check result stands on its own.
        pass


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


@transaction.atomic
def hold_reason_resolve(*, hold: HoldReason, actor: User, resolution: str) -> HoldReason:
    """A compliance officer resolves one hold reason; when none is left open, the hold is released."""
    from django.core.exceptions import ValidationError

    from apps.shipments.services import shipment_transition

    hold = HoldReason.objects.select_for_update().select_related("compliance_check__shipment").get(pk=hold.pk)
    if not (resolution or "").strip():
        raise ValidationError({"resolution": "Say how the reason was resolved."})
    if hold.resolved_at is not None:
        raise ValidationError({"resolution": "This reason is already resolved."})
    hold.resolved_by, hold.resolved_at, hold.resolution = actor, timezone.now(), resolution.strip()
    hold.save(update_fields=["resolved_by", "resolved_at", "resolution"])
    check = hold.compliance_check
    shipment = check.shipment
    from apps.core.audit import record

    record(
        shipment,
        action="update",
        actor=actor,
        message=f"Hold reason resolved: {hold.text} — {hold.resolution}",
    )
    if not check.hold_reasons.filter(resolved_at__isnull=True).exists():
        shipment.refresh_from_db()
        if shipment.status == ShipmentStatus.ON_HOLD and shipment.hold_kind == "compliance":
            shipment_transition(
                shipment=shipment,
                target="release",
                actor=actor,
                reason="All compliance hold reasons resolved",
                check_capability=False,
            )
    return hold


# --- facts that change after a check: hit decisions, lifted blocks, new classifications ---------


def hit_decided(*, hit, actor: User | None) -> None:
    """Call inside the transaction that cleared or confirmed `hit` (a ScreeningHit of an
    organisation): resolves the hold reasons the hit raised (cleared) or turns them into blocked-party
    reasons (confirmed), and moves on shipments with nothing left open."""


def block_lifted(*, block: PartyBlock, actor: User | None) -> None:
    """Call inside the transaction that lifted `block`: re-checks the open shipments naming the
    organisation."""


def part_classification_changed(*, part, actor: User | None, reason: str) -> None:
    """Call inside the transaction that made a new current classification of `part` with a different
    answer: marks the checks of open shipments containing it stale and re-checks them."""
