"""The unit flow as data (apps/warehouse/engines/unit_flow.py), on worked examples."""

import pytest

from apps.catalog.models import CustomsStatus, UnitStatus
from apps.warehouse.engines.unit_flow import (
    TRANSITIONS,
    Customs,
    Status,
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
