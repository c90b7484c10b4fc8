"""Amending an approved shipment: back to draft with a reason, before it is booked.

Approved and not booked, a coordinator sends the shipment back to draft saying why: every issued
document is voided with that reason (its number, version and bytes kept, a VOID copy added),
drafts are superseded, the compliance answer is marked stale, and resubmitting runs the check
again on the amended data instead of re-applying the old approval. Booked or later is refused
with what to do instead; the API has an `amend` action and the page a button to a confirmation
form.
"""

# ruff: noqa: F811  (the fixtures imported from the compliance and documents tests)

import pytest
from django.urls import reverse

from apps.compliance import services as compliance
from apps.compliance.models import ComplianceCheck
from apps.core.models import AuditEvent
from apps.documents import services as documents
from apps.documents.models import Document, DocumentStatus
from apps.shipments import services
from apps.shipments.models import Shipment
from tests.compliance.conftest import (  # noqa: F401  (shared fixtures)
    country_data,
    dgx,
    h100,
    indian_customer,
    screening_list,
    ship,
    sites,
    submitted,
)
from tests.documents.conftest import approved  # noqa: F401
from tests.factories import UserFactory

REASON = "Line 1 needs its serial numbers and the insured value was short"


@pytest.fixture
def issued(approved, coordinator):
    """The approved shipment with every required document issued, and one more draft version."""
    issued = documents.documents_issue_required(shipment=approved, actor=coordinator)
    assert issued
    return approved


def test_amending_voids_issued_documents_marks_the_check_stale_and_rechecks_on_resubmission(
    issued, coordinator
):
    shipment = issued
    before = {d.pk: (d.number, d.version, d.sha256) for d in Document.objects.filter(shipment=shipment)}
    check = compliance.latest_check(shipment)

    shipment = services.shipment_amend(shipment=shipment, actor=coordinator, reason=REASON)

    assert shipment.status == "draft" and shipment.amendments == 1
    voided = list(Document.objects.filter(shipment=shipment))
    assert voided and all(d.status == DocumentStatus.VOID for d in voided)
    for document in voided:
        assert document.void_reason == f"Shipment {shipment.reference} amended: {REASON}"
        assert (document.number, document.version, document.sha256) == before[document.pk]
        assert document.void_sha256 and document.voided_by == coordinator
        data, name = documents.document_download(document)
        assert name.endswith("-VOID.pdf") and data
    check.refresh_from_db()
    assert check.stale_since is not None and check.stale_reason == f"Shipment amended: {REASON}"
    trail = AuditEvent.objects.for_object(shipment)
    assert trail.filter(
        action="transition", changes={"status": ["approved", "draft"]}, message=f"amendment — {REASON}"
    ).exists()
    assert trail.filter(message__contains="issued document(s) voided").exists()

    # Draft again: lines and terms change; the old pass does not approve the resubmission.
    services.shipment_update(shipment=shipment, fields={"incoterm_place": "Chennai (MAA)"})
    assert compliance.approval_problems(shipment) == [
        "No compliance check has run on this version of the shipment: run the check."
    ]
    shipment = services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "compliance_review"
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    assert ComplianceCheck.objects.filter(shipment=shipment).count() == 2
    assert compliance.latest_check(shipment).stale_since is None


def test_an_unchanged_resubmission_is_checked_again(approved, coordinator):
    """Nothing changed but the amendment: the check still runs again (a new check, not the old one)."""
    services.shipment_amend(shipment=approved, actor=coordinator, reason="Wrong consignee contact")
    shipment = services.shipment_transition(shipment=approved, target="compliance_review", actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "compliance_review"
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    assert ComplianceCheck.objects.filter(shipment=shipment).count() == 2


def test_amending_needs_a_reason_the_capability_and_an_approved_unbooked_shipment(
    approved,
    coordinator,
    compliance_officer,
):
    with pytest.raises(services.TransitionRefused, match="Say why the shipment is amended"):
        services.shipment_amend(shipment=approved, actor=coordinator, reason="  ")
    with pytest.raises(services.TransitionForbidden, match="may not amend"):
        services.shipment_amend(shipment=approved, actor=compliance_officer, reason=REASON)
    # The generic transition to draft is the same amendment, with the same rules.
    with pytest.raises(services.TransitionForbidden):
        services.shipment_transition(
            shipment=approved, target="draft", actor=compliance_officer, reason=REASON
        )
    for status, says in (
        ("booked", "only an approved shipment that is not booked yet can be amended"),
        ("in_transit", "only an approved shipment that is not booked yet can be amended"),
        ("delivered", "nothing can be amended"),
        ("draft", "its lines and terms can be changed as they are"),
    ):
        Shipment.objects.filter(pk=approved.pk).update(status=status)
        with pytest.raises(services.TransitionRefused) as excinfo:
            services.shipment_amend(shipment=approved, actor=coordinator, reason=REASON)
        assert excinfo.value.message == f"{approved.reference} cannot be amended (sent back to draft)."
        assert says in excinfo.value.reasons[0], status
        with pytest.raises(services.TransitionRefused) as excinfo:
            services.shipment_transition(shipment=approved, target="draft", actor=coordinator, reason=REASON)
        assert says in excinfo.value.reasons[0], status
    assert Shipment.objects.get(pk=approved.pk).amendments == 0


def test_withdrawing_from_review_is_not_an_amendment(submitted, indian_customer, dgx, coordinator):
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 1)])
    shipment = services.shipment_transition(shipment=shipment, target="draft", actor=coordinator)
    assert shipment.status == "draft" and shipment.amendments == 0


def test_amend_through_the_api(issued, coordinator, forwarder_user, api_as):
    shipment = issued
    url = f"/api/v1/shipments/{shipment.reference}/amend/"
    assert api_as(forwarder_user).post(url, {"reason": REASON}, format="json").status_code == 404
    api = api_as(coordinator)
    missing = api.post(url, {}, format="json")
    assert missing.status_code == 400 and "reason" in missing.json()
    answer = api.post(url, {"reason": REASON}, format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["status"] == "draft" and body["amendments"] == 1
    again = api.post(url, {"reason": REASON}, format="json")
    assert again.status_code == 409
    assert again.json()["detail"] == f"{shipment.reference} cannot be amended (sent back to draft)."
    assert "its lines and terms can be changed as they are" in again.json()["reasons"][0]


def test_amend_through_the_api_needs_the_capability(approved, compliance_officer, api_as):
    url = f"/api/v1/shipments/{approved.reference}/amend/"
    answer = api_as(compliance_officer).post(url, {"reason": REASON}, format="json")
    assert answer.status_code == 403
    assert Shipment.objects.get(pk=approved.pk).status == "approved"


def test_amend_page_confirms_then_amends(issued, coordinator, client, operator):
    shipment = issued
    page_url = shipment.get_absolute_url()
    amend_url = reverse("shipments:shipment-amend", args=[shipment.reference])
    client.force_login(coordinator)
    assert f'href="{amend_url}"' in client.get(page_url).content.decode()
    confirm = client.get(amend_url)
    assert confirm.status_code == 200
    text = confirm.content.decode()
    for number in Document.objects.filter(shipment=shipment, status="issued").values_list(
        "number", flat=True
    ):
        assert number in text
    assert 'name="reason"' in text and "checked again" in text
    refused = client.post(amend_url, {"reason": ""})
    assert refused.status_code == 400 and Shipment.objects.get(pk=shipment.pk).status == "approved"
    done = client.post(amend_url, {"reason": REASON})
    assert done.status_code == 302 and done["Location"] == page_url
    assert Shipment.objects.get(pk=shipment.pk).status == "draft"
    # Draft now: no amend button, and the confirmation page says why.
    assert f'href="{amend_url}"' not in client.get(page_url).content.decode()
    refused = client.post(amend_url, {"reason": REASON}, follow=True)
    assert refused.redirect_chain == [(page_url, 302)]  # back on the shipment's page: no re-post
    assert any("draft" in str(m).lower() for m in refused.context["messages"])

    officer = UserFactory(organisation=operator, role="compliance_officer", username="amend-officer")
    client.force_login(officer)
    Shipment.objects.filter(pk=shipment.pk).update(status="approved")
    assert f'href="{amend_url}"' not in client.get(page_url).content.decode()
    assert client.get(amend_url).status_code == 403
