"""The warehouse API: `/api/v1/units/…` and `/api/v1/stock/…`. Every endpoint, its refusals (400
naming the field with nothing written, 403 without the capability, 404 for another organisation's
object), partner scoping, and query counts that do not grow with the rows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.roles import Role
from apps.catalog.models import Unit
from apps.core.models import IdempotencyRecord
from apps.warehouse import services
from apps.warehouse.models import Location, Lot, LotAllocation, Movement, UnitPlacement
from tests.factories import OrganisationFactory, UserFactory

from .conftest import BOND, approve

U = "/api/v1/units/"
S = "/api/v1/stock/"


@pytest.fixture
def floor(api_as, warehouse_operator):
    return api_as(warehouse_operator)


@pytest.fixture
def planner(api_as, coordinator):
    return api_as(coordinator)


def snapshot():
    """Everything an action could write."""
    return (
        Movement.objects.count(),
        list(Lot.objects.order_by("pk").values_list("quantity", "allocated")),
        list(UnitPlacement.objects.order_by("pk").values_list("unit_id", "location_id", "line_id")),
        list(Unit.objects.order_by("pk").values_list("status", "customs_status")),
        list(LotAllocation.objects.order_by("pk").values_list("status", "quantity")),
        Location.objects.count(),
    )


def refused(client, url, body, field, status=400):
    """POST that must be refused naming `field`, writing nothing."""
    before = snapshot()
    response = client.post(url, body, format="json")
    assert response.status_code == status, response.content
    assert field in response.json(), response.json()
    assert snapshot() == before, "a refusal wrote something"
    return " ".join(map(str, response.json()[field]))


def serials(answer):
    return [u["serial"] for u in answer["units"]]


# --- receipts ----------------------------------------------------------------------------------


def test_receive_units_by_serial_into_a_bonded_dock(floor, dock, gpu_server, supplier):
    response = floor.post(
        f"{S}receipts/",
        {
            "location": dock.pk,
            "part": gpu_server.pk,
            "owner": supplier.pk,
            "serials": ["SRV-1", "srv-2"],
            "customs_reference": BOND,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert serials(body) == ["SRV-1", "srv-2"] and body["lot"] is None and body["allocations"] == []
    unit = body["units"][0]
    assert (unit["status"], unit["customs_status"], unit["customs_reference"]) == (
        "received",
        "in_bond",
        BOND,
    )
    assert unit["location"] == {
        "id": dock.pk,
        "code": "RCV",
        "warehouse": dock.site_id,
        "warehouse_name": "SG bonded hub",
    }
    assert unit["owner"] == supplier.pk and unit["allocated_to"] is None and unit["received_at"]
    assert list(Movement.objects.values_list("kind", flat=True)) == ["receipt", "receipt"]


def test_receive_a_lot_quantity(floor, bin_a, cable, supplier):
    body = {
        "location": bin_a.pk,
        "part": cable.pk,
        "owner": supplier.pk,
        "quantity": 40,
        "customs_reference": BOND,
    }
    response = floor.post(f"{S}receipts/", body, format="json")
    assert response.status_code == 201, response.content
    lot = response.json()["lot"]
    assert (lot["quantity"], lot["allocated"], lot["free"], lot["customs_status"]) == (40, 0, 40, "in_bond")
    assert lot["location"]["code"] == "A-01-02-03" and lot["part_number"] == "MCP4Y10-N002"


def test_receipt_refusals_name_the_field(floor, receive, dock, plain_bin, gpu_server, cable, supplier):
    receive("SRV-1")
    base = {"location": dock.pk, "part": gpu_server.pk, "owner": supplier.pk}
    message = refused(floor, f"{S}receipts/", {**base, "serials": ["SRV-9"]}, "customs_reference")
    assert "bonded" in message
    assert "SRV-1" in refused(
        floor, f"{S}receipts/", {**base, "serials": ["SRV-1"], "customs_reference": BOND}, "serials"
    )
    refused(
        floor,
        f"{S}receipts/",
        {**base, "serials": ["X"], "quantity": 2, "customs_reference": BOND},
        "serials",
    )
    refused(floor, f"{S}receipts/", {**base, "quantity": 2, "customs_reference": BOND}, "part")
    refused(
        floor,
        f"{S}receipts/",
        {**base, "part": cable.pk, "serials": ["C1"], "location": plain_bin.pk},
        "part",
    )
    refused(floor, f"{S}receipts/", {**base, "serials": ["A", "a"], "customs_reference": BOND}, "serials")
    refused(floor, f"{S}receipts/", {**base, "location": 999999, "serials": ["Z"]}, "location")
    refused(floor, f"{S}receipts/", {**base, "quantity": 0, "part": cable.pk}, "quantity")


def test_a_repeated_idempotency_key_receives_once(floor, plain_bin, cable, supplier):
    body = {"location": plain_bin.pk, "part": cable.pk, "owner": supplier.pk, "quantity": 5}
    first = floor.post(f"{S}receipts/", body, format="json", HTTP_IDEMPOTENCY_KEY="rcv-1")
    again = floor.post(f"{S}receipts/", body, format="json", HTTP_IDEMPOTENCY_KEY="rcv-1")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert Lot.objects.get().quantity == 5 and IdempotencyRecord.objects.count() == 1


# --- capabilities --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "path", "allowed"),
    [
        (Role.COORDINATOR, "receipts/", False),
        (Role.COMPLIANCE_OFFICER, "receipts/", False),
        (Role.PARTNER, "receipts/", False),
        (Role.COORDINATOR, "moves/", False),
        (Role.COORDINATOR, "adjustments/", False),
        (Role.COORDINATOR, "counts/", False),
        (Role.COORDINATOR, "picks/", False),
        (Role.COORDINATOR, "dispatches/", False),
        (Role.COORDINATOR, "allocations/", True),
        (Role.COORDINATOR, "allocations/release/", True),
        (Role.COMPLIANCE_OFFICER, "allocations/", False),
        (Role.PARTNER, "allocations/release/", False),
        (Role.COMPLIANCE_OFFICER, "locations/", False),
        (Role.PARTNER, "locations/", False),
        (Role.COORDINATOR, "locations/", True),
        (Role.WAREHOUSE_OPERATOR, "receipts/", True),
    ],
)
def test_each_action_needs_its_capability(api_as, operator, supplier, role, path, allowed):
    organisation = supplier if role == Role.PARTNER else operator
    client = api_as(UserFactory(organisation=organisation, role=role))
    response = client.post(f"{S}{path}", {}, format="json")
    # With the capability the empty body is read (and refused); without it nothing is read.
    assert response.status_code == (400 if allowed else 403), response.content


def test_every_role_reads_stock(api_as, operator, supplier):
    for role in Role:
        user = UserFactory(organisation=supplier if role == Role.PARTNER else operator, role=role)
        client = api_as(user)
        for path in (U, f"{S}locations/", f"{S}lots/", f"{S}movements/", f"{S}on-hand/", f"{S}allocations/"):
            assert client.get(path).status_code == 200, (role, path)


# --- locations ---------------------------------------------------------------------------------


def test_locations_are_created_in_warehouses_only(planner, hub, factory_site):
    response = planner.post(f"{S}locations/", {"site": hub.pk, "zone": " b ", "aisle": "02"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json() | {"id": 0} == {
        "id": 0,
        "site": hub.pk,
        "site_name": "SG bonded hub",
        "code": "B-02",
        "zone": "B",
        "aisle": "02",
        "rack": "",
        "bin": "",
        "is_active": True,
    }
    refused(planner, f"{S}locations/", {"site": hub.pk, "zone": "B", "aisle": "02"}, "non_field_errors")
    refused(planner, f"{S}locations/", {"site": factory_site.pk, "zone": "A"}, "site")
    refused(planner, f"{S}locations/", {"site": hub.pk, "zone": ""}, "zone")
    location = Location.objects.get(zone="B")
    assert planner.get(f"{S}locations/{location.pk}/").json()["code"] == "B-02"
    assert planner.get(f"{S}locations/{location.pk}/history/").status_code == 200
    assert [
        row["code"] for row in planner.get(f"{S}locations/", {"warehouse": hub.pk}).json()["results"]
    ] == ["B-02"]


# --- moves ---------------------------------------------------------------------------------------


def test_put_away_and_move(floor, receive, bin_a, bin_b, cables_in):
    first, second = receive("SRV-1", "SRV-2")
    response = floor.post(
        f"{S}moves/", {"to_location": bin_a.pk, "units": [second.pk, first.pk]}, format="json"
    )
    assert response.status_code == 201, response.content
    assert [(u["serial"], u["status"], u["location"]["code"]) for u in response.json()["units"]] == [
        ("SRV-1", "available", "A-01-02-03"),
        ("SRV-2", "available", "A-01-02-03"),
    ]
    assert Movement.objects.filter(kind="put_away").count() == 2
    response = floor.post(
        f"{S}moves/", {"to_location": bin_b.pk, "lot": cables_in.pk, "quantity": 25}, format="json"
    )
    assert response.status_code == 201, response.content
    assert (response.json()["lot"]["quantity"], response.json()["lot"]["location"]["code"]) == (
        25,
        "A-01-02-04",
    )
    assert Lot.objects.get(pk=cables_in.pk).quantity == 75


def test_move_refusals_leave_everything_as_it_was(floor, receive, dock, bin_a, plain_bin, cables_in):
    first, second = receive("SRV-1", "SRV-2")
    floor.post(f"{S}moves/", {"to_location": bin_a.pk, "units": [second.pk]}, format="json")
    # The second unit is at bin A already: the first one's move is rolled back with it.
    assert "A-01-02-03" in refused(
        floor, f"{S}moves/", {"to_location": bin_a.pk, "units": [first.pk, second.pk]}, "to_location"
    )
    assert UnitPlacement.objects.get(unit=first).location_id == dock.pk
    refused(floor, f"{S}moves/", {"to_location": plain_bin.pk, "units": [first.pk]}, "to_location")
    refused(floor, f"{S}moves/", {"to_location": dock.pk, "lot": cables_in.pk, "quantity": 101}, "quantity")
    refused(floor, f"{S}moves/", {"to_location": dock.pk, "lot": cables_in.pk}, "quantity")
    refused(
        floor,
        f"{S}moves/",
        {"to_location": dock.pk, "units": [first.pk], "lot": cables_in.pk, "quantity": 1},
        "units",
    )
    refused(floor, f"{S}moves/", {"to_location": dock.pk, "units": [999999]}, "units")


# --- adjustments and counts --------------------------------------------------------------------


def test_adjust_a_lot(floor, cables_in):
    response = floor.post(
        f"{S}adjustments/", {"lot": cables_in.pk, "delta": -2, "reason": "Crushed"}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["lot"]["quantity"] == 98
    assert Movement.objects.filter(kind="adjustment", reason="Crushed").count() == 1
    refused(floor, f"{S}adjustments/", {"lot": cables_in.pk, "delta": -2}, "reason")
    refused(floor, f"{S}adjustments/", {"lot": cables_in.pk, "delta": -2, "reason": " "}, "reason")
    refused(floor, f"{S}adjustments/", {"lot": cables_in.pk, "delta": 0, "reason": "x"}, "delta")
    assert "negative" in refused(
        floor, f"{S}adjustments/", {"lot": cables_in.pk, "delta": -99, "reason": "x"}, "delta"
    )


def test_count_a_location(floor, receive, bin_a, cables_in):
    first, second = receive("SRV-1", "SRV-2", put_away=bin_a)
    body = {"location": bin_a.pk, "serials": ["srv-1"], "lots": [{"lot": cables_in.pk, "counted": 99}]}
    response = floor.post(f"{S}counts/", body, format="json")
    assert response.status_code == 201, response.content
    result = response.json()
    assert result["agrees"] is False
    assert [(c["before"], c["counted"], c["lot"]["quantity"]) for c in result["corrected"]] == [(100, 99, 99)]
    assert [(u["serial"], u["status"]) for u in result["missing"]] == [("SRV-2", "quarantined")]
    assert result["found"] == []


def test_count_refusals(floor, receive, bin_a, bin_b, cables_in):
    receive("SRV-1", put_away=bin_a)
    other = services.lot_receive(
        location=bin_b,
        part=cables_in.part,
        quantity=3,
        owner=cables_in.owner,
        actor=None,
        customs_reference=BOND,
    )
    base = {"location": bin_a.pk, "serials": ["SRV-1"]}
    assert "not at" in refused(
        floor,
        f"{S}counts/",
        {**base, "lots": [{"lot": cables_in.pk, "counted": 100}, {"lot": other.pk, "counted": 3}]},
        "lots",
    )
    assert "not counted" in refused(floor, f"{S}counts/", base, "lots")
    refused(floor, f"{S}counts/", {**base, "lots": [{"lot": cables_in.pk, "counted": -1}]}, "lots")
    refused(
        floor,
        f"{S}counts/",
        {**base, "lots": [{"lot": cables_in.pk, "counted": 1}, {"lot": cables_in.pk, "counted": 1}]},
        "lots",
    )
    assert "NOPE" in refused(
        floor,
        f"{S}counts/",
        {**base, "serials": ["NOPE"], "lots": [{"lot": cables_in.pk, "counted": 100}]},
        "serials",
    )


# --- allocation, picking, dispatch -----------------------------------------------------------------


def test_allocate_pick_and_ship_a_line(floor, planner, receive, bin_a, cables_in, outbound):
    shipment, servers, cables = outbound
    first, second = receive("SRV-1", "SRV-2", put_away=bin_a)
    response = planner.post(
        f"{S}allocations/", {"line": servers.pk, "units": [first.pk, second.pk]}, format="json"
    )
    assert response.status_code == 201, response.content
    assert {u["status"] for u in response.json()["units"]} == {"allocated"}
    assert response.json()["units"][0]["allocated_to"] == {
        "id": servers.pk,
        "shipment": shipment.reference,
        "line_number": servers.line_number,
    }
    response = planner.post(
        f"{S}allocations/", {"line": cables.pk, "lot": cables_in.pk, "quantity": 30}, format="json"
    )
    assert response.status_code == 201, response.content
    [allocation] = response.json()["allocations"]
    assert (allocation["quantity"], allocation["status"], response.json()["lot"]["free"]) == (
        30,
        "allocated",
        70,
    )
    listed = planner.get(f"{S}allocations/").json()["results"]
    assert [a["id"] for a in listed] == [allocation["id"]]

    picked = floor.post(
        f"{S}picks/", {"units": [first.pk, second.pk], "allocations": [allocation["id"]]}, format="json"
    )
    assert picked.status_code == 201, picked.content
    assert {u["status"] for u in picked.json()["units"]} == {"picked"}
    assert picked.json()["allocations"][0]["status"] == "picked"

    # The shipment is a draft: nothing leaves before compliance approves it.
    assert "draft" in refused(floor, f"{S}dispatches/", {"line": servers.pk}, "line")
    approve(shipment)
    shipped = floor.post(f"{S}dispatches/", {"line": servers.pk}, format="json")
    assert shipped.status_code == 201, shipped.content
    assert [(u["status"], u["location"]) for u in shipped.json()["units"]] == [("shipped", None)] * 2
    shipped = floor.post(f"{S}dispatches/", {"line": cables.pk}, format="json")
    assert shipped.status_code == 201, shipped.content
    assert shipped.json()["allocations"][0]["status"] == "shipped"
    assert Lot.objects.get(pk=cables_in.pk).quantity == 70
    assert "Nothing" in refused(floor, f"{S}dispatches/", {"line": servers.pk}, "line")


def test_release_allocated_stock(planner, receive, bin_a, cables_in, outbound):
    _, servers, cables = outbound
    [unit] = receive("SRV-1", put_away=bin_a)
    planner.post(f"{S}allocations/", {"line": servers.pk, "units": [unit.pk]}, format="json")
    allocation = planner.post(
        f"{S}allocations/", {"line": cables.pk, "lot": cables_in.pk, "quantity": 10}, format="json"
    ).json()["allocations"][0]
    response = planner.post(
        f"{S}allocations/release/",
        {"units": [unit.pk], "allocations": [allocation["id"]], "reason": "Order cut"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert [(u["status"], u["allocated_to"]) for u in response.json()["units"]] == [("available", None)]
    assert response.json()["allocations"][0]["status"] == "released"
    assert Lot.objects.get(pk=cables_in.pk).allocated == 0
    assert Movement.objects.filter(kind="release").count() == 2
    assert "available" in refused(planner, f"{S}allocations/release/", {"units": [unit.pk]}, "units")
    assert "released" in refused(
        planner, f"{S}allocations/release/", {"allocations": [allocation["id"]]}, "allocations"
    )
    refused(planner, f"{S}allocations/release/", {}, "units")


def test_allocation_refusals(planner, floor, receive, dock, bin_a, cables_in, outbound, gpu_server):
    _, servers, cables = outbound
    received, a, b = receive("SRV-0"), *receive("SRV-1", "SRV-2", put_away=bin_a)
    [c] = receive("SRV-3", put_away=bin_a)
    assert "received" in refused(
        planner, f"{S}allocations/", {"line": servers.pk, "units": [received[0].pk]}, "units"
    )
    assert "is for 2" in refused(
        planner, f"{S}allocations/", {"line": servers.pk, "units": [a.pk, b.pk, c.pk]}, "units"
    )
    assert "MCP4Y10-N002" in refused(
        planner, f"{S}allocations/", {"line": servers.pk, "lot": cables_in.pk, "quantity": 1}, "lot"
    )
    assert "is for 30" in refused(
        planner, f"{S}allocations/", {"line": cables.pk, "lot": cables_in.pk, "quantity": 31}, "quantity"
    )
    refused(planner, f"{S}allocations/", {"line": 999999, "units": [a.pk]}, "line")
    refused(planner, f"{S}allocations/", {"line": servers.pk}, "units")
    # Picking what is not allocated names the unit.
    assert "SRV-1" in refused(floor, f"{S}picks/", {"units": [a.pk]}, "units")


# --- reads: units, lots, locations, the ledger -----------------------------------------------------


def test_units_list_filters_and_detail(floor, receive, dock, bin_a, gpu_server, hub):
    receive("SRV-1", "SRV-2")
    [moved] = receive("SRV-3", put_away=bin_a)
    rows = floor.get(U).json()["results"]
    assert [r["serial"] for r in rows] == ["SRV-1", "SRV-2", "SRV-3"]

    def listed(**params):
        response = floor.get(U, params)
        assert response.status_code == 200, response.content
        return [r["serial"] for r in response.json()["results"]]

    assert listed(serial="srv-3") == ["SRV-3"]
    assert listed(serial="SRV") == []
    assert listed(search="srv-2") == ["SRV-2"]
    assert listed(status="available") == ["SRV-3"]
    assert listed(location=bin_a.pk) == ["SRV-3"]
    assert listed(location=dock.pk, customs_status="in_bond") == ["SRV-1", "SRV-2"]
    assert listed(warehouse=hub.pk, part=gpu_server.pk) == ["SRV-1", "SRV-2", "SRV-3"]
    assert floor.get(U, {"status": "lost"}).status_code == 400
    assert floor.get(U, {"colour": "red"}).status_code == 400

    detail = floor.get(f"{U}{moved.pk}/").json()
    assert detail["location"]["code"] == "A-01-02-03" and detail["status"] == "available"
    history = floor.get(f"{U}{moved.pk}/history/").json()["results"]
    assert [(h["kind"], h["status_after"]) for h in history] == [
        ("put_away", "available"),
        ("receipt", "received"),
    ]
    assert history[0]["from_location"]["code"] == "RCV" and history[0]["to_location"]["code"] == "A-01-02-03"
    assert history[0]["actor"].startswith("Test User")


def test_lots_locations_and_ledger_lists(floor, cables_in, bin_a, bin_b, hub, receive):
    [unit] = receive("SRV-1")
    lots = floor.get(f"{S}lots/", {"location": bin_a.pk}).json()["results"]
    assert [(lot["id"], lot["quantity"]) for lot in lots] == [(cables_in.pk, 100)]
    assert floor.get(f"{S}lots/{cables_in.pk}/").json()["free"] == 100
    assert floor.get(f"{S}lots/", {"location": bin_b.pk}).json()["results"] == []
    codes = [row["code"] for row in floor.get(f"{S}locations/", {"warehouse": hub.pk}).json()["results"]]
    assert codes == ["A-01-02-03", "A-01-02-04", "RCV"]

    def kinds(**params):
        response = floor.get(f"{S}movements/", params)
        assert response.status_code == 200, response.content
        return [(m["kind"], m["serial"]) for m in response.json()["results"]]

    assert kinds() == [("receipt", "SRV-1"), ("receipt", None)]
    assert kinds(unit=unit.pk) == [("receipt", "SRV-1")]
    assert kinds(part=cables_in.part_id) == [("receipt", None)]
    assert kinds(location=bin_a.pk, kind="receipt") == [("receipt", None)]
    assert kinds(after="2000-01-01", before="2000-01-02") == []
    movement = Movement.objects.get(unit=unit)
    assert floor.get(f"{S}movements/{movement.pk}/").json()["customs_reference"] == BOND


# --- on hand ---------------------------------------------------------------------------------------


def test_on_hand_by_part_location_status_and_customs(
    floor, receive, bin_a, cables_in, outbound, planner, gpu_server
):
    _, _, cables = outbound
    receive("SRV-1", "SRV-2", put_away=bin_a)
    receive("SRV-3")
    planner.post(f"{S}allocations/", {"line": cables.pk, "lot": cables_in.pk, "quantity": 30}, format="json")
    rows = floor.get(f"{S}on-hand/").json()["results"]
    summary = [
        (
            r["part_number"],
            r["location_code"],
            r["kind"],
            r["status"],
            r["customs_status"],
            r["quantity"],
            r["value"],
        )
        for r in rows
    ]
    server = gpu_server.unit_value
    assert summary == [
        ("DGX-H100", "A-01-02-03", "units", "available", "in_bond", 2, f"{server * 2:.2f}"),
        ("DGX-H100", "RCV", "units", "received", "in_bond", 1, f"{server:.2f}"),
        ("MCP4Y10-N002", "A-01-02-03", "lot", "allocated", "in_bond", 30, "5400.00"),
        ("MCP4Y10-N002", "A-01-02-03", "lot", "available", "in_bond", 70, "12600.00"),
    ]
    assert rows[0]["unit_value"] == f"{server:.2f}"
    assert rows[0]["days_in_stock"] == 0 and rows[0]["oldest_received_at"]
    assert rows[0]["warehouse_name"] == "SG bonded hub" and rows[0]["currency"]

    def quantities(**params):
        response = floor.get(f"{S}on-hand/", params)
        assert response.status_code == 200, response.content
        return [(r["status"], r["quantity"]) for r in response.json()["results"]]

    assert quantities(status="allocated") == [("allocated", 30)]
    assert quantities(status="received") == [("received", 1)]
    assert quantities(part=cables_in.part_id) == [("allocated", 30), ("available", 70)]
    assert quantities(location=bin_a.pk, status="available") == [("available", 2), ("available", 70)]
    assert quantities(customs_status="duty_paid") == []
    assert floor.get(f"{S}on-hand/", {"status": "shipped"}).status_code == 400
    assert floor.get(f"{S}on-hand/", {"location": 999999}).status_code == 400


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


# The token (one query), the count and the page: whatever the number of rows. The units list
# reads its page in two (its keys, then its rows: apps/warehouse/paging.py).
LIST_QUERIES = 3


@pytest.mark.parametrize(
    "url", [f"{S}on-hand/", U, f"{S}movements/", f"{S}lots/", f"{S}locations/", f"{S}allocations/"]
)
@pytest.mark.parametrize("client", ["floor", "supplier_user"])
def test_lists_take_as_many_queries_for_3_units_as_for_30(
    request, api_as, receive, bin_a, bin_b, cable, supplier, outbound, url, client, django_assert_num_queries
):
    client = (
        request.getfixturevalue("floor") if client == "floor" else api_as(request.getfixturevalue(client))
    )
    _, servers, cables = outbound
    planner = UserFactory(organisation=Location.objects.first().site.owner, role=Role.COORDINATOR)

    def stock(prefix, n, where):
        units = receive(*[f"{prefix}{i}" for i in range(n)], put_away=where)
        lot = services.lot_receive(
            location=where, part=cable, quantity=5, owner=supplier, actor=None, customs_reference=BOND
        )
        services.lot_allocate(line=cables, lot=lot, quantity=1, actor=planner)
        services.units_allocate(line=servers, units=units[:1], actor=planner)

    stock("A", 3, bin_a)
    client.get(U)  # a token's first use records it
    few = _queries(client, url)
    stock("B", 27, bin_b)
    with django_assert_num_queries(few):
        assert client.get(url).status_code == 200
    assert few == LIST_QUERIES + (url == U)
    assert client.get(url).json()["count"] > 0


# --- scoping -------------------------------------------------------------------------------------


def test_partners_see_their_own_stock_only(api_as, supplier_user, forwarder_user, receive, bin_a, cables_in):
    [unit] = receive("SRV-1", put_away=bin_a)
    movement = Movement.objects.filter(unit=unit).first()
    owner, stranger = api_as(supplier_user), api_as(forwarder_user)
    assert [u["serial"] for u in owner.get(U).json()["results"]] == ["SRV-1"]
    assert owner.get(f"{U}{unit.pk}/history/").json()["count"] == 2
    assert [lot["id"] for lot in owner.get(f"{S}lots/").json()["results"]] == [cables_in.pk]
    assert [loc["code"] for loc in owner.get(f"{S}locations/").json()["results"]] == ["A-01-02-03"]
    assert {r["kind"] for r in owner.get(f"{S}on-hand/").json()["results"]} == {"units", "lot"}
    # The operator's people are "Rackpass staff" to a partner.
    assert owner.get(f"{S}movements/{movement.pk}/").json()["actor"] == "Rackpass staff"
    for path in (U, f"{S}lots/", f"{S}locations/", f"{S}movements/", f"{S}on-hand/", f"{S}allocations/"):
        assert stranger.get(path).json()["results"] == [], path
    for path in (
        f"{U}{unit.pk}/",
        f"{U}{unit.pk}/history/",
        f"{S}lots/{cables_in.pk}/",
        f"{S}locations/{bin_a.pk}/",
        f"{S}locations/{bin_a.pk}/history/",
        f"{S}movements/{movement.pk}/",
    ):
        assert stranger.get(path).status_code == 404, path
    # Another organisation's ids in filters are not choices (the same answer as no such id).
    assert stranger.get(U, {"location": bin_a.pk}).status_code == 400
    assert stranger.get(f"{S}on-hand/", {"location": bin_a.pk}).status_code == 400


def test_the_consignee_sees_stock_held_for_it(api_as, customer, planner, receive, bin_a, cables_in, outbound):
    _, servers, cables = outbound
    consignee = api_as(UserFactory(organisation=customer, role=Role.PARTNER))
    [unit] = receive("SRV-1", put_away=bin_a)
    receive("SRV-2", put_away=bin_a)
    assert consignee.get(U).json()["results"] == []
    planner.post(f"{S}allocations/", {"line": servers.pk, "units": [unit.pk]}, format="json")
    planner.post(f"{S}allocations/", {"line": cables.pk, "lot": cables_in.pk, "quantity": 5}, format="json")
    assert [u["serial"] for u in consignee.get(U).json()["results"]] == ["SRV-1"]
    assert consignee.get(f"{U}{unit.pk}/").json()["allocated_to"]["line_number"] == servers.line_number
    assert [lot["id"] for lot in consignee.get(f"{S}lots/").json()["results"]] == [cables_in.pk]
    assert len(consignee.get(f"{S}allocations/").json()["results"]) == 1
    # Held for it, not its own: it moves nothing.
    assert (
        consignee.post(f"{S}moves/", {"to_location": bin_a.pk, "units": [unit.pk]}, format="json").status_code
        == 403
    )


def test_another_operator_organisation_is_not_a_choice(api_as, warehouse_operator, receive, bin_a):
    """A partner of no standing cannot act even with ids it guessed: 403 before the body is read."""
    outsider = api_as(UserFactory(organisation=OrganisationFactory(), role=Role.PARTNER))
    [unit] = receive("SRV-1")
    before = snapshot()
    assert (
        outsider.post(f"{S}moves/", {"to_location": bin_a.pk, "units": [unit.pk]}, format="json").status_code
        == 403
    )
    assert snapshot() == before
