"""A leg's container numbers (ISO 6346): checked by their check digit, stored one way, given and
read by the API and the leg form, shown on the shipment's page."""

import pytest

from apps.shipments.validators import container_number_problem, container_numbers_split

pytestmark = pytest.mark.django_db


def test_the_check_digit_is_iso_6346s():
    assert container_number_problem("CSQU3054383") is None  # ISO 6346's worked example
    assert "expected 3" in container_number_problem("CSQU3054384")
    assert "not a container number" in container_number_problem("CSQ3054383")
    assert container_numbers_split("csqu 305438 3,\nMSCU1234566") == ["CSQU3054383", "MSCU1234566"]


def test_the_api_stores_containers_one_way_and_refuses_a_wrong_check_digit(
    make_shipment, hub, datacentre, coordinator, api_as
):
    shipment = make_shipment()
    api = api_as(coordinator)
    url = f"/api/v1/shipments/{shipment.reference}/legs/"
    leg = {"role": "main", "origin": hub.pk, "destination": datacentre.pk, "mode": "ocean"}
    refused = api.post(url, leg | {"container_numbers": "CSQU3054384"}, format="json")
    assert refused.status_code == 400
    assert "check digit" in str(refused.json()["container_numbers"])
    assert not shipment.legs.exists()
    created = api.post(url, leg | {"container_numbers": "csqu 305438 3, MSCU1234566"}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["container_numbers"] == "CSQU3054383, MSCU1234566"


def test_the_shipment_page_shows_a_legs_containers(make_shipment, hub, datacentre, coordinator, browser_as):
    shipment = make_shipment()
    page = f"/shipments/{shipment.reference}/"
    client = browser_as(coordinator)
    response = client.post(
        f"{page}legs/",
        {"role": "main", "origin": hub.pk, "destination": datacentre.pk, "mode": "ocean",
         "container_numbers": "CSQU3054383"},
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    assert "Containers: CSQU3054383" in client.get(page).content.decode()
