"""The API of receiving against an advance notice, of discrepancies and of packing (issue 13):
`/api/v1/stock/notice-receipts/`, `/api/v1/stock/discrepancies/`, `/api/v1/stock/packs/`. Every
endpoint, each refusal (400 naming the field with nothing written, 403 without the capability,
404 or an empty list for another organisation) and query counts that do not grow with the rows."""

import pytest
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from rest_framework.request import Request

from apps.accounts.roles import Role
from apps.catalog.models import Unit
from apps.core.models import IdempotencyRecord
from apps.shipments import services as shipments
from apps.shipments.models import LineSerial, Package, Shipment, ShipmentLine, TrackingEvent
from apps.warehouse import services
from apps.warehouse.api.receipts import _packable
from apps.warehouse.api.serializers.receipts import NoticeReceiptRecordSerializer, PackSerializer
from apps.warehouse.models import Discrepancy, Movement, Receipt
from apps.warehouse.services.packing import packable
from apps.warehouse.services.receipts import receipt_record
from tests.factories import UserFactory
from tests.shipments.conftest import crate

from .conftest import BOND

pytestmark = pytest.mark.django_db

S = "/api/v1/stock/"
RECEIPTS = f"{S}notice-receipts/"
DISCREPANCIES = f"{S}discrepancies/"
PACKS = f"{S}packs/"


@pytest.fixture
def floor(api_as, warehouse_operator):
    return api_as(warehouse_operator)


@pytest.fixture
def notice(make_shipment, gpu_server, cable, hub):
    """`notice("QT1", "QT2")`: an inbound shipment in transit to the bonded hub with those servers
    (line 1) and 20 cables (line 2)."""

    def make(*serials):
        shipment = make_shipment(destination=hub)
        servers = shipments.line_add(
            shipment=shipment, part=gpu_server, quantity=len(serials), serials=list(serials)
        )
        cables = shipments.line_add(shipment=shipment, part=cable, quantity=20)
        Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
        shipment.refresh_from_db()
        return shipment, servers, cables

    return make


@pytest.fixture
def inbound(notice):
    return notice("QT1", "QT2", "QT3")


def snapshot():
    """Everything receiving, resolving or packing could write."""
    return (
        Receipt.objects.count(),
        list(Discrepancy.objects.order_by("pk").values_list("resolved_at", flat=True)),
        Movement.objects.count(),
        list(Unit.objects.order_by("pk").values_list("status", "customs_status")),
        list(Shipment.objects.order_by("pk").values_list("status", flat=True)),
        TrackingEvent.objects.count(),
        Package.objects.count(),
        LineSerial.objects.count(),
    )


def refused(client, url, body, field, status=400):
    """A POST refused naming `field`, with nothing written."""
    before = snapshot()
    response = client.post(url, body, format="json")
    assert response.status_code == status, response.content
    assert field in response.json(), response.json()
    assert snapshot() == before, "a refusal wrote something"
    return " ".join(map(str, response.json()[field]))


def results(response):
    assert response.status_code == 200, response.content
    return response.json()["results"]


# --- receipts against a notice ---------------------------------------------------------------------


def test_receive_against_the_notice_with_missing_extra_damaged_and_short(floor, inbound, dock):
    shipment, servers, cables = inbound
    response = floor.post(
        RECEIPTS,
        {
            "shipment": shipment.reference.lower(),  # as typed: references are stored upper case
            "location": dock.pk,
            "scanned": ["QT1", "ZZ9"],
            "damaged": ["qt3"],
            "counted": [{"line": cables.pk, "counted": 18}],
            "customs_reference": BOND,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    receipt = Receipt.objects.get()
    assert body["reference"] == receipt.reference and body["shipment"] == shipment.reference
    assert (body["status"], body["expected_units"], body["received_units"]) == ("open", 3, 2)
    assert body["location"] == {
        "id": dock.pk,
        "code": "RCV",
        "warehouse": dock.site_id,
        "warehouse_name": "SG bonded hub",
    }
    assert (body["leg"], body["leg_sequence"], body["customs_reference"]) == (None, None, BOND)
    assert body["received_by"] and body["open_discrepancies"] == 4
    found = {
        (d["kind"], d["serial"], d["quantity"], d["line_number"], d["is_open"]) for d in body["discrepancies"]
    }
    assert found == {
        ("missing", "QT2", 1, servers.line_number, True),
        ("extra", "ZZ9", 1, None, True),
        ("damaged", "QT3", 1, servers.line_number, True),
        ("short", "", 2, cables.line_number, True),
    }
    assert Unit.objects.get(serial="QT3").status == "quarantined"
    shipment.refresh_from_db()
    assert shipment.status == "delivered"  # through the shipments' own event service
    # The record reads back as the POST answered it.
    assert floor.get(f"{RECEIPTS}{receipt.pk}/").json() == body


def test_receive_one_inbound_leg_at_the_hub(floor, make_shipment, gpu_server, factory_site, hub, dock):
    shipment = make_shipment()  # to the Chennai data centre, through the hub
    line = shipments.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["QT7", "QT8"])
    leg = shipments.leg_add(
        shipment=shipment,
        fields={"role": "inbound", "origin": factory_site, "destination": hub, "mode": "air"},
        lines=[line],
    )
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    body = {
        "shipment": shipment.reference,
        "location": dock.pk,
        "scanned": ["QT7", "QT8"],
        "customs_reference": BOND,
    }
    # Without the leg the shipment does not end here.
    assert "Chennai" in refused(floor, RECEIPTS, body, "location")
    response = floor.post(RECEIPTS, body | {"leg": leg.pk}, format="json")
    assert response.status_code == 201, response.content
    answer = response.json()
    assert (answer["leg"], answer["leg_sequence"], answer["status"]) == (leg.pk, leg.sequence, "closed")
    assert answer["discrepancies"] == [] and answer["received_units"] == 2
    shipment.refresh_from_db()
    assert shipment.status == "in_transit"  # arrived at the hub, not delivered


def test_receipt_refusals_name_the_field_and_write_nothing(
    floor,
    inbound,
    notice,
    dock,
    plain_bin,
    make_shipment,
    factory_site,
    hub,
    gpu_server,
    supplier,
    warehouse_operator,
):
    shipment, servers, cables = inbound
    other, _, other_cables = notice("OT1")
    other_leg = shipments.leg_add(
        shipment=other, fields={"role": "inbound", "origin": factory_site, "destination": hub, "mode": "air"}
    )
    base = {
        "shipment": shipment.reference,
        "location": dock.pk,
        "scanned": ["QT1"],
        "customs_reference": BOND,
    }
    assert "SHP-NOPE" in refused(floor, RECEIPTS, base | {"shipment": "SHP-NOPE"}, "shipment")
    assert "twice" in refused(floor, RECEIPTS, base | {"scanned": ["QT1", "qt1"]}, "scanned")
    assert "twice" in refused(floor, RECEIPTS, base | {"damaged": ["QT3", "qt3"]}, "damaged")
    assert "not a leg" in refused(floor, RECEIPTS, base | {"leg": other_leg.pk}, "leg")
    refused(floor, RECEIPTS, base | {"leg": 999999}, "leg")
    refused(floor, RECEIPTS, base | {"location": plain_bin.pk}, "location")  # not where it goes
    refused(floor, RECEIPTS, base | {"location": 999999}, "location")
    assert "bonded" in refused(floor, RECEIPTS, base | {"customs_reference": ""}, "customs_reference")
    refused(floor, RECEIPTS, base | {"counted": [{"line": cables.pk, "counted": -1}]}, "counted")
    refused(floor, RECEIPTS, base | {"counted": [{"line": other_cables.pk, "counted": 1}]}, "counted")
    twice = [{"line": cables.pk, "counted": 1}, {"line": cables.pk, "counted": 2}]
    assert "twice" in refused(floor, RECEIPTS, base | {"counted": twice}, "counted")
    refused(floor, RECEIPTS, {"location": dock.pk}, "shipment")
    # A serial already in another warehouse (received there before this notice listed it) is
    # named under the body's `scanned`, with where it is.
    services.units_receive(
        location=plain_bin, part=gpu_server, serials=["ST1"], owner=supplier, actor=warehouse_operator
    )
    stocked, _, _ = notice("ST1")
    message = refused(floor, RECEIPTS, base | {"shipment": stocked.reference, "scanned": ["ST1"]}, "scanned")
    assert "Serial ST1 is already in another warehouse (Chennai staging warehouse)." in message
    # A shipment that has not left is not received.
    draft = make_shipment(destination=hub)
    assert "left" in refused(floor, RECEIPTS, base | {"shipment": draft.reference, "scanned": []}, "shipment")


def test_a_repeated_idempotency_key_receives_once(floor, inbound, dock):
    shipment, _, cables = inbound
    body = {
        "shipment": shipment.reference,
        "location": dock.pk,
        "scanned": ["QT1", "QT2", "QT3"],
        "counted": [{"line": cables.pk, "counted": 20}],
        "customs_reference": BOND,
    }
    first = floor.post(RECEIPTS, body, format="json", HTTP_IDEMPOTENCY_KEY="notice-1")
    again = floor.post(RECEIPTS, body, format="json", HTTP_IDEMPOTENCY_KEY="notice-1")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert Receipt.objects.count() == 1 and IdempotencyRecord.objects.count() == 1


def test_receipts_list_filters_and_open_ones_first(floor, notice, dock, warehouse_operator):
    clean, _, clean_cables = notice("CL1")
    short, _, _ = notice("SH1")
    receipt_record(
        shipment=clean, location=dock, scanned=["CL1"], counted={clean_cables.pk: 20},
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    receipt_record(
        shipment=short, location=dock, scanned=[], actor=warehouse_operator, customs_reference=BOND
    )
    rows = results(floor.get(RECEIPTS))
    assert [(r["shipment"], r["status"]) for r in rows] == [
        (short.reference, "open"),
        (clean.reference, "closed"),
    ]
    assert [r["shipment"] for r in results(floor.get(RECEIPTS, {"status": "closed"}))] == [clean.reference]
    assert [r["shipment"] for r in results(floor.get(RECEIPTS, {"shipment": short.reference}))] == [
        short.reference
    ]
    assert [r["shipment"] for r in results(floor.get(RECEIPTS, {"search": clean.reference}))] == [
        clean.reference
    ]
    # A reference that is no choice is named, not answered with an empty list.
    unknown = floor.get(RECEIPTS, {"shipment": "SHP-NOPE"})
    assert unknown.status_code == 400 and "shipment" in unknown.json()


# --- discrepancies -----------------------------------------------------------------------------------


@pytest.fixture
def received(inbound, dock, warehouse_operator):
    """The inbound shipment received with QT2 missing, QT3 damaged, ZZ9 extra, 2 cables short."""
    shipment, _, cables = inbound
    receipt = receipt_record(
        shipment=shipment, location=dock, scanned=["QT1", "ZZ9"], damaged=["QT3"], counted={cables.pk: 18},
        actor=warehouse_operator, customs_reference=BOND,
    )  # fmt: skip
    return receipt, {d.kind: d for d in receipt.discrepancies.all()}


def test_discrepancies_list_filters_and_detail(floor, received, notice, dock, warehouse_operator):
    receipt, by_kind = received
    other, _, _ = notice("OT1")
    receipt_record(
        shipment=other, location=dock, scanned=[], actor=warehouse_operator, customs_reference=BOND
    )
    assert len(results(floor.get(DISCREPANCIES))) == 6  # four here, the other's missing unit and short cables
    mine = results(floor.get(DISCREPANCIES, {"shipment": receipt.shipment.reference}))
    assert {d["kind"] for d in mine} == {"missing", "extra", "damaged", "short"}
    assert {d["receipt_reference"] for d in mine} == {receipt.reference}
    assert [
        d["serial"] for d in results(floor.get(DISCREPANCIES, {"kind": "missing", "receipt": receipt.pk}))
    ] == ["QT2"]
    unknown = floor.get(DISCREPANCIES, {"shipment": "SHP-NOPE"})
    assert unknown.status_code == 400 and "shipment" in unknown.json()
    detail = floor.get(f"{DISCREPANCIES}{by_kind['damaged'].pk}/").json()
    assert (detail["kind"], detail["serial"], detail["shipment"], detail["is_open"]) == (
        "damaged",
        "QT3",
        receipt.shipment.reference,
        True,
    )
    # Only a receipt makes a discrepancy.
    assert floor.post(DISCREPANCIES, {}, format="json").status_code == 405


def test_resolve_each_kind_until_the_receipt_closes(floor, received):
    receipt, by_kind = received
    url = lambda kind: f"{DISCREPANCIES}{by_kind[kind].pk}/resolve/"  # noqa: E731
    response = floor.post(url("missing"), {"resolution": "On the next pallet", "found": True}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["is_open"], body["resolution"], body["resolved_at"] is not None) == (
        False,
        "On the next pallet",
        True,
    )
    assert body["resolved_by"]
    assert Unit.objects.get(serial="QT2").status == "received"
    response = floor.post(url("damaged"), {"resolution": "Tested fine", "release": True}, format="json")
    assert response.status_code == 201, response.content
    assert Unit.objects.get(serial="QT3").status == "available"
    assert (
        floor.post(url("extra"), {"resolution": "Returned to the carrier"}, format="json").status_code == 201
    )
    assert results(floor.get(DISCREPANCIES, {"open": "true"}))[0]["kind"] == "short"
    assert len(results(floor.get(DISCREPANCIES, {"open": "false"}))) == 3
    assert floor.get(f"{RECEIPTS}{receipt.pk}/").json()["status"] == "open"
    assert floor.post(url("short"), {"resolution": "Claim filed"}, format="json").status_code == 201
    answer = floor.get(f"{RECEIPTS}{receipt.pk}/").json()
    assert (answer["status"], answer["open_discrepancies"], answer["received_units"]) == ("closed", 0, 3)


def test_resolve_refusals_name_the_field_and_write_nothing(floor, received):
    _, by_kind = received
    missing = f"{DISCREPANCIES}{by_kind['missing'].pk}/resolve/"
    refused(floor, missing, {"resolution": "  "}, "resolution")
    refused(floor, missing, {}, "resolution")
    assert "damaged" in refused(floor, missing, {"resolution": "ok", "release": True}, "release")
    extra = f"{DISCREPANCIES}{by_kind['extra'].pk}/resolve/"
    assert "missing" in refused(floor, extra, {"resolution": "ok", "found": True}, "found")
    assert floor.post(extra, {"resolution": "Returned"}, format="json").status_code == 201
    assert "already" in refused(floor, extra, {"resolution": "Again"}, "resolution")
    assert (
        floor.post(f"{DISCREPANCIES}999999/resolve/", {"resolution": "x"}, format="json").status_code == 404
    )


# --- packing ---------------------------------------------------------------------------------------


@pytest.fixture
def picked(receive, bin_a, outbound, warehouse_operator):
    """PK1–PK4 put away; PK1 and PK2 allocated to the outbound server line and picked, PK3
    allocated only, PK4 free."""
    shipment, servers, _ = outbound
    ShipmentLine.objects.filter(pk=servers.pk).update(quantity=3)  # room for PK3 too
    servers.refresh_from_db()
    units = receive("PK1", "PK2", "PK3", "PK4", put_away=bin_a)
    services.units_allocate(line=servers, units=units[:3], actor=warehouse_operator)
    services.units_pick(units=units[:2], actor=warehouse_operator)
    return shipment, servers, units


def test_pack_picked_units_into_a_package(floor, picked):
    shipment, servers, units = picked
    rows = results(floor.get(PACKS, {"shipment": shipment.reference}))
    assert [(r["serial"], r["line"], r["line_number"], r["location_code"]) for r in rows] == [
        ("PK1", servers.pk, 1, "A-01-02-03"),
        ("PK2", servers.pk, 1, "A-01-02-03"),
    ]
    assert [r["unit"] for r in rows] == [p.unit_id for p in packable(shipment)]  # the service's list
    assert results(floor.get(PACKS)) == rows  # every shipment's: only this one has picked units
    response = floor.post(
        PACKS,
        {"shipment": shipment.reference, "units": [units[0].pk], **crate(), "marks": "Chennai 1/2"},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    package = body["package"]
    assert body["shipment"] == shipment.reference
    assert (package["number"], package["package_type"], package["serials"], package["items"]) == (
        1,
        "crate",
        ["PK1"],
        [{"line": 1, "quantity": 1}],
    )
    assert (package["gross_kg"], package["net_kg"], package["marks"]) == ("300.00", "260.00", "Chennai 1/2")
    assert list(LineSerial.objects.filter(line=servers).values_list("unit__serial", flat=True)) == ["PK1"]
    assert [r["serial"] for r in results(floor.get(PACKS, {"shipment": shipment.reference}))] == ["PK2"]


def test_pack_refusals_name_the_field_and_write_nothing(floor, picked, notice, warehouse_operator):
    shipment, servers, units = picked
    base = {"shipment": shipment.reference, **crate()}
    assert "not allocated" in refused(floor, PACKS, base | {"units": [units[3].pk]}, "units")  # PK4
    assert "pick it first" in refused(floor, PACKS, base | {"units": [units[2].pk]}, "units")  # PK3
    refused(floor, PACKS, base | {"units": []}, "units")
    refused(floor, PACKS, base | {"units": [999999]}, "units")
    refused(floor, PACKS, base | {"units": [units[0].pk], "net_kg": "400"}, "net_kg")
    refused(floor, PACKS, base | {"units": [units[0].pk], "package_type": "barrel"}, "package_type")
    refused(floor, PACKS, base | {"units": [units[0].pk], "shipment": "SHP-NOPE"}, "shipment")
    # Picked for this shipment, not for another one.
    other, _, _ = notice("OT1")
    Shipment.objects.filter(pk=other.pk).update(status="draft")
    assert "not allocated" in refused(
        floor, PACKS, base | {"shipment": other.reference, "units": [units[0].pk]}, "units"
    )
    # Once booked, packing no longer changes.
    Shipment.objects.filter(pk=shipment.pk).update(status="booked")
    assert "booking" in refused(floor, PACKS, base | {"units": [units[0].pk]}, "shipment")
    unknown = floor.get(PACKS, {"shipment": "SHP-NOPE"})
    assert unknown.status_code == 400 and "shipment" in unknown.json()


def test_the_packable_queryset_is_the_services_list(picked, floor):
    shipment, _, units = picked
    floor.post(PACKS, {"shipment": shipment.reference, "units": [units[1].pk], **crate()}, format="json")
    assert [p.pk for p in _packable()] == [p.pk for p in packable(shipment)]


# --- capabilities and organisations --------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "method", "url", "allowed"),
    [
        (Role.COORDINATOR, "post", RECEIPTS, False),
        (Role.COMPLIANCE_OFFICER, "post", RECEIPTS, False),
        (Role.COORDINATOR, "get", RECEIPTS, True),
        (Role.PARTNER, "get", RECEIPTS, True),
        (Role.COORDINATOR, "get", DISCREPANCIES, True),
        (Role.COORDINATOR, "post", PACKS, False),
        (Role.COORDINATOR, "get", PACKS, False),
        (Role.PARTNER, "get", PACKS, False),
        (Role.WAREHOUSE_OPERATOR, "post", RECEIPTS, True),
        (Role.WAREHOUSE_OPERATOR, "post", PACKS, True),
        (Role.ADMIN, "get", PACKS, True),
    ],
)
def test_each_endpoint_needs_its_capability(api_as, operator, supplier, role, method, url, allowed):
    organisation = supplier if role == Role.PARTNER else operator
    client = api_as(UserFactory(organisation=organisation, role=role))
    response = getattr(client, method)(url, {}, format="json") if method == "post" else client.get(url)
    # With the capability an empty body is read (and refused); without it nothing is read.
    assert response.status_code == ((400 if method == "post" else 200) if allowed else 403), response.content


@pytest.mark.parametrize("role", [Role.COORDINATOR, Role.COMPLIANCE_OFFICER])
def test_resolving_needs_stock_operate(api_as, operator, received, role):
    _, by_kind = received
    client = api_as(UserFactory(organisation=operator, role=role))
    before = snapshot()
    response = client.post(
        f"{DISCREPANCIES}{by_kind['extra'].pk}/resolve/", {"resolution": "x"}, format="json"
    )
    assert response.status_code == 403 and snapshot() == before
    assert client.get(f"{DISCREPANCIES}{by_kind['extra'].pk}/").status_code == 200  # stock.view reads


def test_a_party_reads_its_receipts_and_another_organisation_nothing(
    api_as, supplier_user, forwarder_user, received
):
    receipt, by_kind = received
    shipper, stranger = api_as(supplier_user), api_as(forwarder_user)
    assert [r["reference"] for r in results(shipper.get(RECEIPTS))] == [receipt.reference]
    assert len(results(shipper.get(DISCREPANCIES))) == 4
    # The operator's people are "Rackpass staff" to a partner.
    assert shipper.get(f"{RECEIPTS}{receipt.pk}/").json()["received_by"] == "Rackpass staff"
    assert results(stranger.get(RECEIPTS)) == [] and results(stranger.get(DISCREPANCIES)) == []
    assert stranger.get(f"{RECEIPTS}{receipt.pk}/").status_code == 404
    assert stranger.get(f"{DISCREPANCIES}{by_kind['missing'].pk}/").status_code == 404
    for history in (f"{RECEIPTS}{receipt.pk}/history/", f"{DISCREPANCIES}{by_kind['missing'].pk}/history/"):
        assert shipper.get(history).status_code == 200, history
        assert stranger.get(history).status_code == 404, history
    # Another organisation's reference is no choice: the same answer as an unknown one.
    refused_filter = stranger.get(RECEIPTS, {"shipment": receipt.shipment.reference})
    assert refused_filter.status_code == 400 and "shipment" in refused_filter.json()
    before = snapshot()
    assert (
        stranger.post(
            f"{DISCREPANCIES}{by_kind['missing'].pk}/resolve/", {"resolution": "x"}, format="json"
        ).status_code
        == 403
    )
    assert stranger.post(PACKS, {}, format="json").status_code == 403
    assert snapshot() == before


def test_a_partner_chooses_no_shipment_it_may_not_change(forwarder_user, supplier_user, inbound, dock):
    """The bodies' choices are scoped (were a partner ever given the capability): the shipment by
    reference among those it may change, its legs and lines likewise."""
    shipment, _, cables = inbound

    def choices(user, serializer_class):
        request = Request(RequestFactory().post("/"))
        request.user = user
        fields = serializer_class(context={"request": request}).fields
        return fields

    stranger = choices(forwarder_user, NoticeReceiptRecordSerializer)
    assert not stranger["shipment"].get_queryset().filter(pk=shipment.pk).exists()
    assert not stranger["counted"].child.fields["line"].get_queryset().filter(pk=cables.pk).exists()
    assert (
        not choices(forwarder_user, PackSerializer)["shipment"].get_queryset().filter(pk=shipment.pk).exists()
    )
    # The shipper owns nothing of the operator's shipment's stock but may change its own shipment.
    assert (
        choices(supplier_user, NoticeReceiptRecordSerializer)["shipment"]
        .get_queryset()
        .filter(pk=shipment.pk)
        .exists()
    )


# --- query counts ----------------------------------------------------------------------------------


def _queries(client, url, params=None) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, params or {}).status_code == 200
    return len(queries)


@pytest.mark.parametrize(("url", "expected"), [(RECEIPTS, 4), (DISCREPANCIES, 3)])
@pytest.mark.parametrize("who", ["warehouse_operator", "supplier_user"])
def test_receipt_lists_take_as_many_queries_for_one_receipt_as_for_four(
    request, api_as, notice, dock, warehouse_operator, url, expected, who, django_assert_num_queries
):
    client = api_as(request.getfixturevalue(who))

    def receive(serial):
        shipment, _, _ = notice(serial, f"{serial}-B")
        receipt_record(
            shipment=shipment, location=dock, scanned=[serial, f"X-{serial}"], damaged=[f"{serial}-B"],
            actor=warehouse_operator, customs_reference=BOND,
        )  # fmt: skip

    receive("N1")
    client.get(url)  # a token's first use records it
    few = _queries(client, url)
    for serial in ("N2", "N3", "N4"):
        receive(serial)
    with django_assert_num_queries(few):
        assert len(results(client.get(url))) == (4 if url == RECEIPTS else 12)
    # The token, the count and the page (and, for receipts, their discrepancies).
    assert few == expected


def test_the_packable_list_takes_as_many_queries_for_two_units_as_for_twelve(
    floor, receive, bin_a, outbound, warehouse_operator, django_assert_num_queries
):
    shipment, servers, _ = outbound
    ShipmentLine.objects.filter(pk=servers.pk).update(quantity=12)  # room for twelve servers
    servers.refresh_from_db()

    def pick(*serials):
        units = receive(*serials, put_away=bin_a)
        services.units_allocate(line=servers, units=units, actor=warehouse_operator)
        services.units_pick(units=units, actor=warehouse_operator)

    pick("P1", "P2")
    floor.get(PACKS)  # a token's first use records it
    few = _queries(floor, PACKS, {"shipment": shipment.reference})
    pick(*[f"P{i}" for i in range(3, 13)])
    with django_assert_num_queries(few):
        assert len(results(floor.get(PACKS, {"shipment": shipment.reference}))) == 12
    # The token, the shipment of the filter, the count and the page.
    assert few == 4
