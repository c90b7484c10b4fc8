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
    # approved → draft: an amendment, to correct lines or terms before booking (a reason is required,
    # issued documents are voided and the check runs again on resubmission).
    Status.APPROVED: frozenset(
        {Status.BOOKED, Status.COMPLIANCE_REVIEW, Status.DRAFT, Status.ON_HOLD, Status.CANCELLED}
    ),
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


# The states before the main departure: the only ones a shipment may be cancelled from (goods
# in the air or at the destination's customs cannot be called back by cancelling them).
BEFORE_DEPARTURE = frozenset({Status.DRAFT, Status.COMPLIANCE_REVIEW, Status.APPROVED, Status.BOOKED})


def cancel_problems(
    current: Status, *, held_from: Status | None = None, departed_at: dt.datetime | None = None
) -> list[str]:
    """Why a shipment in `current` (held from `held_from`) cannot be cancelled; `departed_at` is
    when the evidence (a departure milestone or a leg's actual departure) says the goods left."""
    problems = []
    if current == Status.ON_HOLD and held_from is not None and held_from not in BEFORE_DEPARTURE:
        problems.append(
            f"It was {LABELS[held_from].lower()} when it was put on hold: the goods have departed, "
            "and only a shipment held before departure can be cancelled."
        )
    if departed_at is not None:
        problems.append(
            f"The goods departed on {departed_at:%Y-%m-%d %H:%M} UTC (departure on record): "
            "goods on their way cannot be cancelled; release the hold and see them delivered or returned."
        )
    return problems


class HoldKind(StrEnum):
    COMPLIANCE = "compliance"
    CUSTOMS = "customs"


def can_move(current: Status, target: Status) -> bool:
    return target in TRANSITIONS[current]


def is_amendment(current: Status, target: Status) -> bool:
    """Approved back to draft: the one move that reopens lines and terms once compliance approved."""
    return current == Status.APPROVED and target == Status.DRAFT


def amend_problems(current: Status, *, held_from: Status | None = None) -> list[str]:
    """Why a shipment in `current` cannot be amended (sent back to draft to be corrected)."""
    if current == Status.APPROVED:
        return []
    if current in (Status.DRAFT, Status.COMPLIANCE_REVIEW):
        return [
            f"It is {LABELS[current].lower()}: "
            + (
                "its lines and terms can be changed as they are."
                if current == Status.DRAFT
                else "send it back to draft (withdraw it from review) to change it."
            )
        ]
    if current == Status.ON_HOLD:
        was = LABELS[held_from].lower() if held_from else "held"
        return [f"It is on hold (held when {was}): release the hold first."]
    if current in TERMINAL:
        return [f"It is {LABELS[current].lower()}: nothing can be amended."]
    return [
        f"It is {LABELS[current].lower()}: only an approved shipment that is not booked yet can be "
        "amended. Once booked, the carrier holds the booking and the issued documents: correct it with "
        "the carrier, or cancel the shipment (before departure) and enter it again."
    ]


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
    """What one new milestone does to the status: first leave a customs hold (`release`), then
    take `steps` in order, then enter a customs hold (`hold`). Every step but the last is inferred
    from the evidence — every step, when the milestone is a hold (the hold is what it says).
    `reason` says why the status stays, for a milestone that could have moved it."""

    release: bool = False
    hold: bool = False
    steps: tuple[Status, ...] = ()
    reason: str = ""
    # The milestone contradicts the flow and is not taken: goods held for compliance before they
    # left are reported moving. `reason` says why (the API answers 409).
    refused: bool = False

    @property
    def moves(self) -> bool:
        return self.release or self.hold or bool(self.steps)

    @property
    def inferred(self) -> tuple[Status, ...]:
        return self.steps if self.hold else self.steps[:-1]


def settle(
    current: Status,
    milestones: Sequence[Milestone],
    new: Milestone,
    *,
    held_from: Status | None = None,
    hold_kind: HoldKind | str | None = None,
    held_since: dt.datetime | None = None,
) -> Settlement:
    """Where the evidence (`milestones`, the shipment's every event including `new`) puts a
    shipment in `current` once `new` arrives — whatever order the events arrived in.

    - The status goes to the furthest step any milestone proves (a delivery proves departure,
      arrival and clearance: those steps are taken as inferred), never backwards.
    - A customs hold after the main departure is the destination's customs: it proves the arrival
      there (the shipment is at customs, then on hold). Before the departure it is an export hold.
    - A customs release counts only when dated after the latest customs hold, and as clearance
      only when dated after the arrival at destination (before it, it was an export release).
    - A customs hold holds only while no release is dated after it; a customs-held shipment
      moves only with a release dated after the hold (`held_since`, for a hold put by hand), then
      as far as all the evidence allows — a shipment held after departure is cleared by the
      release, not returned blindly to where it was held.
    - Nothing moves a shipment on compliance hold, not yet booked, delivered or cancelled; a
      milestone proving that goods held for compliance before departure moved is refused."""
    holds = [m.occurred_at for m in milestones if m.code == "customs_hold"]
    last_hold = max(holds, default=None)
    releases = [m.occurred_at for m in milestones if m.code == "customs_released"]
    hold_open = last_hold is not None and not any(r > last_hold for r in releases)
    base = held_from if current == Status.ON_HOLD else current
    evidence = _evidence(milestones, last_hold, base)
    proven = _proven(evidence)
    moving = new.code in ("customs_hold", "customs_released") or _proves(new) is not None
    if current in TERMINAL:
        return Settlement(reason=f"The shipment is already {LABELS[current].lower()}." if moving else "")
    if current == Status.ON_HOLD:
        if hold_kind != HoldKind.CUSTOMS and held_from in BEFORE_DEPARTURE and _proves(new) is not None:
            return Settlement(
                refused=True,
                reason="Held for compliance before departure: the goods must not leave until Rackpass "
                "compliance releases the hold.",
            )
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
        base = Status(held_from or Status.AT_CUSTOMS)
        if last_hold is None and held_since is not None and new.occurred_at < held_since:
            # Held by hand (no hold milestone): a release dated before the hold does not end it.
            return Settlement(
                reason=f"Released at {new.occurred_at:%Y-%m-%d %H:%M}, before the customs hold of "
                f"{held_since:%Y-%m-%d %H:%M}: the hold stands."
            )
        if ORDER.index(base) >= ORDER.index(Status.IN_TRANSIT):
            # Held by the destination's customs after departure: their release is the clearance.
            proven = max(proven or base, Status.CLEARED, key=ORDER.index)
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
        # Walk first as far as the evidence (the hold included) proves, then hold there; what is
        # proven past customs (a delivery dated before the hold) waits for the release.
        capped = min(proven, Status.AT_CUSTOMS, key=ORDER.index) if proven else None
        steps = _walk(current, capped)
        if not can_move(steps[-1] if steps else current, Status.ON_HOLD):
            return Settlement(reason=f"A {LABELS[current].lower()} shipment cannot be put on hold.")
        return Settlement(hold=True, steps=steps)
    steps = _walk(current, proven)
    if steps:
        return Settlement(steps=steps)
    if not moving:
        return Settlement(reason=_proves_nothing(new))
    if new.code == "customs_released" and all(m is not new for m, _ in evidence):
        return Settlement(reason="A customs release before the arrival at destination does not clear it.")
    return Settlement(
        reason=f"The shipment is already {LABELS[current].lower()}: this milestone is behind it."
    )


def _proves(milestone: Milestone) -> Status | None:
    """The step a milestone proves on its own (customs holds and releases: see `_evidence`)."""
    if milestone.code in ("departed", "delivered") and milestone.inbound:
        return None
    if milestone.code == "arrived" and not milestone.is_final_leg:
        return None
    return EVENT_EFFECTS.get(milestone.code)


def _proves_nothing(milestone: Milestone) -> str:
    """Why a milestone that names a step proves none (empty for one that only joins the timeline)."""
    if milestone.code == "departed" and milestone.inbound:
        return "A departure on an inbound leg (to the consolidation hub) is not the main departure."
    if milestone.code == "delivered" and milestone.inbound:
        return "A delivery on an inbound leg is a receipt at the consolidation hub, not the delivery."
    if milestone.code == "arrived" and not milestone.is_final_leg:
        return "An arrival at the consolidation hub is not the arrival at destination."
    return ""


def _evidence(
    milestones: Sequence[Milestone], last_hold: dt.datetime | None, base: Status | None
) -> list[tuple[Milestone, Status]]:
    """The milestones that prove a step, with the step each proves.

    A customs hold proves the arrival at the destination's customs when it is not on an inbound
    leg and comes after the main departure (or the shipment, held or not, had departed by the
    status it was in). A customs release proves clearance only when dated after the latest hold
    and after the arrival at destination (an arrival, or such a hold) — or, with neither on
    record, for a shipment already at customs (moved there by hand)."""
    departures = [m.occurred_at for m in milestones if m.code == "departed" and not m.inbound]
    departed = min(departures, default=None)
    base_departed = base in ORDER and ORDER.index(base) >= ORDER.index(Status.IN_TRANSIT)
    import_holds = [
        m
        for m in milestones
        if m.code == "customs_hold"
        and not m.inbound
        and m.is_final_leg
        and ((departed is not None and m.occurred_at >= departed) or base_departed)
    ]
    arrivals = [m.occurred_at for m in milestones if m.code == "arrived" and m.is_final_leg]
    arrived = min([*arrivals, *(m.occurred_at for m in import_holds)], default=None)
    kept: list[tuple[Milestone, Status]] = [(m, Status.AT_CUSTOMS) for m in import_holds]
    for m in milestones:
        step = _proves(m)
        if step is None:
            continue
        if m.code == "customs_released" and (
            (last_hold is not None and m.occurred_at <= last_hold)
            or (arrived is not None and m.occurred_at < arrived)
            or (arrived is None and base != Status.AT_CUSTOMS)
        ):
            continue
        kept.append((m, step))
    return kept


def _proven(evidence: Sequence[tuple[Milestone, Status]]) -> Status | None:
    """The furthest step the evidence proves."""
    return max((step for _, step in evidence), key=ORDER.index, default=None)


def _walk(current: Status, target: Status | None) -> tuple[Status, ...]:
    """The forward steps from `current` to `target` (nothing when it is not ahead)."""
    if target is None or current not in ORDER or ORDER.index(target) <= ORDER.index(current):
        return ()
    return tuple(ORDER[ORDER.index(current) + 1 : ORDER.index(target) + 1])
