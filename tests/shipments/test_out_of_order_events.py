"""Milestones that arrive out of order move the status as far as their evidence allows; the
skipped steps are recorded as inferred; a release dated before a hold does not release it; an
event that cannot move the status is recorded with the reason."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.core.models import AuditEvent
from apps.shipments import services
from apps.shipments.models import TrackingEvent


@pytest.fixture
def booked(ready_to_book, coordinator, compliance_officer):
    from apps.documents.services import documents_issue_required

    from .test_workflow import approve

    shipment = approve(ready_to_book(), coordinator)
    documents_issue_required(shipment=shipment, actor=coordinator)
    return services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)


def post(api, shipment, code, hours_ago, **data):
    body = {"code": code, "occurred_at": (timezone.now() - dt.timedelta(hours=hours_ago)).isoformat()} | data
    response = api.post(f"/api/v1/shipments/{shipment.reference}/events/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def transitions(shipment):
    return [
        (e.changes["status"][1], e.message)
        for e in AuditEvent.objects.for_object(shipment).filter(action="transition").order_by("id")
    ]


def test_delivered_before_departed_delivers_with_the_skipped_steps_inferred(booked, coordinator, api_as):
    api = api_as(coordinator)
    delivered = post(api, booked, "delivered", 1, location="Siruseri DC1")
    assert delivered["status_after"] == "delivered"
    assert "inferred" in delivered["status_note"] and "in transit" in delivered["status_note"]
    moves = transitions(booked)[-4:]
    assert [status for status, _ in moves] == ["in_transit", "at_customs", "cleared", "delivered"]
    assert all("inferred from Delivered" in message for _, message in moves[:3])
    assert "inferred" not in moves[3][1]
    # The departure that arrives late joins the timeline and moves nothing.
    departed = post(api, booked, "departed", 50)
    assert departed["status_after"] == "" and "already delivered" in departed["status_note"]
    codes = [e["code"] for e in api.get(f"/api/v1/shipments/{booked.reference}/events/").json()["results"]]
    assert codes == ["departed", "delivered"]


def test_a_release_dated_before_the_hold_does_not_release_it(booked, coordinator, api_as):
    api = api_as(coordinator)
    post(api, booked, "departed", 60)
    post(api, booked, "arrived", 20)
    assert post(api, booked, "customs_hold", 10, remarks="BIS certificate")["status_after"] == "on_hold"
    early = post(api, booked, "customs_released", 12)
    assert early["status_after"] == "" and "before the customs hold" in early["status_note"]
    booked.refresh_from_db()
    assert booked.status == "on_hold" and booked.hold_kind == "customs"
    later = post(api, booked, "customs_released", 5)
    assert later["status_after"] == "cleared"


def test_a_delivery_during_a_customs_hold_waits_for_the_release(booked, coordinator, api_as):
    api = api_as(coordinator)
    post(api, booked, "arrived", 20)
    post(api, booked, "customs_hold", 10)
    waiting = post(api, booked, "delivered", 1)
    assert waiting["status_after"] == "" and "customs hold" in waiting["status_note"]
    # The release arrives last but is dated before the delivery: released, cleared, delivered.
    assert post(api, booked, "customs_released", 5)["status_after"] == "delivered"


def test_goods_held_for_compliance_before_departure_take_no_moving_milestone(
    booked, coordinator, compliance_officer
):
    held = services.shipment_transition(
        shipment=booked, target="on_hold", actor=compliance_officer, reason="Re-check", hold_kind="compliance"
    )
    with pytest.raises(services.TransitionRefused) as refused:
        services.event_record(shipment=held, actor=coordinator, code="delivered", occurred_at=timezone.now())
    assert "held for compliance" in refused.value.message and "Re-check" in refused.value.reasons
    held.refresh_from_db()
    assert held.status == "on_hold" and not TrackingEvent.objects.filter(shipment=held).exists()


def test_a_milestone_never_moves_a_shipment_held_for_compliance_after_departure(
    booked, coordinator, compliance_officer, api_as
):
    post(api_as(coordinator), booked, "departed", 5)
    held = services.shipment_transition(
        shipment=booked, target="on_hold", actor=compliance_officer, reason="Re-check", hold_kind="compliance"
    )
    event = services.event_record(
        shipment=held, actor=coordinator, code="delivered", occurred_at=timezone.now()
    )
    held.refresh_from_db()
    assert held.status == "on_hold" and event.status_after == ""
    assert "compliance" in event.status_note
    assert TrackingEvent.objects.filter(shipment=held, code="delivered").exists()


def test_a_milestone_never_moves_a_shipment_that_is_not_booked(ready_to_book, coordinator):
    shipment = ready_to_book()
    event = services.event_record(
        shipment=shipment, actor=coordinator, code="departed", occurred_at=timezone.now()
    )
    shipment.refresh_from_db()
    assert (
        shipment.status == "draft" and event.status_after == "" and "not booked" in event.status_note.lower()
    )
