"""Warehouse fixtures: a bonded hub and a duty-paid warehouse with locations, stock owned by the
supplier, and an outbound shipment from the hub with a server line and a cable line."""

# ruff: noqa: F811  (the fixtures imported from tests/shipments/conftest.py are used as arguments)

import pytest

from apps.shipments import services as shipments
from apps.shipments.models import Shipment, Site
from apps.warehouse import services
from tests.shipments.conftest import (  # noqa: F401  (fixtures)
    cable,
    customer,
    datacentre,
    factory_site,
    gpu_server,
    hub,
    make_shipment,
)

BOND = "SG-TWH-2026-0042"


@pytest.fixture
def plain_warehouse(operator):
    return Site.objects.create(
        owner=operator, name="Chennai staging warehouse", kind="warehouse", city="Chennai", country="IN"
    )


@pytest.fixture
def dock(hub):
    return services.location_create(site=hub, zone="rcv")


@pytest.fixture
def bin_a(hub):
    return services.location_create(site=hub, zone="A", aisle="01", rack="02", bin="03")


@pytest.fixture
def bin_b(hub):
    return services.location_create(site=hub, zone="A", aisle="01", rack="02", bin="04")


@pytest.fixture
def plain_bin(plain_warehouse):
    return services.location_create(site=plain_warehouse, zone="B", aisle="1")


@pytest.fixture
def receive(dock, supplier, warehouse_operator, gpu_server):
    """`receive("S1", "S2", put_away=bin)`: the supplier's servers received at the hub's dock
    (in bond), then put away to `put_away` when given."""

    def run(*serials, put_away=None, part=None, location=None):
        units = services.units_receive(
            location=location or dock,
            part=part or gpu_server,
            serials=list(serials),
            owner=supplier,
            actor=warehouse_operator,
            customs_reference=BOND,
        )
        if put_away is not None:
            units = [
                services.unit_move(unit=unit, to_location=put_away, actor=warehouse_operator)
                for unit in units
            ]
        return units

    return run


@pytest.fixture
def cables_in(bin_a, supplier, warehouse_operator, cable):
    """100 cables of the supplier's in bin A (in bond)."""
    return services.lot_receive(
        location=bin_a,
        part=cable,
        quantity=100,
        owner=supplier,
        actor=warehouse_operator,
        customs_reference=BOND,
    )


@pytest.fixture
def outbound(make_shipment, hub, gpu_server, cable):
    """A draft shipment leaving the hub, with 2 servers (line 1) and 30 cables (line 2)."""
    shipment = make_shipment(origin=hub)
    servers = shipments.line_add(shipment=shipment, part=gpu_server, quantity=2)
    cables = shipments.line_add(shipment=shipment, part=cable, quantity=30)
    return shipment, servers, cables


def approve(shipment):
    """Compliance's approval stands in for the flow here (its guards are tested elsewhere)."""
    Shipment.objects.filter(pk=shipment.pk).update(status="approved")
