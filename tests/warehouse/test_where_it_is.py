"""Stock that cannot be counted twice: a leg (or a shipment without legs) is received once, and a
unit is received only where it is expected to arrive — from the state and the leg it is really
in. A consolidation: two servers fly from the Taiwanese factory to the Singapore hub (leg 1), are
picked there for the main carriage (leg 2) to the Chennai warehouse, and received there."""

import pytest
from django.core.exceptions import ValidationError

from apps.catalog.models import Unit
from apps.shipments import services as shipments
from apps.shipments.models import Shipment
from apps.warehouse import selectors, services
from apps.warehouse.models import Discrepancy, DiscrepancyKind, Lot, Movement, Receipt, UnitPlacement
from apps.warehouse.services.receipts import receipt_record

from .conftest import BOND

pytestmark = pytest.mark.django_db


def written() -> tuple:
    """Everything a refused receipt must leave as it was."""
    return (
        Movement.objects.count(),
        Receipt.objects.count(),
        Discrepancy.objects.count(),
        list(Unit.objects.order_by("pk").values_list("serial", "status", "customs_status")),
        list(UnitPlacement.objects.order_by("pk").values_list("unit_id", "location_id", "line_id")),
        list(Lot.objects.order_by("pk").values_list("quantity", "allocated")),
    )


def refused(field: str, call, **kwargs) -> str:
    before = written()
    with pytest.raises(ValidationError) as info:
        call(**kwargs)
    assert written() == before, "a refusal wrote something"
    assert field in info.value.message_dict, info.value.message_dict
    return " ".join(info.value.message_dict[field])


@pytest.fixture
def make_consolidation(make_shipment, gpu_server, factory_site, hub, plain_warehouse):
    """QT7 and QT8 from the factory to the hub (leg 1), then on to Chennai (leg 2), in transit."""

    def make():
        shipment = make_shipment(destination=plain_warehouse, incoterm_place="Chennai")
        line = shipments.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["QT7", "QT8"])
        inbound = shipments.leg_add(
            shipment=shipment,
            fields={"role": "inbound", "origin": factory_site, "destination": hub, "mode": "air"},
            lines=[line],
        )
        main = shipments.leg_add(
            shipment=shipment,
            fields={"role": "main", "origin": hub, "destination": plain_warehouse, "mode": "air"},
        )
        Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
        shipment.refresh_from_db()
        return shipment, line, inbound, main

    return make


@pytest.fixture
def consolidation(make_consolidation):
    return make_consolidation()


def through_the_hub(shipment, line, bin_a, actor):
    """Put away at the hub, allocated to the line, picked and shipped on the main carriage."""
    units = [
        services.unit_move(unit=u, to_location=bin_a, actor=actor) for u in Unit.objects.order_by("serial")
    ]
    units = services.units_allocate(line=line, units=units, actor=actor)
    services.units_pick(units=units, actor=actor)
    services.line_ship(line=line, actor=actor, reason="Departed SIN")


def test_a_leg_received_once_is_refused_again_naming_its_receipt(
    consolidation, dock, bin_a, warehouse_operator
):
    shipment, line, inbound, _ = consolidation
    first = receipt_record(
        shipment=shipment, location=dock, leg=inbound, scanned=["QT7", "QT8"], actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    through_the_hub(shipment, line, bin_a, warehouse_operator)
    on_hand = selectors.stock_on_hand()
    message = refused(
        "leg", receipt_record, shipment=shipment, location=dock, leg=inbound, scanned=["QT7", "QT8"],
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    assert first.reference in message and "received already" in message
    assert set(Unit.objects.values_list("status", flat=True)) == {"shipped"}
    assert selectors.stock_on_hand() == on_hand


def test_units_that_left_on_the_main_carriage_are_not_received_at_the_hub(
    make_consolidation, dock, bin_a, supplier, gpu_server, warehouse_operator
):
    """The demo's case: the hub's history made without a receipt of the inbound leg (the units
    received by hand before the notice listed them); receiving the leg afterwards must not bring
    back units that are on the plane to Chennai."""
    services.units_receive(
        location=dock, part=gpu_server, serials=["QT7", "QT8"], owner=supplier, actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    shipment, line, inbound, _ = make_consolidation()
    through_the_hub(shipment, line, bin_a, warehouse_operator)
    message = refused(
        "scanned", receipt_record, shipment=shipment, location=dock, leg=inbound, scanned=["QT7", "QT8"],
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    assert (
        f"Serial QT7: It left SG bonded hub on {shipment.reference} for Chennai staging warehouse: it is "
        f"received there, against {shipment.reference}." in message
    )
    # Nor without a notice: received by hand, anywhere.
    message = refused(
        "serials", services.units_receive, location=dock, part=gpu_server, serials=["QT7"], owner=supplier,
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    assert "It left SG bonded hub on " + shipment.reference in message


def test_shipped_units_are_received_at_the_end_of_the_leg_that_carries_them(
    consolidation, dock, bin_a, plain_bin, warehouse_operator
):
    shipment, line, inbound, _ = consolidation
    receipt_record(
        shipment=shipment, location=dock, leg=inbound, scanned=["QT7", "QT8"], actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    through_the_hub(shipment, line, bin_a, warehouse_operator)
    receipt = receipt_record(
        shipment=shipment, location=plain_bin, scanned=["QT7", "QT8"], actor=warehouse_operator
    )
    assert receipt.received_units == 2
    assert {(u.status, u.placement.location.site_id) for u in Unit.objects.all()} == {
        ("received", plain_bin.site_id)
    }
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")  # even were it not delivered
    assert f"{shipment.reference} was received already by {receipt.reference}" in refused(
        "shipment", receipt_record, shipment=shipment, location=plain_bin, scanned=["QT7"],
        actor=warehouse_operator,
    )  # fmt: skip


def test_a_shipped_unit_is_not_received_by_hand_even_where_it_is_going(
    consolidation, gpu_server, supplier, dock, bin_a, plain_bin, warehouse_operator
):
    """Received against the notice of the shipment carrying it, or not at all: by hand, a receipt
    could not tell this arrival from a unit that never left."""
    shipment, line, inbound, _ = consolidation
    receipt_record(
        shipment=shipment, location=dock, leg=inbound, scanned=["QT7", "QT8"], actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    through_the_hub(shipment, line, bin_a, warehouse_operator)
    message = refused(
        "serials", services.units_receive, location=plain_bin, part=gpu_server, serials=["QT7"],
        owner=supplier, actor=warehouse_operator,
    )  # fmt: skip
    assert f"against {shipment.reference}" in message


def test_a_unit_on_a_notice_is_received_against_it_where_its_leg_ends(
    consolidation, dock, plain_bin, gpu_server, supplier, warehouse_operator
):
    shipment, _, inbound, _ = consolidation
    expected = f"It is expected on {shipment.reference} for SG bonded hub: it is received there, against"
    for location in (dock, plain_bin):  # by hand, even where it is going; or elsewhere
        message = refused(
            "serials", services.units_receive, location=location, part=gpu_server, serials=["QT7"],
            owner=supplier, actor=warehouse_operator, customs_reference=BOND,
        )  # fmt: skip
        assert f"Serial QT7: {expected}" in message
    # Against its notice, but at the end of the main carriage instead of its inbound leg's.
    assert expected in refused(
        "scanned", receipt_record, shipment=shipment, location=plain_bin, scanned=["QT7", "QT8"],
        actor=warehouse_operator,
    )  # fmt: skip


def test_a_serial_scanned_and_marked_damaged_is_one_damaged_unit(consolidation, dock, warehouse_operator):
    shipment, _, inbound, _ = consolidation
    receipt = receipt_record(
        shipment=shipment, location=dock, leg=inbound, scanned=["QT7", "QT8"], damaged=["qt8"],
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    assert receipt.received_units == 2
    assert [(d.kind, d.serial) for d in receipt.discrepancies.all()] == [(DiscrepancyKind.DAMAGED, "QT8")]
    assert Unit.objects.get(serial="QT8").status == "quarantined"
    assert Movement.objects.filter(unit__serial="QT8", kind="receipt").count() == 1


def test_a_late_box_points_to_the_missing_unit_s_found(consolidation, dock, warehouse_operator):
    shipment, _, inbound, _ = consolidation
    first = receipt_record(
        shipment=shipment, location=dock, leg=inbound, scanned=["QT7"], actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    message = refused(
        "leg", receipt_record, shipment=shipment, location=dock, leg=inbound, scanned=["QT8"],
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    assert f"Serial QT8 is missing on {first.reference}" in message
    assert "resolve that discrepancy as found" in message


def test_an_extra_serial_known_elsewhere_says_where_it_should_be(
    consolidation, dock, plain_bin, gpu_server, supplier, customer, warehouse_operator, client, api_as
):
    shipment, _, inbound, _ = consolidation
    services.units_receive(
        location=plain_bin, part=gpu_server, serials=["QT99"], owner=supplier, actor=warehouse_operator
    )
    services.units_receive(
        location=plain_bin, part=gpu_server, serials=["OT5"], owner=customer, actor=warehouse_operator
    )
    receipt = receipt_record(
        shipment=shipment, location=dock, leg=inbound, scanned=["QT7", "QT8", "qt99", "NEW1", "OT5"],
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    extras = {d.serial: d for d in receipt.discrepancies.filter(kind=DiscrepancyKind.EXTRA)}
    assert set(extras) == {"qt99", "NEW1", "OT5"}
    # Another organisation's unit is only said to be known: where it is is not the reader's business.
    assert (extras["OT5"].unit, extras["OT5"].note) == (None, "Serial OT5 is another organisation's unit.")
    known = extras["qt99"]
    assert known.unit == Unit.objects.get(serial="QT99")
    assert known.note == "Known unit QT99: received at Chennai staging warehouse (B-1)."
    assert extras["NEW1"].unit is None and extras["NEW1"].note == ""
    # It stays where the books have it.
    assert Unit.objects.get(serial="QT99").placement.location == plain_bin
    # The receipt's page and the API say so.
    client.force_login(warehouse_operator)
    assert known.note in client.get(receipt.get_absolute_url()).content.decode()
    body = api_as(warehouse_operator).get(f"/api/v1/stock/notice-receipts/{receipt.pk}/").json()
    assert {d["serial"]: d["note"] for d in body["discrepancies"]}["qt99"] == known.note
