"""Every warehouse service, and every refusal: a ValidationError naming the field, nothing written."""

import pytest
from django.core.exceptions import ValidationError

from apps.catalog.models import Unit
from apps.core.models import AuditEvent
from apps.warehouse import selectors, services
from apps.warehouse.models import Location, Lot, LotAllocation, Movement, UnitPlacement

from .conftest import BOND, approve


def refused(field, call, *args, **kwargs):
    """Run a service that must refuse: it names `field`, and writes nothing to the ledger, the lots,
    the placements or the units."""
    before = (
        Movement.objects.count(),
        list(Lot.objects.order_by("pk").values_list("quantity", "allocated")),
        list(UnitPlacement.objects.order_by("pk").values_list("unit_id", "location_id", "line_id")),
        list(Unit.objects.order_by("pk").values_list("status", "customs_status")),
        LotAllocation.objects.count(),
    )
    with pytest.raises(ValidationError) as info:
        call(*args, **kwargs)
    after = (
        Movement.objects.count(),
        list(Lot.objects.order_by("pk").values_list("quantity", "allocated")),
        list(UnitPlacement.objects.order_by("pk").values_list("unit_id", "location_id", "line_id")),
        list(Unit.objects.order_by("pk").values_list("status", "customs_status")),
        LotAllocation.objects.count(),
    )
    assert after == before, "a refusal wrote something"
    assert field in info.value.message_dict, info.value.message_dict
    return " ".join(info.value.message_dict[field])


def ledger_agrees():
    rebuilt, held = selectors.rebuild_on_hand(), selectors.stock_on_hand()
    assert rebuilt == held


# --- locations ---------------------------------------------------------------------------------


def test_a_location_is_in_a_warehouse(factory_site, hub):
    location = services.location_create(site=hub, zone=" a ", aisle="01", rack="02", bin="03")
    assert location.code == "A-01-02-03"
    with pytest.raises(ValidationError) as info:
        services.location_create(site=factory_site, zone="A")
    assert "site" in info.value.message_dict
    with pytest.raises(ValidationError):
        services.location_create(site=hub, zone="A", aisle="01", rack="02", bin="03")  # twice


# --- receipts ----------------------------------------------------------------------------------


def test_receiving_into_a_bonded_site_puts_units_in_bond(receive, dock, supplier):
    units = receive("S1", "s2")
    assert [(u.status, u.customs_status, u.owner_id) for u in units] == [
        ("received", "in_bond", supplier.pk)
    ] * 2
    assert {p.location_id for p in UnitPlacement.objects.all()} == {dock.pk}
    rows = list(Movement.objects.order_by("id"))
    assert [(r.kind, r.to_location_id, r.customs_reference, r.status_after) for r in rows] == [
        ("receipt", dock.pk, BOND, "received")
    ] * 2
    assert rows[0].actor_label.startswith("Test User")
    assert (
        AuditEvent.objects.filter(action="transition", changes__status=["expected", "received"]).count() == 2
    )
    ledger_agrees()


def test_bonded_receipt_needs_the_customs_reference(dock, gpu_server, supplier, warehouse_operator):
    message = refused(
        "customs_reference",
        services.units_receive,
        location=dock,
        part=gpu_server,
        serials=["S1"],
        owner=supplier,
        actor=warehouse_operator,
    )
    assert "bonded" in message
    assert not Unit.objects.exists()  # the unit units_for made is rolled back too


def test_a_plain_warehouse_receives_duty_paid(plain_bin, gpu_server, cable, supplier, warehouse_operator):
    (unit,) = services.units_receive(
        location=plain_bin, part=gpu_server, serials=["P1"], owner=supplier, actor=warehouse_operator
    )
    lot = services.lot_receive(
        location=plain_bin, part=cable, quantity=5, owner=supplier, actor=warehouse_operator
    )
    assert unit.customs_status == "duty_paid" and lot.customs_status == "duty_paid"
    assert Movement.objects.filter(customs_reference="").count() == 2


def test_a_serial_in_another_warehouse_is_refused(
    receive, plain_bin, gpu_server, supplier, warehouse_operator
):
    receive("S1")
    message = refused(
        "serials",
        services.units_receive,
        location=plain_bin,
        part=gpu_server,
        serials=["s1"],
        owner=supplier,
        actor=warehouse_operator,
    )
    assert "already in another warehouse (SG bonded hub)" in message
    assert "already in this warehouse" in refused("serials", receive, "S1")


def test_receipt_refusals(receive, dock, gpu_server, cable, supplier, customer, warehouse_operator):
    kwargs = {"location": dock, "owner": supplier, "actor": warehouse_operator, "customs_reference": BOND}
    assert "lot quantity" in refused("part", services.units_receive, part=cable, serials=["C1"], **kwargs)
    assert "Repeated" in refused(
        "serials", services.units_receive, part=gpu_server, serials=["X", "x"], **kwargs
    )
    assert "blank" in refused("serials", services.units_receive, part=gpu_server, serials=[" "], **kwargs)
    receive("S1")
    other = kwargs | {"owner": customer}
    Unit.objects.filter(serial="S1").update(status="shipped")
    UnitPlacement.objects.all().delete()
    assert "another organisation" in refused(
        "serials", services.units_receive, part=gpu_server, serials=["S1"], **other
    )
    assert "serialised" in refused("part", services.lot_receive, part=gpu_server, quantity=1, **kwargs)
    assert "whole number" in refused("quantity", services.lot_receive, part=cable, quantity=0, **kwargs)
    assert "whole number" in refused("quantity", services.lot_receive, part=cable, quantity=-3, **kwargs)
    Location.objects.filter(pk=dock.pk).update(is_active=False)
    assert "inactive" in refused("location", services.lot_receive, part=cable, quantity=1, **kwargs)


def test_a_unit_marked_shipped_with_no_shipment_on_its_record_is_not_received(
    receive, bin_a, warehouse_operator
):
    """Shipped by a raw update, not by `line_ship`: the ledger does not say where it went, so no
    receipt may bring it back (tests/warehouse/test_where_it_is.py receives real arrivals)."""
    (unit,) = receive("S1")
    Unit.objects.filter(pk=unit.pk).update(status="shipped", customs_status="")
    UnitPlacement.objects.all().delete()
    assert "no shipment out of a warehouse is on its record" in refused(
        "serials", receive, "S1", location=bin_a
    )


def test_lot_receipts_add_up(cables_in, bin_a, cable, supplier, warehouse_operator):
    again = services.lot_receive(
        location=bin_a,
        part=cable,
        quantity=20,
        owner=supplier,
        actor=warehouse_operator,
        customs_reference=BOND,
    )
    assert again.pk == cables_in.pk and again.quantity == 120
    other_entry = services.lot_receive(
        location=bin_a,
        part=cable,
        quantity=1,
        owner=supplier,
        actor=warehouse_operator,
        customs_reference="E-2",
    )
    assert other_entry.pk != cables_in.pk  # entries under another customs reference are kept apart
    ledger_agrees()


# --- put-away and moves -------------------------------------------------------------------------


def test_put_away_makes_a_unit_available_and_moves_keep_its_status(
    receive, bin_a, bin_b, dock, warehouse_operator
):
    (unit,) = receive("S1")
    unit = services.unit_move(unit=unit, to_location=bin_a, actor=warehouse_operator)
    assert unit.status == "available" and unit.placement.location == bin_a
    unit = services.unit_move(unit=unit, to_location=bin_b, actor=warehouse_operator, reason="re-slot")
    assert unit.status == "available"
    assert list(Movement.objects.order_by("id").values_list("kind", "from_location", "to_location")) == [
        ("receipt", None, dock.pk),
        ("put_away", dock.pk, bin_a.pk),
        ("move", bin_a.pk, bin_b.pk),
    ]
    ledger_agrees()


def test_move_refusals(receive, bin_a, plain_bin, gpu_server, supplier, warehouse_operator, cables_in):
    (unit,) = receive("S1", put_away=bin_a)
    assert "another warehouse" in refused(
        "to_location", services.unit_move, unit=unit, to_location=plain_bin, actor=None
    )
    assert "already" in refused("to_location", services.unit_move, unit=unit, to_location=bin_a, actor=None)
    loose = Unit.objects.create(
        part=gpu_server, manufacturer=gpu_server.manufacturer, serial="LOOSE", owner=supplier
    )
    assert "not in a warehouse" in refused(
        "unit", services.unit_move, unit=loose, to_location=bin_a, actor=None
    )
    assert "another warehouse" in refused(
        "to_location", services.lot_move, lot=cables_in, quantity=1, to_location=plain_bin, actor=None
    )


def test_lot_moves_take_free_stock_only(cables_in, bin_b, outbound, warehouse_operator):
    _, _, cables = outbound
    services.lot_allocate(line=cables, lot=cables_in, quantity=30, actor=warehouse_operator)
    moved = services.lot_move(lot=cables_in, quantity=70, to_location=bin_b, actor=warehouse_operator)
    assert moved.quantity == 70 and moved.customs_reference == BOND
    message = refused("quantity", services.lot_move, lot=cables_in, quantity=1, to_location=bin_b, actor=None)
    assert "Only 0" in message and "30 allocated" in message
    ledger_agrees()


# --- adjustments ---------------------------------------------------------------------------------


def test_adjustments_need_a_reason_and_never_go_negative(cables_in, outbound, warehouse_operator):
    lot = services.lot_adjust(lot=cables_in, delta=-4, actor=warehouse_operator, reason="crushed in handling")
    assert lot.quantity == 96
    lot = services.lot_adjust(
        lot=cables_in, delta=2, actor=warehouse_operator, reason="found behind the rack"
    )
    assert lot.quantity == 98
    row = Movement.objects.order_by("-id").first()
    assert (row.kind, row.quantity, row.reason) == ("adjustment", 2, "found behind the rack")
    assert "reason" in refused("reason", services.lot_adjust, lot=cables_in, delta=-1, actor=None, reason=" ")
    assert "negative" in refused(
        "quantity", services.lot_adjust, lot=cables_in, delta=-99, actor=None, reason="x"
    )
    assert "whole number" in refused(
        "delta", services.lot_adjust, lot=cables_in, delta=0, actor=None, reason="x"
    )
    _, _, cables = outbound
    services.lot_allocate(line=cables, lot=cables_in, quantity=30, actor=warehouse_operator)
    assert "less than is allocated" in refused(
        "quantity", services.lot_adjust, lot=cables_in, delta=-69, actor=None, reason="x"
    )
    ledger_agrees()


# --- counts ---------------------------------------------------------------------------------------


def test_a_count_corrects_lots_quarantines_the_missing_and_finds_the_misplaced(
    receive, bin_a, bin_b, cables_in, warehouse_operator
):
    here = receive("S1", "S2", put_away=bin_a)
    (elsewhere,) = receive("S3", put_away=bin_b)
    result = services.location_count(
        location=bin_a, serials=["s1", "S3"], quantities={cables_in.pk: 97}, actor=warehouse_operator
    )
    assert [(lot.pk, before, after) for lot, before, after in result.corrected] == [(cables_in.pk, 100, 97)]
    assert [u.serial for u in result.missing] == ["S2"] and result.missing[0].status == "quarantined"
    assert [u.serial for u in result.found] == ["S3"]
    assert UnitPlacement.objects.get(unit=elsewhere).location == bin_a
    assert UnitPlacement.objects.get(unit=here[1]).location == bin_a  # last known place
    kinds = list(Movement.objects.filter(kind="count").values_list("reason", flat=True))
    assert len(kinds) == 3 and all("Cycle count of A-01-02-03" in reason for reason in kinds)
    again = services.location_count(
        location=bin_a, serials=["S1", "S3"], quantities={cables_in.pk: 97}, actor=warehouse_operator
    )
    assert not again.corrected and not again.found and [u.serial for u in again.missing] == ["S2"]
    ledger_agrees()


def test_a_count_that_agrees_changes_nothing(receive, bin_a, cables_in, warehouse_operator):
    receive("S1", put_away=bin_a)
    count = Movement.objects.count()
    result = services.location_count(
        location=bin_a, serials=["S1"], quantities={cables_in.pk: 100}, actor=warehouse_operator
    )
    assert result.agrees and Movement.objects.count() == count


def test_count_refusals(
    receive, bin_a, bin_b, plain_bin, cable, supplier, cables_in, outbound, warehouse_operator
):
    receive("S1", put_away=bin_a)
    other = services.lot_receive(location=plain_bin, part=cable, quantity=1, owner=supplier, actor=None)
    count = services.location_count
    assert "zero or more" in refused(
        "quantities", count, location=bin_a, serials=["S1"], quantities={cables_in.pk: -1}, actor=None
    )
    assert "not at A-01-02-03" in refused(
        "quantities",
        count,
        location=bin_a,
        serials=["S1"],
        quantities={cables_in.pk: 100, other.pk: 1},
        actor=None,
    )
    assert "not counted" in refused(
        "quantities", count, location=bin_a, serials=["S1"], quantities={}, actor=None
    )
    assert "receive it first" in refused(
        "serials", count, location=bin_a, serials=["S1", "NOPE"], quantities={cables_in.pk: 100}, actor=None
    )
    _, _, cables = outbound
    services.lot_allocate(line=cables, lot=cables_in, quantity=30, actor=warehouse_operator)
    assert "30 allocated" in refused(
        "quantities", count, location=bin_a, serials=["S1"], quantities={cables_in.pk: 29}, actor=None
    )


# --- the one status service ---------------------------------------------------------------------


def test_unit_transition_refuses_illegal_moves_with_reasons(receive, bin_a, warehouse_operator):
    (unit,) = receive("S1", put_away=bin_a)
    message = refused(
        "status", services.unit_transition, unit=unit, target="shipped", action="ship", actor=None
    )
    assert "available unit cannot become shipped" in message and "allowed: allocated, quarantined" in message
    assert "needs a reason" in refused(
        "status", services.unit_transition, unit=unit, target="quarantined", action="quarantine", actor=None
    )
    assert "already" in refused(
        "status", services.unit_transition, unit=unit, target="available", action="release", actor=None
    )
    assert "Unknown" in refused(
        "status", services.unit_transition, unit=unit, target="lost", action="move", actor=None
    )
    assert "Unknown warehouse action" in refused(
        "status", services.unit_transition, unit=unit, target="quarantined", action="lose", actor=None
    )
    assert "which shipment line" in refused(
        "line", services.unit_transition, unit=unit, target="allocated", action="allocate", actor=None
    )
    assert "becomes allocated by an allocation, not by a pick" in refused(
        "status", services.unit_transition, unit=unit, target="allocated", action="pick", actor=None
    )
    unit = services.unit_transition(
        unit=unit, target="quarantined", action="quarantine", actor=warehouse_operator, reason="dented crate"
    )
    assert "quarantined unit cannot become allocated" in refused(
        "status", services.unit_transition, unit=unit, target="allocated", action="allocate", actor=None
    )
    assert "needs a reason" in refused(
        "status", services.unit_transition, unit=unit, target="available", action="release", actor=None
    )
    unit = services.unit_transition(
        unit=unit, target="available", action="release", actor=warehouse_operator, reason="inspected: fine"
    )
    rows = Movement.objects.filter(kind="status").order_by("id")
    assert list(rows.values_list("status_before", "status_after", "reason")) == [
        ("available", "quarantined", "dented crate"),
        ("quarantined", "available", "inspected: fine"),
    ]
    ledger_agrees()


def test_customs_status_changes_through_the_same_service(receive, bin_a, warehouse_operator):
    (unit,) = receive("S1", put_away=bin_a)
    unit = services.unit_transition(
        unit=unit,
        target="available",
        action="customs",
        actor=warehouse_operator,
        customs_status="duty_paid",
        customs_reference="IN-BOE-7781",
        reason="entered for home use",
    )
    assert unit.customs_status == "duty_paid"
    row = Movement.objects.order_by("-id").first()
    assert (row.kind, row.customs_status, row.customs_reference) == ("customs", "duty_paid", "IN-BOE-7781")
    assert "cannot become" in refused(
        "customs_status",
        services.unit_transition,
        unit=unit,
        target="available",
        action="customs",
        actor=None,
        customs_status="in_bond",
    )


# --- allocation, picking, shipping ----------------------------------------------------------------


def test_the_outbound_flow_ships_units_and_lot_quantities(
    receive, bin_a, cables_in, outbound, warehouse_operator
):
    shipment, servers, cables = outbound
    units = receive("S1", "S2", put_away=bin_a)
    units = services.units_allocate(line=servers, units=units, actor=warehouse_operator)
    assert {u.status for u in units} == {"allocated"}
    allocation = services.lot_allocate(line=cables, lot=cables_in, quantity=30, actor=warehouse_operator)
    assert Lot.objects.get(pk=cables_in.pk).allocated == 30
    units = services.units_pick(units=units, actor=warehouse_operator)
    allocation = services.lot_allocation_pick(allocation=allocation, actor=warehouse_operator)
    assert "draft" in refused("line", services.line_ship, line=servers, actor=None)
    approve(shipment)
    shipped = services.line_ship(line=servers, actor=warehouse_operator)
    assert {u.status for u in shipped.units} == {"shipped"} and {u.customs_status for u in shipped.units} == {
        ""
    }
    assert not UnitPlacement.objects.exists()
    services.line_ship(line=cables, actor=warehouse_operator)
    lot = Lot.objects.get(pk=cables_in.pk)
    assert (lot.quantity, lot.allocated) == (70, 0)
    assert LotAllocation.objects.get().status == "shipped"
    rows = Movement.objects.filter(kind="shipment")
    assert rows.count() == 3 and {r.shipment_id for r in rows} == {shipment.pk}
    assert {r.customs_reference for r in rows} == {BOND} and {r.customs_status for r in rows} == {"in_bond"}
    assert "Nothing is picked" in refused("line", services.line_ship, line=cables, actor=None)
    ledger_agrees()


def test_allocation_refusals(
    receive, bin_a, dock, cables_in, outbound, make_shipment, gpu_server, cable, warehouse_operator
):
    shipment, servers, cables = outbound
    s1, s2, s3 = receive("S1", "S2", "S3", put_away=bin_a)
    (dockside,) = receive("S4")
    allocate = services.units_allocate
    assert "not available" in refused("units", allocate, line=servers, units=[dockside], actor=None)
    assert "not a DGX-H100" not in refused("units", allocate, line=servers, units=[dockside], actor=None)
    message = refused("units", services.units_allocate, line=cables, units=[s1], actor=None)
    assert "not a MCP4Y10-N002" in message
    assert "is for 2; 0 allocated already, 3 more" in refused(
        "units", allocate, line=servers, units=[s1, s2, s3], actor=None
    )
    elsewhere = make_shipment()  # leaves the factory, not the hub
    far = __import__("apps.shipments.services", fromlist=["line_add"]).line_add(
        shipment=elsewhere, part=gpu_server, quantity=1
    )
    assert "does not leave from" in refused("units", allocate, line=far, units=[s1], actor=None)
    services.units_allocate(line=servers, units=[s1], actor=warehouse_operator)
    assert "allocated, not available" in refused("units", allocate, line=servers, units=[s1], actor=None)
    assert "not the line's" in refused(
        "lot", services.lot_allocate, line=servers, lot=cables_in, quantity=1, actor=None
    )
    assert "is for 30" in refused(
        "quantity", services.lot_allocate, line=cables, lot=cables_in, quantity=31, actor=None
    )
    services.lot_adjust(lot=cables_in, delta=-80, actor=warehouse_operator, reason="sent back")
    message = refused("quantity", services.lot_allocate, line=cables, lot=cables_in, quantity=21, actor=None)
    assert "Only 20" in message
    elsewhere.status = "cancelled"
    elsewhere.save(update_fields=["status"])
    assert "cancelled" in refused("line", allocate, line=far, units=[s2], actor=None)


def test_shipping_refuses_a_quarantined_or_unpicked_unit(
    receive, bin_a, cables_in, outbound, warehouse_operator
):
    shipment, servers, cables = outbound
    s1, s2 = receive("S1", "S2", put_away=bin_a)
    services.units_allocate(line=servers, units=[s1, s2], actor=warehouse_operator)
    services.units_pick(units=[s1], actor=warehouse_operator)
    services.unit_transition(
        unit=s2, target="quarantined", action="quarantine", actor=warehouse_operator, reason="water damage"
    )
    allocation = services.lot_allocate(line=cables, lot=cables_in, quantity=5, actor=warehouse_operator)
    approve(shipment)
    assert "S2 is quarantined: it cannot be shipped" in refused(
        "line", services.line_ship, line=servers, actor=None
    )
    assert "not picked yet" in refused("line", services.line_ship, line=cables, actor=None)
    assert "picked already" in refused("status", services.units_pick, units=[s1], actor=None)
    services.lot_allocation_release(allocation=allocation, actor=warehouse_operator, reason="wrong cable")
    assert Lot.objects.get(pk=cables_in.pk).allocated == 0
    assert "released" in refused(
        "allocation", services.lot_allocation_pick, allocation=allocation, actor=None
    )
    ledger_agrees()


def test_releasing_a_unit_frees_it_for_another_line(receive, bin_a, outbound, warehouse_operator):
    _, servers, _ = outbound
    (unit,) = receive("S1", put_away=bin_a)
    services.units_allocate(line=servers, units=[unit], actor=warehouse_operator)
    services.units_give_back(units=[unit], actor=warehouse_operator, reason="customer changed order")
    assert UnitPlacement.objects.get(unit=unit).line_id is None
    assert Movement.objects.order_by("-id").first().kind == "release"
    ledger_agrees()


# --- the ledger is append-only --------------------------------------------------------------------


def test_the_ledger_refuses_updates_and_deletes(cables_in):
    row = Movement.objects.get()
    with pytest.raises(PermissionError):
        row.save()
    with pytest.raises(PermissionError):
        row.delete()
    with pytest.raises(PermissionError):
        Movement.objects.update(reason="rewritten")
    with pytest.raises(PermissionError):
        Movement.objects.all().delete()


def test_the_database_refuses_updates_of_the_ledger(cables_in):
    from django.db import DatabaseError, connection, transaction

    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE warehouse_movement SET reason = 'rewritten'")
    assert Movement.objects.get().reason == ""


def test_the_database_refuses_more_allocated_than_on_hand(cables_in):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Lot.objects.filter(pk=cables_in.pk).update(allocated=101)
    with pytest.raises(IntegrityError), transaction.atomic():
        Lot.objects.filter(pk=cables_in.pk).update(quantity=-1)


def test_postgresql_refuses_deletes_of_the_ledger(cables_in):
    from django.db import DatabaseError, connection, transaction

    from tests.conftest import require

    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM warehouse_movement")
    assert Movement.objects.count() == 1


def test_a_cancelled_shipment_gives_its_stock_back(receive, bin_a, cables_in, outbound, warehouse_operator):
    from apps.shipments import services as shipment_services

    shipment, servers, cables = outbound
    s1, s2 = receive("S1", "S2", put_away=bin_a)
    services.units_allocate(line=servers, units=[s1, s2], actor=warehouse_operator)
    services.units_pick(units=[s1], actor=warehouse_operator)
    services.lot_allocate(line=cables, lot=cables_in, quantity=30, actor=warehouse_operator)
    # Through the shipment flow: the warehouse's hook runs in the cancellation's transaction.
    shipment_services.shipment_transition(
        shipment=shipment,
        target="cancelled",
        actor=warehouse_operator,
        reason="order withdrawn",
        check_capability=False,
    )
    assert set(Unit.objects.values_list("status", flat=True)) == {"available"}
    assert not UnitPlacement.objects.filter(line__isnull=False).exists()
    assert Lot.objects.get(pk=cables_in.pk).allocated == 0
    assert Movement.objects.filter(reason__contains="cancelled: order withdrawn").count() == 4
    ledger_agrees()
