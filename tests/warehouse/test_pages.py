"""The warehouse's browser pages (issue 13): who may open each, the flow forms (success, and a
refusal shown on the field it concerns), the CSV export and its scoping, query counts."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.catalog.models import Unit, UnitStatus
from apps.shipments.models import Shipment
from apps.warehouse import services
from apps.warehouse.models import Location, Lot, LotAllocation, Movement, MovementKind, UnitPlacement

from .conftest import BOND, approve


@pytest.fixture
def stock(receive, bin_a, cables_in):
    """Two of the supplier's servers put away in bin A and 100 cables there, at the bonded hub."""
    return receive("S-0001", "S-0002", put_away=bin_a)


def _pages(unit, location):
    return {
        "stock": (reverse("warehouse:stock-list"), "stock.view"),
        "lots": (reverse("warehouse:lot-list"), "stock.view"),
        "unit": (reverse("warehouse:unit-detail", args=[unit.pk]), "stock.view"),
        "locations": (reverse("warehouse:location-list"), "stock.view"),
        "location": (reverse("warehouse:location-detail", args=[location.pk]), "stock.view"),
        "movements": (reverse("warehouse:movement-list"), "stock.view"),
        "new location": (reverse("warehouse:location-create"), "stock.manage"),
        "count": (reverse("warehouse:location-count", args=[location.pk]), "stock.operate"),
        "receive": (reverse("warehouse:receive"), "stock.operate"),
        "move": (reverse("warehouse:move"), "stock.operate"),
        "pick": (reverse("warehouse:pick"), "stock.operate"),
        "ship": (reverse("warehouse:ship"), "stock.operate"),
        "allocate": (reverse("warehouse:allocate"), "stock.allocate"),
    }


def test_each_page_opens_for_who_holds_its_capability_and_refuses_the_rest(
    stock, bin_a, warehouse_operator, coordinator, supplier_user, client
):
    for user in (warehouse_operator, coordinator, supplier_user):
        client.force_login(user)
        for name, (url, capability) in _pages(stock[0], bin_a).items():
            expected = 200 if user.can(capability) else 403
            assert client.get(url).status_code == expected, (user.role, name, url)


def test_another_organisations_unit_and_location_are_not_found(stock, bin_a, forwarder_user, client):
    client.force_login(forwarder_user)
    assert client.get(reverse("warehouse:unit-detail", args=[stock[0].pk])).status_code == 404
    assert client.get(reverse("warehouse:location-detail", args=[bin_a.pk])).status_code == 404
    page = client.get(reverse("warehouse:stock-list")).content.decode()
    assert "S-0001" not in page and "0 units on hand" in page
    found = client.get(reverse("warehouse:unit-find"), {"serial": "S-0001"})
    assert found.status_code == 302 and found["Location"] == reverse("warehouse:stock-list")


def test_the_owner_sees_its_stock_with_value_and_days(stock, supplier_user, client):
    client.force_login(supplier_user)
    page = client.get(reverse("warehouse:stock-list")).content.decode()
    assert "S-0001" in page and "S-0002" in page
    assert "2 units on hand" in page
    lots = client.get(reverse("warehouse:lot-list")).content.decode()
    assert "MCP4Y10-N002" in lots and "18,000.00" in lots  # 100 × 180 USD


def test_the_serial_box_jumps_to_the_unit_and_its_history(stock, warehouse_operator, client):
    client.force_login(warehouse_operator)
    found = client.get(reverse("warehouse:unit-find"), {"serial": "s-0001"})
    unit = stock[0]
    assert found.status_code == 302 and found["Location"] == reverse("warehouse:unit-detail", args=[unit.pk])
    page = client.get(found["Location"]).content.decode()
    assert "A-01-02-03" in page and "Receipt" in page and "Put-away" in page and BOND in page


def test_filters_sort_and_a_filter_error_is_named(stock, warehouse_operator, client):
    client.force_login(warehouse_operator)
    url = reverse("warehouse:stock-list")
    assert "S-0002" in client.get(url, {"sort": "-serial", "status": "available"}).content.decode()
    assert "S-0001" not in client.get(url, {"status": "quarantined"}).content.decode()
    page = client.get(url, {"sort": "price"}).content.decode()
    assert 'id="filter-errors"' in page


def _csv(response) -> str:
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode("utf-8-sig")


def test_csv_export_is_every_matching_unit_and_scoped(stock, supplier_user, forwarder_user, client):
    client.force_login(supplier_user)
    response = client.get(reverse("warehouse:stock-list"), {"export": "csv"})
    rows = list(csv.reader(io.StringIO(_csv(response))))
    assert rows[0][:3] == ["Serial", "Part", "Description"] and "Days in stock" in rows[0]
    assert sorted(r[0] for r in rows[1:]) == ["S-0001", "S-0002"]
    lots = _csv(client.get(reverse("warehouse:lot-list"), {"export": "csv"}))
    assert "MCP4Y10-N002" in lots
    ledger = _csv(client.get(reverse("warehouse:movement-list"), {"export": "csv"}))
    assert "S-0001" in ledger and "Put-away" in ledger
    client.force_login(forwarder_user)
    for name in ("warehouse:stock-list", "warehouse:lot-list", "warehouse:movement-list"):
        rows = list(csv.reader(io.StringIO(_csv(client.get(reverse(name), {"export": "csv"})))))
        assert len(rows) == 1, (name, rows)  # the header only


def test_xlsx_export_and_a_partner_sees_stock_held_for_it(stock, outbound, customer, client, coordinator):
    from tests.factories import UserFactory

    client.force_login(coordinator)
    response = client.get(reverse("warehouse:stock-list"), {"export": "xlsx"})
    assert response.status_code == 200 and "spreadsheetml" in response["Content-Type"]
    _shipment, servers, _cables = outbound
    services.units_allocate(line=servers, units=[stock[0]], actor=coordinator)
    client.force_login(UserFactory(organisation=customer, role="partner", username="consignee-user"))
    page = client.get(reverse("warehouse:stock-list")).content.decode()
    assert "S-0001" in page and "S-0002" not in page  # allocated to its shipment; the other is not
    assert client.get(reverse("warehouse:unit-detail", args=[stock[0].pk])).status_code == 200
    assert client.get(reverse("warehouse:unit-detail", args=[stock[1].pk])).status_code == 404


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_stock_list_costs_the_same_queries_for_3_units_as_for_30(
    receive, bin_a, warehouse_operator, client
):
    client.force_login(warehouse_operator)
    receive(*[f"Q-{n:03d}" for n in range(3)], put_away=bin_a)
    url = reverse("warehouse:stock-list")
    client.get(url)  # warm the session and the picker discovery
    few = _queries(client, url)
    receive(*[f"Q-{n:03d}" for n in range(3, 30)], put_away=bin_a)
    assert _queries(client, url) == few
    for name in ("warehouse:lot-list", "warehouse:location-list", "warehouse:movement-list"):
        client.get(reverse(name))
        assert _queries(client, reverse(name)) == _queries(client, reverse(name))


# --- the flow forms ---------------------------------------------------------------------------


def _error_on(response, field: str) -> str:
    assert response.status_code == 200, response.status_code
    errors = response.context["form"].errors
    assert field in errors, errors
    assert f'id="id_{field}-error"' in response.content.decode()
    return " ".join(errors[field])


def test_receive_units_and_a_lot(dock, supplier, gpu_server, cable, warehouse_operator, client):
    client.force_login(warehouse_operator)
    url = reverse("warehouse:receive")
    data = {"location": dock.pk, "part": gpu_server.pk, "owner": supplier.pk, "serials": "R-1\nR-2, R-3"}
    refused = client.post(url, data)
    assert "bonded" in _error_on(refused, "customs_reference")
    assert not UnitPlacement.objects.exists()
    response = client.post(url, data | {"customs_reference": BOND})
    assert response.status_code == 302
    assert UnitPlacement.objects.filter(location=dock).count() == 3
    assert set(Unit.objects.filter(serial__startswith="R-").values_list("status", flat=True)) == {"received"}
    again = client.post(url, data | {"customs_reference": BOND, "serials": "R-1"})
    assert "already in" in _error_on(again, "serials")
    lot = client.post(url, {"location": dock.pk, "part": cable.pk, "owner": supplier.pk, "quantity": "40",
                            "customs_reference": BOND})  # fmt: skip
    assert lot.status_code == 302 and Lot.objects.get(part=cable).quantity == 40
    both = client.post(url, {"location": dock.pk, "part": cable.pk, "owner": supplier.pk, "serials": "X"})
    assert "not serialised" in _error_on(both, "serials")


def test_move_puts_away_and_refuses_the_same_place(receive, dock, bin_a, warehouse_operator, client):
    receive("M-1")
    client.force_login(warehouse_operator)
    url = reverse("warehouse:move")
    assert client.post(url, {"serials": "M-1", "to_location": bin_a.pk}).status_code == 302
    unit = Unit.objects.get(serial="M-1")
    assert unit.status == UnitStatus.AVAILABLE and unit.placement.location == bin_a
    assert "already" in _error_on(
        client.post(url, {"serials": "M-1", "to_location": bin_a.pk}), "to_location"
    )
    assert "not in stock" in _error_on(
        client.post(url, {"serials": "NOPE", "to_location": dock.pk}), "serials"
    )


def test_count_books_differences_and_refuses_an_unknown_serial(
    stock, bin_a, cables_in, warehouse_operator, client
):
    client.force_login(warehouse_operator)
    url = reverse("warehouse:location-count", args=[bin_a.pk])
    field = f"lot_{cables_in.pk}"
    assert field in client.get(url).context["form"].fields
    refused = client.post(url, {"serials": "S-0001\nS-0002\nGHOST", field: "100"})
    assert "GHOST" in _error_on(refused, "serials")
    response = client.post(url, {"serials": "S-0001", field: "97", "reason": "Weekly count"}, follow=True)
    assert "differences" in response.content.decode()
    assert Lot.objects.get(pk=cables_in.pk).quantity == 97
    assert Unit.objects.get(serial="S-0002").status == UnitStatus.QUARANTINED
    assert Movement.objects.filter(kind=MovementKind.COUNT, reason__startswith="Weekly count").count() == 2
    negative = client.post(url, {"serials": "", field: "-1"})
    assert field in negative.context["form"].errors


def test_a_count_below_what_is_allocated_is_refused_on_the_lots_field(
    bin_a, cables_in, outbound, warehouse_operator, client
):
    shipment, _servers, cables = outbound
    services.lot_allocate(line=cables, lot=cables_in, quantity=30, actor=warehouse_operator)
    client.force_login(warehouse_operator)
    field = f"lot_{cables_in.pk}"
    response = client.post(reverse("warehouse:location-count", args=[bin_a.pk]), {field: "10"})
    assert "30 allocated" in _error_on(response, field)
    assert Lot.objects.get(pk=cables_in.pk).quantity == 100


def test_allocate_pick_and_ship_a_line(stock, cables_in, outbound, warehouse_operator, coordinator, client):
    shipment, servers, cables = outbound
    client.force_login(coordinator)
    url = reverse("warehouse:allocate")
    wrong = client.post(url, {"line": cables.pk, "serials": "S-0001"})
    assert "S-0001" in _error_on(wrong, "serials")
    too_many = client.post(url, {"line": cables.pk, "lot": cables_in.pk, "quantity": "31"})
    assert "31" in _error_on(too_many, "quantity")
    assert client.post(url, {"line": servers.pk, "serials": "S-0001 S-0002"}).status_code == 302
    assert client.post(url, {"line": cables.pk, "lot": cables_in.pk, "quantity": "30"}).status_code == 302
    assert set(Unit.objects.filter(serial__startswith="S-").values_list("status", flat=True)) == {"allocated"}

    client.force_login(warehouse_operator)
    ship = reverse("warehouse:ship")
    approve(shipment)
    assert "not picked" in _error_on(client.post(ship, {"line": servers.pk}), "line")
    assert client.post(reverse("warehouse:pick"), {"serials": "S-0001\nS-0002"}).status_code == 302
    allocation = LotAllocation.objects.get(line=cables)
    assert client.post(reverse("warehouse:pick"), {"allocation": allocation.pk}).status_code == 302
    for line in (servers, cables):
        assert client.post(ship, {"line": line.pk}).status_code == 302
    assert not UnitPlacement.objects.exists()
    assert Lot.objects.get(pk=cables_in.pk).quantity == 70
    history = client.get(reverse("warehouse:unit-detail", args=[stock[0].pk])).content.decode()
    for kind in ("Receipt", "Put-away", "Allocation", "Pick", "Shipment"):
        assert kind in history
    assert Shipment.objects.get(pk=shipment.pk).reference in history


def test_add_a_location(hub, warehouse_operator, client):
    client.force_login(warehouse_operator)
    url = reverse("warehouse:location-create")
    response = client.post(url, {"site": hub.pk, "zone": "c", "aisle": "02"})
    location = Location.objects.get(site=hub, zone="C")
    assert response.status_code == 302 and response["Location"] == reverse(
        "warehouse:location-detail", args=[location.pk]
    )
    assert "zone" in client.post(url, {"site": hub.pk, "zone": ""}).context["form"].errors
    duplicate = client.post(url, {"site": hub.pk, "zone": "C", "aisle": "02"})
    assert duplicate.status_code == 200 and duplicate.context["form"].errors


def test_menu_and_dashboard_tiles(stock, supplier_user, forwarder_user, client):
    client.force_login(supplier_user)
    page = client.get(reverse("dashboard")).content.decode()
    assert f'href="{reverse("warehouse:stock-list")}"' in page
    assert "units in stock" in page and "in bond" in page and "quarantined" in page
