"""The planner lands on designs by how far their planning has come: to size, sized without a
bill of materials, with one issued (whose coverage is on the design's page). Each tile's number
is the number of rows on the designs list it links to; another organisation's designs are not
counted; a fixed number of queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.roles import Role
from apps.clusters import services
from apps.clusters.models import BillOfMaterials, BomStatus, RunStatus, SizingRun
from tests.dashboard_tiles import rows_behind, tiles
from tests.factories import OrganisationFactory, UserFactory

PLANNER_TILES = ["designs to size", "sized, no bill of materials", "bills of materials issued (coverage)"]


def sized(design, number=1):
    return SizingRun.objects.create(
        design=design, number=number, status=RunStatus.SUCCEEDED, result={}, engine_version="test"
    )


@pytest.fixture
def planner_world(operator, coordinator, fields):
    def make(name, owner=operator):
        return services.design_create(owner=owner, fields={**fields, "name": name}, actor=None)

    to_size = make("Not sized")
    failed = make("Failed run")
    SizingRun.objects.create(design=failed, number=1, status=RunStatus.FAILED, result={}, engine_version="t")
    no_bom = make("Sized")
    sized(no_bom)
    issued = make("Issued")
    BillOfMaterials.objects.create(
        design=issued, run=sized(issued), version=1, status=BomStatus.ISSUED, issued_at=timezone.now()
    )
    draft = make("Draft BOM")
    BillOfMaterials.objects.create(design=draft, run=sized(draft), version=1)
    rival = OrganisationFactory(kind="customer", legal_name="Rival Planners Ltd.")
    rivals = make("Rival's", owner=rival)  # seen by the operator's staff, not by another partner
    return {"to_size": {to_size, failed, rivals}, "no_bom": {no_bom}, "issued": {issued}, "rival": rival}


def names(client, tile) -> set[str]:
    return {d.name for d in client.get(tile.url).context["page_obj"].paginator.object_list}


def test_the_planner_lands_on_designs_by_stage(planner_world, coordinator, browser_as):
    client = browser_as(coordinator)
    found = tiles(client.get("/"))
    expected = dict(zip(PLANNER_TILES, ("to_size", "no_bom", "issued"), strict=True))
    for label, key in expected.items():
        designs = planner_world[key]
        assert found[label].count == len(designs) == rows_behind(client, found[label]), label
        assert names(client, found[label]) == {d.name for d in designs}, label


def test_a_partner_counts_only_its_own_designs(planner_world, browser_as):
    client = browser_as(UserFactory(organisation=planner_world["rival"], role=Role.PARTNER))
    found = tiles(client.get("/"))
    tile = found["designs to size"]
    assert tile.count == 1 == rows_behind(client, tile)
    assert names(client, tile) == {"Rival's"}
    assert found["bills of materials issued (coverage)"].count == 0


def test_the_planners_tiles_cost_the_same_queries_with_more_designs(
    planner_world, operator, fields, coordinator, browser_as
):
    client = browser_as(coordinator)
    client.get("/")
    with CaptureQueriesContext(connection) as before:
        client.get("/")
    for n in range(3):
        sized(services.design_create(owner=operator, fields={**fields, "name": f"More {n}"}))
    with CaptureQueriesContext(connection) as after:
        page = client.get("/")
    assert tiles(page)["sized, no bill of materials"].count == 4
    assert len(after) == len(before)
