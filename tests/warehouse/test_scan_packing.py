"""Packing by scanning: the pack page's boxes say their serial and line for the scan box, the weight
and size start from the catalogue, a scan of a unit that is not offered says why; on the shipment
page, ticking serials counts them without a quantity typed."""

from decimal import Decimal

import pytest
from django.urls import reverse

from apps.accounts.roles import Role
from apps.shipments import services as shipments
from apps.shipments.models import Package
from apps.warehouse import services
from tests.factories import UserFactory
from tests.shipments.conftest import crate

pytestmark = pytest.mark.django_db


@pytest.fixture
def picked(receive, bin_a, outbound, warehouse_operator):
    shipment, servers, _ = outbound
    units = receive("QT1", "QT2", "QT3", put_away=bin_a)
    services.units_allocate(line=servers, units=units[:2], actor=warehouse_operator)
    services.units_pick(units=units[:2], actor=warehouse_operator)
    return shipment, servers, units


def test_the_pack_page_offers_the_scan_box_counts_and_a_suggested_weight(
    picked, warehouse_operator, browser_as
):
    shipment, _, units = picked
    page = browser_as(warehouse_operator).get(reverse("warehouse:pack", args=[shipment.reference]))
    html = page.content.decode()
    assert 'data-serial="QT1" data-line="1"' in html and 'data-scan-line="1" data-scan-of="2"' in html
    form = page.context["form"]
    assert form.initial["net_kg"] == Decimal("260.00") and form.initial["gross_kg"] == Decimal("300.00")
    assert 'name="gross_kg" value="300.00"' in html


def test_the_pack_page_refuses_a_gross_below_the_picked_units(picked, warehouse_operator, browser_as):
    shipment, _, units = picked
    url = reverse("warehouse:pack", args=[shipment.reference])
    response = browser_as(warehouse_operator).post(
        url, crate(gross_kg="12", net_kg="10") | {"units": [str(units[0].pk), str(units[1].pk)]}
    )
    assert response.status_code == 200 and "260 kg" in " ".join(response.context["form"].errors["gross_kg"])
    assert not Package.objects.filter(shipment=shipment).exists()


def test_a_scan_while_packing_says_why_a_unit_is_not_offered(
    picked, warehouse_operator, browser_as, make_shipment, gpu_server, forwarder
):
    shipment, _, units = picked
    client = browser_as(warehouse_operator)
    url = reverse("warehouse:pack-check", args=[shipment.reference])
    not_picked = client.get(url, {"serial": "QT3"}).json()
    assert not_picked["verdict"] == "known_elsewhere" and "pick it" in not_picked["message"]
    assert client.get(url, {"serial": "NOPE"}).json()["verdict"] == "extra"
    services.units_pack(shipment=shipment, units=units[:1], fields=crate(), actor=warehouse_operator)
    packed = client.get(url, {"serial": "QT1"}).json()
    assert packed["verdict"] == "duplicate" and packed["package"] == 1
    outsider = UserFactory(organisation=forwarder, role=Role.WAREHOUSE_OPERATOR, username="outside-floor")
    assert browser_as(outsider).get(url, {"serial": "QT1"}).status_code == 404


def test_ticking_serials_on_the_shipment_page_counts_them(make_shipment, gpu_server, coordinator, browser_as):
    shipment = make_shipment()
    shipments.line_add(shipment=shipment, part=gpu_server, quantity=3, serials=["S1", "S2", "S3"])
    response = browser_as(coordinator).post(
        f"/shipments/{shipment.reference}/packages/", crate() | {"serials_1": ["S1", "S3"]}
    )
    assert response.status_code == 302
    package = Package.objects.get(shipment=shipment)
    assert [(i.line.line_number, i.quantity) for i in package.items.all()] == [(1, 2)]
    assert sorted(package.serials.values_list("unit__serial", flat=True)) == ["S1", "S3"]
