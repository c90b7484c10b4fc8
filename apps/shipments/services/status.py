"""The status flow: the one service that changes a shipment's status (`shipment_transition`), what
each move needs (capability, reason, guards) and the amendment of an approved shipment."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.core.audit import record_transition

from .. import hooks, readiness, selectors
from ..engines import workflow
from ..models import EventCode, LegRole, PartyRole, Shipment, ShipmentStatus


class RecordPartyProblem(str):
    """A guard problem that is a missing importer / exporter of record: still plain text, marked
    so that the API's 409 can link to the record-party assessment."""


class TransitionRefused(Exception):
    """A status change the flow or its guard does not allow; the API answers 409."""

    def __init__(self, message: str, *, reasons: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.reasons = reasons or [message]
        self.missing_record_party = any(isinstance(r, RecordPartyProblem) for r in self.reasons)


class TransitionForbidden(TransitionRefused):
    """The move exists, but the actor's role may not make it: a 403, not a 409 (nothing about the
    shipment's state would change the answer)."""


TRANSITION_CAPABILITY = {
    ShipmentStatus.COMPLIANCE_REVIEW: "shipments.submit",
    ShipmentStatus.DRAFT: "shipments.submit",
    ShipmentStatus.APPROVED: "shipments.approve",
    ShipmentStatus.BOOKED: "shipments.book",
    ShipmentStatus.IN_TRANSIT: "shipments.track",
    ShipmentStatus.AT_CUSTOMS: "shipments.track",
    ShipmentStatus.CLEARED: "shipments.track",
    ShipmentStatus.DELIVERED: "shipments.track",
    ShipmentStatus.ON_HOLD: "shipments.hold",
    ShipmentStatus.CANCELLED: "shipments.cancel",
}


RELEASE = "release"


# Approved back to draft is an amendment: it voids issued documents and reopens a compliance
# answer, so it is the coordinator's act, not every submitter's (see `transition_capability`).
AMEND_CAPABILITY = "shipments.amend"


def transition_capability(current: str, target: str) -> str:
    """The capability that moving a shipment from `current` to `target` needs."""
    if workflow.is_amendment(workflow.Status(current), workflow.Status(target)):
        return AMEND_CAPABILITY
    return TRANSITION_CAPABILITY[ShipmentStatus(target)]


def guard_problems(shipment: Shipment, target: str) -> list[str]:
    """What stops `shipment` from entering `target` (empty when nothing does)."""
    problems: list[str] = []
    if target == ShipmentStatus.COMPLIANCE_REVIEW:
        lines = list(shipment.lines.all())
        if not lines:
            problems.append("The shipment has no lines.")
        roles = set(shipment.parties.values_list("role", flat=True))
        for role in (PartyRole.SHIPPER, PartyRole.CONSIGNEE):
            if role not in roles:
                problems.append(f"No {PartyRole(role).label.lower()} is named.")
        problems.extend(RecordPartyProblem(p) for p in selectors.record_party_problems(shipment))
        # What the documents will need of the terms (CIP/CIF cover, the C rules' charges).
        problems.extend(readiness.review_problems(shipment))
    elif target == ShipmentStatus.APPROVED:
        problems.extend(readiness.review_problems(shipment))
        problems.extend(hooks.guard_problems(target, shipment))  # compliance: a passing check
    elif target == ShipmentStatus.BOOKED:
        problems.extend(selectors.packing_problems(shipment))
        if not shipment.legs.filter(role=LegRole.MAIN).exists():
            problems.append("No main-carriage leg is planned.")
        problems.extend(hooks.guard_problems(target, shipment))  # documents: required ones issued
    elif target == ShipmentStatus.IN_TRANSIT:
        # compliance: the goods leave only on a current, passing answer (not one gone stale)
        problems.extend(hooks.guard_problems(target, shipment))
    elif target == ShipmentStatus.CANCELLED:
        problems.extend(
            workflow.cancel_problems(
                workflow.Status(shipment.status),
                held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
                departed_at=departed_at(shipment),
            )
        )
    return problems


def departed_at(shipment: Shipment) -> dt.datetime | None:
    """When the goods left on the main carriage by the evidence: the earliest departure milestone
    not on an inbound leg, or actual departure of a leg that is not inbound (None: not departed)."""
    event = (
        shipment.events.filter(code=EventCode.DEPARTED)
        .exclude(leg__role=LegRole.INBOUND)
        .order_by("occurred_at")
        .values_list("occurred_at", flat=True)
        .first()
    )
    leg = (
        shipment.legs.filter(actual_departure__isnull=False)
        .exclude(role=LegRole.INBOUND)
        .order_by("actual_departure")
        .values_list("actual_departure", flat=True)
        .first()
    )
    return min((t for t in (event, leg) if t is not None), default=None)


@transaction.atomic
def shipment_transition(
    *,
    shipment: Shipment,
    target: str,
    actor: User | None,
    reason: str = "",
    hold_kind: str = "",
    check_capability: bool = True,
) -> Shipment:
    """The only way a shipment's status changes: lock, check flow and guard, save, audit.

    `target` is a status, or "release" to return a held shipment to where it was held.
    """
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    current = ShipmentStatus(shipment.status)
    reason = (reason or "").strip()
    if target == RELEASE:
        if current != ShipmentStatus.ON_HOLD:
            raise TransitionRefused(f"{shipment.reference} is not on hold.")
        capability = (
            "shipments.release_compliance_hold"
            if shipment.hold_kind == workflow.HoldKind.COMPLIANCE
            else "shipments.release_customs_hold"
        )
        new_status = ShipmentStatus(shipment.held_from)
    else:
        try:
            new_status = ShipmentStatus(target)
        except ValueError as exc:
            raise TransitionRefused(f"Unknown status {target!r}.") from exc
        if not workflow.can_move(workflow.Status(current), workflow.Status(new_status)):
            allowed = ", ".join(sorted(workflow.TRANSITIONS[workflow.Status(current)])) or "none"
            message = (
                f"{shipment.reference} cannot go from {current.label.lower()} to {new_status.label.lower()} "
                f"(allowed: {allowed}{', release' if current == ShipmentStatus.ON_HOLD else ''})."
            )
            # Back to draft from past review is an amendment: say why this one is not possible.
            why = _amend_problems(shipment) if new_status == ShipmentStatus.DRAFT else []
            raise TransitionRefused(message, reasons=why or None)
        capability = transition_capability(current, new_status)
    amending = target != RELEASE and workflow.is_amendment(
        workflow.Status(current), workflow.Status(new_status)
    )
    if check_capability and actor is not None and not actor.can(capability):
        if amending:
            raise TransitionForbidden("Your role may not amend an approved shipment (back to draft).")
        raise TransitionForbidden(f"Your role may not move a shipment to {new_status.label.lower()}.")
    if new_status in (ShipmentStatus.ON_HOLD, ShipmentStatus.CANCELLED) and not reason:
        raise TransitionRefused(f"A reason is required to put a shipment {new_status.label.lower()}.")
    if amending and not reason:
        raise TransitionRefused(
            "Say why the shipment is amended: the reason is recorded and given on every document voided."
        )
    if new_status == ShipmentStatus.ON_HOLD and hold_kind not in workflow.HoldKind.__members__.values():
        raise TransitionRefused("Say whether this is a compliance or a customs hold.")
    if target == RELEASE and check_capability:
        problems = hooks.release_problems(shipment, actor)
        if problems:
            raise TransitionRefused(
                f"{shipment.reference} cannot be released here: {' '.join(problems)}", reasons=problems
            )
    if target != RELEASE:
        problems = guard_problems(shipment, new_status)
        if problems:
            raise TransitionRefused(
                f"{shipment.reference} cannot move to {new_status.label.lower()} yet.", reasons=problems
            )
    before = shipment.status
    if new_status == ShipmentStatus.ON_HOLD:
        shipment.held_from, shipment.hold_kind, shipment.hold_reason = before, hold_kind, reason
    elif current == ShipmentStatus.ON_HOLD:
        shipment.held_from, shipment.hold_kind, shipment.hold_reason = "", "", ""
    shipment.status = new_status
    shipment.status_changed_at = timezone.now()
    if amending:
        shipment.amendments += 1  # under the row lock taken above
    shipment.save(
        update_fields=[
            "status", "held_from", "hold_kind", "hold_reason", "status_changed_at", "amendments",
            "updated_at",
        ]
    )  # fmt: skip
    hooks.run_on_enter(
        hooks.Entered(
            shipment=shipment,
            before=before,
            after=new_status,
            actor=actor,
            released=target == RELEASE,
            reason=reason,
        )
    )
    label = "release" if target == RELEASE else "amendment" if amending else ""
    record_transition(
        shipment,
        field="status",
        before=before,
        after=new_status,
        actor=actor,
        reason=" — ".join(p for p in (label, hold_kind, reason) if p),
    )
    return shipment


def _amend_problems(shipment: Shipment) -> list[str]:
    return workflow.amend_problems(
        workflow.Status(shipment.status),
        held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
    )


@transaction.atomic
def shipment_amend(*, shipment: Shipment, actor: User | None, reason: str) -> Shipment:
    """Send an approved shipment that is not booked yet back to draft to correct its lines or terms.

    A reason is required. In the same transaction, through the hooks of the apps above: every issued
    document is voided with the reason (its version and bytes kept, a VOID copy added) and drafts
    are superseded; the compliance answer is marked stale. The amendment is counted on the shipment
    and the count is part of what the compliance answer rests on, so resubmitting runs the check
    again on the amended data instead of re-applying the old approval."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    if problems := _amend_problems(shipment):
        raise TransitionRefused(
            f"{shipment.reference} cannot be amended (sent back to draft).", reasons=problems
        )
    return shipment_transition(shipment=shipment, target=ShipmentStatus.DRAFT, actor=actor, reason=reason)
