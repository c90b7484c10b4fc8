"""The unit flow as data (apps/warehouse/engines/unit_flow.py), on worked examples."""

import pytest

from apps.catalog.models import CustomsStatus, UnitStatus
from apps.warehouse.engines.unit_flow import (
    MOVES,
    TRANSITIONS,
    Action,
    Arrival,
    Customs,
    Status,
    Whereabouts,
    change_problem,
    customs_on_receipt,
    customs_problem,
    move_problem,
)


def test_the_flow_speaks_the_catalogue_s_statuses():
    assert {s.value for s in Status} == set(UnitStatus.values)
    assert {c.value for c in Customs} == set(CustomsStatus.values)
    assert set(TRANSITIONS) == set(Status)


@pytest.mark.parametrize(
    ("current", "target"),
    [
        ("expected", "received"),
        ("received", "available"),
        ("available", "allocated"),
        ("allocated", "picked"),
        ("picked", "shipped"),
        ("allocated", "available"),
        ("picked", "allocated"),
        ("shipped", "received"),
    ],
)
def test_the_forward_path_and_its_returns(current, target):
    assert move_problem(Status(current), Status(target)) is None


@pytest.mark.parametrize(
    ("current", "target", "why"),
    [
        ("quarantined", "shipped", "A quarantined unit cannot become shipped (allowed: available)."),
        ("available", "shipped", "A available unit cannot become shipped (allowed: allocated, quarantined)."),
        ("expected", "available", "A expected unit cannot become available (allowed: received)."),
        ("shipped", "available", "A shipped unit cannot become available (allowed: received)."),
        ("available", "available", "It is available already."),
        ("available", "quarantined", "Say why: a quarantine needs a reason."),
        ("quarantined", "available", "Say why: a release from quarantine needs a reason."),
    ],
)
def test_illegal_moves_say_why(current, target, why):
    assert move_problem(Status(current), Status(target)) == why


def test_quarantine_with_a_reason():
    assert move_problem(Status.PICKED, Status.QUARANTINED, reason="crate dropped") is None


def test_customs():
    assert customs_on_receipt(bonded=True) == Customs.IN_BOND
    assert customs_on_receipt(bonded=False) == Customs.DUTY_PAID
    assert customs_problem(Customs.IN_BOND, Customs.DUTY_PAID) is None
    assert customs_problem(Customs.DUTY_PAID, Customs.IN_BOND) == (
        "Goods duty paid cannot become in bond (duty unpaid)."
    )
    assert "customs reference" in customs_problem(Customs.NONE, Customs.IN_BOND)
    assert customs_problem(Customs.NONE, Customs.IN_BOND, customs_reference="E-1") is None


HUB = Whereabouts(site_id=1, site="Singapore hub")
AT_HUB, AT_HUB_ON_SHP7 = Arrival(1, "Singapore hub"), Arrival(1, "Singapore hub", "SHP-7")
ON_THE_PLANE = Whereabouts(
    shipment="SHP-7", left="Singapore hub", bound_for_ids=frozenset({2}), bound_for="Chennai"
)
ON_A_NOTICE = Whereabouts(shipment="SHP-7", bound_for_ids=frozenset({1}), bound_for="Singapore hub")


def test_every_move_names_its_services():
    assert all(MOVES.values())
    assert TRANSITIONS[Status.SHIPPED] == {Status.RECEIVED}


@pytest.mark.parametrize(
    ("current", "target", "action", "where", "arrival", "why"),
    [
        # A shipped unit arrives only at the end of its leg, against its shipment.
        (Status.SHIPPED, Status.RECEIVED, Action.RECEIVE, ON_THE_PLANE, Arrival(2, "Chennai", "SHP-7"), None),
        (
            Status.SHIPPED, Status.RECEIVED, Action.RECEIVE, ON_THE_PLANE, AT_HUB_ON_SHP7,
            "It left Singapore hub on SHP-7 for Chennai: it is received there, against SHP-7.",
        ),
        (
            Status.SHIPPED, Status.RECEIVED, Action.RECEIVE, ON_THE_PLANE, Arrival(2, "Chennai"),
            "It left Singapore hub on SHP-7 for Chennai: it is received there, against SHP-7.",
        ),
        (
            Status.SHIPPED, Status.RECEIVED, Action.RECEIVE, Whereabouts(), Arrival(2, "Chennai", "SHP-7"),
            "It is shipped, but no shipment out of a warehouse is on its record.",
        ),
        # An expected unit on a notice: where its leg ends, against that notice.
        (Status.EXPECTED, Status.RECEIVED, Action.RECEIVE, ON_A_NOTICE, AT_HUB_ON_SHP7, None),
        (
            Status.EXPECTED, Status.RECEIVED, Action.RECEIVE, ON_A_NOTICE, Arrival(1, "Singapore hub"),
            "It is expected on SHP-7 for Singapore hub: it is received there, against SHP-7.",
        ),
        (Status.EXPECTED, Status.RECEIVED, Action.RECEIVE, Whereabouts(), Arrival(1, "Singapore hub"), None),
        # The service must be one the move allows.
        (
            Status.RECEIVED, Status.AVAILABLE, Action.RELEASE, HUB, None,
            "A received unit becomes available by a put-away, not by a release from quarantine.",
        ),
        (
            Status.AVAILABLE, Status.ALLOCATED, Action.PICK, HUB, None,
            "A available unit becomes allocated by an allocation, not by a pick.",
        ),
        # State and place must agree.
        (
            Status.AVAILABLE, Status.ALLOCATED, Action.ALLOCATE, Whereabouts(), None,
            "It is available but in no warehouse on the books: count it before moving it.",
        ),
        (
            Status.EXPECTED, Status.RECEIVED, Action.RECEIVE, HUB, Arrival(1, "Singapore hub"),
            "It is expected but the books hold it at Singapore hub.",
        ),
        (Status.AVAILABLE, Status.AVAILABLE, Action.QUARANTINE, HUB, None, "It is available already."),
    ],
)  # fmt: skip
def test_a_change_is_checked_against_state_service_and_place(current, target, action, where, arrival, why):
    assert change_problem(current, target, action=action, where=where, arrival=arrival) == why


def test_a_unit_stays_in_its_warehouse():
    assert (
        change_problem(Status.AVAILABLE, Status.AVAILABLE, action=Action.MOVE, where=HUB, to_site_id=1)
        is None
    )
    assert change_problem(
        Status.AVAILABLE, Status.AVAILABLE, action=Action.MOVE, where=HUB, to_site_id=2
    ) == ("It is at Singapore hub: goods go between warehouses on a shipment.")
