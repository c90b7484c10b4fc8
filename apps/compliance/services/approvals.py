"""Four eyes on every compliance decision that loosens control.

One mechanism for six decisions: an officer's classification override that lowers control
(engines.control), confirming a default classification, releasing a compliance hold, clearing a
possible restricted-party match as a false positive (the shipments it held move on), lifting a
block (reversing a confirmed match), and switching the four-eyes policy itself off or on. A
compliance officer asks, with a reason (`ComplianceApproval`, pending); until a second compliance
officer of the same organisation approves it, the decision has no effect — the classification,
the hold and the block stay as they are. The requester cannot approve their own request, and
only the compliance officer role counts: an administrator, a Django staff user or a superuser
without it neither asks nor approves (`compliance.decide` is bound to the role, apps.accounts.roles).

The policy is the organisation's (`Organisation.compliance_four_eyes`, on by default). While it
is off, a decision is taken by one officer at once and its row records under which change:
"four eyes off (policy changed by X, approved by Y on date)". Switching the policy, either way,
always takes two officers.

The effects live with their subjects (classification.officer_classification_record,
holds.confirmed_default_close, screening.hit_clearance_apply, screening.block_lift_apply, the
shipments status flow); this
module is the only caller of them, so nothing else decides.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import Organisation, User
from apps.catalog.models import Part
from apps.core.audit import record_transition
from apps.core.validators import text_problem
from apps.shipments.models import Shipment, ShipmentStatus

from ..engines.control import control_change
from ..engines.eccn import normalise_eccn
from ..models import (
    APPROVAL_TRANSITIONS,
    ApprovalKind,
    ApprovalStatus,
    ClassificationSource,
    ComplianceApproval,
    HoldKind,
    HoldReason,
    PartClassification,
    PartyBlock,
    ScreeningHit,
)
from .classification import current_classification, officer_classification_record, override_problems
from .holds import confirmed_default_close, confirmed_default_problems
from .holds import hold_reason_resolve as resolve_with_fact
from .screening import block_lift_apply, hit_clearance_apply, hit_open_for_decision

NOT_AN_OFFICER = (
    "Only a compliance officer may ask for or decide this; an administrator is not a compliance officer."
)
SELF_APPROVAL = "A second compliance officer must approve this (four eyes): you requested it."
OTHER_ORGANISATION = "Only a compliance officer of the same organisation may decide this request."
RELEASE_ELSEWHERE = (
    "A compliance hold is released by a compliance decision: ask for the release on the shipment's "
    "compliance page (a second compliance officer approves it while four eyes is on)."
)
_SUBJECT_FIELD = {
    ApprovalKind.CLASSIFICATION_OVERRIDE: "part",
    ApprovalKind.DEFAULT_CONFIRMATION: "part",
    ApprovalKind.HOLD_RELEASE: "shipment",
    ApprovalKind.BLOCK_LIFT: "block",
    ApprovalKind.POLICY_CHANGE: "organisation",
    ApprovalKind.HIT_CLEARANCE: "hit",
}


# --- who and under which policy ----------------------------------------------------------------------


def is_compliance_officer(user: User | None) -> bool:
    """Holds the compliance officer role (not merely a superuser's or administrator's rights)."""
    return user is not None and getattr(user, "is_authenticated", False) and user.can("compliance.decide")


def _require_officer(actor: User) -> None:
    if not is_compliance_officer(actor) or actor.organisation_id is None:
        raise PermissionDenied(NOT_AN_OFFICER)


@dataclass(frozen=True)
class FourEyesPolicy:
    """An organisation's four-eyes policy as it stands: `note` is empty while it is on."""

    on: bool
    note: str
    changed_by: User | None
    approved_by: User | None
    changed_at: object


def four_eyes_policy(organisation: Organisation) -> FourEyesPolicy:
    """The policy of `organisation` (read from the database, not from a cached row)."""
    row = Organisation.objects.select_related("four_eyes_changed_by", "four_eyes_approved_by").get(
        pk=organisation.pk
    )
    return FourEyesPolicy(
        on=row.compliance_four_eyes,
        note=row.four_eyes_note,
        changed_by=row.four_eyes_changed_by,
        approved_by=row.four_eyes_approved_by,
        changed_at=row.four_eyes_changed_at,
    )


def _locked_organisation(organisation_id: int) -> Organisation:
    """The deciding organisation, locked: a decision taken alone and a policy switch approved at the
    same moment are one after the other, so nothing is decided alone once four eyes is back on."""
    return (
        Organisation.objects.select_for_update(of=("self",))
        .select_related("four_eyes_changed_by", "four_eyes_approved_by")
        .get(pk=organisation_id)
    )


# --- asking -------------------------------------------------------------------------------------------


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "Give a reason: a second compliance officer decides on it."})
    if problem := text_problem(reason, "free_text"):
        raise ValidationError({"reason": problem})
    return reason


def _request(*, kind: str, actor: User, reason: str, alone: bool = True, **subject) -> ComplianceApproval:
    """Write the request, pending; taken at once by `actor` alone when the organisation's policy is
    off and the decision may then be taken alone (`alone`; never a policy change)."""
    organisation = _locked_organisation(actor.organisation_id)
    field = _SUBJECT_FIELD[kind]
    waiting = ComplianceApproval.objects.filter(status=ApprovalStatus.PENDING).select_related("requested_by")
    waiting = (
        waiting.filter(organisation=organisation, kind=kind)
        if field == "organisation"
        else waiting.filter(**{field: subject[field]})
    )
    if existing := waiting.first():
        raise ValidationError(
            {
                field: "A request is already awaiting a second officer: "
                f"{existing.get_kind_display().lower()}, asked by {_name(existing.requested_by)} on "
                f"{existing.requested_at:%Y-%m-%d}; approve, reject or withdraw it first."
            }
        )
    approval = ComplianceApproval(
        organisation=organisation, kind=kind, reason=reason, requested_by=actor, **subject
    )
    now = timezone.now()
    if alone and not organisation.compliance_four_eyes:
        approval.status, approval.four_eyes_note = ApprovalStatus.DECIDED_ALONE, organisation.four_eyes_note
        approval.decided_by, approval.decided_at = actor, now
    try:
        with transaction.atomic():
            approval.save()
    except IntegrityError as exc:  # another officer asked at the same moment
        raise ValidationError({field: "A request is already awaiting a second officer."}) from exc
    return approval


def _name(user: User | None) -> str:
    return (user.get_full_name() or user.username) if user else "unknown"


@transaction.atomic
def part_classification_override(
    *, part: Part, eccn: str, reason: str, actor: User
) -> PartClassification | ComplianceApproval:
    """A compliance officer classifies `part` as `eccn`, saying why. It takes effect now (the new
    current classification is returned) when it raises control or keeps the number, or while four
    eyes is off; an override that lowers control, or confirming a category default, waits for a
    second officer (the pending request is returned)."""
    approval = classification_decision(part=part, eccn=eccn, reason=reason, actor=actor)
    return approval if approval.is_pending else approval.classification


@transaction.atomic
def classification_decision(
    *, part: Part, eccn: str, reason: str, actor: User, hold: HoldReason | None = None
) -> ComplianceApproval:
    """The decision behind `part_classification_override` (and a default confirmed from a hold
    reason): always a row, pending or taken."""
    _require_officer(actor)
    if errors := override_problems(eccn, reason):
        raise ValidationError(errors)
    eccn, reason = normalise_eccn(eccn), _reason(reason)
    current = PartClassification.objects.select_for_update().filter(part=part, is_current=True).first()
    before = current.eccn if current is not None and current.is_complete else ""
    change = control_change(before, eccn)
    confirming = current is not None and current.needs_confirmation and current.eccn == eccn
    if confirming or hold is not None:
        kind = ApprovalKind.DEFAULT_CONFIRMATION
    else:
        kind = ApprovalKind.CLASSIFICATION_OVERRIDE
    needs_two = confirming or hold is not None or change.lowers_control
    approval = _request(
        kind=kind,
        actor=actor,
        reason=reason,
        alone=needs_two,  # an upgrade is never a four-eyes decision, whatever the policy
        part=part,
        eccn_before=before,
        eccn=eccn,
        control_change=(
            f"Confirms the category default {eccn}"
            if kind == ApprovalKind.DEFAULT_CONFIRMATION
            else change.explanation
        )[:300],
        hold_reason=hold,
    )
    if not needs_two and approval.is_pending:
        approval.status, approval.decided_by, approval.decided_at = (
            ApprovalStatus.NOT_NEEDED,
            actor,
            timezone.now(),
        )
        approval.save(update_fields=["status", "decided_by", "decided_at"])
    if not approval.is_pending:
        _apply(approval, actor)
    return approval


@transaction.atomic
def hold_reason_resolve(
    *, hold: HoldReason, actor: User, resolution: str = "", licence_number: str = ""
) -> HoldReason:
    """Resolve one hold reason (holds.hold_reason_resolve). A default classification's reason is
    answered by confirming the default: a four-eyes decision, so the reason stays open until a
    second officer approves (the pending request is `pending_approval` on the returned reason)."""
    if hold.kind != HoldKind.UNCONFIRMED:
        return resolve_with_fact(hold=hold, actor=actor, resolution=resolution, licence_number=licence_number)
    _require_officer(actor)
    hold = HoldReason.objects.select_related("line__part", "compliance_check__shipment").get(pk=hold.pk)
    if hold.resolved_at is not None:
        raise ValidationError({"resolution": "This reason is already resolved."})
    resolution = (resolution or "").strip()
    if errors := confirmed_default_problems(hold, resolution):
        raise ValidationError(errors)
    current = current_classification(hold.line.part)
    approval = classification_decision(
        part=hold.line.part,
        eccn=current.eccn,
        reason=f"Default confirmed: {resolution}",
        actor=actor,
        hold=hold,
    )
    hold.refresh_from_db()
    hold.pending_approval = approval if approval.is_pending else None
    return hold


@transaction.atomic
def compliance_hold_release_request(*, shipment: Shipment, actor: User, reason: str) -> ComplianceApproval:
    """Ask to release a shipment from its compliance hold, back to where it was held from. While
    four eyes is on, a second officer approves it; until then the shipment stays held."""
    _require_officer(actor)
    reason = _reason(reason)
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    _require_compliance_hold(shipment)
    approval = _request(kind=ApprovalKind.HOLD_RELEASE, actor=actor, reason=reason, shipment=shipment)
    if not approval.is_pending:
        _apply(approval, actor)
    return approval


def _require_compliance_hold(shipment: Shipment) -> None:
    if shipment.status != ShipmentStatus.ON_HOLD or shipment.hold_kind != "compliance":
        raise ValidationError({"shipment": f"{shipment.reference} is not on a compliance hold."})


@transaction.atomic
def hit_clear(*, hit: ScreeningHit, actor: User, reason: str) -> ScreeningHit:
    """Ask to clear a possible match as a false positive, saying why. Clearing loosens control (the
    hold reasons it raised are resolved, the shipments move on), so only a compliance officer asks —
    an administrator reviews the queue but does not clear — and while four eyes is on a second
    officer approves it (`approval_approve`); until then the hit stays open and the shipments stay
    held. With four eyes off it is cleared now, saying under which policy change. Returns the hit."""
    _require_officer(actor)
    reason = _reason(reason)
    hit = hit_open_for_decision(hit)
    approval = _request(kind=ApprovalKind.HIT_CLEARANCE, actor=actor, reason=reason, hit=hit)
    if not approval.is_pending:
        _apply(approval, actor)
    hit.refresh_from_db()
    return hit


@transaction.atomic
def block_lift_request(*, block: PartyBlock, actor: User, reason: str) -> PartyBlock:
    """Ask to lift a block by reversing the confirmed match behind it, saying why. While four eyes
    is on a second compliance officer approves it (`block_lift_approve`); with it off the block is
    lifted now, and the decision says under which policy change."""
    _require_officer(actor)
    reason = _reason(reason)
    block = _locked_block(block)
    approval = _request(kind=ApprovalKind.BLOCK_LIFT, actor=actor, reason=reason, block=block)
    block.lift_requested_by, block.lift_requested_at, block.lift_reason = actor, approval.requested_at, reason
    block.save(update_fields=["lift_requested_by", "lift_requested_at", "lift_reason"])
    record_transition(
        block, field="lift", before="active", after="lift_requested", reason=reason, actor=actor
    )
    if not approval.is_pending:
        _apply(approval, actor)
        block.refresh_from_db()
    return block


def _pending_for_block(block: PartyBlock, what: str) -> ComplianceApproval:
    approval = ComplianceApproval.objects.filter(block=block, status=ApprovalStatus.PENDING).first()
    if approval is None:
        raise ValidationError({"block": f"There is no lift request to {what}; request one with a reason."})
    return approval


@transaction.atomic
def block_lift_approve(*, block: PartyBlock, actor: User) -> PartyBlock:
    """A second compliance officer approves the lift requested on `block`."""
    _require_officer(actor)
    block = _locked_block(block)
    approval_approve(approval=_pending_for_block(block, "approve"), actor=actor)
    block.refresh_from_db()
    return block


@transaction.atomic
def block_lift_withdraw(*, block: PartyBlock, actor: User, reason: str = "") -> PartyBlock:
    """Withdraw a lift request (the officer who made it) or refuse it (another officer, with a
    reason). The block stays."""
    _require_officer(actor)
    block = _locked_block(block)
    approval = _pending_for_block(block, "withdraw")
    if approval.requested_by_id == actor.pk:
        approval_withdraw(approval=approval, actor=actor)
    else:
        approval_reject(approval=approval, actor=actor, reason=reason)
    block.refresh_from_db()
    return block


def _locked_block(block: PartyBlock) -> PartyBlock:
    block = (
        PartyBlock.objects.select_for_update(of=("self",))
        .select_related("organisation", "lift_requested_by")
        .get(pk=block.pk)
    )
    if block.lifted_at is not None:
        raise ValidationError({"block": f"This block was already lifted on {block.lifted_at:%Y-%m-%d}."})
    return block


@transaction.atomic
def four_eyes_policy_request(
    *, organisation: Organisation, actor: User, on: bool, reason: str
) -> ComplianceApproval:
    """Ask to switch `organisation`'s four-eyes policy on or off. Always two officers: it takes
    effect when a second compliance officer of the organisation approves it."""
    _require_officer(actor)
    if organisation.pk != actor.organisation_id:
        raise PermissionDenied(OTHER_ORGANISATION)
    reason = _reason(reason)
    current = _locked_organisation(organisation.pk)
    if current.compliance_four_eyes == on:
        raise ValidationError({"four_eyes": f"Four eyes is already {'on' if on else 'off'}."})
    return _request(kind=ApprovalKind.POLICY_CHANGE, actor=actor, reason=reason, four_eyes=on, alone=False)


# --- deciding ----------------------------------------------------------------------------------------


def _locked(approval: ComplianceApproval, actor: User) -> ComplianceApproval:
    _require_officer(actor)
    approval = (
        ComplianceApproval.objects.select_for_update(of=("self",))
        .select_related("requested_by", "part", "shipment", "block", "hold_reason")
        .get(pk=approval.pk)
    )
    if approval.organisation_id != actor.organisation_id:
        raise PermissionDenied(OTHER_ORGANISATION)
    if approval.status not in APPROVAL_TRANSITIONS:
        raise ValidationError(
            {"status": f"This request was already decided: {approval.get_status_display().lower()}."}
        )
    return approval


def _move(approval: ComplianceApproval, status: str, actor: User, note: str = "") -> None:
    if status not in APPROVAL_TRANSITIONS[approval.status]:
        raise ValidationError(
            {"status": f"A {approval.get_status_display().lower()} request cannot become {status}."}
        )
    before = approval.status
    approval.status, approval.decided_by, approval.decided_at, approval.decision_note = (
        status,
        actor,
        timezone.now(),
        note,
    )
    approval.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
    record_transition(
        approval, field="status", before=before, after=status, reason=note or approval.reason, actor=actor
    )


@transaction.atomic
def approval_approve(*, approval: ComplianceApproval, actor: User) -> ComplianceApproval:
    """A second compliance officer of the same organisation approves: the decision takes effect."""
    approval = _locked(approval, actor)
    if approval.requested_by_id == actor.pk:
        raise PermissionDenied(SELF_APPROVAL)
    _move(approval, ApprovalStatus.APPROVED, actor)
    _apply(approval, actor)
    return approval


@transaction.atomic
def approval_reject(*, approval: ComplianceApproval, actor: User, reason: str) -> ComplianceApproval:
    """A second compliance officer refuses, saying why: nothing changes."""
    approval = _locked(approval, actor)
    if approval.requested_by_id == actor.pk:
        raise PermissionDenied("You asked for this: withdraw it instead of rejecting it.")
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "Give a reason for rejecting the request."})
    _move(approval, ApprovalStatus.REJECTED, actor, reason)
    _unmark_block(approval, actor, reason)
    return approval


@transaction.atomic
def approval_withdraw(*, approval: ComplianceApproval, actor: User) -> ComplianceApproval:
    """The officer who asked takes the request back: nothing changes."""
    approval = _locked(approval, actor)
    if approval.requested_by_id != actor.pk:
        raise PermissionDenied("Only the officer who asked may withdraw a request; reject it with a reason.")
    note = "Withdrawn by the officer who asked."
    _move(approval, ApprovalStatus.WITHDRAWN, actor, note)
    _unmark_block(approval, actor, note)
    return approval


def _unmark_block(approval: ComplianceApproval, actor: User, reason: str) -> None:
    if approval.kind != ApprovalKind.BLOCK_LIFT:
        return
    block = PartyBlock.objects.select_for_update(of=("self",)).get(pk=approval.block_id)
    record_transition(
        block, field="lift", before="lift_requested", after="active", reason=reason, actor=actor
    )
    block.lift_requested_by, block.lift_requested_at, block.lift_reason = None, None, ""
    block.save(update_fields=["lift_requested_by", "lift_requested_at", "lift_reason"])


# --- the effects ---------------------------------------------------------------------------------------


def _how(approval: ComplianceApproval) -> str:
    """How the decision was taken, for texts every party reads (no person's name)."""
    if approval.status == ApprovalStatus.APPROVED:
        return "Decided by two Rackpass compliance officers (four eyes)."
    if approval.status == ApprovalStatus.DECIDED_ALONE:
        return "Decided by one Rackpass compliance officer: four eyes was off."
    return ""


def _apply(approval: ComplianceApproval, actor: User) -> None:
    """Make the decided request take effect (inside the deciding transaction)."""
    kind = approval.kind
    if kind in (ApprovalKind.CLASSIFICATION_OVERRIDE, ApprovalKind.DEFAULT_CONFIRMATION):
        _apply_classification(approval, actor)
    elif kind == ApprovalKind.HOLD_RELEASE:
        from apps.shipments.services import RELEASE, shipment_transition

        shipment = Shipment.objects.select_for_update().get(pk=approval.shipment_id)
        _require_compliance_hold(shipment)
        shipment_transition(
            shipment=shipment,
            target=RELEASE,
            actor=actor,
            reason=f"Compliance hold released: {approval.reason} {_how(approval)}",
            check_capability=False,  # decided here: the guard against a one-person release is for people
        )
    elif kind == ApprovalKind.BLOCK_LIFT:
        block_lift_apply(_locked_block(approval.block), actor)
    elif kind == ApprovalKind.HIT_CLEARANCE:
        # The hit records the officer who judged it; the approval, who agreed.
        hit_clearance_apply(
            hit=approval.hit, actor=approval.requested_by, reason=f"{approval.reason} {_how(approval)}"
        )
    elif kind == ApprovalKind.POLICY_CHANGE:
        organisation = _locked_organisation(approval.organisation_id)
        organisation.compliance_four_eyes = bool(approval.four_eyes)
        organisation.four_eyes_changed_by = approval.requested_by
        organisation.four_eyes_approved_by = actor
        organisation.four_eyes_changed_at = approval.decided_at
        organisation.save(
            update_fields=[
                "compliance_four_eyes",
                "four_eyes_changed_by",
                "four_eyes_approved_by",
                "four_eyes_changed_at",
                "updated_at",
            ]
        )


def _apply_classification(approval: ComplianceApproval, actor: User) -> None:
    current = (
        PartClassification.objects.select_for_update()
        .filter(part_id=approval.part_id, is_current=True)
        .first()
    )
    now = current.eccn if current is not None and current.is_complete else ""
    if now != approval.eccn_before:
        raise ValidationError(
            {
                "status": "The part's classification changed since the request "
                f"({approval.eccn_before or 'unclassified'} → now {now or 'unclassified'}): reject this "
                "request and ask again."
            }
        )
    confirmed_already = (
        approval.kind == ApprovalKind.DEFAULT_CONFIRMATION
        and current is not None
        and current.source == ClassificationSource.OFFICER
        and current.eccn == approval.eccn
    )
    if confirmed_already:
        row = current  # an officer's classification is a confirmation: nothing more to record
    else:
        row = officer_classification_record(
            part=approval.part,
            eccn=approval.eccn,
            reason=approval.reason,
            actor=approval.requested_by,
            decided=_how(approval),
        )
    approval.classification = row
    approval.save(update_fields=["classification"])
    if approval.hold_reason_id is not None:
        confirmed_default_close(
            hold=approval.hold_reason,
            actor=actor,
            resolution=f"Default classification {approval.eccn} confirmed. {_how(approval)} "
            f"{approval.reason}",
        )


# --- the shipments' release guard -----------------------------------------------------------------------


def release_problems(shipment, actor) -> list[str]:
    """`shipments.hooks`: a person does not release a compliance hold through the status flow."""
    return [RELEASE_ELSEWHERE]


def register_hooks() -> None:
    from apps.shipments import hooks

    hooks.release_guard("compliance", release_problems)
