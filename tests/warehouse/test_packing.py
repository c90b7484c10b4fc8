"""Packing picked units into an outbound shipment (issue 13): the serials on its lines and in its
package follow from what was packed."""

import pytest
from django.core.exceptions import ValidationError

from apps.shipments.models import LineSerial
from apps.warehouse import services
from apps.warehouse.services.packing import packable, units_pack
from tests.shipments.conftest import crate

pytestmark = pytest.mark.django_db


@pytest.fixture
def picked(receive, bin_a, outbound, warehouse_operator):
    shipment, servers, _ = outbound
    units = receive("QT1", "QT2", "QT3", put_away=bin_a)
    services.units_allocate(line=servers, units=units[:2], actor=warehouse_operator)
    services.units_pick(units=units[:2], actor=warehouse_operator)
    return shipment, servers, units


def test_packing_puts_the_picked_serials_on_the_line_and_in_a_package(picked, warehouse_operator):
    shipment, servers, units = picked
    assert [p.unit.serial for p in packable(shipment)] == ["QT1", "QT2"]
    package = units_pack(shipment=shipment, units=units[:2], fields=crate(), actor=warehouse_operator)
    assert sorted(package.serials.values_list("unit__serial", flat=True)) == ["QT1", "QT2"]
    assert [(i.line, i.quantity) for i in package.items.all()] == [(servers, 2)]
    assert sorted(LineSerial.objects.filter(line=servers).values_list("unit_id", flat=True)) == [
        units[0].pk,
        units[1].pk,
    ]  # the same units, not copies
    assert packable(shipment) == []


def test_only_picked_units_of_this_shipment_are_packed(picked, warehouse_operator):
    shipment, servers, units = picked
    with pytest.raises(ValidationError) as refused:
        units_pack(shipment=shipment, units=[units[2]], fields=crate(), actor=warehouse_operator)
    assert refused.value.message_dict["units"] == [f"Serial QT3 is not allocated to {shipment.reference}."]
    with pytest.raises(ValidationError) as refused:
        units_pack(shipment=shipment, units=[], fields=crate(), actor=warehouse_operator)
    assert "units" in refused.value.message_dict
    assert not shipment.packages.exists() and not LineSerial.objects.filter(line=servers).exists()


def test_the_pack_page_packs_the_ticked_units(picked, warehouse_operator, coordinator, browser_as):
    from django.urls import reverse

    shipment, servers, units = picked
    url = reverse("warehouse:pack", args=[shipment.reference])
    assert browser_as(coordinator).get(url).status_code == 403
    client = browser_as(warehouse_operator)
    page = client.get(url)
    assert b"QT1: line 1" in page.content and b"QT3" not in page.content
    refused = client.post(url, crate())
    assert refused.status_code == 200 and "units" in refused.context["form"].errors
    done = client.post(url, crate() | {"units": [str(units[0].pk)]})
    assert done.status_code == 302
    assert list(shipment.packages.get().serials.values_list("unit__serial", flat=True)) == ["QT1"]


def test_a_line_with_stock_allocated_to_it_is_not_removed(picked):
    """Removing the line would orphan its allocated units: refused with why, never a 500."""
    from apps.shipments import services as shipments

    shipment, servers, units = picked
    with pytest.raises(ValidationError) as refused:
        shipments.line_remove(line=servers)
    assert refused.value.message_dict["line"] == [
        "Line 1 is still referred to by unit placements: release those first."
    ]
    assert shipment.lines.filter(pk=servers.pk).exists()
