"""Four eyes on every decision that loosens control: an override that lowers control, confirming a
default classification, releasing a compliance hold and lifting a block each need a second
compliance officer of the same organisation (the organisation's policy, on by default; switching it
off or on takes two officers too). Administrators are not compliance officers."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from apps.accounts.models import Organisation
from apps.accounts.roles import Role
from apps.compliance import services
from apps.compliance.models import (
    ApprovalKind,
    ApprovalStatus,
    ComplianceApproval,
    HoldKind,
    PartyBlock,
)
from apps.shipments.models import Shipment
from apps.shipments.services import TransitionRefused, shipment_transition
from tests.factories import OrganisationFactory, PartFactory, UserFactory

APPROVALS = "/api/v1/compliance-approvals/"


@pytest.fixture
def second_officer(operator):
    return UserFactory(
        organisation=operator, role=Role.COMPLIANCE_OFFICER, username="compliance-2", first_name="Bea"
    )


@pytest.fixture
def block(screening_list, compliance_officer):
    party = OrganisationFactory(kind="customer", legal_name="Demo AI Shenzhen", country="CN", city="Shenzhen")
    hit = services.organisation_screen(organisation=party).hits.get()
    services.hit_confirm(hit=hit, actor=compliance_officer, reason="Same address as the EL entry")
    return PartyBlock.objects.get(organisation=party)


@pytest.fixture
def rival_officer(db):
    """A user with the officer role in another organisation (written past `User.clean`, as old data
    or a direct write could be): never an approver of this organisation's decisions."""
    rival = OrganisationFactory(
        kind="customer", legal_name="Rival Compliance GmbH", country="DE", city="Berlin"
    )
    return UserFactory(organisation=rival, role=Role.COMPLIANCE_OFFICER, username="rival-officer")


def _eccn(part) -> str:
    return services.current_classification(part).eccn


def _held_shipment(submitted, dgx, coordinator) -> Shipment:
    """A DGX (4A090.a) to China: held for a licence."""
    china = OrganisationFactory(kind="customer", legal_name="Beijing Compute", country="CN", city="Beijing")
    shipment = submitted(china, "CN", "Beijing", [(dgx, 1)])
    services.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert (shipment.status, shipment.hold_kind) == ("on_hold", "compliance")
    return shipment


# --- the bypasses, one by one ------------------------------------------------------------------------


def test_one_officer_cannot_override_a_4a090a_server_to_ear99(dgx, compliance_officer, second_officer):
    services.part_classify(part=dgx)
    assert _eccn(dgx) == "4A090.a"
    pending = services.part_classification_override(
        part=dgx, eccn="EAR99", reason="Vendor says it is EAR99", actor=compliance_officer
    )
    assert isinstance(pending, ComplianceApproval)
    assert (pending.kind, pending.status) == (ApprovalKind.CLASSIFICATION_OVERRIDE, ApprovalStatus.PENDING)
    assert pending.get_status_display() == "Awaiting second officer"
    assert "4A090.a" in pending.control_change and "lowers control" in pending.control_change
    assert _eccn(dgx) == "4A090.a"  # no effect until approved
    with pytest.raises(PermissionDenied, match="second compliance officer"):
        services.approval_approve(approval=pending, actor=compliance_officer)
    assert _eccn(dgx) == "4A090.a"
    approved = services.approval_approve(approval=pending, actor=second_officer)
    assert approved.status == ApprovalStatus.APPROVED and approved.decided_by == second_officer
    current = services.current_classification(dgx)
    assert current.eccn == "EAR99" and approved.classification_id == current.pk
    assert current.created_by == compliance_officer  # the officer who decided it; the approver on the row


@pytest.mark.parametrize("eccn", ["5A992.c", "4A994", "5A002.a"])
def test_every_move_that_is_not_an_upgrade_waits(dgx, compliance_officer, eccn):
    services.part_classify(part=dgx)
    result = services.part_classification_override(
        part=dgx, eccn=eccn, reason="Vendor letter", actor=compliance_officer
    )
    assert isinstance(result, ComplianceApproval) and result.status == ApprovalStatus.PENDING
    assert _eccn(dgx) == "4A090.a"


def test_an_upgrade_needs_no_second_officer(compliance_officer):
    part = PartFactory(category="other", hs_code="854231")
    services.part_classification_override(part=part, eccn="EAR99", reason="first", actor=compliance_officer)
    # EAR99 was a downgrade from unclassified: pending. Approve it another way: four eyes stays on.
    assert services.current_classification(part) is None or _eccn(part) != "EAR99"
    switch = PartFactory(category="network_switch", encryption=True, mass_market=True)
    services.part_classify(part=switch)
    assert _eccn(switch) == "5A992.c"
    row = services.part_classification_override(
        part=switch, eccn="5A002.z", reason="Its DPU meets 3A090.a", actor=compliance_officer
    )
    assert not isinstance(row, ComplianceApproval) and row.eccn == "5A002.z" and _eccn(switch) == "5A002.z"


def test_confirming_a_default_alone_has_no_effect(compliance_officer, second_officer):
    switch = PartFactory(category="network_switch", encryption=False)
    row = services.part_classify(part=switch)
    assert row.needs_confirmation
    pending = services.part_classification_override(
        part=switch, eccn=row.eccn, reason="Maker's published ECCN", actor=compliance_officer
    )
    assert pending.kind == ApprovalKind.DEFAULT_CONFIRMATION and pending.status == ApprovalStatus.PENDING
    assert services.current_classification(switch).needs_confirmation
    services.approval_approve(approval=pending, actor=second_officer)
    current = services.current_classification(switch)
    assert not current.needs_confirmation and current.eccn == row.eccn and current.source == "officer"


def test_confirming_a_default_from_the_hold_reason_waits_for_a_second_officer(
    ship, indian_customer, coordinator, compliance_officer, second_officer, django_capture_on_commit_callbacks
):
    pdu = PartFactory(part_number="PDU-1", name="Rack PDU", category="pdu", hs_code="853710")
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(pdu, 4)])
    hold = services.compliance_check_run(shipment=shipment, actor=coordinator).hold_reasons.get()
    assert hold.kind == HoldKind.UNCONFIRMED
    services.hold_reason_resolve(
        hold=hold, actor=compliance_officer, resolution="Vendor datasheet states EAR99 (rev. 2026-03)"
    )
    hold.refresh_from_db()
    assert hold.resolved_at is None and services.current_classification(pdu).needs_confirmation
    pending = ComplianceApproval.objects.get(hold_reason=hold, status=ApprovalStatus.PENDING)
    assert pending.kind == ApprovalKind.DEFAULT_CONFIRMATION and pending.part_id == pdu.pk
    with django_capture_on_commit_callbacks(execute=True):
        services.approval_approve(approval=pending, actor=second_officer)
    hold.refresh_from_db()
    assert hold.resolved_at is not None and hold.resolved_by == second_officer
    assert not services.current_classification(pdu).needs_confirmation
    shipment.refresh_from_db()
    assert shipment.status == "approved"


def test_one_officer_cannot_release_a_compliance_hold(
    submitted, dgx, coordinator, compliance_officer, second_officer, admin_user
):
    shipment = _held_shipment(submitted, dgx, coordinator)
    with pytest.raises(TransitionRefused, match="compliance page"):
        shipment_transition(shipment=shipment, target="release", actor=compliance_officer)
    with pytest.raises(PermissionDenied):
        services.compliance_hold_release_request(shipment=shipment, actor=admin_user, reason="Board said so")
    pending = services.compliance_hold_release_request(
        shipment=shipment, actor=compliance_officer, reason="Licence application filed; ship the demo unit"
    )
    shipment.refresh_from_db()
    assert pending.status == ApprovalStatus.PENDING and shipment.status == "on_hold"
    services.approval_approve(approval=pending, actor=second_officer)
    shipment.refresh_from_db()
    assert shipment.status == "compliance_review"  # back to where it was held from


def test_an_administrator_cannot_approve_a_lift(block, compliance_officer, admin_user, second_officer):
    services.block_lift_request(
        block=block, actor=compliance_officer, reason="Court order: different company"
    )
    with pytest.raises(PermissionDenied, match="compliance officer"):
        services.block_lift_approve(block=block, actor=admin_user)
    block.refresh_from_db()
    assert block.is_active
    services.block_lift_approve(block=block, actor=second_officer)
    block.refresh_from_db()
    assert not block.is_active


def test_an_officer_who_is_also_superuser_counts_by_the_role(block, compliance_officer, operator):
    officer_root = UserFactory(
        organisation=operator, role=Role.COMPLIANCE_OFFICER, is_superuser=True, is_staff=True
    )
    services.block_lift_request(block=block, actor=compliance_officer, reason="Different company")
    services.block_lift_approve(block=block, actor=officer_root)
    block.refresh_from_db()
    assert not block.is_active


def test_an_administrator_cannot_switch_four_eyes_off_then_lift_alone(
    block, operator, admin_user, compliance_officer, api_as, client
):
    url = f"/api/v1/organisations/{operator.pk}/"
    api_as(admin_user).patch(url, {"compliance_four_eyes": False}, format="json")
    api_as(admin_user).patch(url, {"block_reversal_needs_second_officer": False}, format="json")
    client.force_login(admin_user)
    form = {
        "kind": "operator",
        "legal_name": operator.legal_name,
        "address_line1": operator.address_line1,
        "city": operator.city,
        "country": operator.country,
        "is_active": "on",
    }
    client.post(f"/organisations/{operator.pk}/edit/", form)
    client.post(f"/admin/accounts/organisation/{operator.pk}/change/", {**form, "_save": "Save"})
    operator.refresh_from_db()
    assert operator.compliance_four_eyes is True
    with pytest.raises(PermissionDenied):
        services.four_eyes_policy_request(
            organisation=operator, actor=admin_user, on=False, reason="Too slow"
        )
    services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    block.refresh_from_db()
    assert block.is_active and block.lift_pending


# --- the policy -----------------------------------------------------------------------------------------


def test_switching_four_eyes_off_takes_two_officers_and_is_shown_on_every_decision(
    block, operator, compliance_officer, second_officer, dgx
):
    with pytest.raises(ValidationError, match="reason"):
        services.four_eyes_policy_request(
            organisation=operator, actor=compliance_officer, on=False, reason=" "
        )
    asked = services.four_eyes_policy_request(
        organisation=operator, actor=compliance_officer, on=False, reason="Audit week: one officer on duty"
    )
    operator.refresh_from_db()
    assert asked.status == ApprovalStatus.PENDING and operator.compliance_four_eyes is True
    with pytest.raises(PermissionDenied):
        services.approval_approve(approval=asked, actor=compliance_officer)
    services.approval_approve(approval=asked, actor=second_officer)
    operator.refresh_from_db()
    assert operator.compliance_four_eyes is False
    policy = services.four_eyes_policy(operator)
    today = timezone.localdate()
    note = f"four eyes off (policy changed by {compliance_officer.get_full_name()}, approved by Bea "
    assert not policy.on and policy.note.startswith(note) and f"on {today:%Y-%m-%d})" in policy.note

    # Now one officer decides alone, and each decision says under which policy.
    services.part_classify(part=dgx)
    row = services.part_classification_override(
        part=dgx, eccn="EAR99", reason="Vendor", actor=compliance_officer
    )
    assert not isinstance(row, ComplianceApproval) and _eccn(dgx) == "EAR99"
    alone = ComplianceApproval.objects.get(kind=ApprovalKind.CLASSIFICATION_OVERRIDE)
    assert alone.status == ApprovalStatus.DECIDED_ALONE and alone.four_eyes_note == policy.note
    assert alone.classification_id == row.pk
    services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    block.refresh_from_db()
    assert not block.is_active
    lift = ComplianceApproval.objects.get(kind=ApprovalKind.BLOCK_LIFT)
    assert lift.status == ApprovalStatus.DECIDED_ALONE and lift.four_eyes_note == policy.note

    # Switching it back on takes two officers as well.
    back = services.four_eyes_policy_request(
        organisation=operator, actor=second_officer, on=True, reason="Audit week over"
    )
    operator.refresh_from_db()
    assert back.status == ApprovalStatus.PENDING and operator.compliance_four_eyes is False
    services.approval_approve(approval=back, actor=compliance_officer)
    operator.refresh_from_db()
    assert operator.compliance_four_eyes is True and services.four_eyes_policy(operator).note == ""


def test_one_pending_request_per_subject_and_reject_or_withdraw(dgx, compliance_officer, second_officer):
    services.part_classify(part=dgx)
    first = services.part_classification_override(
        part=dgx, eccn="EAR99", reason="x1", actor=compliance_officer
    )
    with pytest.raises(ValidationError, match="already awaiting"):
        services.part_classification_override(part=dgx, eccn="4A994", reason="x2", actor=second_officer)
    with pytest.raises(ValidationError, match="reason"):
        services.approval_reject(approval=first, actor=second_officer, reason="")
    with pytest.raises(PermissionDenied):
        services.approval_withdraw(approval=first, actor=second_officer)  # only the requester withdraws
    rejected = services.approval_reject(approval=first, actor=second_officer, reason="No letter attached")
    assert rejected.status == ApprovalStatus.REJECTED and _eccn(dgx) == "4A090.a"
    with pytest.raises(ValidationError, match="rejected"):
        services.approval_approve(approval=first, actor=second_officer)
    again = services.part_classification_override(
        part=dgx, eccn="EAR99", reason="x3", actor=compliance_officer
    )
    assert (
        services.approval_withdraw(approval=again, actor=compliance_officer).status
        == ApprovalStatus.WITHDRAWN
    )


def test_the_database_refuses_an_approval_by_the_requester(dgx, compliance_officer):
    from django.db import IntegrityError, transaction

    services.part_classify(part=dgx)
    pending = services.part_classification_override(
        part=dgx, eccn="EAR99", reason="x", actor=compliance_officer
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        ComplianceApproval.objects.filter(pk=pending.pk).update(
            status=ApprovalStatus.APPROVED, decided_by=compliance_officer, decided_at=timezone.now()
        )


def test_a_rival_organisations_officer_cannot_approve(block, compliance_officer, rival_officer):
    services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    approval = ComplianceApproval.objects.get(kind=ApprovalKind.BLOCK_LIFT, status=ApprovalStatus.PENDING)
    with pytest.raises(PermissionDenied, match="same organisation"):
        services.approval_approve(approval=approval, actor=rival_officer)


# --- API ------------------------------------------------------------------------------------------------


def test_api_request_approve_reject(
    dgx,
    compliance_officer,
    second_officer,
    coordinator,
    admin_user,
    supplier_user,
    rival_officer,
    api_as,
    django_assert_num_queries,
):
    services.part_classify(part=dgx)
    first, second = api_as(compliance_officer), api_as(second_officer)
    missing = first.post(
        APPROVALS, {"kind": "classification_override", "part": dgx.pk, "reason": "x"}, format="json"
    )
    assert missing.status_code == 400 and "eccn" in missing.json()
    asked = first.post(
        APPROVALS,
        {"kind": "classification_override", "part": dgx.pk, "eccn": "EAR99", "reason": "Vendor letter"},
        format="json",
    )
    assert asked.status_code == 201, asked.json()
    body = asked.json()
    assert body["status"] == "pending" and body["status_label"] == "Awaiting second officer"
    assert body["requested_by"] == compliance_officer.username and body["eccn_before"] == "4A090.a"
    assert _eccn(dgx) == "4A090.a"
    url = f"{APPROVALS}{body['id']}/"
    own = first.post(f"{url}approve/", {}, format="json")
    assert own.status_code == 403
    assert own.json()["detail"] == (
        "A second compliance officer must approve this (four eyes): you requested it."
    )
    for user in (admin_user, coordinator):
        assert api_as(user).post(f"{url}approve/", {}, format="json").status_code == 403
    assert api_as(supplier_user).get(url).status_code == 403
    assert api_as(rival_officer).get(url).status_code == 404
    assert api_as(rival_officer).post(f"{url}approve/", {}, format="json").status_code == 404
    second.get("/api/v1/me/")
    with django_assert_num_queries(3):  # token, count, page (people, part, shipment, block joined)
        listing = second.get(f"{APPROVALS}?status=pending").json()
    assert [row["id"] for row in listing["results"]] == [body["id"]]
    done = second.post(f"{url}approve/", {}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "approved"
    assert done.json()["decided_by"] == second_officer.username and _eccn(dgx) == "EAR99"

    asked = first.post(
        APPROVALS,
        {"kind": "classification_override", "part": dgx.pk, "eccn": "4A994", "reason": "r"},
        format="json",
    )
    # EAR99 → 4A994 is an upgrade: it takes effect at once and is not a four-eyes decision.
    assert asked.status_code == 201 and asked.json()["status"] == "not_needed" and _eccn(dgx) == "4A994"


def test_api_reject_and_the_classification_endpoint_answers_202(
    dgx, compliance_officer, second_officer, api_as
):
    services.part_classify(part=dgx)
    answer = api_as(compliance_officer).post(
        "/api/v1/classifications/", {"part": dgx.pk, "eccn": "EAR99", "reason": "Vendor"}, format="json"
    )
    assert answer.status_code == 202 and answer.json()["status"] == "pending"
    url = f"{APPROVALS}{answer.json()['id']}/"
    second = api_as(second_officer)
    assert second.post(f"{url}reject/", {"reason": ""}, format="json").status_code == 400
    rejected = second.post(f"{url}reject/", {"reason": "No vendor letter"}, format="json")
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    assert _eccn(dgx) == "4A090.a"


def test_api_hold_release_and_policy(
    submitted, dgx, coordinator, compliance_officer, second_officer, operator, api_as
):
    shipment = _held_shipment(submitted, dgx, coordinator)
    first, second = api_as(compliance_officer), api_as(second_officer)
    asked = first.post(
        APPROVALS,
        {"kind": "hold_release", "shipment": shipment.reference, "reason": "Demo unit"},
        format="json",
    )
    assert asked.status_code == 201 and asked.json()["shipment"] == shipment.reference
    assert second.post(f"{APPROVALS}{asked.json()['id']}/approve/", {}, format="json").status_code == 200
    shipment.refresh_from_db()
    assert shipment.status == "compliance_review"

    policy = first.post(
        APPROVALS, {"kind": "policy_change", "four_eyes": False, "reason": "Audit"}, format="json"
    )
    assert policy.status_code == 201 and policy.json()["four_eyes"] is False
    second.post(f"{APPROVALS}{policy.json()['id']}/approve/", {}, format="json")
    body = first.get(f"/api/v1/organisations/{operator.pk}/").json()
    assert body["compliance_four_eyes"] is False
    assert body["four_eyes_note"].startswith("four eyes off (policy changed by")


def test_another_organisations_shipment_is_not_found(submitted, dgx, coordinator, rival_officer, api_as):
    shipment = _held_shipment(submitted, dgx, coordinator)
    answer = api_as(rival_officer).post(
        APPROVALS, {"kind": "hold_release", "shipment": shipment.reference, "reason": "x"}, format="json"
    )
    assert answer.status_code == 400 and "shipment" in answer.json()


# --- pages and the queue -----------------------------------------------------------------------------------


def test_pages_show_awaiting_second_officer_and_decide(
    dgx, compliance_officer, second_officer, admin_user, browser_as, client, django_assert_num_queries
):
    services.part_classify(part=dgx)
    officer = browser_as(compliance_officer)
    officer.post(f"/compliance/parts/{dgx.pk}/", {"eccn": "EAR99", "reason": "Vendor letter"})
    assert _eccn(dgx) == "4A090.a"
    page = officer.get(f"/compliance/parts/{dgx.pk}/").content.decode()
    assert "Awaiting second officer" in page and "EAR99" in page
    approval = ComplianceApproval.objects.get()
    decide = f"/compliance/approvals/{approval.pk}/"
    assert 'value="approve"' not in page and 'value="withdraw"' in page  # the requester withdraws
    refused = officer.post(decide, {"action": "approve"}, follow=True).content.decode()
    assert "you requested it" in refused and _eccn(dgx) == "4A090.a"

    client.force_login(admin_user)
    assert client.post(decide, {"action": "approve"}).status_code == 403
    queue = client.get("/compliance/").content.decode()
    assert "Awaiting second officer" in queue and 'value="approve"' not in queue

    client.force_login(second_officer)
    client.get("/compliance/")
    with django_assert_num_queries(8):  # session, user, the page's lists: none per request
        queue = client.get("/compliance/").content.decode()
    section = queue.split('id="approvals"')[1]
    assert (
        "Awaiting second officer" in section and dgx.part_number in section and 'value="approve"' in section
    )
    client.post(decide, {"action": "approve"})
    assert _eccn(dgx) == "EAR99"


def test_the_four_eyes_page(operator, compliance_officer, second_officer, admin_user, client):
    client.force_login(admin_user)
    assert client.post("/compliance/four-eyes/", {"four_eyes": "", "reason": "x"}).status_code == 403
    page = client.get("/compliance/four-eyes/").content.decode()
    assert "On" in page and 'name="reason"' not in page
    client.force_login(compliance_officer)
    client.post("/compliance/four-eyes/", {"reason": "Audit week"})  # unticked: off
    page = client.get("/compliance/four-eyes/").content.decode()
    assert "Awaiting second officer" in page
    Organisation.objects.get(pk=operator.pk).compliance_four_eyes is True  # noqa: B015
    client.force_login(second_officer)
    approval = ComplianceApproval.objects.get(kind=ApprovalKind.POLICY_CHANGE)
    client.post(f"/compliance/approvals/{approval.pk}/", {"action": "approve"})
    page = client.get("/compliance/four-eyes/").content.decode()
    assert "four eyes off (policy changed by" in page


def test_the_django_admin_changes_no_decision(operator, admin_user, client, dgx, compliance_officer):
    services.part_classify(part=dgx)
    services.part_classification_override(part=dgx, eccn="EAR99", reason="x", actor=compliance_officer)
    client.force_login(admin_user)
    approval = ComplianceApproval.objects.get()
    page = client.get(f"/admin/compliance/complianceapproval/{approval.pk}/change/")
    assert page.status_code == 200 and 'name="status"' not in page.content.decode()
    organisation = client.get(f"/admin/accounts/organisation/{operator.pk}/change/").content.decode()
    assert 'name="compliance_four_eyes"' not in organisation and "Compliance four eyes" in organisation
