"""The shipment status flow as data (no Django imports): states, allowed moves, event effects."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    DRAFT = "draft"
    COMPLIANCE_REVIEW = "compliance_review"
    APPROVED = "approved"
    BOOKED = "booked"
    IN_TRANSIT = "in_transit"
    AT_CUSTOMS = "at_customs"
    CLEARED = "cleared"
    DELIVERED = "delivered"
    ON_HOLD = "on_hold"
    CANCELLED = "cancelled"


LABELS = {
    Status.DRAFT: "Draft",
    Status.COMPLIANCE_REVIEW: "Compliance review",
    Status.APPROVED: "Approved",
    Status.BOOKED: "Booked",
    Status.IN_TRANSIT: "In transit",
    Status.AT_CUSTOMS: "At customs",
    Status.CLEARED: "Cleared",
    Status.DELIVERED: "Delivered",
    Status.ON_HOLD: "On hold",
    Status.CANCELLED: "Cancelled",
}

# The forward path; on_hold and cancelled are reachable from the states listed below.
TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.DRAFT: frozenset({Status.COMPLIANCE_REVIEW, Status.CANCELLED}),
    Status.COMPLIANCE_REVIEW: frozenset({Status.APPROVED, Status.DRAFT, Status.ON_HOLD, Status.CANCELLED}),
    # approved → compliance_review: a re-check after a change of facts gave another answer.
    Status.APPROVED: frozenset({Status.BOOKED, Status.COMPLIANCE_REVIEW, Status.ON_HOLD, Status.CANCELLED}),
    Status.BOOKED: frozenset({Status.IN_TRANSIT, Status.ON_HOLD, Status.CANCELLED}),
    Status.IN_TRANSIT: frozenset({Status.AT_CUSTOMS, Status.ON_HOLD}),
    Status.AT_CUSTOMS: frozenset({Status.CLEARED, Status.ON_HOLD}),
    Status.CLEARED: frozenset({Status.DELIVERED}),
    Status.DELIVERED: frozenset(),
    # Leaving on_hold is a release: back to the state the shipment was held in (or cancel).
    Status.ON_HOLD: frozenset({Status.CANCELLED}),
    Status.CANCELLED: frozenset(),
}
ORDER = [
    Status.DRAFT,
    Status.COMPLIANCE_REVIEW,
    Status.APPROVED,
    Status.BOOKED,
    Status.IN_TRANSIT,
    Status.AT_CUSTOMS,
    Status.CLEARED,
    Status.DELIVERED,
]
TERMINAL = frozenset({Status.DELIVERED, Status.CANCELLED})


class HoldKind(StrEnum):
    COMPLIANCE = "compliance"
    CUSTOMS = "customs"


def can_move(current: Status, target: Status) -> bool:
    return target in TRANSITIONS[current]


# Tracking event code → the status it moves the shipment to, where the flow allows it.
EVENT_EFFECTS: dict[str, Status] = {
    "departed": Status.IN_TRANSIT,
    "arrived": Status.AT_CUSTOMS,
    "customs_released": Status.CLEARED,
    "delivered": Status.DELIVERED,
}


def event_target(code: str, current: Status, is_final_leg: bool = True) -> Status | None:
    """The status an event moves the shipment to, or None when it only joins the timeline.

    An arrival moves the shipment to customs only at the final destination; a departure from
    a consolidation warehouse onwards is still "in transit". Events that arrive late (the
    shipment already moved past them) move nothing.
    """
    target = EVENT_EFFECTS.get(code)
    if target is None or (code == "arrived" and not is_final_leg):
        return None
    return target if can_move(current, target) else None
