"""Issue 12, "Pick, don't type": packing picks a quantity per line and ticks its serials (or packs
everything left in one tick), instead of typing "1:8, 2:4" and the serial numbers a second time."""

import pytest

from apps.shipments import services
from apps.shipments.models import LineSerial, Package

from .conftest import crate

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_lines(make_shipment, gpu_server, cable):
    shipment = make_shipment()
    servers = services.line_add(shipment=shipment, part=gpu_server, quantity=3, serials=["S1", "S2", "S3"])
    cables = services.line_add(shipment=shipment, part=cable, quantity=10)
    return shipment, servers, cables


def post(client, shipment, data):
    # Weighed: three 130 kg servers and ten cables in a crate.
    weighed = {"gross_kg": "500", "net_kg": "400"}
    return client.post(f"/shipments/{shipment.reference}/packages/", crate() | weighed | data)


def test_the_form_offers_each_line_left_to_pack_and_its_unpacked_serials(two_lines, coordinator, browser_as):
    shipment, servers, cables = two_lines
    page = browser_as(coordinator).get(shipment.get_absolute_url()).content.decode()
    assert 'name="qty_1"' in page and "3 of 3 left to pack." in page
    assert 'name="qty_2"' in page and "10 of 10 left to pack." in page
    assert 'name="serials_1" value="S1"' in page and 'name="pack_remaining"' in page


def test_picking_a_quantity_and_ticking_serials_packs_them(two_lines, coordinator, browser_as):
    shipment, servers, cables = two_lines
    client = browser_as(coordinator)
    response = post(client, shipment, {"qty_1": "2", "serials_1": ["S1", "S3"], "qty_2": "4"})
    assert response.status_code == 302, response.context["package_form"].errors
    package = Package.objects.get(shipment=shipment)
    assert sorted((i.line.line_number, i.quantity) for i in package.items.all()) == [(1, 2), (2, 4)]
    assert sorted(package.serials.values_list("unit__serial", flat=True)) == ["S1", "S3"]
    # The next package is offered what is left: 1 server (S2) and 6 cables.
    page = client.get(shipment.get_absolute_url()).content.decode()
    assert "1 of 3 left to pack." in page and "6 of 10 left to pack." in page
    assert 'value="S2"' in page and 'name="serials_1" value="S1"' not in page


def test_everything_left_in_one_tick(two_lines, coordinator, browser_as):
    shipment, servers, cables = two_lines
    client = browser_as(coordinator)
    assert post(client, shipment, {"qty_2": "4"}).status_code == 302
    assert post(client, shipment, {"pack_remaining": "on"}).status_code == 302
    second = Package.objects.get(shipment=shipment, number=2)
    assert sorted((i.line.line_number, i.quantity) for i in second.items.all()) == [(1, 3), (2, 6)]
    assert not LineSerial.objects.filter(line=servers, package__isnull=True).exists()


def test_too_many_or_nothing_is_named_and_nothing_is_packed(two_lines, coordinator, browser_as):
    shipment, servers, cables = two_lines
    client = browser_as(coordinator)
    response = post(client, shipment, {"qty_1": "4"})
    assert response.status_code == 400 and "qty_1" in response.context["package_form"].errors
    response = post(client, shipment, {})
    assert response.status_code == 400
    assert "Pick what goes in the package" in response.content.decode()
    assert not Package.objects.filter(shipment=shipment).exists()
