"""Connections: which organisations work with which, kept by operator staff; what a partner may name."""

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import Connection, Organisation
from apps.accounts.roles import Role
from apps.accounts.services import connection_create, connection_remove
from apps.core.audit import audit_context
from apps.core.models import AuditEvent
from tests.factories import OrganisationFactory, UserFactory


@pytest.fixture
def customer(db):
    return OrganisationFactory(kind="customer", legal_name="Chennai AI Compute", country="IN", city="Chennai")


def test_a_connection_is_symmetric_unique_and_audited(coordinator, supplier, customer):
    with audit_context(channel="browser", actor=coordinator):
        connection = connection_create(actor=coordinator, organisation=customer, other=supplier, note="pod 2")
    assert {connection.organisation_a, connection.organisation_b} == {supplier, customer}
    assert connection.created_by == coordinator and connection.created_at is not None
    assert Connection.objects.between(supplier, customer).get() == connection
    assert Connection.objects.between(customer, supplier).get() == connection
    with pytest.raises(ValidationError) as excinfo:
        connection_create(actor=coordinator, organisation=supplier, other=customer)
    assert "organisation" in excinfo.value.message_dict
    with pytest.raises(ValidationError):
        connection_create(actor=coordinator, organisation=supplier, other=supplier)
    created = AuditEvent.objects.for_object(connection).get()
    assert created.action == "create" and created.actor == coordinator
    pk = connection.pk
    connection_remove(connection=connection, actor=coordinator)
    assert not Connection.objects.exists()
    assert AuditEvent.objects.filter(object_id=str(pk), action="delete").exists()


def test_only_operator_staff_with_the_capability_connect(
    compliance_officer, supplier_user, supplier, customer
):
    for actor in (compliance_officer, supplier_user):
        with pytest.raises(ValidationError):
            connection_create(actor=actor, organisation=supplier, other=customer)
    assert not Connection.objects.exists()


def test_the_operator_is_not_connected_it_works_with_everyone(coordinator, operator, supplier):
    with pytest.raises(ValidationError):
        connection_create(actor=coordinator, organisation=operator, other=supplier)


def test_nameable_by(coordinator, supplier_user, supplier, customer, forwarder, operator):
    inactive = OrganisationFactory(legal_name="Closed Freight Ltd", is_active=False)
    connection_create(actor=coordinator, organisation=supplier, other=customer)
    connection_create(actor=coordinator, organisation=supplier, other=inactive)
    assert set(Organisation.objects.nameable_by(coordinator)) == {operator, supplier, customer, forwarder}
    # A partner: its own organisation and the active ones connected to it; never the others.
    assert set(Organisation.objects.nameable_by(supplier_user)) == {supplier, customer}
    forwarder_user = UserFactory(organisation=forwarder, role=Role.PARTNER)
    assert set(Organisation.objects.nameable_by(forwarder_user)) == {forwarder}


def test_connections_api(
    coordinator, compliance_officer, supplier_user, supplier, customer, forwarder, api_as
):
    staff = api_as(coordinator)
    response = staff.post(
        "/api/v1/connections/",
        {"organisation_a": supplier.pk, "organisation_b": customer.pk, "note": "pod 2 supply"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    connection_id = response.json()["id"]
    again = staff.post(
        "/api/v1/connections/", {"organisation_a": customer.pk, "organisation_b": supplier.pk}, format="json"
    )
    assert again.status_code == 400 and "organisation" in again.json()
    staff.post(
        "/api/v1/connections/", {"organisation_a": customer.pk, "organisation_b": forwarder.pk}, format="json"
    )
    # A partner reads its own connections (who it may name), not the others', and changes none.
    partner = api_as(supplier_user)
    body = partner.get("/api/v1/connections/").json()
    assert [c["id"] for c in body["results"]] == [connection_id]
    assert {body["results"][0]["organisation_a_name"], body["results"][0]["organisation_b_name"]} == {
        supplier.legal_name,
        customer.legal_name,
    }
    assert body["results"][0]["created_by"] == "Rackpass staff" and body["results"][0]["note"] == ""
    assert (
        partner.post(
            "/api/v1/connections/",
            {"organisation_a": supplier.pk, "organisation_b": forwarder.pk},
            format="json",
        ).status_code
        == 403
    )
    assert partner.delete(f"/api/v1/connections/{connection_id}/").status_code == 403
    assert api_as(compliance_officer).delete(f"/api/v1/connections/{connection_id}/").status_code == 403
    assert staff.get(f"/api/v1/connections/{connection_id}/history/").status_code == 200
    assert staff.delete(f"/api/v1/connections/{connection_id}/").status_code == 204
    assert not Connection.objects.filter(pk=connection_id).exists()


def test_organisation_page_connections_section(coordinator, supplier_user, supplier, customer, browser_as):
    client = browser_as(coordinator)
    page = client.get(f"/organisations/{supplier.pk}/")
    assert b"Connections" in page.content and b'name="other"' in page.content
    response = client.post(f"/organisations/{supplier.pk}/connections/new/", {"other": customer.pk})
    assert response.status_code == 302
    connection = Connection.objects.between(supplier, customer).get()
    assert customer.legal_name.encode() in client.get(f"/organisations/{supplier.pk}/").content
    # The partner sees whom it works with, without the form.
    partner = browser_as(supplier_user)
    own = partner.get(f"/organisations/{supplier.pk}/")
    assert customer.legal_name.encode() in own.content and b'name="other"' not in own.content
    assert (
        partner.post(f"/organisations/{supplier.pk}/connections/new/", {"other": customer.pk}).status_code
        == 403
    )
    assert (
        partner.post(f"/organisations/{supplier.pk}/connections/{connection.pk}/remove/").status_code == 403
    )
    client = browser_as(coordinator)
    assert client.post(f"/organisations/{supplier.pk}/connections/{connection.pk}/remove/").status_code == 302
    assert not Connection.objects.exists()


def test_connection_admin(admin_user, supplier, customer, client):
    client.force_login(admin_user)
    assert client.get("/admin/accounts/connection/").status_code == 200
    response = client.post(
        "/admin/accounts/connection/add/", {"organisation_a": supplier.pk, "organisation_b": customer.pk}
    )
    assert response.status_code == 302, response.content
    assert Connection.objects.between(supplier, customer).get().created_by == admin_user
