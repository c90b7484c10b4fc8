"""One search (apps/core/global_search.py): every identifier kind is found by the organisation
that may see it and by the operator's staff, never by another organisation; an exact identifier
goes straight to its object; the API answers the same; the number of queries does not grow with
the number of matches.

The world (tests/world.py: organisation A owns one of everything, organisation B is another
partner) is built once for the module, inside a transaction rolled back at its end; each test runs
in a savepoint of it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.catalog.models import Unit
from apps.core import global_search
from apps.documents.models import Document
from apps.shipments import services as shipments
from apps.shipments.models import Leg, Shipment, Site
from tests.world import World, build_world

PO = "PO-4500071234"
BILL_OF_LADING = "MAEU240612345"
CONTAINER = "CSQU3054383"


@pytest.fixture(scope="module")
def _world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            world = build_world()
            shipment = world.first(Shipment)
            Shipment.objects.filter(pk=shipment.pk).update(buyer_order_reference=PO)
            port = Site.objects.create(
                owner=world.operator, name="Chennai port", kind="seaport", city="Chennai", country="IN",
                unlocode="INMAA",
            )  # fmt: skip
            shipments.leg_add(
                shipment=shipment,
                fields={
                    "role": "onward",
                    "origin": port,
                    "destination": shipment.destination,
                    "mode": "ocean",
                    "carrier": "Maersk",
                    "transport_document": BILL_OF_LADING,
                    "container_numbers": "csqu 305438 3",
                },
            )
            yield world
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def world(_world, db) -> World:
    return _world


def _find(user, text: str):
    return global_search.search(user, global_search.parse(text))


def _urls(answer, kind: str) -> list[str]:
    return [hit.url for group in answer.groups if group.kind == kind for hit in group.hits]


def _shipment_url(world):
    return world.first(Shipment).get_absolute_url()


def _document(world) -> Document:
    return world.first(Document)


# (what is searched, the query, the kind it is found as, the object's page, who finds it)
CASES = {
    "shipment reference": (lambda w: w.first(Shipment).reference, "shipments", _shipment_url),
    "buyer's order (PO)": (lambda w: PO, "shipments", _shipment_url),
    "air waybill": (lambda w: "618-12345675", "shipments", _shipment_url),
    "bill of lading": (lambda w: BILL_OF_LADING, "shipments", _shipment_url),
    "container number": (lambda w: CONTAINER, "shipments", _shipment_url),
    "party name": (lambda w: "Zqxa Compute", "shipments", _shipment_url),
    "Incoterm place": (lambda w: "Zqxa Chennai", "shipments", _shipment_url),
    "unit serial": (
        lambda w: "Zqxa-W1",
        "units",
        lambda w: reverse("warehouse:unit-detail", args=[Unit.objects.get(serial="Zqxa-W1").pk]),
    ),
    "line serial": (lambda w: "ZQXA-S2", "line-serials", lambda w: f"{_shipment_url(w)}#lines"),
    "part number": (
        lambda w: "Zqxa-SRV-8",
        "parts",
        lambda w: w.first(Shipment).lines.get().part.get_absolute_url(),
    ),
    "part name": (
        lambda w: "Zqxa 8-GPU server",
        "parts",
        lambda w: w.first(Shipment).lines.get().part.get_absolute_url(),
    ),
    "document number": (
        lambda w: _document(w).number,
        "documents",
        lambda w: (
            reverse("documents:shipment", args=[w.first(Shipment).reference])
            + f"#doc-{_document(w).doc_type}"
        ),
    ),
    "licence number": (
        lambda w: "ZQXA-LIC-0001",
        "licences",
        lambda w: reverse("compliance:licence", args=[w.private[_licence_model()][0].pk]),
    ),
    "cluster design name": (
        lambda w: "Zqxa cluster",
        "designs",
        lambda w: reverse("clusters:design-detail", args=[w.private[_design_model()][0].pk]),
    ),
}


def _licence_model():
    from apps.compliance.models import Licence

    return Licence


def _design_model():
    from apps.clusters.models import ClusterDesign

    return ClusterDesign


@pytest.mark.parametrize("case", list(CASES))
def test_each_identifier_is_found_by_who_may_see_it_and_by_no_other_organisation(world, case):
    text_of, kind, url_of = CASES[case]
    text, url = text_of(world), url_of(world)
    # The operator's staff see everything; organisation A sees its own (a partner sees issued
    # documents only: A's invoice is a draft, so A does not find it, as on the documents page).
    finders = [world.coordinator] + ([] if kind == "documents" else [world.user_a])
    for user in finders:
        answer = _find(user, text)
        assert url in _urls(answer, kind), (user, answer)
        assert answer.groups[0].hits, answer
    # Organisation B finds nothing of A's: not the object, not a hint of it. (On PostgreSQL a name
    # may be spelt like one of B's own, "Zqxa Chennai" like B's "Chennai": B finds its own.)
    others = _find(world.user_b, text)
    assert url not in [hit.url for group in others.groups for hit in group.hits]
    assert not world.leaks(repr(others.groups)), others
    if connection.vendor != "postgresql":
        assert others.groups == []


def test_a_partner_does_not_find_a_draft_document_even_by_its_exact_number(world):
    assert _find(world.user_a, _document(world).number).groups == []


def test_matches_are_ranked_exact_then_prefix_then_inside(world):
    shipment = world.first(Shipment)
    exact = _find(world.coordinator, shipment.reference)
    [best, *_] = exact.groups[0].hits
    assert (best.title, best.exact, best.rank >= 4) == (shipment.reference, True, True)
    prefix = _find(world.coordinator, shipment.reference[:-1])
    assert prefix.groups[0].hits[0].rank >= 3
    assert not prefix.groups[0].hits[0].exact
    inside = _find(world.coordinator, "12345675")  # inside an AWB
    hit = next(h for g in inside.groups if g.kind == "shipments" for h in g.hits)
    assert (hit.matched, hit.exact, 2 <= hit.rank < 3) == ("AWB 618-12345675", False, True)


def test_the_container_number_is_found_as_painted_on_the_box_and_matches_exactly(world):
    for text in ("CSQU 305438 3", CONTAINER.lower()):
        answer = _find(world.user_a, text)
        [hit] = [h for g in answer.groups if g.kind == "shipments" for h in g.hits]
        assert (hit.matched, hit.exact) == (f"container {CONTAINER}", True), text
    # Stored one way whatever was typed.
    assert Leg.objects.get(transport_document=BILL_OF_LADING).container_numbers == CONTAINER


def test_an_exact_identifier_of_one_object_opens_it(world, client):
    client.force_login(world.user_a)
    licence_url = reverse("compliance:licence", args=[world.private[_licence_model()][0].pk])
    response = client.get(reverse("search"), {"q": "zqxa-lic-0001"})
    assert (response.status_code, response["Location"]) == (302, licence_url)
    # The PO and the air waybill name one shipment: straight to it.
    for text in (PO, "618-12345675", BILL_OF_LADING, CONTAINER):
        response = client.get(reverse("search"), {"q": text})
        assert (response.status_code, response["Location"]) == (302, _shipment_url(world)), text
    # An air waybill typed without its hyphen, or with a space, is the same air waybill.
    for text in ("61812345675", "618 12345675"):
        response = client.get(reverse("search"), {"q": text})
        assert (response.status_code, response["Location"]) == (302, _shipment_url(world)), text
    # A serial names one box: the unit's page for who sees the unit, else the shipment's lines
    # (B sees neither: tested above). The unit is listed before its line serial.
    unit = Unit.objects.get(serial="ZQXA-S2")
    unit_url = reverse("warehouse:unit-detail", args=[unit.pk])
    response = client.get(reverse("search"), {"q": "zqxa-s2"})
    assert (response.status_code, response["Location"]) == (302, unit_url)
    client.force_login(world.coordinator)
    assert client.get(reverse("search"), {"q": "ZQXA-S2"})["Location"] == unit_url
    client.force_login(world.user_a)
    # `all=1` lists the results instead.
    listed = client.get(reverse("search"), {"q": "ZQXA-LIC-0001", "all": "1"})
    assert listed.status_code == 200
    assert licence_url in listed.content.decode()
    # A name is not an identifier: the party's name lists the shipment.
    assert client.get(reverse("search"), {"q": "Zqxa Compute"}).status_code == 200


def test_another_organisation_meets_nothing_on_the_page(world, client):
    client.force_login(world.user_b)
    for text in (world.first(Shipment).reference, PO, "618-12345675", "ZQXA-LIC-0001", "Zqxa"):
        response = client.get(reverse("search"), {"q": text})
        assert response.status_code == 200
        page = response.content.decode()
        assert "Nothing you may see matches" in page
        assert not [leak for leak in world.leaks(page.replace(text, "")) if leak != text]


def test_the_api_answers_as_the_page(world, api_as):
    for case, (text_of, kind, url_of) in CASES.items():
        text = text_of(world)
        client = api_as(world.coordinator)
        answer = _find(world.coordinator, text)
        body = client.get("/api/v1/search/", {"q": text}).json()
        assert body == global_search.as_dict(answer), case
        assert url_of(world) in [h["url"] for g in body["groups"] if g["kind"] == kind for h in g["hits"]]
        other = api_as(world.user_b).get("/api/v1/search/", {"q": text})
        assert other.status_code == 200
        assert other.json() == global_search.as_dict(_find(world.user_b, text)), case
        assert other.json()["jump"] is None
        assert not world.leaks(other.content.decode().replace(text, "")), case
    jump = api_as(world.user_a).get("/api/v1/search/", {"q": PO}).json()["jump"]
    assert jump == _shipment_url(world)


def test_a_query_too_many_or_too_long_terms_is_refused_naming_q(world, api_as, client):
    api = api_as(world.user_a)
    for text in (" ".join(["x"] * 11), "x" * 101):
        response = api.get("/api/v1/search/", {"q": text})
        assert response.status_code == 400
        assert list(response.json()) == ["q"]
    client.force_login(world.user_a)
    page = client.get(reverse("search"), {"q": " ".join(["x"] * 11)})
    assert page.status_code == 200
    assert 'id="search-error"' in page.content.decode()


def test_one_character_finds_nothing_and_says_why(world, client):
    assert _find(world.coordinator, "Z").groups == []
    client.force_login(world.coordinator)
    assert "Type at least 2 characters" in client.get(reverse("search"), {"q": "Z"}).content.decode()


def test_the_header_of_every_page_has_the_search_box(world, client):
    client.force_login(world.user_a)
    page = client.get(reverse("dashboard")).content.decode()
    assert 'role="search"' in page
    assert f'action="{reverse("search")}"' in page


def _queries(client, text: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(reverse("search"), {"q": text, "all": "1"}).status_code == 200
    return len(captured.captured_queries)


# Session and user (2), the seven kinds' providers (shipments 3, the six others 1 each): 11.
MAX_QUERIES = 11


@pytest.mark.parametrize("who", ["coordinator", "user_a"])
def test_the_number_of_queries_does_not_grow_with_the_matches(
    world, client, who, django_assert_max_num_queries
):
    user = getattr(world, who)
    client.force_login(user)
    shipment = world.first(Shipment)
    before = _queries(client, "Zqxa")
    # Thirty more of A's shipments with legs, parties and serials that all match.
    for n in range(30):
        copy = shipments.shipment_create(
            actor=world.user_a,
            fields={
                "origin": shipment.origin,
                "destination": shipment.destination,
                "incoterm": "DAP",
                "incoterm_place": f"Zqxa Chennai {n}",
                "mode": "air",
                "ready_date": shipment.ready_date,
                "required_by": shipment.ready_date + dt.timedelta(days=30),
                "buyer_order_reference": f"ZQXA-PO-{n}",
            },
            parties={
                "shipper": world.org_a,
                "consignee": shipment.parties.get(role="consignee").organisation,
            },
        )
        Leg.objects.create(
            shipment=copy, sequence=1, role="main", origin=shipment.origin, destination=shipment.destination,
            mode="air", transport_document=f"ZQXA-{n}",
        )  # fmt: skip
    after = _queries(client, "Zqxa")
    assert after == before
    with django_assert_max_num_queries(MAX_QUERIES):
        client.get(reverse("search"), {"q": "Zqxa", "all": "1"})
    with CaptureQueriesContext(connection):
        answer = _find(user, "Zqxa")
    assert any(group.more for group in answer.groups)
