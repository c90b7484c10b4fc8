"""The audit log: one mechanism, every change recorded with who, when, what and from where."""

from decimal import Decimal

import pytest
from django.db import DatabaseError, connection, transaction

from apps.catalog.models import Part
from apps.catalog.services import part_create
from apps.core.audit import audit_context
from apps.core.models import AuditEvent
from tests.factories import ManufacturerFactory, PartFactory

PART_PAYLOAD = {
    "manufacturer": "NVIDIA",
    "part_number": "MQM9700-NS2F",
    "name": "Quantum-2 QM9700",
    "category": "network_switch",
    "unit_weight_kg": "14.5",
    "length_cm": "59.0",
    "width_cm": "43.8",
    "height_cm": "4.4",
    "unit_value": "28000.00",
    "currency": "USD",
    "country_of_origin": "MX",
    "hs_code": "8517.62",
}


def test_api_create_and_update_are_recorded_with_actor_and_channel(coordinator, api_as):
    ManufacturerFactory(name="NVIDIA")
    api = api_as(coordinator)
    part_id = api.post("/api/v1/parts/", PART_PAYLOAD, format="json").json()["id"]
    api.patch(f"/api/v1/parts/{part_id}/", {"unit_value": "27500.00"}, format="json")

    events = list(AuditEvent.objects.for_object(Part.objects.get(pk=part_id)).order_by("id"))
    assert [e.action for e in events] == ["create", "update"]
    assert all(e.channel == "api" and e.actor_id == coordinator.pk for e in events)
    assert events[0].changes["hs_code"] == [None, "851762"]
    assert events[1].changes == {"unit_value": ["28000.00", "27500.00"]}
    assert "Test Operator" in events[1].actor_label


def test_browser_edit_is_recorded_as_browser(coordinator, browser_as):
    part = PartFactory()
    client = browser_as(coordinator)
    response = client.get(f"/parts/{part.pk}/edit/")
    form = response.context["form"]
    data = {
        k: ("" if v is None else v) for k, v in form.initial.items() if k not in ("dense_tops", "attributes")
    }
    data |= {
        "dense_tops": "{}",
        "attributes": "{}",
        "name": "Renamed switch",
        "manufacturer": part.manufacturer_id,
    }
    response = client.post(f"/parts/{part.pk}/edit/", data)
    assert response.status_code == 302, response.context["form"].errors
    event = AuditEvent.objects.for_object(part).filter(action="update").get()
    assert event.channel == "browser" and event.actor_id == coordinator.pk
    assert event.changes == {"name": [part.name, "Renamed switch"]}
    assert event.remote_addr == "127.0.0.1"


def test_unchanged_save_writes_nothing_and_delete_keeps_before_values(db):
    part = PartFactory()
    part.save()
    assert AuditEvent.objects.for_object(part).count() == 1  # the create only
    pk = part.pk
    part.delete()
    part.pk = pk
    deleted = AuditEvent.objects.for_object(part).get(action="delete")
    assert deleted.changes["unit_value"] == ["25000.00", None]


def test_task_channel_and_system_default(coordinator):
    ManufacturerFactory(name="NVIDIA")
    with audit_context(channel="task", actor=coordinator):
        part = part_create(
            actor=coordinator,
            fields={
                "manufacturer": ManufacturerFactory(name="NVIDIA"),
                "part_number": "X1",
                "name": "x",
                "category": "cable",
                "unit_weight_kg": Decimal("1"),
                "length_cm": 1,
                "width_cm": 1,
                "height_cm": 1,
                "unit_value": Decimal("1"),
                "country_of_origin": "CN",
                "hs_code": "854442",
                "is_serialised": False,
            },
        )
    assert AuditEvent.objects.for_object(part).get().channel == "task"
    other = PartFactory()
    assert AuditEvent.objects.for_object(other).get().channel == "system"


def test_the_log_cannot_be_changed_through_the_orm(db):
    part = PartFactory()
    event = AuditEvent.objects.for_object(part).get()
    event.message = "rewritten"
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        event.delete()
    with pytest.raises(PermissionError):
        AuditEvent.objects.all().update(message="x")
    with pytest.raises(PermissionError):
        AuditEvent.objects.all().delete()


def test_the_database_refuses_updates_even_in_raw_sql(db):
    part = PartFactory()
    event = AuditEvent.objects.for_object(part).get()
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE core_auditevent SET message = 'x' WHERE id = %s", [event.pk])
    if connection.vendor == "postgresql":
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM core_auditevent WHERE id = %s", [event.pk])
    assert AuditEvent.objects.get(pk=event.pk).message == ""


def test_admin_cannot_add_change_or_delete_audit_events(admin_user, client):
    part = PartFactory()
    event = AuditEvent.objects.for_object(part).get()
    client.force_login(admin_user)
    assert client.get("/admin/core/auditevent/").status_code == 200
    assert client.get("/admin/core/auditevent/add/").status_code == 403
    response = client.post(f"/admin/core/auditevent/{event.pk}/change/", {"message": "x"})
    assert response.status_code == 403
    assert client.post(f"/admin/core/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AuditEvent.objects.get(pk=event.pk).message == ""


def test_history_endpoint_and_detail_page_show_the_trail(coordinator, api_as, browser_as):
    part = PartFactory(name="Original name")
    api = api_as(coordinator)
    api.patch(f"/api/v1/parts/{part.pk}/", {"name": "New name"}, format="json")
    history = api.get(f"/api/v1/parts/{part.pk}/history/").json()["results"]
    assert [h["action"] for h in history] == ["update", "create"]
    assert history[0]["changes"] == {"name": ["Original name", "New name"]}
    page = browser_as(coordinator).get(f"/parts/{part.pk}/").content.decode()
    assert "Audit trail" in page and "Original name → New name" in page


def test_an_unknown_audit_action_is_refused_on_every_database(coordinator):
    from apps.core.audit import record

    with pytest.raises(ValueError, match="Unknown audit action"):
        record(coordinator.organisation, action="integrity_failure", message="x")
