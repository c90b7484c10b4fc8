"""Milestones that arrive out of order: the status goes as far as the evidence allows, the skipped
steps inferred; holds are released only by a release dated after them; nothing walks past a
compliance hold or into a shipment that is not booked."""

import datetime as dt

import pytest

from apps.shipments.engines.workflow import HoldKind, Milestone, Status, settle

T0 = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)


def at(hours: float) -> dt.datetime:
    return T0 + dt.timedelta(hours=hours)


def m(code: str, hours: float, **kwargs) -> Milestone:
    return Milestone(code=code, occurred_at=at(hours), **kwargs)


def test_delivered_before_departed_walks_to_delivered_with_the_steps_inferred():
    delivered = m("delivered", 100)
    outcome = settle(Status.BOOKED, [delivered], delivered)
    assert outcome.steps == (Status.IN_TRANSIT, Status.AT_CUSTOMS, Status.CLEARED, Status.DELIVERED)
    assert outcome.inferred == (Status.IN_TRANSIT, Status.AT_CUSTOMS, Status.CLEARED)
    # The late departure then moves nothing: the shipment is past it.
    departed = m("departed", 1)
    late = settle(Status.DELIVERED, [delivered, departed], departed)
    assert not late.moves and "delivered" in late.reason


def test_arrival_at_the_destination_while_booked_infers_the_departure():
    arrived = m("arrived", 30)
    assert settle(Status.BOOKED, [arrived], arrived).steps == (Status.IN_TRANSIT, Status.AT_CUSTOMS)


def test_an_arrival_at_a_consolidation_hub_and_an_inbound_departure_prove_nothing():
    hub = m("arrived", 5, is_final_leg=False)
    inbound = m("departed", 1, inbound=True)
    assert not settle(Status.BOOKED, [hub, inbound], hub).moves
    assert not settle(Status.BOOKED, [hub, inbound], inbound).moves


def test_a_customs_release_dated_before_the_hold_does_not_release_it():
    hold, early_release = m("customs_hold", 50), m("customs_released", 49)
    outcome = settle(
        Status.ON_HOLD, [m("arrived", 40), hold, early_release], early_release,
        held_from=Status.AT_CUSTOMS, hold_kind=HoldKind.CUSTOMS,
    )  # fmt: skip
    assert not outcome.moves and "before the customs hold" in outcome.reason
    later_release = m("customs_released", 51)
    released = settle(
        Status.ON_HOLD, [m("arrived", 40), hold, early_release, later_release], later_release,
        held_from=Status.AT_CUSTOMS, hold_kind=HoldKind.CUSTOMS,
    )  # fmt: skip
    assert released.release and released.steps == (Status.CLEARED,)


def test_a_hold_dated_before_a_recorded_release_does_not_hold():
    release, old_hold = m("customs_released", 60), m("customs_hold", 55)
    outcome = settle(Status.CLEARED, [m("arrived", 40), release, old_hold], old_hold)
    assert not outcome.moves and not outcome.hold and "released" in outcome.reason


def test_a_hold_holds_and_a_delivery_during_it_waits_for_the_release():
    events = [m("departed", 1), m("arrived", 40)]
    hold = m("customs_hold", 50)
    assert settle(Status.AT_CUSTOMS, [*events, hold], hold).hold
    delivered = m("delivered", 90)
    events += [hold, delivered]
    waiting = settle(
        Status.ON_HOLD, events, delivered, held_from=Status.AT_CUSTOMS, hold_kind=HoldKind.CUSTOMS
    )
    assert not waiting.moves and "customs hold" in waiting.reason
    # The release (dated after the hold) releases it and the delivery already known completes it.
    release = m("customs_released", 60)
    done = settle(
        Status.ON_HOLD, [*events, release], release, held_from=Status.AT_CUSTOMS, hold_kind=HoldKind.CUSTOMS
    )
    assert done.release and done.steps == (Status.CLEARED, Status.DELIVERED)


def test_milestones_never_release_a_compliance_hold():
    delivered = m("delivered", 90)
    release = m("customs_released", 80)
    for new in (delivered, release):
        outcome = settle(
            Status.ON_HOLD, [delivered, release], new, held_from=Status.BOOKED, hold_kind=HoldKind.COMPLIANCE
        )
        assert not outcome.moves and "compliance" in outcome.reason


@pytest.mark.parametrize("status", [Status.DRAFT, Status.COMPLIANCE_REVIEW, Status.APPROVED])
def test_milestones_never_move_a_shipment_that_is_not_booked(status):
    delivered = m("delivered", 90)
    outcome = settle(status, [delivered], delivered)
    assert not outcome.moves and "not booked" in outcome.reason.lower()


def test_a_release_before_the_final_arrival_is_not_a_clearance():
    """An export release at origin while in transit does not clear the shipment at destination."""
    release = m("customs_released", 3)
    outcome = settle(Status.IN_TRANSIT, [m("departed", 1), release], release)
    assert not outcome.moves and "before the arrival" in outcome.reason
    arrived = m("arrived", 40)
    assert settle(Status.IN_TRANSIT, [m("departed", 1), release, arrived], arrived).steps == (
        Status.AT_CUSTOMS,
    )


def test_an_export_hold_released_goes_back_to_booked():
    hold, release = m("customs_hold", 2), m("customs_released", 3)
    outcome = settle(
        Status.ON_HOLD, [hold, release], release, held_from=Status.BOOKED, hold_kind=HoldKind.CUSTOMS
    )
    assert outcome.release and outcome.steps == ()


def test_events_that_only_join_the_timeline_give_no_reason():
    picked = m("picked_up", 1)
    outcome = settle(Status.BOOKED, [picked], picked)
    assert not outcome.moves and outcome.reason == ""
