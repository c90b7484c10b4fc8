"""Clearing a possible match is a decision that loosens control: the shipments it held move on. It
is taken by a compliance officer (an administrator reviews the queue but does not clear), and, while
the organisation's four-eyes policy is on, takes effect only when a second compliance officer
approves it; until then the hit stays open and the shipment stays held. Confirming a match raises
control and is taken at once."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from apps.accounts.models import Organisation
from apps.compliance import services
from apps.compliance.models import ApprovalKind, ApprovalStatus, ComplianceApproval, HitStatus, HoldKind
from apps.shipments.models import Shipment
from tests.four_eyes import second_officer_of

APPROVALS = "/api/v1/compliance-approvals/"


@pytest.fixture
def held(ship, dgx, coordinator, screening_list, indian_lookalike):
    """A shipment to a consignee that possibly matches an Entity List entry: held for review."""
    shipment = ship({"consignee": indian_lookalike}, "IN", "Chennai", [(dgx, 1)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    reason = check.hold_reasons.get()
    assert reason.kind == HoldKind.SCREENING and reason.hit is not None
    return shipment, reason.hit


def _status(shipment) -> str:
    return Shipment.objects.get(pk=shipment.pk).status


def test_one_officer_asks_and_the_shipment_stays_held_until_a_second_approves(held, compliance_officer):
    shipment, hit = held
    asked = services.hit_clear(hit=hit, actor=compliance_officer, reason="Indian company, other registration")
    assert asked.status == HitStatus.OPEN  # nothing cleared yet
    approval = ComplianceApproval.objects.get(hit=hit)
    assert (approval.kind, approval.status) == (ApprovalKind.HIT_CLEARANCE, ApprovalStatus.PENDING)
    assert "clear" in approval.subject and hit.entry.name in approval.subject
    assert _status(shipment) == "on_hold"
    with pytest.raises(PermissionDenied):
        services.approval_approve(approval=approval, actor=compliance_officer)  # not their own
    services.approval_approve(approval=approval, actor=second_officer_of(compliance_officer))
    hit.refresh_from_db()
    assert hit.status == HitStatus.CLEARED and hit.decided_by == compliance_officer
    assert "two" in hit.decision_reason
    assert _status(shipment) == "approved"


def test_a_rejected_clearance_leaves_the_hit_open_and_the_shipment_held(held, compliance_officer):
    shipment, hit = held
    services.hit_clear(hit=hit, actor=compliance_officer, reason="Looks different")
    approval = ComplianceApproval.objects.get(hit=hit)
    services.approval_reject(
        approval=approval, actor=second_officer_of(compliance_officer), reason="Same address as the entry"
    )
    hit.refresh_from_db()
    assert hit.status == HitStatus.OPEN and _status(shipment) == "on_hold"


def test_an_administrator_cannot_clear_a_possible_match(held, admin_user, api_as):
    shipment, hit = held
    with pytest.raises(PermissionDenied):
        services.hit_clear(hit=hit, actor=admin_user, reason="Customer is fine, ship it")
    answer = api_as(admin_user).post(
        f"/api/v1/screening-hits/{hit.pk}/clear/", {"reason": "Customer is fine"}, format="json"
    )
    assert answer.status_code == 403
    hit.refresh_from_db()
    assert hit.status == HitStatus.OPEN and _status(shipment) == "on_hold"
    assert not ComplianceApproval.objects.filter(hit=hit).exists()


def test_through_the_api_the_clearance_waits_and_a_second_officer_approves_it(
    held, compliance_officer, api_as
):
    shipment, hit = held
    answer = api_as(compliance_officer).post(
        f"/api/v1/screening-hits/{hit.pk}/clear/", {"reason": "Other company"}, format="json"
    )
    assert answer.status_code == 202 and answer.json()["status"] == "open"
    again = api_as(compliance_officer).post(
        f"/api/v1/screening-hits/{hit.pk}/clear/", {"reason": "Other company"}, format="json"
    )
    assert again.status_code == 400 and "awaiting a second officer" in str(again.json())
    [pending] = api_as(compliance_officer).get(APPROVALS, {"kind": "hit_clearance"}).json()["results"]
    assert pending["hit"] == hit.pk and pending["status"] == "pending"
    second = second_officer_of(compliance_officer)
    done = api_as(second).post(f"{APPROVALS}{pending['id']}/approve/")
    assert done.status_code == 200, done.json()
    assert _status(shipment) == "approved"


def test_with_four_eyes_off_one_officer_clears_and_the_decision_says_so(held, compliance_officer, operator):
    shipment, hit = held
    Organisation.objects.filter(pk=operator.pk).update(compliance_four_eyes=False)
    cleared = services.hit_clear(hit=hit, actor=compliance_officer, reason="Other company")
    assert cleared.status == HitStatus.CLEARED and "four eyes was off" in cleared.decision_reason
    assert ComplianceApproval.objects.get(hit=hit).status == ApprovalStatus.DECIDED_ALONE
    assert _status(shipment) == "approved"


def test_confirming_a_match_raises_control_and_is_taken_at_once(held, compliance_officer):
    shipment, hit = held
    confirmed = services.hit_confirm(hit=hit, actor=compliance_officer, reason="Same address")
    assert confirmed.status == HitStatus.CONFIRMED
    assert _status(shipment) == "on_hold"
