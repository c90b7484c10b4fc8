"""Coverage of a cluster's bill of materials: per line, on order, in stock, shipped, delivered —
from the shipments linked to the design (`ClusterShipment`) and the warehouse's lots and units —
in a constant number of queries; another organisation refused on every endpoint."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import OrganisationKind
from apps.catalog.models import Unit
from apps.clusters import services
from apps.clusters.models import ClusterShipment
from apps.clusters.services.coverage import cluster_coverage, cluster_shipment_link, cluster_shipment_unlink
from apps.shipments import services as shipments
from apps.shipments.models import Shipment, Site
from apps.warehouse import services as warehouse
from apps.warehouse.models import Lot, LotAllocation, UnitPlacement
from tests.factories import OrganisationFactory, PartFactory, UserFactory

from .builders import design_fields
from .test_compliance_summary import hand_bom

API = "/api/v1/clusters/"


@pytest.fixture
def supplier_factory(supplier):
    return Site.objects.create(
        owner=supplier, name="Guishan factory", kind="factory", city="Taoyuan", country="TW"
    )


@pytest.fixture
def staging(operator):
    return Site.objects.create(
        owner=operator, name="Chennai staging warehouse", kind="warehouse", city="Chennai", country="IN"
    )


@pytest.fixture
def shelf(staging):
    return warehouse.location_create(site=staging, zone="A", aisle="01")


@pytest.fixture
def ship(coordinator, supplier, customer, supplier_factory, dc, design):
    """`ship(status, (part, quantity), …, to=site, link=True)`: a shipment of the design's goods
    in `status`. The status is set directly: the shipment flow has tests of its own."""

    def make(status, *lines, to=None, link=True, held_from="", consignee=None):
        today = timezone.localdate()
        shipment = shipments.shipment_create(
            actor=coordinator,
            fields={
                "origin": supplier_factory, "destination": to or dc, "incoterm": "DAP",
                "incoterm_place": "Chennai", "mode": "air", "end_use": "AI training cluster",
                "ready_date": today, "required_by": today + dt.timedelta(days=30),
            },
            parties={"shipper": supplier, "consignee": consignee or customer},
        )  # fmt: skip
        made = [shipments.line_add(shipment=shipment, part=part, quantity=n) for part, n in lines]
        Shipment.objects.filter(pk=shipment.pk).update(status=status, held_from=held_from)
        if link:
            cluster_shipment_link(design=design, shipment=shipment, actor=coordinator)
        return shipment, made

    return make


@pytest.fixture
def bom(design, parts):
    return hand_bom(
        design,
        [
            ("system", parts["system"], 64),
            ("compute_leaf", parts["switch"], 16),
            ("storage_leaf", parts["switch"], 2),
            ("compute_node_optic", parts["optic"], 100),
            ("rack", parts["rack"], 11),
        ],
    )


def _unit(part, owner, serial: str, location, line=None) -> UnitPlacement:
    unit = Unit.objects.create(
        part=part, manufacturer=part.manufacturer, serial=serial, owner=owner, status="available"
    )
    return UnitPlacement.objects.create(unit=unit, location=location, line=line)


@pytest.fixture
def flows(ship, parts, operator, staging, shelf, customer, supplier):
    """Shipments in every stage and stock in the warehouse for the cluster (see each line)."""
    system, optic, switch = parts["system"], parts["optic"], parts["switch"]
    draft, (systems_line, optics_line) = ship("draft", (system, 10), (optic, 40))
    ship("on_hold", (system, 4), held_from="booked")  # held before leaving: still on order
    ship("in_transit", (system, 20), (switch, 17))
    ship("delivered", (system, 30))
    ship("cancelled", (system, 5))  # counts nowhere
    feeder, _ = ship("in_transit", (system, 3), to=staging, consignee=operator)  # to the hub, not the site
    ship("draft", (system, 9), link=False)  # another customer's order to the same site: not the cluster's
    # 10 optics of the supplier's set aside for the draft's optics line; the customer's own free
    # optics (25, 4 of them taken by some other shipment).
    supplier_lot = Lot.objects.create(
        part=optic, location=shelf, owner=supplier, customs_status="duty_paid", quantity=10, allocated=10
    )
    LotAllocation.objects.create(lot=supplier_lot, line=optics_line, quantity=10)
    Lot.objects.create(
        part=optic, location=shelf, owner=customer, customs_status="duty_paid", quantity=25, allocated=4
    )
    # A released allocation counts nowhere.
    released_lot = Lot.objects.create(
        part=optic, location=shelf, owner=supplier, customs_status="in_bond", quantity=5
    )
    LotAllocation.objects.create(lot=released_lot, line=optics_line, quantity=5, status="released")
    # One server of the customer's in the warehouse, one of the supplier's allocated to the draft.
    _unit(system, customer, "SN-CUST-1", shelf)
    _unit(system, supplier, "SN-SUP-1", shelf, line=systems_line)
    _unit(system, supplier, "SN-SUP-FREE", shelf)  # the supplier's, for no one: not counted
    return {"draft": draft, "feeder": feeder}


def by_role(coverage) -> dict:
    return {line.role: line for line in coverage.lines}


def test_each_line_counts_on_order_in_stock_shipped_and_delivered(design, bom, flows, coordinator):
    coverage = cluster_coverage(design, bom, reader=coordinator)
    lines = by_role(coverage)
    system = lines["system"]
    # On order: 10 (draft) + 4 (held while booked) − 1 already in the warehouse for the draft.
    assert (system.on_order, system.in_stock, system.shipped, system.delivered) == (13, 2, 20, 30)
    assert system.outstanding == 0 and system.surplus == 1
    optic = lines["compute_node_optic"]
    # 40 on the draft, 10 of them in stock for it; 21 of the customer's own free.
    assert (optic.on_order, optic.in_stock, optic.shipped, optic.delivered) == (30, 31, 0, 0)
    assert optic.outstanding == 39
    # One part on two lines: the 17 in transit fill the first line, then the second.
    leaf, storage = lines["compute_leaf"], lines["storage_leaf"]
    assert (leaf.shipped, leaf.outstanding, storage.shipped, storage.outstanding) == (16, 0, 1, 1)
    assert leaf.shares_part and storage.shares_part and not system.shares_part
    assert lines["rack"].outstanding == 11 and lines["rack"].covered == 0

    totals = coverage.totals
    assert totals["outstanding"] == 39 + 1 + 11 and totals["lines_uncovered"] == 3
    assert totals["lines_waiting"] == 5
    stages = {s.reference: (s.stage, s.counted) for s in coverage.shipments}
    assert len(stages) == 6  # the unlinked one is not the cluster's
    assert stages[flows["feeder"].reference] == ("shipped", False)
    assert sorted(stage for stage, _ in stages.values()) == [
        "cancelled", "delivered", "on_order", "on_order", "shipped", "shipped",
    ]  # fmt: skip
    as_dict = coverage.as_dict()
    assert "installed" not in as_dict["lines"][0] and "not recorded" in as_dict["installed_note"]


def test_no_bom_no_lines(design, coordinator):
    coverage = cluster_coverage(design, reader=coordinator)
    assert coverage.bom is None and coverage.lines == [] and coverage.totals["outstanding"] == 0


def test_the_query_count_does_not_grow_with_the_bom_the_shipments_or_the_stock(
    design, bom, ship, parts, shelf, customer, coordinator, django_assert_num_queries
):
    ship("draft", (parts["system"], 2))
    with django_assert_num_queries(7):
        small = cluster_coverage(design, bom, reader=coordinator)
    with django_assert_num_queries(8):  # the newest version looked up first
        cluster_coverage(design, reader=coordinator)
    # Ten more lines of new parts, a dozen more shipments in every stage, lots and units.
    extra = [PartFactory(owner=parts["system"].owner, part_number=f"X-{n}") for n in range(10)]
    for n, part in enumerate(extra):
        bom.lines.create(part=part, role="rack", quantity=n + 1, engine_quantity=n + 1)
        Lot.objects.create(part=part, location=shelf, owner=customer, customs_status="duty_paid", quantity=3)
    for status in ("draft", "booked", "in_transit", "at_customs", "delivered", "cancelled") * 2:
        ship(status, (parts["system"], 1), (parts["optic"], 2), *[(p, 1) for p in extra[:3]])
    for n in range(5):
        _unit(parts["system"], customer, f"SN-{n}", shelf)
    with django_assert_num_queries(7):
        large = cluster_coverage(design, bom, reader=coordinator)
    assert len(large.lines) == len(small.lines) + 10 and len(large.shipments) == 13
    assert by_role(large)["system"].in_stock == 5


def test_the_api_answers_in_the_same_number_of_queries_whatever_the_size(
    api_as, coordinator, design, bom, ship, parts
):
    api = api_as(coordinator)
    url = f"{API}{design.pk}/coverage/"
    ship("draft", (parts["system"], 2))
    api.get(url)  # warm the token and content-type caches
    with CaptureQueriesContext(connection) as few:
        answer = api.get(url)
    assert answer.status_code == 200
    for status in ("draft", "in_transit", "delivered") * 3:
        ship(status, (parts["system"], 1), (parts["switch"], 1))
    with CaptureQueriesContext(connection) as many:
        answer = api.get(url)
    assert len(many) == len(few)
    body = answer.json()
    system = next(line for line in body["lines"] if line["role"] == "system")
    assert (system["on_order"], system["shipped"], system["delivered"]) == (5, 3, 3)
    assert body["bom_version"] == 1 and len(body["shipments"]) == 10 and body["hidden_shipments"] == 0


def test_an_older_version_and_a_bad_one(api_as, coordinator, design, bom, parts):
    newer = hand_bom(design, [("rack", parts["rack"], 12)])
    api = api_as(coordinator)
    url = f"{API}{design.pk}/coverage/"
    assert api.get(url).json()["bom_version"] == newer.version
    old = api.get(url, {"bom_version": 1}).json()
    assert old["bom_version"] == 1 and len(old["lines"]) == 5
    missing = api.get(url, {"bom_version": 9})
    assert missing.status_code == 400 and "version 9" in missing.json()["bom_version"][0]
    assert api.get(url, {"bom_version": "nine"}).status_code == 400
    unknown = api.get(url, {"colour": "red"})
    assert unknown.status_code == 400 and "colour" in unknown.json()


# --- links -----------------------------------------------------------------------------------------


def test_a_shipment_serves_one_cluster(operator, coordinator, design, parts, customer, dc, ship):
    shipment, _ = ship("draft", (parts["system"], 1))
    again = cluster_shipment_link(design=design, shipment=shipment)
    assert ClusterShipment.objects.filter(shipment=shipment).count() == 1 and again.design == design
    other = services.design_create(
        owner=operator,
        fields=design_fields(parts, customer=customer, site=dc, name="Second"),
        actor=coordinator,
    )
    with pytest.raises(ValidationError) as refused:
        cluster_shipment_link(design=other, shipment=shipment)
    assert "another cluster design" in refused.value.message_dict["shipment"][0]
    cluster_shipment_unlink(design=design, shipment=shipment)
    assert not ClusterShipment.objects.exists()
    with pytest.raises(ValidationError):
        cluster_shipment_unlink(design=design, shipment=shipment)


# --- who may ---------------------------------------------------------------------------------------


@pytest.fixture
def outsider(db):
    org = OrganisationFactory(kind=OrganisationKind.CUSTOMER, legal_name="Bravo Compute", country="SG")
    return UserFactory(organisation=org, role="partner", username="bravo")


def test_another_organisation_is_refused_on_every_endpoint(api_as, browser_as, outsider, design, bom, flows):
    assert api_as(outsider).get(f"{API}{design.pk}/coverage/").status_code == 404
    b_admin = UserFactory(organisation=outsider.organisation, role="admin", username="bravo-admin")
    assert api_as(b_admin).get(f"{API}{design.pk}/coverage/").status_code == 404
    page = reverse("clusters:coverage-panel", args=[design.pk])
    assert browser_as(outsider).get(page).status_code == 404
    assert browser_as(b_admin).get(page).status_code == 404


def test_the_customer_reads_the_shipments_it_is_a_party_to_and_how_many_others(
    api_as, browser_as, design, bom, flows, customer
):
    partner = UserFactory(organisation=customer, role="partner", username="chennai")
    body = api_as(partner).get(f"{API}{design.pk}/coverage/").json()
    references = {s["reference"] for s in body["shipments"]}
    assert flows["feeder"].reference not in references and body["hidden_shipments"] == 1
    assert len(references) == 5
    assert next(line for line in body["lines"] if line["role"] == "system")["shipped"] == 20
    shown = browser_as(partner).get(reverse("clusters:coverage-panel", args=[design.pk])).content.decode()
    assert flows["feeder"].reference not in shown
    assert "1 more shipment you are no party to (not counted)" in shown
    assert flows["draft"].reference in shown and "Still to order" in shown


def test_the_panel_is_on_the_design_page_and_loads(browser_as, coordinator, design, bom, flows):
    browser = browser_as(coordinator)
    page = browser.get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
    for url in (
        reverse("clusters:coverage-panel", args=[design.pk]),
        reverse("clusters:compliance-summary-panel", args=[design.pk]),
    ):
        assert f'hx-get="{url}"' in page
    panel = browser.get(reverse("clusters:coverage-panel", args=[design.pk]))
    assert panel.status_code == 200 and b"3 lines not covered" in panel.content
    bad = browser.get(reverse("clusters:coverage-panel", args=[design.pk]), {"bom_version": "7"})
    assert bad.status_code == 400 and "no such version" in bad.content.decode()


# --- coverage counts what its reader may see ---------------------------------------------------------


def test_a_forwarder_naming_a_supplier_as_customer_reads_none_of_its_stock(
    api_as, browser_as, forwarder, forwarder_user, supplier, supplier_user, parts, dc, shelf, coordinator
):
    """A design's customer need not be the reader: a forwarder that names a supplier as its
    design's customer reads in coverage what its own on-hand reads of the supplier's stock
    (nothing), not the supplier's free units and lots."""
    design = services.design_create(
        owner=forwarder, fields=design_fields(parts, customer=supplier, site=dc, name="Forwarder's"),
        actor=forwarder_user,
    )  # fmt: skip
    hand_bom(design, [("system", parts["system"], 64), ("compute_node_optic", parts["optic"], 100)])
    for n in range(3):
        _unit(parts["system"], supplier, f"SN-SUPPLIER-{n}", shelf)
    Lot.objects.create(
        part=parts["optic"], location=shelf, owner=supplier, customs_status="duty_paid", quantity=12_005
    )

    on_hand = api_as(forwarder_user).get("/api/v1/stock/on-hand/").json()
    assert on_hand["count"] == 0
    body = api_as(forwarder_user).get(f"{API}{design.pk}/coverage/").json()
    assert [line["in_stock"] for line in body["lines"]] == [0, 0] and body["totals"]["in_stock"] == 0
    panel = browser_as(forwarder_user).get(reverse("clusters:coverage-panel", args=[design.pk]))
    assert "12,005" not in panel.content.decode() and "12005" not in panel.content.decode()
    # The supplier (the design's customer) and the operator's staff read the same stock.
    assert api_as(supplier_user).get(f"{API}{design.pk}/coverage/").json()["totals"]["in_stock"] == 12_008
    assert cluster_coverage(design, reader=coordinator).totals["in_stock"] == 12_008


def test_a_shipment_the_reader_is_no_party_to_is_neither_listed_nor_counted(
    api_as, design, bom, ship, parts, supplier, operator, customer
):
    """The customer reads the cluster's shipments it is a party to; one to the site it is no party
    to (here the operator's own consignment) is neither listed nor counted, only said to exist."""
    ship("in_transit", (parts["system"], 7), consignee=operator)
    ship("in_transit", (parts["system"], 2))
    partner = UserFactory(organisation=customer, role="partner", username="chennai-reader")
    body = api_as(partner).get(f"{API}{design.pk}/coverage/").json()
    system = next(line for line in body["lines"] if line["role"] == "system")
    assert system["shipped"] == 2 and body["hidden_shipments"] == 1 and len(body["shipments"]) == 1
    staff = cluster_coverage(design, bom, reader=UserFactory(organisation=operator, role="coordinator"))
    assert by_role(staff)["system"].shipped == 9 and staff.hidden_shipments == 0
