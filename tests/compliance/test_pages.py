"""Compliance officers' pages in the browser."""

from apps.compliance import services
from apps.compliance.models import ComplianceApproval, HitStatus, ScreeningHit, ScreeningList
from tests.factories import OrganisationFactory
from tests.four_eyes import second_officer_of

from .conftest import LIST


def test_queue_page_and_hit_decision(compliance_officer, browser_as, screening_list):
    party = OrganisationFactory(legal_name="Northern Star Shipping LLC", country="AE", city="Dubai")
    services.organisation_screen(organisation=party)
    client = browser_as(compliance_officer)
    page = client.get("/compliance/").content.decode()
    assert "NORTHERN STAR SHIPPING LLC" in page and "50 %" in page
    hit = ScreeningHit.objects.get()
    response = client.post(
        f"/compliance/hits/{hit.pk}/decide/", {"decision": "clear", "reason": ""}, follow=True
    )
    assert "give a reason" in response.content.decode()
    asked = client.post(
        f"/compliance/hits/{hit.pk}/decide/",
        {"decision": "clear", "reason": "Different LLC in Sharjah"},
        follow=True,
    ).content.decode()
    # Clearing waits for a second officer (four eyes): asked, listed as awaiting, not cleared yet.
    assert "a second compliance officer approves it" in asked and "clear the possible match" in asked
    assert ScreeningHit.objects.get().status == HitStatus.OPEN
    approval = ComplianceApproval.objects.get(hit=hit)
    browser_as(second_officer_of(compliance_officer)).post(
        f"/compliance/approvals/{approval.pk}/", {"action": "approve"}
    )
    assert ScreeningHit.objects.get().status == HitStatus.CLEARED


def test_queue_is_for_compliance_officers(coordinator, browser_as):
    assert browser_as(coordinator).get("/compliance/").status_code == 403


def test_shipment_compliance_page_resolve_and_run(
    submitted, dgx, coordinator, compliance_officer, browser_as
):
    hanoi = OrganisationFactory(kind="customer", legal_name="Hanoi AI", country="VN", city="Hanoi")
    shipment = submitted(hanoi, "VN", "Hanoi", [(dgx, 1)])
    client = browser_as(compliance_officer)
    url = f"/compliance/shipments/{shipment.reference}/"
    assert "No compliance check has run" in client.get(url).content.decode()
    response = client.post(f"{url}run/")
    assert response.status_code == 302 and "?task=" in response.url
    task_id = response.url.split("task=")[1]
    # The test transaction does not commit, so run the queued check the way the task does.
    services.compliance_check_run(shipment=shipment, actor=compliance_officer, task_id=task_id)
    page = client.get(url).content.decode()
    assert "a licence is required and none held" in page and "4A090.a" in page
    hold = shipment.compliance_checks.get().hold_reasons.get()
    refused = client.post(
        f"/compliance/holds/{hold.pk}/resolve/", {"resolution": "Licence D7654321 granted"}, follow=True
    )
    assert "Give the number of the licence" in refused.content.decode()
    shipment.refresh_from_db()
    assert shipment.status == "on_hold"
    progress = client.get(f"/compliance/tasks/{task_id}/")
    assert progress.status_code == 200 and "compliance check" in progress.content.decode().lower()


def test_part_classification_page(h100, coordinator, compliance_officer, browser_as):
    client = browser_as(coordinator)
    client.post(f"/compliance/parts/{h100.pk}/", {"action": "run"})
    page = client.get(f"/compliance/parts/{h100.pk}/").content.decode()
    assert "3A090.a" in page and "15,832" in page and "Override" not in page
    officer = browser_as(compliance_officer)
    bad = officer.post(f"/compliance/parts/{h100.pk}/", {"eccn": "", "reason": ""})
    assert bad.status_code == 400 and {"eccn", "reason"} <= set(bad.context["form"].errors)
    officer.post(f"/compliance/parts/{h100.pk}/", {"eccn": "3A090.b", "reason": "Vendor datasheet revision"})
    page = officer.get(f"/compliance/parts/{h100.pk}/").content.decode()
    assert "Vendor datasheet revision" in page and "3A090.b" in page


def test_licences_page_and_form(compliance_officer, saudi_licence, saudi_customer, browser_as):
    client = browser_as(compliance_officer)
    assert "D1234567" in client.get("/compliance/licences/").content.decode()
    bad = client.post(
        "/compliance/licences/",
        {
            "number": "X",
            "eccns": "",
            "destination_countries": "SA",
            "licensee": saudi_customer.pk,
            "consignee": saudi_customer.pk,
            "permitted_quantity": 1,
            "permitted_value": "1",
            "currency": "USD",
            "valid_from": "2026-01-01",
            "expires_on": "2025-01-01",
            "issuing_authority": "BIS",
        },
    )
    assert bad.status_code == 400 and {"eccns", "expires_on"} <= set(bad.context["form"].errors)
    assert "Not drawn on yet" in client.get(f"/compliance/licences/{saudi_licence.pk}/").content.decode()


def test_lists_page_import_and_adhoc(compliance_officer, browser_as, db):
    import json

    from django.core.files.uploadedfile import SimpleUploadedFile

    client = browser_as(compliance_officer)
    response = client.post(
        "/compliance/lists/",
        {
            "action": "import",
            "name": "CSL",
            "source_format": "csl_json",
            "version": "v9",
            "file": SimpleUploadedFile("l.json", json.dumps(LIST).encode()),
        },
    )
    assert response.status_code == 302 and ScreeningList.objects.get().entry_count == 4
    page = client.post(
        "/compliance/lists/",
        {"action": "screen", "name": "Blue Lotus Electronics Trading Ltd", "country": "HK"},
    ).content.decode()
    assert "BLUE LOTUS ELECTRONICS TRADING" in page and "Unverified" in page


def test_countries_page(coordinator, browser_as, country_data):
    page = browser_as(coordinator).get("/compliance/countries/?q=D:5").content.decode()
    assert "<td>China" in page and "<td>India" not in page
