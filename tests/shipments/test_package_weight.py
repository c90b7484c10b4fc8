"""A package's gross weight is never below its contents' catalogue weight, through every door (the
service, the API, the shipment page); the package form starts from the catalogue's weight and size."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from apps.shipments import services
from apps.shipments.models import Package

from .conftest import crate

pytestmark = pytest.mark.django_db


@pytest.fixture
def four_servers(make_shipment, gpu_server):
    """Four 130 kg DGX servers on one line: 520 kg of contents."""
    shipment = make_shipment()
    line = services.line_add(shipment=shipment, part=gpu_server, quantity=4, serials=["S1", "S2", "S3", "S4"])
    return shipment, line


def test_the_service_refuses_a_gross_weight_below_the_contents(four_servers):
    shipment, line = four_servers
    with pytest.raises(ValidationError) as refused:
        services.package_add(
            shipment=shipment,
            fields=crate(gross_kg=Decimal("12"), net_kg=Decimal("10")),
            items=[(line, 4)],
        )
    message = refused.value.message_dict["gross_kg"][0]
    assert "12 kg" in message and "520 kg" in message and "4 × 130 kg DGX-H100" in message
    assert not Package.objects.filter(shipment=shipment).exists()


def test_the_contents_weight_or_more_is_accepted(four_servers):
    shipment, line = four_servers
    package = services.package_add(
        shipment=shipment, fields=crate(gross_kg=Decimal("520"), net_kg=Decimal("520")), items=[(line, 4)]
    )
    assert package.gross_kg == Decimal("520")


def test_the_api_answers_400_naming_gross_kg(four_servers, coordinator, api_as):
    shipment, _ = four_servers
    response = api_as(coordinator).post(
        f"/api/v1/shipments/{shipment.reference}/packages/",
        crate(gross_kg="12", net_kg="10") | {"items": [{"line": 1, "quantity": 4}]},
        format="json",
    )
    assert response.status_code == 400
    assert "520 kg" in response.json()["gross_kg"][0]
    assert not Package.objects.filter(shipment=shipment).exists()


def test_the_page_shows_the_error_and_writes_nothing(four_servers, coordinator, browser_as):
    shipment, _ = four_servers
    response = browser_as(coordinator).post(
        f"/shipments/{shipment.reference}/packages/", crate(gross_kg="12", net_kg="10") | {"qty_1": "4"}
    )
    assert response.status_code == 400
    assert "520 kg" in response.content.decode()
    assert "gross_kg" in response.context["package_form"].errors
    assert not Package.objects.filter(shipment=shipment).exists()


def test_the_suggestion_is_the_contents_plus_tare_and_a_box_around_them(four_servers):
    shipment, line = four_servers
    suggested = services.package_suggestion([(line, 2)], "crate")
    assert suggested["net_kg"] == Decimal("260.00")
    assert suggested["gross_kg"] == Decimal("300.00")  # 2 × 130 kg + a crate's 40 kg
    assert (suggested["length_cm"], suggested["width_cm"], suggested["height_cm"]) == (
        Decimal("150.0"),
        Decimal("105.0"),
        Decimal("240.0"),
    )


def test_the_form_is_prefilled_with_the_suggestion_for_everything_unpacked(
    four_servers, coordinator, browser_as
):
    shipment, _ = four_servers
    page = browser_as(coordinator).get(shipment.get_absolute_url()).content.decode()
    assert 'name="gross_kg" value="560.00"' in page  # 520 kg of servers + a 40 kg crate
    assert 'name="net_kg" value="520.00"' in page
