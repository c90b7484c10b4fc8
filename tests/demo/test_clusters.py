"""The demo's clusters: the speech-AI cluster's shipment plan is fully priced, consolidates
its multi-country air goods (NVIDIA switches from Mexico, optics from Thailand) at the Singapore
bonded hub, names a site for every origin, and its proposals become draft shipments. The rates and
sites are the demo's (apps/shipments/demo.py); the plan is worked out as the design page does."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.accounts.models import User
from apps.clusters import demo as cluster_demo
from apps.clusters.engines import shipment_plan as engine
from apps.clusters.models import ClusterDesign
from apps.clusters.services.shipment_plan import origin_sites, plan_for, shipments_create_from_plan
from apps.shipments.models import LegRole, ShipmentStatus

HUB = "Rackpass Bonded Hub Singapore"
SITE = "Chennai AI Compute — Siruseri DC1"


@pytest.fixture
def planner(demo):
    """The demo's coordinator, who plans the clusters' shipments."""
    return User.objects.get(username="coordinator")


def _bom(name: str):
    design = ClusterDesign.objects.get(name=name)
    return design.boms.order_by("-version").first()


@pytest.mark.parametrize("name", [cluster_demo.SPEECH, cluster_demo.CEREBRAS])
def test_the_demo_clusters_plans_price_every_line_and_consolidate_through_singapore(planner, name):
    bom = _bom(name)
    plan = plan_for(bom)
    assert plan.unpriced == ()
    assert all(p.cost is not None and not p.missing for p in plan.proposals)
    planned = sorted(line.key for p in plan.proposals for line in p.lines)
    assert planned == sorted(str(pk) for pk in bom.lines.filter(quantity__gt=0).values_list("pk", flat=True))
    consolidated = [p for p in plan.proposals if p.kind == engine.CONSOLIDATED]
    assert len(consolidated) == 1
    via = consolidated[0]
    assert via.mode == "air" and via.hub == HUB and via.origin_countries == ("MX", "TH")
    assert [(leg.role, leg.origin_country, leg.destination_country) for leg in via.legs] == [
        ("inbound", "MX", "SG"),
        ("inbound", "TH", "SG"),
        ("main", "SG", "IN"),
    ]
    assert all(leg.cost is not None for leg in via.legs)
    # The US servers and systems fly straight to Chennai; the Chinese cables go by sea.
    direct = {p.key: p for p in plan.proposals if p.kind == engine.DIRECT}
    assert direct["ocean-cn-nvidia"].destination_country == "IN"
    origins, problems = origin_sites(plan.proposals, planner)
    assert problems == {}
    assert origins[("TH", "NVIDIA")].name == "Fabrinet Chonburi (NVIDIA optics)"
    assert origins[("MX", "NVIDIA")].name == "Jabil Guadalajara (NVIDIA networking)"
    assert origins[("CN", "NVIDIA")].country == "CN"
    assert {country for country, _ in origins} == {"US", "MX", "TH", "CN"}


def test_the_speech_cluster_page_shows_every_proposal_priced_and_ready_to_make(planner, client):
    design = ClusterDesign.objects.get(name=cluster_demo.SPEECH)
    url = reverse("clusters:shipment-plan-panel", args=[design.pk])
    client.force_login(planner)
    page = client.get(url).content.decode()
    assert 'id="proposal-air-via-sg"' in page and f"through {HUB}" in page
    assert "no rate" not in page and 'data-priced="no"' not in page
    assert "blocked-" not in page  # every proposal ticked: none lacks an origin site
    # Another organisation (the Taiwanese supplier's partner user) does not see the design.
    client.force_login(User.objects.get(username="supplier"))
    assert client.get(url).status_code == 404


def test_the_speech_cluster_plan_becomes_draft_shipments(planner):
    bom = _bom(cluster_demo.SPEECH)
    plan = plan_for(bom)
    drafts = shipments_create_from_plan(bom=bom, actor=planner)
    assert len(drafts) == len(plan.proposals)
    assert all(s.status == ShipmentStatus.DRAFT and s.destination.name == SITE for s in drafts)
    assert sum(s.lines.count() for s in drafts) == bom.lines.filter(quantity__gt=0).count()
    via = next(s for s in drafts if "Proposal air-via-sg:" in s.instructions)
    legs = list(via.legs.order_by("sequence"))
    assert [(leg.role, leg.origin.name, leg.destination.name) for leg in legs] == [
        (LegRole.INBOUND, "Jabil Guadalajara (NVIDIA networking)", HUB),
        (LegRole.INBOUND, "Fabrinet Chonburi (NVIDIA optics)", HUB),
        (LegRole.MAIN, HUB, SITE),
    ]
    origins = {s.instructions.split("Proposal ", 1)[1].split(":", 1)[0]: s.origin.name for s in drafts}
    assert origins["air-us-supermicro"] == "Supermicro San Jose Campus"
    assert origins["ocean-cn-nvidia"] == "LinkX cable assembly Dongguan (NVIDIA cables)"
