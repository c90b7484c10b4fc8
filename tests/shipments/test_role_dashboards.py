"""The coordinator and a partner land on their own work. The coordinator: shipments late against
their required date, approved ones waiting for documents, those ready to book. A partner: its
open shipments and the milestones it owes as forwarder, never another organisation's. Every
tile's number is the number of rows on the list it links to, in a fixed number of queries."""

import datetime as dt
import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.documents.models import Document, DocumentStatus, DocumentType
from apps.shipments.models import Shipment, ShipmentStatus
from tests.dashboard_tiles import rows_behind, tiles
from tests.factories import OrganisationFactory

from .conftest import TODAY

COORDINATOR_TILES = ["late against their required date", "waiting for documents", "ready to book"]
_numbers = itertools.count(1)


def at(shipment, status, **fields):
    """Put `shipment` in `status` as the tiles read it (the workflow is tested elsewhere)."""
    extra = {"held_from": ShipmentStatus.IN_TRANSIT} if status == ShipmentStatus.ON_HOLD else {}
    Shipment.objects.filter(pk=shipment.pk).update(status=status, **extra, **fields)
    shipment.refresh_from_db()
    return shipment


def document(shipment, doc_type, status=DocumentStatus.ISSUED):
    n = next(_numbers)
    return Document.objects.create(
        shipment=shipment,
        doc_type=doc_type,
        number=f"T-{n:06d}",
        version=1,
        status=status,
        pdf=f"documents/t{n}.pdf",
        sha256="0" * 64,
        size=1,
        page_count=1,
        data={},
    )


def issued_basics(shipment):
    document(shipment, DocumentType.COMMERCIAL_INVOICE)
    document(shipment, DocumentType.PACKING_LIST)


@pytest.fixture
def coordinator_world(make_shipment):
    no_documents = at(make_shipment(), ShipmentStatus.APPROVED)
    ready = at(make_shipment(), ShipmentStatus.APPROVED)
    issued_basics(ready)
    draft_waiting = at(make_shipment(), ShipmentStatus.APPROVED)
    issued_basics(draft_waiting)
    document(draft_waiting, DocumentType.END_USER_STATEMENT, DocumentStatus.DRAFT)
    booked = at(make_shipment(), ShipmentStatus.BOOKED)
    issued_basics(booked)
    late = at(make_shipment(), ShipmentStatus.IN_TRANSIT, eta=TODAY + dt.timedelta(days=60))
    # Delivered late is history, not work: not on the late tile.
    at(make_shipment(), ShipmentStatus.DELIVERED, eta=TODAY + dt.timedelta(days=60))
    return {"waiting": {no_documents, draft_waiting}, "ready": {ready}, "late": {late}}


def references(client, tile) -> set[str]:
    return {s.reference for s in client.get(tile.url).context["page_obj"].paginator.object_list}


def test_the_coordinator_lands_on_late_waiting_for_documents_and_ready_to_book(
    coordinator_world, coordinator, browser_as
):
    client = browser_as(coordinator)
    found = tiles(client.get("/"))
    assert [label for label in found if label in COORDINATOR_TILES] == COORDINATOR_TILES
    expected = {
        "late against their required date": coordinator_world["late"],
        "waiting for documents": coordinator_world["waiting"],
        "ready to book": coordinator_world["ready"],
    }
    for label, shipments in expected.items():
        assert found[label].count == len(shipments) == rows_behind(client, found[label]), label
        assert references(client, found[label]) == {s.reference for s in shipments}, label
    assert found["open shipments"].count == rows_behind(client, found["open shipments"]) == 5


def test_the_coordinators_dashboard_costs_the_same_queries_with_more_work(
    coordinator_world, make_shipment, coordinator, browser_as
):
    client = browser_as(coordinator)
    client.get("/")
    with CaptureQueriesContext(connection) as before:
        client.get("/")
    for _ in range(3):
        issued_basics(at(make_shipment(), ShipmentStatus.APPROVED))
    with CaptureQueriesContext(connection) as after:
        page = client.get("/")
    assert tiles(page)["ready to book"].count == 4
    assert len(after) == len(before)


@pytest.fixture
def partner_world(make_shipment, forwarder, operator):
    rival = OrganisationFactory(kind="freight_forwarder", legal_name="Rival Forwarding Ltd.", country="SG")
    ours = {"freight_forwarder": forwarder}
    return {
        "owed": {
            at(make_shipment(parties=ours), ShipmentStatus.BOOKED),
            at(make_shipment(parties=ours), ShipmentStatus.IN_TRANSIT),
        },
        "draft": make_shipment(parties=ours),
        "delivered": at(make_shipment(parties=ours), ShipmentStatus.DELIVERED),
        # Another forwarder's shipment under way: not ours to see, nor to count.
        "rival": at(make_shipment(parties={"freight_forwarder": rival}), ShipmentStatus.IN_TRANSIT),
    }


def test_a_partner_lands_on_its_own_shipments_and_the_milestones_it_owes(
    partner_world, forwarder_user, browser_as
):
    client = browser_as(forwarder_user)
    found = tiles(client.get("/"))
    assert list(found)[0] == "milestones to report"  # what it owes, first
    owed = found["milestones to report"]
    assert owed.count == 2 == rows_behind(client, owed)
    assert references(client, owed) == {s.reference for s in partner_world["owed"]}
    open_ = found["open shipments"]
    assert open_.count == 3 == rows_behind(client, open_)
    assert partner_world["rival"].reference not in references(client, open_)
    assert not set(COORDINATOR_TILES[1:]) & set(found)  # not the coordinator's work


def test_the_rival_forwarder_counts_only_its_own(partner_world, browser_as):
    from tests.factories import UserFactory

    rival = partner_world["rival"].parties.get(role="freight_forwarder").organisation
    client = browser_as(UserFactory(organisation=rival, role="partner"))
    found = tiles(client.get("/"))
    assert found["milestones to report"].count == 1 == rows_behind(client, found["milestones to report"])
    assert references(client, found["milestones to report"]) == {partner_world["rival"].reference}


def test_the_partners_dashboard_costs_the_same_queries_with_more_shipments(
    partner_world, make_shipment, forwarder, forwarder_user, browser_as
):
    client = browser_as(forwarder_user)
    client.get("/")
    with CaptureQueriesContext(connection) as before:
        client.get("/")
    for _ in range(3):
        at(make_shipment(parties={"freight_forwarder": forwarder}), ShipmentStatus.BOOKED)
    with CaptureQueriesContext(connection) as after:
        page = client.get("/")
    assert tiles(page)["milestones to report"].count == 5
    assert len(after) == len(before)


def test_the_needs_filter_is_in_the_api_too(partner_world, forwarder_user, api_as):
    answer = api_as(forwarder_user).get("/api/v1/shipments/?needs=milestones")
    assert answer.status_code == 200
    assert {row["reference"] for row in answer.json()["results"]} == {
        s.reference for s in partner_world["owed"]
    }
    assert api_as(forwarder_user).get("/api/v1/shipments/?needs=everything").status_code == 400


def test_a_supplier_lands_on_the_shipments_waiting_for_its_serial_numbers(
    make_shipment, gpu_server, cable, supplier_user, browser_as
):
    from apps.shipments import services

    short = make_shipment()
    services.line_add(shipment=short, part=gpu_server, quantity=2, serials=["S-1"])
    services.line_add(shipment=short, part=cable, quantity=8)  # not serialised: nothing owed
    complete = make_shipment()
    services.line_add(shipment=complete, part=gpu_server, quantity=2, serials=["S-2", "S-3"])
    departed = make_shipment()
    services.line_add(shipment=departed, part=gpu_server, quantity=2)
    at(departed, ShipmentStatus.IN_TRANSIT)
    # Another shipper's shipment short of serials: not this supplier's to give.
    others = make_shipment(parties={"shipper": OrganisationFactory(legal_name="Other Servers Inc.")})
    services.line_add(shipment=others, part=gpu_server, quantity=2)

    client = browser_as(supplier_user)
    found = tiles(client.get("/"))
    owed = found["shipments waiting for your serial numbers"]
    assert owed.count == 1 == rows_behind(client, owed)
    assert references(client, owed) == {short.reference}
    services.serials_set(line=short.lines.get(part=gpu_server), serials=["S-1", "S-4"])
    assert tiles(client.get("/"))["shipments waiting for your serial numbers"].count == 0
