"""The dashboard is drawn from what each app registers (apps/core/dashboard.py): the same tiles as
before the registry, scoped to the user, in a fixed number of queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import OrganisationFactory, PartFactory


@pytest.fixture
def catalogue(operator, supplier):
    PartFactory(owner=operator, category="server")
    PartFactory(owner=operator, category="network_switch")
    PartFactory(owner=supplier, category="server")
    PartFactory(owner=OrganisationFactory(legal_name="Rival Ltd."), category="server")


def tiles(page) -> dict[str, int]:
    return {tile.label: tile.count for tile in page.context["tiles"]}


@pytest.mark.django_db
def test_each_app_puts_its_tiles_and_panels_on_the_dashboard(catalogue, coordinator, browser_as):
    page = browser_as(coordinator).get("/")
    # The coordinator's work first, then what everyone sees (the warehouse's tiles are tested
    # with the warehouse).
    expected = [
        "open shipments", "on hold", "late against their required date", "waiting for documents",
        "ready to book", "cluster designs", "designs to size", "sized, no bill of materials",
        "bills of materials issued (coverage)", "parts in the catalogue", "organisations",
        "active API tokens",
    ]  # fmt: skip
    assert [label for label in tiles(page) if label in expected] == expected
    assert tiles(page)["parts in the catalogue"] == 4
    assert [card.title for card in page.context["panels"]] == ["Catalogue by category", "Recent activity"]
    assert b"Catalogue by category" in page.content and b"Recent activity" in page.content


@pytest.mark.django_db
def test_a_partner_counts_only_what_it_sees_and_no_activity_of_others(catalogue, supplier_user, browser_as):
    page = browser_as(supplier_user).get("/")
    assert tiles(page)["parts in the catalogue"] == 3  # the master catalogue and its own
    assert tiles(page)["organisation"] == 1
    assert [card.title for card in page.context["panels"]] == ["Catalogue by category"]
    rows = page.context["panels"][0].context["rows"]
    assert {row["category"]: row["count"] for row in rows} == {"server": 2, "network_switch": 1}


@pytest.mark.django_db
def test_the_dashboard_costs_a_fixed_number_of_queries(catalogue, coordinator, browser_as, operator):
    client = browser_as(coordinator)
    client.get("/")
    with CaptureQueriesContext(connection) as before:
        client.get("/")
    PartFactory.create_batch(5, owner=operator)
    with CaptureQueriesContext(connection) as after:
        client.get("/")
    assert len(after) == len(before)
