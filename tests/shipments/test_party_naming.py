"""Issue 9: a partner names as parties only its own organisation and those the operator connected it
with; a party reaches a partner's shipment only while the two stay connected; parties do not name
other parties."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from apps.accounts.roles import Role
from apps.accounts.services import connection_create, connection_remove
from apps.shipments import services
from apps.shipments.models import Shipment, ShipmentParty, Site
from tests.factories import OrganisationFactory, UserFactory


@pytest.fixture
def customer_site(operator, customer):
    return Site.objects.create(
        owner=operator,
        customer=customer,
        name="Chennai DC1",
        kind="data_centre",
        city="Chennai",
        country="IN",
    )


@pytest.fixture
def listed(db):
    """An organisation whose name is on the Entity List: nobody connected the supplier with it."""
    return OrganisationFactory(
        kind="customer", legal_name="Shenzhen Listed AI Co", country="CN", city="Shenzhen"
    )


@pytest.fixture
def connected(coordinator, supplier, customer, forwarder):
    connection_create(actor=coordinator, organisation=supplier, other=customer)
    connection_create(actor=coordinator, organisation=supplier, other=forwarder)


@pytest.fixture
def partner_payload(factory_site, customer_site, supplier, customer):
    today = timezone.localdate()
    return {
        "origin": factory_site.pk,
        "destination": customer_site.pk,
        "incoterm": "DAP",
        "incoterm_place": "Chennai",
        "mode": "air",
        "ready_date": str(today),
        "required_by": str(today + dt.timedelta(days=20)),
        "parties": {"shipper": supplier.pk, "consignee": customer.pk},
    }


@pytest.fixture
def partner_shipment(connected, supplier_user, factory_site, customer_site, supplier, customer, forwarder):
    today = timezone.localdate()
    return services.shipment_create(
        actor=supplier_user,
        fields={
            "origin": factory_site,
            "destination": customer_site,
            "incoterm": "DAP",
            "incoterm_place": "Chennai",
            "mode": "air",
            "ready_date": today,
            "required_by": today + dt.timedelta(days=20),
        },
        parties={"shipper": supplier, "consignee": customer, "freight_forwarder": forwarder},
    )


def test_the_form_offers_only_organisations_the_partner_may_name(
    connected, supplier_user, supplier, customer, forwarder, listed, operator, browser_as
):
    form = browser_as(supplier_user).get("/shipments/new/").context["form"]
    for field in form.party_fields():
        assert set(field.field.queryset) == {supplier, customer, forwarder}
    html = browser_as(supplier_user).get("/shipments/new/").content.decode()
    assert listed.legal_name not in html


def test_the_api_refuses_an_unconnected_party_as_it_refuses_a_missing_one(
    connected, supplier_user, listed, partner_payload, api_as
):
    api = api_as(supplier_user)
    foreign = api.post(
        "/api/v1/shipments/", partner_payload | {"parties": {"consignee": listed.pk}}, format="json"
    )
    missing = api.post(
        "/api/v1/shipments/", partner_payload | {"parties": {"consignee": 999999}}, format="json"
    )
    assert foreign.status_code == missing.status_code == 400
    assert foreign.json() == {
        "parties": {"consignee": [f'Invalid pk "{listed.pk}" - object does not exist.']}
    }
    assert missing.json() == {"parties": {"consignee": ['Invalid pk "999999" - object does not exist.']}}
    assert not Shipment.objects.exists()


def test_patching_party_ids_enumerates_nothing(partner_shipment, supplier_user, listed, operator, api_as):
    api = api_as(supplier_user)
    url = f"/api/v1/shipments/{partner_shipment.reference}/"
    for organisation in (listed, operator):
        response = api.patch(url, {"parties": {"notify_party": organisation.pk}}, format="json")
        assert response.status_code == 400
        assert response.json() == {
            "parties": {"notify_party": [f'Invalid pk "{organisation.pk}" - object does not exist.']}
        }
    assert not partner_shipment.parties.filter(role="notify_party").exists()


def test_the_service_refuses_a_foreign_organisation(partner_shipment, supplier_user, listed):
    with pytest.raises(ValidationError) as excinfo:
        services.party_set(
            shipment=partner_shipment, role="customs_broker", organisation=listed, actor=supplier_user
        )
    assert "organisation" in excinfo.value.message_dict
    assert "customs broker" in excinfo.value.message_dict["organisation"][0].lower()
    assert not ShipmentParty.objects.filter(organisation=listed).exists()


def test_operator_staff_name_any_active_organisation_on_the_operators_shipments(
    make_shipment, coordinator, listed
):
    shipment = make_shipment()
    services.party_set(shipment=shipment, role="notify_party", organisation=listed, actor=coordinator)
    inactive = OrganisationFactory(legal_name="Gone Ltd", is_active=False)
    with pytest.raises(ValidationError) as excinfo:
        services.party_set(shipment=shipment, role="customs_broker", organisation=inactive, actor=coordinator)
    assert "organisation" in excinfo.value.message_dict


def test_on_a_partners_shipment_even_staff_name_only_connected_organisations(
    partner_shipment, coordinator, listed
):
    with pytest.raises(ValidationError) as excinfo:
        services.party_set(
            shipment=partner_shipment, role="customs_broker", organisation=listed, actor=coordinator
        )
    assert "connect" in excinfo.value.message_dict["organisation"][0]


def test_a_named_party_reaches_a_partners_shipment_only_while_connected(
    partner_shipment, coordinator, supplier, forwarder, forwarder_user, api_as
):
    api = api_as(forwarder_user)
    url = f"/api/v1/shipments/{partner_shipment.reference}/"
    assert api.get(url).status_code == 200
    assert Shipment.objects.visible_to(forwarder_user, "change").filter(pk=partner_shipment.pk).exists()
    from apps.accounts.models import Connection

    connection_remove(connection=Connection.objects.between(supplier, forwarder).get(), actor=coordinator)
    assert api.get(url).status_code == 404
    assert api.get(f"{url}events/").status_code == 404
    assert not Shipment.objects.visible_to(forwarder_user).filter(pk=partner_shipment.pk).exists()


def test_a_party_does_not_name_other_parties(
    partner_shipment, coordinator, forwarder, forwarder_user, api_as, customer
):
    # The forwarder may change the shipment (post its events, plan legs), but naming parties is
    # the owner's and the operator's: not even an organisation connected with both.
    broker = OrganisationFactory(kind="customs_broker", legal_name="Forwarder's Own Broker")
    connection_create(actor=coordinator, organisation=forwarder, other=broker)
    connection_create(actor=coordinator, organisation=partner_shipment.owner, other=broker)
    with pytest.raises(ValidationError) as excinfo:
        services.party_set(
            shipment=partner_shipment, role="customs_broker", organisation=broker, actor=forwarder_user
        )
    assert "organisation" in excinfo.value.message_dict
    response = api_as(forwarder_user).patch(
        f"/api/v1/shipments/{partner_shipment.reference}/",
        {"parties": {"customs_broker": broker.pk}},
        format="json",
    )
    assert response.status_code == 400
    assert not partner_shipment.parties.filter(role="customs_broker").exists()


def test_an_unchanged_party_that_is_no_longer_nameable_is_kept(
    partner_shipment, supplier_user, forwarder, api_as
):
    from apps.accounts.models import Connection

    Connection.objects.filter(pk__in=Connection.objects.between(partner_shipment.owner, forwarder)).delete()
    response = api_as(supplier_user).patch(
        f"/api/v1/shipments/{partner_shipment.reference}/",
        {"parties": {"freight_forwarder": forwarder.pk}, "instructions": "Keep the forwarder."},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert partner_shipment.parties.filter(role="freight_forwarder", organisation=forwarder).exists()


def test_the_browser_form_refuses_and_keeps_parties(
    partner_shipment, supplier_user, listed, browser_as, customer, supplier, forwarder
):
    client = browser_as(supplier_user)
    form = client.get(f"/shipments/{partner_shipment.reference}/edit/").context["form"]
    data = {
        name: ("" if value is None else getattr(value, "pk", value))
        for name, value in form.initial.items()
        if name != "end_use_flags"
    }
    data |= {f"party_{p.role}": p.organisation_id for p in partner_shipment.parties.all()}
    response = client.post(
        f"/shipments/{partner_shipment.reference}/edit/", data | {"party_notify_party": listed.pk}
    )
    assert response.status_code == 200
    assert "party_notify_party" in response.context["form"].errors
    assert not partner_shipment.parties.filter(role="notify_party").exists()


def test_a_customer_user_of_a_connected_customer_sees_the_shipment(partner_shipment, customer, api_as):
    customer_user = UserFactory(organisation=customer, role=Role.PARTNER)
    assert api_as(customer_user).get(f"/api/v1/shipments/{partner_shipment.reference}/").status_code == 200


def test_the_page_suggests_only_record_providers_the_partner_may_name(
    partner_shipment, coordinator, supplier, supplier_user, forwarder, browser_as
):
    from apps.accounts.models import ServiceCoverage

    services.party_set(
        shipment=partner_shipment, role="consignee", organisation=forwarder, actor=supplier_user
    )
    known, unknown = (
        OrganisationFactory(kind="ior_provider", legal_name=name, country="IN", city="Mumbai")
        for name in ("Connected IOR", "Stranger IOR")
    )
    for provider in (known, unknown):
        ServiceCoverage.objects.create(organisation=provider, service="ior", country="IN")
    connection_create(actor=coordinator, organisation=supplier, other=known)
    page = browser_as(supplier_user).get(f"/shipments/{partner_shipment.reference}/")
    suggested = {p.organisation for a in page.context["record_assessments"] for p in a.providers}
    assert suggested == {known}
    staff_page = browser_as(coordinator).get(f"/shipments/{partner_shipment.reference}/")
    staff_suggested = {p.organisation for a in staff_page.context["record_assessments"] for p in a.providers}
    assert staff_suggested == {known, unknown}
