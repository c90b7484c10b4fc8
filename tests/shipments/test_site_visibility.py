"""Issue 9: where a customer's cluster stands is the customer's. Operator-kept sites of a customer
are seen by that customer, those the operator connected it with, and the parties of shipments
routed through them; shared infrastructure (ports, airports, the operator's warehouses) is seen by
every organisation."""

import pytest

from apps.accounts.roles import Role
from apps.accounts.services import connection_create
from apps.shipments.models import Site
from tests.factories import OrganisationFactory, UserFactory


@pytest.fixture
def riyadh(db):
    return OrganisationFactory(
        kind="customer", legal_name="Riyadh Compute Company", country="SA", city="Riyadh"
    )


@pytest.fixture
def sites(operator, customer, riyadh, supplier):
    def site(name, kind, owner=operator, customer=None, **extra):
        return Site.objects.create(
            owner=owner, customer=customer, name=name, kind=kind, city="X", country="SG", **extra
        )

    return {
        "airport": site("Changi", "airport", iata_code="SIN"),
        "hub": site("Bonded hub", "warehouse", is_bonded=True),
        "chennai_dc": site("Chennai DC1", "data_centre", customer=customer),
        "riyadh_dc": site("Riyadh RUH1", "data_centre", customer=riyadh),
        "unassigned_dc": site("Spare DC", "data_centre"),
        "factory": site("Guishan", "factory", owner=supplier),
    }


def _seen(api) -> set[str]:
    return {s["name"] for s in api.get("/api/v1/sites/?page_size=100").json()["results"]}


def test_a_partner_sees_shared_sites_and_its_own_not_other_customers_data_centres(
    sites, supplier_user, api_as
):
    assert _seen(api_as(supplier_user)) == {"Changi", "Bonded hub", "Guishan"}
    api = api_as(supplier_user)
    for name in ("riyadh_dc", "chennai_dc", "unassigned_dc"):
        assert api.get(f"/api/v1/sites/{sites[name].pk}/").status_code == 404


def test_the_customer_sees_its_data_centre(sites, customer, api_as):
    user = UserFactory(organisation=customer, role=Role.PARTNER)
    assert _seen(api_as(user)) == {"Changi", "Bonded hub", "Chennai DC1"}


def test_a_connected_partner_sees_the_customers_data_centre(
    sites, coordinator, supplier, customer, supplier_user, api_as
):
    connection_create(actor=coordinator, organisation=supplier, other=customer)
    assert _seen(api_as(supplier_user)) == {"Changi", "Bonded hub", "Guishan", "Chennai DC1"}


def test_parties_of_a_shipment_see_the_sites_it_goes_through(
    sites, make_shipment, forwarder, forwarder_user, api_as
):
    make_shipment(
        origin=sites["factory"], destination=sites["riyadh_dc"], parties={"freight_forwarder": forwarder}
    )
    assert _seen(api_as(forwarder_user)) == {"Changi", "Bonded hub", "Guishan", "Riyadh RUH1"}


def test_operator_staff_see_every_site(sites, coordinator, api_as):
    assert len(_seen(api_as(coordinator))) == 6


def test_the_new_shipment_pickers_offer_only_visible_sites(sites, supplier_user, browser_as):
    form = browser_as(supplier_user).get("/shipments/new/").context["form"]
    assert {s.name for s in form.fields["destination"].queryset} == {"Changi", "Bonded hub", "Guishan"}


def test_a_partner_cannot_route_a_shipment_to_a_hidden_site(sites, supplier_user, supplier, api_as):
    import datetime as dt

    today = dt.date.today()
    payload = {
        "origin": sites["factory"].pk,
        "incoterm": "DAP",
        "incoterm_place": "Riyadh",
        "mode": "air",
        "ready_date": str(today),
        "required_by": str(today + dt.timedelta(days=9)),
        "parties": {"shipper": supplier.pk},
    }
    hidden = api_as(supplier_user).post(
        "/api/v1/shipments/", payload | {"destination": sites["riyadh_dc"].pk}, format="json"
    )
    missing = api_as(supplier_user).post(
        "/api/v1/shipments/", payload | {"destination": 999999}, format="json"
    )
    assert hidden.status_code == missing.status_code == 400
    assert hidden.json()["destination"][0].replace(str(sites["riyadh_dc"].pk), "N") == missing.json()[
        "destination"
    ][0].replace("999999", "N")


def test_only_an_operator_site_names_a_customer(supplier, customer):
    from django.core.exceptions import ValidationError

    site = Site(owner=supplier, customer=customer, name="x", kind="warehouse", city="X", country="TW")
    with pytest.raises(ValidationError) as excinfo:
        site.full_clean()
    assert "customer" in excinfo.value.message_dict
