"""Two people allocating the same serial, or the last units of a lot, or receiving the same leg,
at the same moment: exactly one succeeds, and on-hand never goes negative (row locks, conditional
updates and the database's check constraints). PostgreSQL only: SQLite serialises every writer,
so there is no race to lose."""

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections

from apps.shipments import services as shipments
from apps.shipments.models import Shipment
from apps.warehouse import selectors, services
from apps.warehouse.models import Lot, LotAllocation, Movement, Receipt, UnitPlacement
from apps.warehouse.services.receipts import receipt_record
from tests.conftest import require

from .conftest import BOND

pytestmark = pytest.mark.django_db(transaction=True)


def race(*calls):
    """Run the calls in threads (each on its own database connection), released at one moment by a
    barrier; what each returned or the ValidationError it raised."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait(10)
            results[index] = call()
        except ValidationError as exc:
            results[index] = exc
        except Exception as exc:  # noqa: BLE001  (reported below, not lost in the thread)
            results[index] = RuntimeError(repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    unexpected = [r for r in results if isinstance(r, RuntimeError)]
    assert not unexpected, unexpected
    return results


def two_lines(make_shipment, hub, part, quantity):
    """Lines on two outbound shipments from the hub, each wanting `quantity` of `part`."""
    return [
        shipments.line_add(shipment=make_shipment(origin=hub), part=part, quantity=quantity) for _ in range(2)
    ]


def test_two_people_allocating_the_same_serial(
    receive, bin_a, make_shipment, hub, gpu_server, warehouse_operator
):
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")
    (unit,) = receive("LAST-ONE", put_away=bin_a)
    first, second = two_lines(make_shipment, hub, gpu_server, 1)
    results = race(
        lambda: services.units_allocate(line=first, units=[unit], actor=warehouse_operator),
        lambda: services.units_allocate(line=second, units=[unit], actor=warehouse_operator),
    )
    refused = [r for r in results if isinstance(r, ValidationError)]
    assert len(refused) == 1, results
    assert "allocated, not available" in " ".join(refused[0].message_dict["units"])
    winner = first if not isinstance(results[0], ValidationError) else second
    assert UnitPlacement.objects.get(unit=unit).line_id == winner.pk
    assert selectors.rebuild_on_hand() == selectors.stock_on_hand()


def test_two_people_allocating_the_last_of_a_lot(cables_in, make_shipment, hub, cable, warehouse_operator):
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")
    services.lot_adjust(lot=cables_in, delta=-90, actor=warehouse_operator, reason="10 left")
    first, second = two_lines(make_shipment, hub, cable, 7)
    results = race(
        lambda: services.lot_allocate(line=first, lot=cables_in, quantity=7, actor=warehouse_operator),
        lambda: services.lot_allocate(line=second, lot=cables_in, quantity=7, actor=warehouse_operator),
    )
    refused = [r for r in results if isinstance(r, ValidationError)]
    assert len(refused) == 1, results
    assert "Only 3" in " ".join(refused[0].message_dict["quantity"])
    lot = Lot.objects.get(pk=cables_in.pk)
    assert (lot.quantity, lot.allocated) == (10, 7) and LotAllocation.objects.count() == 1
    assert selectors.rebuild_on_hand() == selectors.stock_on_hand()


def test_two_adjustments_never_take_on_hand_below_zero(cables_in, warehouse_operator):
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")
    results = race(
        *[
            lambda: services.lot_adjust(lot=cables_in, delta=-60, actor=warehouse_operator, reason="damaged")
            for _ in range(2)
        ]
    )
    assert sum(isinstance(r, ValidationError) for r in results) == 1, results
    assert Lot.objects.get(pk=cables_in.pk).quantity == 40
    assert selectors.rebuild_on_hand() == selectors.stock_on_hand()


def test_two_people_receiving_the_same_leg(
    make_shipment, gpu_server, factory_site, hub, dock, warehouse_operator
):
    """Both scan the same inbound leg at the hub at once: one receipt takes the units into stock,
    the other is refused naming it (the shipment's row lock orders them; the database's unique
    constraint is the backstop)."""
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")
    shipment = make_shipment()
    line = shipments.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["RX1", "RX2"])
    leg = shipments.leg_add(
        shipment=shipment,
        fields={"role": "inbound", "origin": factory_site, "destination": hub, "mode": "air"},
        lines=[line],
    )
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    results = race(
        *[
            lambda: receipt_record(
                shipment=shipment,
                location=dock,
                leg=leg,
                scanned=["RX1", "RX2"],
                actor=warehouse_operator,
                customs_reference=BOND,
            )  # fmt: skip
            for _ in range(2)
        ]
    )
    refused = [r for r in results if isinstance(r, ValidationError)]
    assert len(refused) == 1, results
    (receipt,) = Receipt.objects.all()
    assert f"was received already by {receipt.reference}" in " ".join(refused[0].message_dict["leg"])
    assert Movement.objects.filter(kind="receipt").count() == 2
    assert selectors.rebuild_on_hand() == selectors.stock_on_hand()
