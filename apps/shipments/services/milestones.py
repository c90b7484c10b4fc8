"""Milestones (tracking events): recorded in any order, the status goes as far as all of the
shipment's events prove, through the status flow and its guards."""

from __future__ import annotations

import datetime as dt

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User

from .. import selectors
from ..engines import workflow
from ..models import EventCode, Leg, LegRole, Shipment, ShipmentStatus, TrackingEvent
from .status import RELEASE, TransitionRefused, shipment_transition


@transaction.atomic
def event_record(
    *,
    shipment: Shipment,
    actor: User,
    code: str,
    occurred_at: dt.datetime,
    location: str = "",
    remarks: str = "",
    leg: Leg | None = None,
    eta: dt.date | None = None,
) -> TrackingEvent:
    """Add a milestone. Events may arrive out of order: the status goes as far as all of the
    shipment's events prove, by when they happened (`workflow.settle`); skipped steps are recorded
    as inferred, and an event that moves nothing says why (`status_note`). A milestone that would
    move the shipment past a guard (compliance: the goods leave only on a current, passing answer),
    or that reports goods held for compliance moving, is refused whole: `TransitionRefused`."""
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    if shipment.status == ShipmentStatus.CANCELLED:
        raise ValidationError({"shipment": f"{shipment.reference} is cancelled; it takes no more events."})
    if code not in EventCode.values:
        raise ValidationError(
            {"code": f"Unknown event code {code!r}; use one of {', '.join(EventCode.values)}."}
        )
    if leg is not None and leg.shipment_id != shipment.pk:
        raise ValidationError({"leg": f"Leg {leg.pk} is not a leg of {shipment.reference}."})
    if occurred_at > timezone.now() + dt.timedelta(hours=1):
        raise ValidationError({"occurred_at": "An event cannot happen in the future."})
    event = TrackingEvent(
        shipment=shipment,
        leg=leg,
        code=code,
        occurred_at=occurred_at,
        location=location,
        remarks=remarks,
        eta=eta,
        posted_by=actor,
        organisation=actor.organisation,
        status_before=shipment.status,
    )
    event.full_clean(exclude=["posted_by"])
    event.save()
    _apply_event_to_leg(event)
    shipment = _settle(shipment, event, actor, remarks, location)
    selectors.shipment_refresh_eta(shipment)
    return event


def _milestone(shipment: Shipment, event: TrackingEvent, later_legs: set[int]) -> workflow.Milestone:
    leg = event.leg
    return workflow.Milestone(
        code=event.code,
        occurred_at=event.occurred_at,
        # An arrival counts as at destination on the final leg, or a leg to the destination.
        is_final_leg=leg is None
        or leg.destination_id == shipment.destination_id
        or (leg.role != LegRole.INBOUND and leg.pk not in later_legs),
        inbound=leg is not None and leg.role == LegRole.INBOUND,
    )


def _settle(shipment: Shipment, event: TrackingEvent, actor: User, remarks: str, location: str) -> Shipment:
    """Move the status as far as the shipment's events (ordered by when they happened, not by when
    they arrived) prove; record the steps taken on the way as inferred, or why nothing moved."""
    legs = list(shipment.legs.all())
    # A leg followed on the route by an onward one is not final; inbound legs (to the hub) follow
    # nothing, whatever their sequence.
    later_legs = {
        leg.pk
        for leg in legs
        if any(other.sequence > leg.sequence and other.role != LegRole.INBOUND for other in legs)
    }
    events = list(shipment.events.select_related("leg"))
    outcome = workflow.settle(
        workflow.Status(shipment.status),
        [_milestone(shipment, e, later_legs) for e in events],
        _milestone(shipment, event, later_legs),
        held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
        hold_kind=shipment.hold_kind or None,
        held_since=shipment.status_changed_at if shipment.status == ShipmentStatus.ON_HOLD else None,
    )
    label = event.get_code_display()
    if outcome.refused:
        raise TransitionRefused(
            f"{shipment.reference} is held for compliance: the “{label}” milestone is refused.",
            reasons=[outcome.reason] + ([shipment.hold_reason] if shipment.hold_reason else []),
        )
    said = remarks or f"{label} at {location}".strip()
    before, note = shipment.status, outcome.reason
    try:
        if outcome.release:
            shipment = shipment_transition(
                shipment=shipment,
                target=RELEASE,
                actor=actor,
                reason=f"{label}: {remarks}",
                check_capability=False,
            )
        for step in outcome.steps:
            reason = (
                f"inferred from {label} of {event.occurred_at:%Y-%m-%d %H:%M} (event {event.pk})"
                if step in outcome.inferred
                else said
            )
            shipment = shipment_transition(
                shipment=shipment, target=step, actor=actor, reason=reason, check_capability=False
            )
        if outcome.hold:
            shipment = shipment_transition(
                shipment=shipment, target=ShipmentStatus.ON_HOLD, actor=actor, reason=said,
                hold_kind=workflow.HoldKind.CUSTOMS, check_capability=False,
            )  # fmt: skip
    except TransitionRefused as exc:
        # A guard refused a step (compliance: the answer is not current, or does not pass): the
        # milestone is refused whole, with the guard's reasons, and nothing of it is recorded.
        raise TransitionRefused(
            f"{shipment.reference} cannot take the “{label}” milestone: it may not move on yet.",
            reasons=exc.reasons,
        ) from exc
    if shipment.status != before:
        if not note:
            inferred = ", ".join(workflow.LABELS[s].lower() for s in outcome.inferred)
            moved = f"Moved from {ShipmentStatus(before).label.lower()} to {shipment.get_status_display()}"
            note = moved.lower() + (f"; {inferred} inferred from this event." if inferred else ".")
        event.status_after = shipment.status
    event.status_note = note[:300]
    event.save(update_fields=["status_after", "status_note"])
    return shipment


def _apply_event_to_leg(event: TrackingEvent) -> None:
    if event.leg is None:
        return
    if event.code == EventCode.DEPARTED and event.leg.actual_departure is None:
        Leg.objects.filter(pk=event.leg.pk).update(actual_departure=event.occurred_at)
    if event.code == EventCode.ARRIVED and event.leg.actual_arrival is None:
        Leg.objects.filter(pk=event.leg.pk).update(actual_arrival=event.occurred_at)
