"""A leg's mode agrees with its sites: an air leg never starts or ends at a seaport, an ocean leg
never at an airport (refused naming the field, on the API and the page alike, since both go
through the legs service); and the site picker ranks an exact IATA code or UN/LOCODE first."""

import pytest

from apps.shipments import services
from apps.shipments.models import Leg, Site

pytestmark = pytest.mark.django_db


@pytest.fixture
def gateways(operator):
    airport = Site.objects.create(
        owner=operator, name="Chennai International Airport", kind="airport", city="Chennai", country="IN",
        iata_code="MAA",
    )  # fmt: skip
    seaport = Site.objects.create(
        owner=operator, name="Port of Chennai", kind="seaport", city="Chennai", country="IN", unlocode="INMAA"
    )
    return airport, seaport


def legs_url(shipment):
    return f"/api/v1/shipments/{shipment.reference}/legs/"


def test_an_air_leg_to_a_seaport_is_refused_naming_the_destination(
    make_shipment, gateways, coordinator, api_as
):
    _airport, seaport = gateways
    shipment = make_shipment()
    body = {"role": "main", "origin": shipment.origin_id, "destination": seaport.pk, "mode": "air"}
    response = api_as(coordinator).post(legs_url(shipment), body, format="json")
    assert response.status_code == 400
    assert "Port of Chennai is a seaport" in response.json()["destination"][0]
    assert not Leg.objects.filter(shipment=shipment).exists()


def test_an_ocean_leg_from_an_airport_is_refused_naming_the_origin(make_shipment, gateways, datacentre):
    airport, _seaport = gateways
    shipment = make_shipment(mode="ocean", incoterm="DAP")
    with pytest.raises(Exception) as refused:
        services.leg_add(
            shipment=shipment,
            fields={"role": "onward", "origin": airport, "destination": datacentre, "mode": "ocean"},
        )
    assert "airport" in refused.value.message_dict["origin"][0]


def test_modes_that_suit_their_gateways_pass(make_shipment, gateways, datacentre):
    airport, seaport = gateways
    by_air = make_shipment()
    services.leg_add(
        shipment=by_air,
        fields={"role": "main", "origin": by_air.origin, "destination": airport, "mode": "air"},
    )
    services.leg_add(
        shipment=by_air,
        fields={"role": "onward", "origin": airport, "destination": datacentre, "mode": "road"},
    )
    by_sea = make_shipment(mode="ocean")
    services.leg_add(
        shipment=by_sea,
        fields={"role": "main", "origin": by_sea.origin, "destination": seaport, "mode": "ocean"},
    )
    assert Leg.objects.count() == 3


def test_the_page_shows_the_refusal_on_the_field(make_shipment, gateways, coordinator, browser_as):
    _airport, seaport = gateways
    shipment = make_shipment()
    response = browser_as(coordinator).post(
        f"/shipments/{shipment.reference}/legs/",
        {"role": "main", "origin": shipment.origin_id, "destination": seaport.pk, "mode": "air"},
    )
    assert response.status_code == 400
    assert "Port of Chennai is a seaport" in str(response.context["leg_form"].errors["destination"])


def test_an_exact_code_ranks_first_in_the_site_picker(operator, gateways, coordinator, browser_as):
    airport, seaport = gateways
    # Sorted by name, this one would come first: its name holds "maa" too.
    Site.objects.create(
        owner=operator, name="Amaar warehouse", kind="warehouse", city="Chennai", country="IN"
    )
    browser = browser_as(coordinator)
    assert browser.get("/pick/site/?q=maa").json()["results"][0]["value"] == str(airport.pk)
    assert browser.get("/pick/site/?q=inmaa").json()["results"][0]["value"] == str(seaport.pk)
    assert browser.get("/pick/site/?q=IN MAA").json()["results"][0]["value"] == str(seaport.pk)
    names = [r["text"] for r in browser.get("/pick/site/?q=chennai").json()["results"]]
    assert len(names) == 3  # no exact code: every match, in the usual order
