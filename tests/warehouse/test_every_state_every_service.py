"""Every unit state through every service that changes a unit: each either makes the move the unit
flow allows from that state and place, or refuses with a clear error and changes nothing (the
ledger, the unit, its placement, the lots, receipts and discrepancies, packages and the serials on
shipment lines all as they were).

One unit, U1, is brought into each state through the services themselves: expected on an inbound
notice to the Singapore hub, received against it, put away, allocated to an outbound line (hub →
the Chennai warehouse), picked, packed and shipped; or quarantined. Each service then runs in a
savepoint that is rolled back, so one unit in one state meets every service. Lot adjustments
touch lots only: no unit state, so they are not in the table."""

from dataclasses import dataclass

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.catalog.models import Unit, UnitStatus
from apps.shipments import services as shipments
from apps.shipments.models import LineSerial, Package, Shipment
from apps.warehouse import services
from apps.warehouse.models import Discrepancy, DiscrepancyKind, Lot, Movement, Receipt, UnitPlacement
from apps.warehouse.services.packing import units_pack
from apps.warehouse.services.receipts import discrepancy_resolve, receipt_record
from tests.shipments.conftest import crate

from .conftest import BOND, approve

pytestmark = pytest.mark.django_db

E, R, A, AL, P, S, Q = (
    UnitStatus.EXPECTED,
    UnitStatus.RECEIVED,
    UnitStatus.AVAILABLE,
    UnitStatus.ALLOCATED,
    UnitStatus.PICKED,
    UnitStatus.SHIPPED,
    UnitStatus.QUARANTINED,
)
IN_STOCK = (R, A, AL, P, Q)


@dataclass
class World:
    inbound: Shipment
    outbound: Shipment
    servers: object  # the outbound line
    dock: object
    bin_a: object
    bin_b: object
    plain_bin: object
    supplier: object
    actor: object
    coordinator: object

    def unit(self) -> Unit:
        return Unit.objects.get(serial="U1")

    def receipt(self) -> Receipt:
        """The inbound notice's receipt at the hub (one with nothing received while U1 is expected)."""
        return Receipt.objects.filter(shipment=self.inbound).first() or Receipt.objects.create(
            reference="RCV-TEST-1", shipment=self.inbound, location=self.dock, customs_reference=BOND,
            received_at=timezone.now(), expected_units=1,
        )  # fmt: skip

    def discrepancy(self, kind: str) -> Discrepancy:
        unit = self.unit()
        return Discrepancy.objects.create(
            receipt=self.receipt(), kind=kind, part=unit.part, serial=unit.serial, unit=unit
        )


def _quarantine(w, target=Q):
    unit = w.unit()
    return services.unit_transition(
        unit=unit, target=target, action="quarantine", actor=w.actor, reason="Crate dropped"
    )


# Each service: given the world, do what it needs first (not checked), and return the call.
SERVICES = {
    "receive by hand": lambda w: lambda: services.units_receive(
        location=w.dock, part=w.unit().part, serials=["U1"], owner=w.supplier, actor=w.actor,
        customs_reference=BOND,
    ),
    "receipt against the inbound notice": lambda w: lambda: receipt_record(
        shipment=w.inbound, location=w.dock, scanned=["U1"], actor=w.actor, customs_reference=BOND
    ),
    "receipt against the outbound, at its destination": lambda w: (
        Shipment.objects.filter(pk=w.outbound.pk).update(status="in_transit"),
        lambda: receipt_record(shipment=w.outbound, location=w.plain_bin, scanned=["U1"], actor=w.actor),
    )[1],
    "put away or move": lambda w: lambda: services.unit_move(
        unit=w.unit(), to_location=w.bin_b, actor=w.actor
    ),
    "move to another warehouse": lambda w: lambda: services.unit_move(
        unit=w.unit(), to_location=w.plain_bin, actor=w.actor
    ),
    "count: found elsewhere": lambda w: lambda: services.location_count(
        location=w.bin_b, serials=["U1"], quantities={}, actor=w.actor
    ),
    "count: missed": lambda w: lambda: services.location_count(
        location=getattr(UnitPlacement.objects.filter(unit=w.unit()).first(), "location", w.bin_a),
        serials=[], quantities={}, actor=w.actor,
    ),
    "allocate": lambda w: lambda: services.units_allocate(line=w.servers, units=[w.unit()], actor=w.actor),
    "pick": lambda w: lambda: services.units_pick(units=[w.unit()], actor=w.actor),
    "pack": lambda w: lambda: units_pack(
        shipment=w.outbound, units=[w.unit()], fields=crate(), actor=w.actor
    ),
    "ship": lambda w: (approve(w.outbound), lambda: services.line_ship(line=w.servers, actor=w.actor))[1],
    "give back": lambda w: lambda: services.units_give_back(
        units=[w.unit()], actor=w.actor, reason="Changed"
    ),
    "release an allocation (API)": lambda w: lambda: services.unit_transition(
        unit=w.unit(), target="available", action="give_back", actor=w.actor, reason="Changed"
    ),
    "cancel the outbound shipment": lambda w: lambda: shipments.shipment_transition(
        shipment=w.outbound, target="cancelled", actor=w.coordinator, reason="Order moved to pod 3"
    ),
    "quarantine": lambda w: lambda: _quarantine(w),
    "release from quarantine": lambda w: lambda: services.unit_transition(
        unit=w.unit(), target="available", action="release", actor=w.actor, reason="Inspected: fine"
    ),
    "customs: entered for home use": lambda w: lambda: services.unit_transition(
        unit=w.unit(), target=w.unit().status, action="customs", actor=w.actor, customs_status="duty_paid",
        customs_reference="IN-BOE-1", reason="Entered for home use",
    ),
    "resolve a missing unit as found": lambda w: (
        lambda d: lambda: discrepancy_resolve(discrepancy=d, actor=w.actor, resolution="Found", found=True)
    )(w.discrepancy(DiscrepancyKind.MISSING)),
    "resolve a damaged unit as released": lambda w: (
        lambda d: lambda: discrepancy_resolve(discrepancy=d, actor=w.actor, resolution="Fine", release=True)
    )(w.discrepancy(DiscrepancyKind.DAMAGED)),
}  # fmt: skip

# What each service makes of U1 in each state; a state not named is refused.
ALLOWED = {
    "receive by hand": {},  # known to the books in every state: by hand, never
    "receipt against the inbound notice": {E: R},
    "receipt against the outbound, at its destination": {S: R} | {s: s for s in (E, *IN_STOCK)},
    "put away or move": {R: A, A: A, AL: AL, P: P, Q: Q},
    "move to another warehouse": {},
    "count: found elsewhere": {s: s for s in IN_STOCK},
    "count: missed": {R: Q, A: Q, AL: Q, P: Q, Q: Q, E: E, S: S},
    "allocate": {A: AL},
    "pick": {AL: P},
    "pack": {P: P},
    "ship": {P: S},
    "give back": {AL: A, P: AL},
    "release an allocation (API)": {AL: A},
    "cancel the outbound shipment": {AL: A, P: A, E: E, R: R, A: A, Q: Q, S: S},
    "quarantine": {R: Q, A: Q, AL: Q, P: Q},
    "release from quarantine": {Q: A},
    "customs: entered for home use": {s: s for s in IN_STOCK},
    "resolve a missing unit as found": {E: R},
    "resolve a damaged unit as released": {Q: A},
}


@pytest.fixture
def world(make_shipment, gpu_server, factory_site, hub, plain_warehouse, dock, bin_a, bin_b, plain_bin,
          supplier, warehouse_operator, coordinator):  # fmt: skip
    inbound = make_shipment(destination=hub, incoterm_place="Singapore")
    shipments.line_add(shipment=inbound, part=gpu_server, quantity=1, serials=["U1"])
    Shipment.objects.filter(pk=inbound.pk).update(status="in_transit")
    outbound = make_shipment(origin=hub, destination=plain_warehouse, incoterm_place="Chennai")
    servers = shipments.line_add(shipment=outbound, part=gpu_server, quantity=2)
    return World(
        Shipment.objects.get(pk=inbound.pk), outbound, servers, dock, bin_a, bin_b, plain_bin, supplier,
        warehouse_operator, coordinator,
    )  # fmt: skip


def bring(w: World, status: str) -> None:
    """U1 into `status`, through the services."""
    if status == E:
        return
    receipt_record(shipment=w.inbound, location=w.dock, scanned=["U1"], actor=w.actor, customs_reference=BOND)
    if status == R:
        return
    services.unit_move(unit=w.unit(), to_location=w.bin_a, actor=w.actor)
    if status == Q:
        _quarantine(w)
        return
    if status == A:
        return
    services.units_allocate(line=w.servers, units=[w.unit()], actor=w.actor)
    if status == AL:
        return
    services.units_pick(units=[w.unit()], actor=w.actor)
    if status == P:
        return
    units_pack(shipment=w.outbound, units=[w.unit()], fields=crate(), actor=w.actor)
    approve(w.outbound)
    services.line_ship(line=w.servers, actor=w.actor)
    Shipment.objects.filter(pk=w.outbound.pk).update(status="booked")


def snapshot() -> tuple:
    return (
        list(Movement.objects.order_by("pk").values_list("pk", flat=True)),
        list(Unit.objects.order_by("pk").values_list("serial", "status", "customs_status")),
        list(UnitPlacement.objects.order_by("pk").values_list("unit_id", "location_id", "line_id")),
        list(Lot.objects.order_by("pk").values_list("quantity", "allocated")),
        list(Receipt.objects.order_by("pk").values_list("pk", "received_units", "status")),
        list(Discrepancy.objects.order_by("pk").values_list("pk", "resolved_at")),
        Package.objects.count(),
        list(LineSerial.objects.order_by("pk").values_list("line_id", "unit_id", "package_id")),
    )


class _Undo(Exception):
    pass


def check(world: World, name: str, status: str) -> str | None:
    """Run one service on U1 in `status` (in the caller's savepoint): what is wrong, if anything."""
    allowed = ALLOWED[name].get(status)
    call = SERVICES[name](world)
    before = snapshot()
    try:
        call()
    except ValidationError as exc:
        if allowed is not None:
            return f"refused ({exc.messages[0]}), expected {allowed}"
        if snapshot() != before:
            return "refused but wrote something"
        if not all(m.strip() for m in exc.messages):
            return "refused without saying why"
        return None
    unit = world.unit()
    if allowed is None:
        return f"accepted, became {unit.status}; expected a refusal"
    if unit.status != allowed:
        return f"became {unit.status}, expected {allowed}"
    rows = list(Movement.objects.filter(unit=unit).exclude(pk__in=before[0]).order_by("id"))
    said = (rows[0].status_before, rows[-1].status_after) if rows else (status, status)
    if said != (status, unit.status):
        return f"the ledger says {said[0]} → {said[1]}, not {status} → {unit.status}"
    return None


@pytest.mark.parametrize("status", [E, R, A, AL, P, S, Q])
def test_every_service_from_every_state(world, status):
    bring(world, status)
    assert world.unit().status == status
    wrong = []
    for name in SERVICES:
        try:
            with transaction.atomic():
                if problem := check(world, name, status):
                    wrong.append(f"{name}: {problem}")
                raise _Undo
        except _Undo:
            pass
    assert not wrong, f"U1 {status}:\n" + "\n".join(wrong)


def test_the_table_names_every_state_and_service():
    assert set(ALLOWED) == set(SERVICES)
    for name, moves in ALLOWED.items():
        assert set(moves) <= set(UnitStatus.values), name
