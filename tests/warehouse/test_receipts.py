"""Receipts against an advance notice (issue 13): scanned serials against the inbound shipment's,
missing / extra / damaged units and lots counted short or over kept as open discrepancies until a
person resolves them, and the shipment's status moved by its own event service."""

import pytest
from django.core.exceptions import ValidationError

from apps.catalog.models import Unit
from apps.shipments import services as shipments
from apps.shipments.models import Shipment, TrackingEvent
from apps.warehouse.models import DiscrepancyKind, Lot, Movement, ReceiptStatus
from apps.warehouse.services.receipts import discrepancy_resolve, receipt_record

from .conftest import BOND

pytestmark = pytest.mark.django_db


@pytest.fixture
def inbound(make_shipment, gpu_server, cable, hub):
    """Three servers (QT1–QT3) and 20 cables from the Taiwanese factory to the bonded hub, in
    transit."""
    shipment = make_shipment(destination=hub)
    servers = shipments.line_add(
        shipment=shipment, part=gpu_server, quantity=3, serials=["QT1", "QT2", "QT3"]
    )
    cables = shipments.line_add(shipment=shipment, part=cable, quantity=20)
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    shipment.refresh_from_db()
    return shipment, servers, cables


def status(serial: str) -> tuple[str, str]:
    unit = Unit.objects.get(serial=serial)
    return unit.status, unit.customs_status


def test_a_clean_receipt_takes_everything_into_stock_and_delivers_the_shipment(
    inbound, dock, warehouse_operator
):
    shipment, servers, cables = inbound
    receipt = receipt_record(
        shipment=shipment, location=dock, scanned=["QT1", "qt2", "QT3"], counted={cables.pk: 20},
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    assert receipt.status == ReceiptStatus.CLOSED and not receipt.discrepancies.exists()
    assert (receipt.expected_units, receipt.received_units) == (3, 3)
    assert {status(s) for s in ("QT1", "QT2", "QT3")} == {("received", "in_bond")}
    assert Lot.objects.get(part=cables.part).quantity == 20
    assert Movement.objects.filter(kind="receipt").count() == 4  # three units, one lot
    shipment.refresh_from_db()
    assert shipment.status == "delivered"  # through the event service: at customs, cleared inferred
    assert TrackingEvent.objects.filter(shipment=shipment, code="delivered").exists()


def test_missing_extra_and_damaged_units_stay_open_until_resolved(inbound, dock, warehouse_operator):
    shipment, servers, cables = inbound
    receipt = receipt_record(
        shipment=shipment, location=dock, scanned=["QT1", "ZZ9"], damaged=["QT3"], counted={cables.pk: 18},
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    found = {(d.kind, d.serial, d.quantity) for d in receipt.discrepancies.all()}
    assert found == {
        (DiscrepancyKind.MISSING, "QT2", 1),
        (DiscrepancyKind.EXTRA, "ZZ9", 1),
        (DiscrepancyKind.DAMAGED, "QT3", 1),
        (DiscrepancyKind.SHORT, "", 2),
    }
    assert receipt.status == ReceiptStatus.OPEN and receipt.received_units == 2
    assert status("QT1") == ("received", "in_bond")
    assert status("QT2") == ("expected", "")  # not here: not in stock
    assert status("QT3") == ("quarantined", "in_bond")
    assert not Unit.objects.filter(serial="ZZ9").exists()  # an extra box is recorded, not stocked
    assert Lot.objects.get(part=cables.part).quantity == 18

    by_kind = {d.kind: d for d in receipt.discrepancies.all()}
    with pytest.raises(ValidationError) as refused:
        discrepancy_resolve(discrepancy=by_kind["missing"], actor=warehouse_operator, resolution="  ")
    assert "resolution" in refused.value.message_dict
    discrepancy_resolve(
        discrepancy=by_kind["missing"],
        actor=warehouse_operator,
        resolution="Found on the next pallet",
        found=True,
    )
    assert status("QT2") == ("received", "in_bond")
    discrepancy_resolve(
        discrepancy=by_kind["damaged"],
        actor=warehouse_operator,
        resolution="Box dented, unit tested",
        release=True,
    )
    assert status("QT3") == ("available", "in_bond")
    discrepancy_resolve(
        discrepancy=by_kind["extra"], actor=warehouse_operator, resolution="Returned to carrier"
    )
    receipt.refresh_from_db()
    assert receipt.status == ReceiptStatus.OPEN and receipt.received_units == 3  # the short cables
    discrepancy_resolve(discrepancy=by_kind["short"], actor=warehouse_operator, resolution="Claim filed")
    receipt.refresh_from_db()
    assert receipt.status == ReceiptStatus.CLOSED
    with pytest.raises(ValidationError):
        discrepancy_resolve(discrepancy=by_kind["short"], actor=warehouse_operator, resolution="again")


def test_a_resolution_option_fits_its_kind(inbound, dock, warehouse_operator):
    shipment, servers, cables = inbound
    receipt = receipt_record(
        shipment=shipment, location=dock, scanned=["QT1", "QT2"], counted={cables.pk: 20},
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    missing = receipt.discrepancies.get()
    with pytest.raises(ValidationError) as refused:
        discrepancy_resolve(discrepancy=missing, actor=warehouse_operator, resolution="ok", release=True)
    assert "release" in refused.value.message_dict


@pytest.mark.parametrize(
    "change, field",
    [
        ({"status": "draft"}, "shipment"),
        ({"status": "cancelled"}, "shipment"),
    ],
)
def test_a_shipment_that_has_not_left_is_not_received(inbound, dock, warehouse_operator, change, field):
    shipment, _, _ = inbound
    Shipment.objects.filter(pk=shipment.pk).update(**change)
    with pytest.raises(ValidationError) as refused:
        receipt_record(shipment=shipment, location=dock, scanned=["QT1"], actor=warehouse_operator)
    assert field in refused.value.message_dict
    assert not Movement.objects.exists() and not Unit.objects.filter(status="received").exists()


def test_refusals_name_the_field_and_write_nothing(inbound, dock, plain_bin, warehouse_operator):
    shipment, servers, cables = inbound
    cases = [
        (dict(location=plain_bin, scanned=["QT1"]), "location"),  # not where it goes
        (dict(location=dock, scanned=["QT1", "qt1"]), "scanned"),  # scanned twice
        (dict(location=dock, scanned=["QT1"], counted={cables.pk: -1}), "counted"),
        (dict(location=dock, scanned=["QT1"], counted={999999: 1}), "counted"),
        (dict(location=dock, scanned=["QT1"]), "customs_reference"),  # a bonded site needs it
    ]
    for kwargs, field in cases:
        with pytest.raises(ValidationError) as refused:
            receipt_record(shipment=shipment, actor=warehouse_operator, **kwargs)
        assert field in refused.value.message_dict, (kwargs, refused.value.message_dict)
    assert not Movement.objects.exists()
    assert shipment.receipts.count() == 0
    shipment.refresh_from_db()
    assert shipment.status == "in_transit"


def test_an_inbound_leg_is_received_at_the_hub_and_the_shipment_goes_on(
    make_shipment, gpu_server, factory_site, hub, dock, warehouse_operator
):
    """A consolidation: the leg into the hub is received there; the shipment is not delivered."""
    shipment = make_shipment()  # to the Chennai data centre
    line = shipments.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["QT7", "QT8"])
    leg = shipments.leg_add(
        shipment=shipment,
        fields={
            "role": "inbound",
            "origin": factory_site,
            "destination": hub,
            "mode": "air",
        },
        lines=[line],
    )
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    receipt = receipt_record(
        shipment=shipment, location=dock, leg=leg, scanned=["QT7", "QT8"], actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    assert receipt.status == ReceiptStatus.CLOSED and receipt.received_units == 2
    shipment.refresh_from_db()
    assert shipment.status == "in_transit"
    event = TrackingEvent.objects.get(shipment=shipment)
    assert (event.code, event.leg) == ("received_at_warehouse", leg)
    with pytest.raises(ValidationError) as refused:  # without the leg: the shipment does not end here
        receipt_record(shipment=shipment, location=dock, scanned=["QT7"], actor=warehouse_operator)
    assert "location" in refused.value.message_dict
