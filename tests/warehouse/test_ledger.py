"""On-hand can always be rebuilt from the movement ledger: after a seeded random sequence of a few
hundred operations (refusals included), the ledger's picture and the tables agree."""

import random

from django.core.exceptions import ValidationError

from apps.catalog.models import Unit
from apps.warehouse import selectors, services
from apps.warehouse.models import Lot, LotAllocation, UnitPlacement

from .conftest import BOND, approve

OPERATIONS = 300


def test_ledger_and_on_hand_agree_after_random_operations(
    hub, dock, bin_a, bin_b, cable, gpu_server, supplier, customer, outbound, warehouse_operator
):
    rng = random.Random(13)
    shipment, servers, cables = outbound
    approve(shipment)  # allocation and shipping both allowed
    locations = [dock, bin_a, bin_b]
    owners = [supplier, customer]
    serial_numbers = iter(range(1, 10_000))
    done, refused = {}, 0

    def receive_units():
        serials = [f"R{next(serial_numbers)}" for _ in range(rng.randint(1, 3))]
        services.units_receive(
            location=rng.choice(locations),
            part=gpu_server,
            serials=serials,
            owner=rng.choice(owners),
            actor=warehouse_operator,
            customs_reference=BOND,
        )

    def receive_lot():
        services.lot_receive(
            location=rng.choice(locations),
            part=cable,
            quantity=rng.randint(1, 40),
            owner=rng.choice(owners),
            actor=warehouse_operator,
            customs_reference=rng.choice([BOND, "SG-TWH-2026-0043"]),
        )

    def some_unit():
        placed = list(UnitPlacement.objects.values_list("unit_id", flat=True))
        if not placed:
            raise ValidationError("no units")
        return Unit.objects.get(pk=rng.choice(placed))

    def some_lot():
        lots = list(Lot.objects.filter(quantity__gt=0))
        if not lots:
            raise ValidationError("no lots")
        return rng.choice(lots)

    def move_unit():
        services.unit_move(unit=some_unit(), to_location=rng.choice(locations), actor=warehouse_operator)

    def move_lot():
        lot = some_lot()
        services.lot_move(
            lot=lot,
            quantity=rng.randint(1, lot.quantity),
            to_location=rng.choice(locations),
            actor=warehouse_operator,
        )

    def adjust():
        services.lot_adjust(
            lot=some_lot(), delta=rng.choice([-5, -1, 1, 3]), actor=warehouse_operator, reason="random"
        )

    def quarantine_or_release():
        unit = some_unit()
        target, action = (
            ("available", "release") if unit.status == "quarantined" else ("quarantined", "quarantine")
        )
        services.unit_transition(
            unit=unit, target=target, action=action, actor=warehouse_operator, reason="random"
        )

    def count():
        location = rng.choice(locations)
        placed = list(UnitPlacement.objects.filter(location=location).values_list("unit__serial", flat=True))
        seen = [s for s in placed if rng.random() < 0.8]
        lots = Lot.objects.filter(location=location)
        quantities = {lot.pk: max(lot.allocated, lot.quantity + rng.randint(-3, 3)) for lot in lots}
        services.location_count(
            location=location, serials=seen, quantities=quantities, actor=warehouse_operator
        )

    def allocate_units():
        free = list(Unit.objects.filter(status="available")[:2])
        services.units_allocate(line=servers, units=free, actor=warehouse_operator)

    def allocate_lot():
        lot = some_lot()
        services.lot_allocate(line=cables, lot=lot, quantity=rng.randint(1, 10), actor=warehouse_operator)

    def release():
        allocation = LotAllocation.objects.filter(status__in=["allocated", "picked"]).first()
        if allocation is None:
            raise ValidationError("nothing allocated")
        services.lot_allocation_release(allocation=allocation, actor=warehouse_operator, reason="random")

    def pick():
        services.units_pick(units=list(Unit.objects.filter(status="allocated")), actor=warehouse_operator)
        for allocation in LotAllocation.objects.filter(status="allocated"):
            services.lot_allocation_pick(allocation=allocation, actor=warehouse_operator)

    def ship():
        services.line_ship(line=rng.choice([servers, cables]), actor=warehouse_operator)

    operations = [
        receive_units,
        receive_lot,
        receive_lot,
        move_unit,
        move_lot,
        adjust,
        quarantine_or_release,
        count,
        allocate_units,
        allocate_lot,
        release,
        pick,
        ship,
    ]
    for _ in range(OPERATIONS):
        operation = rng.choice(operations)
        try:
            operation()
        except ValidationError:
            refused += 1
        else:
            done[operation.__name__] = done.get(operation.__name__, 0) + 1
        if rng.random() < 0.1:
            assert selectors.rebuild_on_hand() == selectors.stock_on_hand()

    rebuilt, held = selectors.rebuild_on_hand(), selectors.stock_on_hand()
    assert rebuilt == held
    assert rebuilt.by_part_location() == held.by_part_location()
    assert all(quantity >= 0 for quantity in held.lots.values())
    # The sequence exercised every kind of operation, and some were refused on the way.
    assert set(done) == {op.__name__ for op in operations}, done
    assert refused > 0
