"""The demo's clusters: the speech-AI cluster's shipment plan is fully priced, reads each line
as ready after its lead time (the demo's estimates, `apps.clusters.demo.LEAD_TIME_DAYS`), sends
everything by sea for the June need — the NVIDIA switches from Mexico, optics from Thailand and
cables from China consolidated at the Singapore bonded hub, the US goods direct —, names a site
for every origin, and its proposals become draft shipments naming their suppliers as shippers,
once. The rates and sites are the demo's (apps/shipments/demo.py); the plan is worked out as the
design page does."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from apps.accounts.models import User
from apps.clusters import demo as cluster_demo
from apps.clusters.engines import shipment_plan as engine
from apps.clusters.models import ClusterDesign
from apps.clusters.services.shipment_plan import origin_sites, plan_for, shipments_create_from_plan
from apps.shipments.models import LegRole, ShipmentParty, ShipmentStatus

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
    # A June need and lead times of three to twelve weeks: the sea is in time for everything.
    assert {p.mode for p in plan.proposals} == {"ocean"} and all(p.on_time for p in plan.proposals)
    assert via.hub == HUB and via.origin_countries == ("CN", "MX", "TH")
    assert [(leg.role, leg.origin_country, leg.destination_country) for leg in via.legs] == [
        ("inbound", "MX", "SG"),
        ("inbound", "TH", "SG"),
        ("inbound", "CN", "SG"),
        ("main", "SG", "IN"),
    ]
    assert all(leg.cost is not None for leg in via.legs)
    # Each inbound leg leaves when its goods are ready: the lead time after the plan's date.
    lead = {str(line.pk): line.lead_time_days for line in bom.lines.all()}
    for leg in via.legs[:-1]:
        [days] = {lead[key] for key in leg.line_keys}
        assert leg.departure == plan.ready_date + dt.timedelta(days=days)
    # The US goods go straight to Chennai.
    direct = [p for p in plan.proposals if p.kind == engine.DIRECT]
    assert {p.origin_countries for p in direct} == {("US",)}
    assert all(p.destination_country == "IN" for p in direct)
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
    assert 'id="proposal-ocean-via-sg"' in page and f"through {HUB}" in page
    assert "no rate" not in page and 'data-priced="no"' not in page
    assert "blocked-" not in page  # every proposal ticked: none lacks an origin site
    # Another organisation (the Taiwanese supplier's partner user) does not see the design.
    client.force_login(User.objects.get(username="supplier"))
    assert client.get(url).status_code == 404


def test_the_speech_cluster_plan_becomes_draft_shipments(planner):
    bom = _bom(cluster_demo.SPEECH)
    plan = plan_for(bom)
    drafts = shipments_create_from_plan(bom=bom, actor=planner).made
    assert len(drafts) == len(plan.proposals)
    assert all(s.status == ShipmentStatus.DRAFT and s.destination.name == SITE for s in drafts)
    assert sum(s.lines.count() for s in drafts) == bom.lines.filter(quantity__gt=0).count()
    via = next(s for s in drafts if "Proposal ocean-via-sg:" in s.instructions)
    legs = list(via.legs.order_by("sequence"))
    assert [(leg.role, leg.origin.name, leg.destination.name) for leg in legs] == [
        (LegRole.INBOUND, "Jabil Guadalajara (NVIDIA networking)", HUB),
        (LegRole.INBOUND, "Fabrinet Chonburi (NVIDIA optics)", HUB),
        (LegRole.INBOUND, "LinkX cable assembly Dongguan (NVIDIA cables)", HUB),
        (LegRole.MAIN, HUB, SITE),
    ]
    origins = {s.instructions.split("Proposal ", 1)[1].split(":", 1)[0]: s for s in drafts}
    assert origins["ocean-us-supermicro"].origin.name == "Supermicro San Jose Campus"
    # The shipper is the supplier: Supermicro ships from its own campus, Jabil from the plant it
    # runs for NVIDIA; makers with no organisation in the demo leave it to be named, and say so.
    shippers = dict(
        ShipmentParty.objects.filter(shipment__in=drafts, role="shipper").values_list(
            "shipment_id", "organisation__legal_name"
        )
    )
    assert shippers[origins["ocean-us-supermicro"].pk] == "Super Micro Computer, Inc."
    assert shippers[via.pk].startswith("Jabil Circuit de México")
    assert "No shipper named for DDN" in origins["ocean-us-ddn"].instructions
    # Asking again makes nothing and reports every draft.
    again = shipments_create_from_plan(bom=bom, actor=planner)
    assert again.made == [] and set(again.already) == set(origins)
