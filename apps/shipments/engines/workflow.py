"""The shipment status flow as data (no Django imports): states, allowed moves, event effects."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
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


# Tracking event code → the status it proves the shipment reached.
EVENT_EFFECTS: dict[str, Status] = {
    "departed": Status.IN_TRANSIT,
    "arrived": Status.AT_CUSTOMS,
    "customs_released": Status.CLEARED,
    "delivered": Status.DELIVERED,
}
# Milestones move a shipment only from here on: booking is the coordinator's act, behind its guards.
FIRST_TRACKED = Status.BOOKED


@dataclass(frozen=True)
class Milestone:
    """A tracking event as the flow reads it."""

    code: str
    occurred_at: dt.datetime
    is_final_leg: bool = True  # an arrival elsewhere (a consolidation hub) is not at customs
    inbound: bool = False  # a supplier's truck leaving for the hub is not the main departure


@dataclass(frozen=True)
class Settlement:
    """What one new milestone does to the status: first leave a customs hold (`release`) or
    enter one (`hold`), then take `steps` in order — all but the last inferred from the evidence.
    `reason` says why the status stays, for a milestone that could have moved it."""

    release: bool = False
    hold: bool = False
    steps: tuple[Status, ...] = ()
    reason: str = ""

    @property
    def moves(self) -> bool:
        return self.release or self.hold or bool(self.steps)

    @property
    def inferred(self) -> tuple[Status, ...]:
        return self.steps[:-1]


def settle(
    current: Status,
    milestones: Sequence[Milestone],
    new: Milestone,
    *,
    held_from: Status | None = None,
    hold_kind: HoldKind | str | None = None,
) -> Settlement:
    """Where the evidence (`milestones`, the shipment's every event including `new`) puts a
    shipment in `current` once `new` arrives — whatever order the events arrived in.

    - The status goes to the furthest step any milestone proves (a delivery proves departure,
      arrival and clearance: those steps are taken as inferred), never backwards.
    - A customs release counts only when dated after the latest customs hold, and as clearance
      only when dated after the arrival at destination (before it, it was an export release).
    - A customs hold holds only while no release is dated after it; a customs-held shipment
      moves only with a release dated after the hold, then as far as all the evidence allows.
    - Nothing moves a shipment on compliance hold, not yet booked, delivered or cancelled."""
    holds = [m.occurred_at for m in milestones if m.code == "customs_hold"]
    last_hold = max(holds, default=None)
    releases = [m.occurred_at for m in milestones if m.code == "customs_released"]
    hold_open = last_hold is not None and not any(r > last_hold for r in releases)
    evidence = _evidence(milestones, last_hold, held_from if current == Status.ON_HOLD else current)
    proven = _proven(evidence)
    moving = new.code in ("customs_hold", "customs_released") or _proves(new) is not None
    if current in TERMINAL:
        return Settlement(reason=f"The shipment is already {LABELS[current].lower()}." if moving else "")
    if current == Status.ON_HOLD:
        if hold_kind != HoldKind.CUSTOMS:
            return Settlement(
                reason="Held for compliance: milestones never release a compliance hold." if moving else ""
            )
        if new.code != "customs_released":
            return Settlement(
                reason="On customs hold: only a customs release dated after the hold moves it."
                if moving
                else ""
            )
        if hold_open:
            return Settlement(
                reason=f"Released at {new.occurred_at:%Y-%m-%d %H:%M}, before the customs hold of "
                f"{last_hold:%Y-%m-%d %H:%M}: the hold stands."
            )
        base = Status(held_from) if held_from else Status.AT_CUSTOMS
        return Settlement(release=True, steps=_walk(base, proven))
    if ORDER.index(current) < ORDER.index(FIRST_TRACKED):
        return Settlement(
            reason=f"Not booked yet ({LABELS[current].lower()}): milestones move a shipment only once "
            "it is booked."
            if moving
            else ""
        )
    if new.code == "customs_hold":
        if not hold_open:
            return Settlement(reason="Customs released the shipment after this hold: it does not hold it.")
        if not can_move(current, Status.ON_HOLD):
            return Settlement(reason=f"A {LABELS[current].lower()} shipment cannot be put on hold.")
        return Settlement(hold=True)
    steps = _walk(current, proven)
    if steps:
        return Settlement(steps=steps)
    if not moving:
        return Settlement()
    if new.code == "customs_released" and new not in evidence:
        return Settlement(reason="A customs release before the arrival at destination does not clear it.")
    return Settlement(
        reason=f"The shipment is already {LABELS[current].lower()}: this milestone is behind it."
    )


def _proves(milestone: Milestone) -> Status | None:
    if milestone.code == "departed" and milestone.inbound:
        return None
    if milestone.code == "arrived" and not milestone.is_final_leg:
        return None
    return EVENT_EFFECTS.get(milestone.code)


def _evidence(
    milestones: Sequence[Milestone], last_hold: dt.datetime | None, base: Status | None
) -> list[Milestone]:
    """The milestones that prove a step. A customs release proves clearance only when dated after
    the latest hold and after the arrival at destination — or, with no arrival on record, for a
    shipment already at customs (moved there by hand)."""
    arrivals = [m.occurred_at for m in milestones if m.code == "arrived" and m.is_final_leg]
    arrived = min(arrivals, default=None)
    kept = []
    for m in milestones:
        if _proves(m) is None:
            continue
        if m.code == "customs_released" and (
            (last_hold is not None and m.occurred_at <= last_hold)
            or (arrived is not None and m.occurred_at < arrived)
            or (arrived is None and base != Status.AT_CUSTOMS)
        ):
            continue
        kept.append(m)
    return kept


def _proven(evidence: Sequence[Milestone]) -> Status | None:
    """The furthest step the evidence proves."""
    steps = [_proves(m) for m in evidence]
    return max(steps, key=ORDER.index, default=None)


def _walk(current: Status, target: Status | None) -> tuple[Status, ...]:
    """The forward steps from `current` to `target` (nothing when it is not ahead)."""
    if target is None or current not in ORDER or ORDER.index(target) <= ORDER.index(current):
        return ()
    return tuple(ORDER[ORDER.index(current) + 1 : ORDER.index(target) + 1])
