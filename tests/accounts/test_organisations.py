"""Organisations through the API and the browser; scoping proves another organisation's object is a 404."""

import pytest

from apps.accounts.models import Organisation, Registration
from apps.core.models import AuditEvent
from tests.factories import OrganisationFactory

NEW_ORG = {
    "kind": "customs_broker",
    "legal_name": "Chennai Clearing Agents Pvt. Ltd.",
    "address_line1": "1 Beach Road",
    "city": "Chennai",
    "country": "IN",
}


def test_operator_staff_see_every_organisation(
    coordinator, supplier, forwarder, api_as, django_assert_num_queries
):
    api = api_as(coordinator)
    api.get("/api/v1/me/")  # touch the token first so the count below is steady
    with django_assert_num_queries(6):  # token, count, page, registrations, contacts, blocks in force
        body = api.get("/api/v1/organisations/").json()
    assert body["count"] == 3


def test_partner_sees_only_its_own_organisation(supplier_user, forwarder, api_as):
    api = api_as(supplier_user)
    body = api.get("/api/v1/organisations/").json()
    assert [o["id"] for o in body["results"]] == [supplier_user.organisation_id]
    assert api.get(f"/api/v1/organisations/{forwarder.pk}/").status_code == 404
    assert api.get(f"/api/v1/organisations/{forwarder.pk}/history/").status_code == 404


def test_another_organisations_object_is_not_found_in_the_browser(supplier_user, forwarder, browser_as):
    client = browser_as(supplier_user)
    assert client.get(f"/organisations/{forwarder.pk}/").status_code == 404
    assert client.get(f"/organisations/{supplier_user.organisation_id}/").status_code == 200


def test_coordinator_creates_and_updates_with_audit(coordinator, api_as):
    api = api_as(coordinator)
    response = api.post("/api/v1/organisations/", NEW_ORG, format="json")
    assert response.status_code == 201, response.json()
    org_id = response.json()["id"]
    assert (
        api.patch(f"/api/v1/organisations/{org_id}/", {"city": "Chennai Port"}, format="json").status_code
        == 200
    )
    org = Organisation.objects.get(pk=org_id)
    assert [e.action for e in AuditEvent.objects.for_object(org)] == ["update", "create"]


@pytest.mark.parametrize(
    "change, field",
    [({"country": "ZZ"}, "country"), ({"kind": "pirate"}, "kind"), ({"legal_name": ""}, "legal_name")],
)
def test_invalid_organisation_is_refused_naming_the_field(coordinator, api_as, change, field):
    response = api_as(coordinator).post("/api/v1/organisations/", NEW_ORG | change, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Organisation.objects.filter(legal_name=NEW_ORG["legal_name"]).exists()


def test_only_one_operator(coordinator, api_as):
    response = api_as(coordinator).post(
        "/api/v1/organisations/", NEW_ORG | {"kind": "operator"}, format="json"
    )
    assert response.status_code == 400


@pytest.mark.parametrize("role_fixture", ["supplier_user", "compliance_officer", "warehouse_operator"])
def test_roles_without_organisation_edit_cannot_create(request, role_fixture, api_as):
    api = api_as(request.getfixturevalue(role_fixture))
    assert api.post("/api/v1/organisations/", NEW_ORG, format="json").status_code == 403


def test_registrations_are_validated_and_scoped(coordinator, supplier_user, forwarder, api_as):
    api = api_as(coordinator)
    customer = OrganisationFactory(kind="customer", country="IN", city="Chennai", legal_name="Chennai AI")
    ok = api.post(
        "/api/v1/registrations/",
        {"organisation": customer.pk, "scheme": "gstin", "number": "33aakcc5521m1z2", "country": "IN"},
        format="json",
    )
    assert ok.status_code == 201 and ok.json()["number"] == "33AAKCC5521M1Z2"
    bad = api.post(
        "/api/v1/registrations/",
        {"organisation": customer.pk, "scheme": "gstin", "number": "33AAKCC5521M1X2", "country": "IN"},
        format="json",
    )
    assert bad.status_code == 400 and list(bad.json()) == ["number"]
    dup = api.post(
        "/api/v1/registrations/",
        {"organisation": customer.pk, "scheme": "gstin", "number": "33AAKCC5521M1Z2", "country": "IN"},
        format="json",
    )
    assert dup.status_code == 400
    assert Registration.objects.count() == 1
    # Partners see their own organisation's registrations only.
    partner = api_as(supplier_user)
    assert partner.get("/api/v1/registrations/").json()["count"] == 0
    assert partner.get(f"/api/v1/registrations/{ok.json()['id']}/").status_code == 404


def test_contacts_api(coordinator, supplier, api_as):
    api = api_as(coordinator)
    first = api.post(
        "/api/v1/contacts/",
        {"organisation": supplier.pk, "name": "A", "email": "a@x.example", "is_primary": True},
        format="json",
    )
    second = api.post(
        "/api/v1/contacts/",
        {"organisation": supplier.pk, "name": "B", "email": "b@x.example", "is_primary": True},
        format="json",
    )
    assert first.status_code == second.status_code == 201
    primaries = [
        c["name"]
        for c in api.get(f"/api/v1/contacts/?organisation={supplier.pk}&is_primary=true").json()["results"]
    ]
    assert primaries == ["B"]
    bad = api.post(
        "/api/v1/contacts/", {"organisation": supplier.pk, "name": "C", "email": "nope"}, format="json"
    )
    assert bad.status_code == 400 and list(bad.json()) == ["email"]


def test_browser_organisation_pages(coordinator, supplier, browser_as, django_assert_max_num_queries):
    client = browser_as(coordinator)
    OrganisationFactory.create_batch(5)
    with django_assert_max_num_queries(8):
        response = client.get("/organisations/?kind=supplier")
    assert response.status_code == 200 and supplier.legal_name in response.content.decode()
    response = client.post("/organisations/new/", NEW_ORG | {"country": "ZZ"})
    assert response.status_code == 200 and "country" in response.context["form"].errors
    response = client.post("/organisations/new/", NEW_ORG)
    assert response.status_code == 302
    org = Organisation.objects.get(legal_name=NEW_ORG["legal_name"])
    response = client.post(
        f"/organisations/{org.pk}/registrations/new/", {"scheme": "iec", "number": "BAD", "country": "IN"}
    )
    assert "number" in response.context["form"].errors
    response = client.post(
        f"/organisations/{org.pk}/registrations/new/",
        {"scheme": "iec", "number": "AAKCC5521M", "country": "IN"},
    )
    assert response.status_code == 302
    page = client.get(org.get_absolute_url()).content.decode()
    assert "AAKCC5521M" in page and "Audit trail" in page


def test_partner_cannot_open_the_create_page(supplier_user, browser_as):
    assert browser_as(supplier_user).get("/organisations/new/").status_code == 403
