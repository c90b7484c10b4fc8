"""Booking a freight option: `POST /api/v1/shipments/{ref}/freight-options/book/` and the Book
buttons of the shipment page's freight panel add the main carriage the option describes, so the
shipment's ETA is the option's arrival; refused by state, by legs already planned (unless replaced
on confirmation), by a stale option; a double post adds nothing; partners may not, another
organisation's shipment is not found."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from apps.shipments import services
from apps.shipments.models import FreightRate, Leg, Shipment

pytestmark = pytest.mark.django_db


def book_url(shipment):
    return f"/api/v1/shipments/{shipment.reference}/freight-options/book/"


def options_url(shipment):
    return f"/api/v1/shipments/{shipment.reference}/freight-options/"


@pytest.fixture
def planned(make_shipment, gpu_server, rates):
    """A draft TW → IN shipment with two servers and no legs; air and ocean rates on its lane."""
    air, ocean = rates
    FreightRate.objects.filter(pk=air.pk).update(carrier="Cathay Cargo", service="Air express")
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["S1", "S2"])
    return shipment


def options_by_mode(api, shipment):
    response = api.get(options_url(shipment))
    assert response.status_code == 200, response.content
    return {o["mode"]: o for o in response.json()["options"]}


def test_every_option_carries_a_stable_id(planned, coordinator, api_as):
    options = options_by_mode(api_as(coordinator), planned)
    assert options["air"]["id"] == "air|Cathay Cargo|Air express|TW-IN"
    assert options["ocean"]["id"] == "ocean||Ocean (LCL)|TW-IN"


def test_booking_an_option_adds_its_main_carriage_and_the_eta_is_its_arrival(planned, coordinator, api_as):
    api = api_as(coordinator)
    air = options_by_mode(api, planned)["air"]
    response = api.post(book_url(planned), {"option": air["id"]}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["created"] is True and body["replaced"] == []
    assert body["option"]["id"] == air["id"] and body["eta"] == air["arrival"]
    leg = Leg.objects.get(shipment=planned)
    assert (leg.role, leg.mode, leg.carrier) == ("main", "air", "Cathay Cargo")
    assert (leg.origin_id, leg.destination_id) == (planned.origin_id, planned.destination_id)
    assert (str(leg.planned_departure), str(leg.planned_arrival)) == (air["departure"], air["arrival"])
    assert body["legs"][0]["sequence"] == leg.sequence
    planned.refresh_from_db()
    assert str(planned.eta) == air["arrival"]
    # The panel marks the option booked: one arrival date, the same as the shipment's.
    assert api.get(options_url(planned)).json()["booked_option"] == air["id"]


def test_a_double_post_adds_no_second_leg(planned, coordinator, api_as):
    api = api_as(coordinator)
    air = options_by_mode(api, planned)["air"]
    assert api.post(book_url(planned), {"option": air["id"]}, format="json").status_code == 201
    again = api.post(book_url(planned), {"option": air["id"]}, format="json")
    assert again.status_code == 200, again.content
    assert again.json()["created"] is False
    assert Leg.objects.filter(shipment=planned).count() == 1


def test_legs_already_planned_are_replaced_only_on_confirmation(planned, coordinator, api_as):
    api = api_as(coordinator)
    options = options_by_mode(api, planned)
    api.post(book_url(planned), {"option": options["air"]["id"]}, format="json")
    refused = api.post(book_url(planned), {"option": options["ocean"]["id"]}, format="json")
    assert refused.status_code == 409
    assert "leg 1 planned already" in refused.json()["legs"][0]
    assert list(Leg.objects.filter(shipment=planned).values_list("mode", flat=True)) == ["air"]
    replaced = api.post(book_url(planned), {"option": options["ocean"]["id"], "replace": True}, format="json")
    assert replaced.status_code == 201, replaced.content
    assert replaced.json()["replaced"] == [1]
    assert list(Leg.objects.filter(shipment=planned).values_list("mode", flat=True)) == ["ocean"]
    planned.refresh_from_db()
    assert str(planned.eta) == options["ocean"]["arrival"]


def test_a_stale_option_is_refused(planned, coordinator, api_as):
    api = api_as(coordinator)
    air = options_by_mode(api, planned)["air"]
    FreightRate.objects.filter(mode="air").update(carrier="Another Airline")
    response = api.post(book_url(planned), {"option": air["id"]}, format="json")
    assert response.status_code == 409
    assert "No freight option 'air|Cathay Cargo|Air express|TW-IN'" in response.json()["option"][0]
    assert not Leg.objects.filter(shipment=planned).exists()


def test_a_missing_option_name_is_a_400_naming_the_field(planned, coordinator, api_as):
    response = api_as(coordinator).post(book_url(planned), {}, format="json")
    assert response.status_code == 400 and "option" in response.json()


def test_a_shipment_past_booking_is_refused(planned, coordinator, api_as):
    api = api_as(coordinator)
    air = options_by_mode(api, planned)["air"]
    Shipment.objects.filter(pk=planned.pk).update(status="booked")
    response = api.post(book_url(planned), {"option": air["id"]}, format="json")
    assert response.status_code == 409
    assert "is booked" in response.json()["shipment"][0]
    assert not Leg.objects.filter(shipment=planned).exists()


def test_a_partner_of_the_shipment_may_not_book(planned, supplier_user, api_as):
    response = api_as(supplier_user).post(book_url(planned), {"option": "air|||TW-IN"}, format="json")
    assert response.status_code == 403
    assert not Leg.objects.filter(shipment=planned).exists()


def test_another_organisations_shipment_is_not_found(planned, forwarder_user, api_as):
    response = api_as(forwarder_user).post(book_url(planned), {"option": "air|||TW-IN"}, format="json")
    assert response.status_code == 404


def test_the_page_books_an_option_with_its_button(planned, coordinator, browser_as):
    browser = browser_as(coordinator)
    panel = browser.get(f"/shipments/{planned.reference}/freight/").content.decode()
    assert "Book Air express · Cathay Cargo" in panel
    response = browser.post(
        f"/shipments/{planned.reference}/freight/book/", {"option": "air|Cathay Cargo|Air express|TW-IN"}
    )
    assert response.status_code == 302 and response.url.endswith("#freight")
    leg = Leg.objects.get(shipment=planned)
    panel = browser.get(f"/shipments/{planned.reference}/freight/").content.decode()
    assert "Booked as leg 1" in panel and f"arrives {leg.planned_arrival:%Y-%m-%d}" in panel
    # The other option asks before it replaces the leg.
    assert "Replace leg 1 with Ocean (LCL)?" in panel
    page = browser.get(planned.get_absolute_url()).content.decode()
    assert f'id="eta">{leg.planned_arrival:%Y-%m-%d}' in page


def test_a_refused_booking_on_the_page_says_why(planned, coordinator, browser_as):
    browser = browser_as(coordinator)
    response = browser.post(
        f"/shipments/{planned.reference}/freight/book/", {"option": "air|x|y|TW-IN"}, follow=True
    )
    assert "No freight option" in response.content.decode()
    assert not Leg.objects.filter(shipment=planned).exists()


def test_a_partner_sees_no_book_button(planned, supplier_user, browser_as):
    panel = browser_as(supplier_user).get(f"/shipments/{planned.reference}/freight/").content.decode()
    assert "Book " not in panel
    response = browser_as(supplier_user).post(
        f"/shipments/{planned.reference}/freight/book/", {"option": "air|Cathay Cargo|Air express|TW-IN"}
    )
    assert response.status_code == 403


def test_the_booking_operation_is_documented():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/shipments/{reference}/freight-options/book/"]["post"]
    assert {"200", "201", "400", "403", "404", "409"} <= set(operation["responses"])
    assert "replace" in str(schema["components"]["schemas"]["FreightOptionBookRequest"])
