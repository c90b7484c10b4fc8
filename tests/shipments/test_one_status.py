"""Issue 12, "One true status": a flash says the status the shipment is in after the request, not
the one an object in memory held before hooks moved it (the compliance check that approves it on
commit, the steps a milestone infers)."""

import pytest
from django.contrib.messages import get_messages

from apps.shipments import services

from .test_workflow import approve

pytestmark = pytest.mark.django_db


def flashes(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_a_milestone_flash_states_the_status_it_moved_to(
    ready_to_book, coordinator, compliance_officer, browser_as
):
    from apps.documents.services import documents_issue_required

    shipment = approve(ready_to_book(), coordinator)
    documents_issue_required(shipment=shipment, actor=coordinator)
    shipment = services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)
    # Arrival at the destination proves the departure: booked → in transit (inferred) → at customs.
    response = browser_as(coordinator).post(
        f"/shipments/{shipment.reference}/events/",
        {"code": "arrived", "occurred_at": "2026-12-01T10:00", "location": "MAA"},
    )
    assert response.status_code == 302
    assert flashes(response) == ["Event “Arrived” recorded; status now at customs."]


@pytest.mark.django_db(transaction=True)
def test_a_transition_flash_states_the_status_after_the_check_ran(ready_to_book, coordinator, browser_as):
    # Submitting for review starts the compliance check when the transaction commits; with an
    # eager (or fast) worker it has passed and approved the shipment before the page is answered.
    shipment = ready_to_book()
    response = browser_as(coordinator).post(
        f"/shipments/{shipment.reference}/transition/", {"to": "compliance_review"}
    )
    shipment.refresh_from_db()
    assert shipment.status == "approved", shipment.hold_reason
    assert f"{shipment} is now approved." in flashes(response)
    # Submitting shows the check's progress on the shipment page (issue 12: "shows nothing"),
    # which loads the status and its actions again when the check ends.
    assert "?task=" in response.url
    page = browser_as(coordinator).get(response.url).content.decode()
    assert 'id="task"' in page and "refresh=shipment-status" in page and 'id="shipment-status"' in page
    # Another shipment's (or a made-up) task id shows nothing.
    page = browser_as(coordinator).get(f"{shipment.get_absolute_url()}?task=nope").content.decode()
    assert 'id="task"' not in page


def test_booking_waits_for_the_check_of_the_shipment_as_it_is_now(
    ready_to_book, coordinator, compliance_officer, django_capture_on_commit_callbacks
):
    # An officer's override changes what the approval rested on: until the re-check it queued has
    # run, the approved shipment cannot be booked on the old answer.
    from apps.compliance.services import compliance_check_run
    from apps.documents.services import documents_issue_required
    from apps.shipments.services import TransitionRefused
    from tests.four_eyes import classify_with_second_officer

    shipment = approve(ready_to_book(), coordinator)
    documents_issue_required(shipment=shipment, actor=coordinator)
    part = shipment.lines.get().part
    with django_capture_on_commit_callbacks(execute=False):  # the re-check is queued, not yet run
        classify_with_second_officer(
            part=part, eccn="5A992.c", reason="Manufacturer's classification letter", actor=compliance_officer
        )
    with pytest.raises(TransitionRefused) as refused:
        services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)
    assert refused.value.reasons == [
        "No compliance check has run on this version of the shipment: run the check."
    ]
    compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    assert (
        services.shipment_transition(shipment=shipment, target="booked", actor=coordinator).status == "booked"
    )


def test_the_compliance_page_says_when_its_latest_check_is_not_of_the_shipment_as_it_is(
    ready_to_book, coordinator, browser_as
):
    from apps.compliance.models import ComplianceCheck

    shipment = approve(ready_to_book(), coordinator)
    client = browser_as(coordinator)
    page = client.get(f"/compliance/shipments/{shipment.reference}/").content.decode()
    assert "Stale" not in page
    # As a change the check never saw would (the fingerprint no longer matches).
    ComplianceCheck.objects.filter(shipment=shipment).update(shipment_version="an earlier version")
    page = client.get(f"/compliance/shipments/{shipment.reference}/").content.decode()
    assert "Stale" in page and "does not count for approval, booking or issuing documents" in page
    docs = client.get(f"/shipments/{shipment.reference}/documents/").content.decode()
    assert "compliance check has not passed" in docs  # the documents page says the same


def test_the_api_says_whether_a_check_is_of_the_shipment_as_it_is(ready_to_book, coordinator, api_as):
    from apps.compliance.models import ComplianceCheck

    shipment = approve(ready_to_book(), coordinator)
    api = api_as(coordinator)
    path = f"/api/v1/compliance-checks/?shipment__reference={shipment.reference}"
    assert [c["current"] for c in api.get(path).json()["results"]] == [True]
    ComplianceCheck.objects.filter(shipment=shipment).update(shipment_version="an earlier version")
    assert [c["current"] for c in api.get(path).json()["results"]] == [False]
    assert [c["current"] for c in api.get("/api/v1/compliance-checks/").json()["results"]] == [None]
