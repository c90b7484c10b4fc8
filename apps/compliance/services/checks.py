"""The shipment compliance check: screen every party, classify every line, determine licence
needs, draw down licences held, check import requirements — then write the whole result in one
transaction, pass or hold with reasons, and move the shipment where the answer puts it.

What the answer rests on is `services.fingerprint`; each line's licence position is
`services.line_licences`; resolving the hold reasons is `services.holds`. The hooks below say
what compliance does when a shipment enters a status."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from contextlib import nullcontext

from django.db import IntegrityError, OperationalError, transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.audit import audit_context, current_context, record
from apps.core.jsonable import jsonable
from apps.core.tasks_outbox import enqueue_on_commit
from apps.shipments import selectors as shipment_selectors
from apps.shipments.models import Shipment, ShipmentStatus

from ..engines.classification import RULE_VERSION as CLASSIFICATION_RULES
from ..engines.determination import RULE_VERSION as DETERMINATION_RULES
from ..models import (
    CheckLineResult,
    CheckPartyResult,
    CheckResult,
    ComplianceCheck,
    HitStatus,
    HoldKind,
    HoldReason,
    Licence,
    LicenceDrawdown,
    PartClassification,
    PartyBlock,
)
from .alerts import alert_if_departed
from .classification import part_classify
from .countries import active_country_data
from .fingerprint import Roles, licences_by_line, shipment_fingerprint
from .licences import remaining
from .line_licences import LineOutcome, assign_licences, end_user_facts, import_requirements, line_outcome
from .screening import default_threshold, find_hits, open_hits_for, organisation_names, screening_record

logger = logging.getLogger(__name__)
Progress = Callable[[int, str], None]
OPEN_STATUSES = tuple(s for s in ShipmentStatus.values if s not in ("delivered", "cancelled"))


def compliance_check_start(*, shipment: Shipment, actor: User | None, automatic: bool = False) -> str:
    """Queue the check (after the current transaction commits); returns the task id to poll.

    The check is recorded as owed in this transaction (the outbox, `apps.core.tasks_outbox`): when
    the broker cannot be reached the status change still commits, the task status says the check
    waits for the background worker, and the outbox sweep sends it once the broker answers. The task
    is named, not imported: `apps.compliance.tasks` calls the services, never the other way."""
    return enqueue_on_commit(
        "compliance.run_check",
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
            part_classify(part=part, actor=actor)
        version = shipment_fingerprint(shipment)
        existing = ComplianceCheck.objects.filter(shipment=shipment, shipment_version=version).first()
        if existing is not None:
            progress(100, "Already checked")
            if existing.stale_since is not None:
                _confirm(shipment, existing, actor)
            apply_to_shipment(shipment, existing, actor)
            return existing
        check = _run(shipment, version, started, task_id, actor, progress)
    except OperationalError:
        raise
    except Exception as exc:  # noqa: BLE001 — a check must end in a result, never a 500
        logger.exception("Compliance check of %s failed", shipment.reference)
        check = _write_error(shipment, started, task_id, actor, exc)
    apply_to_shipment(shipment, check, actor)
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
    end_user = end_user_facts(roles.end_user, blocks) if roles.end_user else None
    current = {
        c.part_id: c
        for c in PartClassification.objects.filter(part__in=shipment.lines.values("part_id"), is_current=True)
    }
    outcomes: list[LineOutcome] = []
    for n, line in enumerate(lines, start=1):
        outcomes.append(
            line_outcome(
                shipment, line, current.get(line.part_id), end_user, country_data, country_data.as_of
            )
        )
        progress(40 + int(40 * n / max(len(lines), 1)), f"Line {line.line_number} classified")

    # 3. Licences held, import requirements.
    progress(85, "Checking licences and import requirements")
    assign_licences(shipment, outcomes, roles, licences_by_line(shipment, roles))
    import_holds = import_requirements(shipment, roles, lines)

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


# The moves a passing check makes that loosen control, and who may make them by hand.
LOOSENING = {
    ShipmentStatus.APPROVED: "shipments.approve",
    "release": "shipments.release_compliance_hold",
}


def apply_to_shipment(shipment: Shipment, check: ComplianceCheck, actor: User | None) -> None:
    """Move the shipment to where the check's answer puts it.

    In review: a pass approves, a hold holds. Held for compliance: a pass (or every reason
    resolved) releases it and moves it on. Approved or booked: a hold sends it back (approved →
    review → on hold; booked → on hold), with the reasons."""
    from apps.shipments.services import TransitionRefused, shipment_transition

    def move(target: str, reason: str, hold_kind: str = "") -> None:
        # Approving and releasing are credited to the person who ran the check only when that
        # person may approve (a compliance officer). A check that started on submission approves
        # as the check itself, not as the coordinator who submitted: nobody is named, whatever
        # user the background task runs for.
        credited = actor
        if target in LOOSENING and (actor is None or not actor.can(LOOSENING[target])):
            credited = None
        with audit_context(channel=current_context().channel) if credited is None else nullcontext():
            shipment_transition(
                shipment=shipment,
                target=target,
                actor=credited,
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
