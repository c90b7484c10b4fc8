"""Issue 12, "Pick, don't type": removing a line asks first, naming what goes with it; a package can
be removed in the browser (its units and serials go back to unpacked), by those who may change the
shipment only."""

import pytest

from apps.shipments import services
from apps.shipments.models import LineSerial, Package

from .conftest import crate

pytestmark = pytest.mark.django_db


@pytest.fixture
def packed(make_shipment, gpu_server):
    shipment = make_shipment()
    line = services.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["S1", "S2"])
    package = services.package_add(shipment=shipment, fields=crate(), items=[(line, 2)], serials=["S1", "S2"])
    return shipment, line, package


def test_the_page_asks_before_removing_a_line_or_a_package(packed, coordinator, browser_as):
    shipment, line, package = packed
    page = browser_as(coordinator).get(shipment.get_absolute_url()).content.decode()
    assert "Remove line 1 (2 × DGX-H100), its 2 serial numbers and its 2 packed units?" in page
    assert "Yes, remove line 1" in page
    assert "Unpack package 1? Its units and serials go back to unpacked." in page


def test_a_package_is_removed_and_its_serials_unpacked(packed, coordinator, browser_as):
    shipment, line, package = packed
    response = browser_as(coordinator).post(f"/shipments/{shipment.reference}/packages/{package.pk}/remove/")
    assert response.status_code == 302 and response.url.endswith("#packages")
    assert not Package.objects.filter(pk=package.pk).exists()
    assert list(LineSerial.objects.filter(line=line).values_list("package", flat=True)) == [None, None]


def test_a_package_of_another_organisations_shipment_is_not_found(packed, forwarder_user, browser_as):
    shipment, line, package = packed
    response = browser_as(forwarder_user).post(
        f"/shipments/{shipment.reference}/packages/{package.pk}/remove/"
    )
    assert response.status_code in (403, 404)
    assert Package.objects.filter(pk=package.pk).exists()
