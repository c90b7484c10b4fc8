"""Receiving in the browser (issue 13): the notice beside the form, refusals on their fields,
discrepancies resolved on the receipt's page; who may do what."""

import pytest
from django.urls import reverse

from apps.shipments import services as shipments
from apps.shipments.models import Shipment
from apps.warehouse.models import Receipt, ReceiptStatus

from .conftest import BOND

pytestmark = pytest.mark.django_db


@pytest.fixture
def inbound(make_shipment, gpu_server, cable, hub):
    shipment = make_shipment(destination=hub)
    shipments.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["QT1", "QT2"])
    cables = shipments.line_add(shipment=shipment, part=cable, quantity=20)
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    return shipment, cables


def test_the_receive_page_shows_the_notice_and_records_a_receipt(
    inbound, dock, warehouse_operator, browser_as
):
    shipment, cables = inbound
    client = browser_as(warehouse_operator)
    url = reverse("warehouse:receive-shipment", args=[shipment.reference])
    page = client.get(url)
    assert page.status_code == 200
    assert b"QT1, QT2" in page.content and f'name="count_{cables.pk}"'.encode() in page.content
    refused = client.post(url, {"location": dock.pk, "scanned": "QT1\nQT1", "customs_reference": BOND})
    assert refused.status_code == 200 and "Scanned twice: QT1." in str(
        refused.context["form"].errors["scanned"]
    )
    assert not Receipt.objects.exists()
    done = client.post(
        url, {"location": dock.pk, "scanned": "QT1", "customs_reference": BOND, f"count_{cables.pk}": "20"}
    )
    receipt = Receipt.objects.get()
    assert done.status_code == 302 and done.url == receipt.get_absolute_url()
    assert receipt.status == ReceiptStatus.OPEN  # QT2 missing

    detail = client.get(receipt.get_absolute_url())
    (missing,) = detail.context["discrepancies"]
    assert missing.serial == "QT2" and missing.form is not None
    resolve = reverse("warehouse:discrepancy-resolve", args=[receipt.reference, missing.pk])
    blank = client.post(resolve, {f"d{missing.pk}-resolution": ""})
    assert blank.status_code == 400 and b"This field is required" in blank.content
    ok = client.post(
        resolve, {f"d{missing.pk}-resolution": "Found behind the dock door", f"d{missing.pk}-found": "on"}
    )
    assert ok.status_code == 302
    receipt.refresh_from_db()
    assert receipt.status == ReceiptStatus.CLOSED and receipt.received_units == 2

    listed = client.get(reverse("warehouse:receipt-list"))
    assert receipt.reference.encode() in listed.content
    assert client.get(reverse("warehouse:receipt-list"), {"receive": shipment.reference.lower()}).url == url


def test_who_may_receive_and_see(inbound, dock, coordinator, supplier_user, browser_as):
    shipment, _ = inbound
    url = reverse("warehouse:receive-shipment", args=[shipment.reference])
    assert browser_as(coordinator).get(url).status_code == 403  # planning, not the warehouse floor
    stranger = browser_as(supplier_user)
    assert stranger.get(url).status_code == 403
    assert browser_as(coordinator).get(reverse("warehouse:receipt-list")).status_code == 200


def test_another_organisations_receipt_is_a_404(inbound, dock, warehouse_operator, browser_as):
    from apps.warehouse.services.receipts import receipt_record
    from tests.factories import OrganisationFactory, UserFactory

    shipment, cables = inbound
    receipt = receipt_record(
        shipment=shipment, location=dock, scanned=["QT1", "QT2"], counted={cables.pk: 20},
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    outsider = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere Ltd."), role="partner")
    client = browser_as(outsider)
    assert client.get(receipt.get_absolute_url()).status_code == 404
    assert receipt.reference.encode() not in client.get(reverse("warehouse:receipt-list")).content
