"""Issue 14 end to end through `/api/v1/clusters/`: a coordinator posts a design, starts its sizing
(202, the real engine, run eagerly on commit), makes the bill of materials from the run, starts the
compliance summary (202) and reads it, makes the draft shipments from the shipment plan (201) and
reads the coverage, where their pieces are on order. Another organisation is refused (404) at
every step and writes nothing."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from apps.accounts.models import OrganisationKind
from apps.clusters.models import BomLine, ClusterDesign, ComplianceSummary, SizingRun
from apps.compliance import services as compliance
from apps.shipments.models import Shipment
from tests.factories import OrganisationFactory, UserFactory
from tests.four_eyes import classify_with_second_officer

from . import plan_world
from .test_api import _ids

API = "/api/v1/clusters/"
# The officer's classifications; the optic is left unclassified. 4A003.b needs a licence to India
# in the EAR data the compliance app ships; 4A090.a and 5A992.c do not.
ECCNS = {
    "system": "4A090.a",
    "switch": "5A992.c",
    "inband": "5A992.c",
    "oob": "EAR99",
    "storage": "4A003.b",
    "fibre": "EAR99",
    "rack": "EAR99",
    "pdu": "EAR99",
    "cdu": "EAR99",
}


@pytest.fixture
def world(operator, compliance_officer, parts):
    """Systems from Taiwan, racks from the US, the rest from Mexico (the parts' default), classified
    by an officer; the plan world's rates, Singapore hub, factories and India's taxes."""
    for key, origin, kg, dims in (
        ("system", "TW", "130", ("90", "48", "36")),
        ("rack", "US", "170", ("120", "60", "225")),
    ):
        part = parts[key]
        part.country_of_origin, part.unit_weight_kg = origin, Decimal(kg)
        part.length_cm, part.width_cm, part.height_cm = (Decimal(side) for side in dims)
        part.save()
    compliance.country_data_load_default()
    for key, eccn in ECCNS.items():
        classify_with_second_officer(
            part=parts[key],
            eccn=eccn,
            reason="Manufacturer's classification on file",
            actor=compliance_officer,
        )
    plan_world.rates()
    plan_world.hub(operator)
    plan_world.factories(operator)
    plan_world.india_taxes()
    return parts


@pytest.fixture
def outsider(db):
    """An administrator of another organisation: every capability, none of the operator's
    designs, so each refusal below is the scope's (404), not a missing capability's (403)."""
    org = OrganisationFactory(
        kind=OrganisationKind.FREIGHT_FORWARDER, legal_name="Bravo Freight", country="SG"
    )
    return UserFactory(organisation=org, role="admin", username="bravo-admin")


def test_design_run_bom_summary_drafts_and_coverage(
    api_as, coordinator, outsider, fields, world, django_capture_on_commit_callbacks
):
    parts = world
    api, other = api_as(coordinator), api_as(outsider)
    required = dt.date.today() + dt.timedelta(days=90)

    # The design.
    made = api.post(API, _ids(fields) | {"required_on_site": required.isoformat()}, format="json")
    assert made.status_code == 201, made.content
    design = ClusterDesign.objects.get(pk=made.json()["id"])
    base = f"{API}{design.pk}/"
    assert other.get(base).status_code == 404

    # The sizing, in the background: 202 and a task that ends in success.
    assert other.post(f"{base}sizing-runs/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(f"{base}sizing-runs/")
    assert started.status_code == 202, started.content
    assert api.get(started.json()["status_url"]).json()["state"] == "SUCCESS"
    run = SizingRun.objects.get(design=design)
    assert run.status == "succeeded", run.errors

    # The bill of materials from the run.
    assert other.post(f"{base}bom/", {"run": run.number}, format="json").status_code == 404
    bom = api.post(f"{base}bom/", {"run": run.number}, format="json")
    assert bom.status_code == 201, bom.content
    assert bom.json()["version"] == 1
    lines = list(BomLine.objects.filter(bom__design=design, quantity__gt=0))
    by_role = {line.role: line for line in lines}
    assert by_role["system"].quantity == 64

    # The compliance summary: 202, then its result to India.
    summary_url = f"{base}compliance-summary/"
    assert other.post(summary_url, {}, format="json").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(summary_url, {}, format="json")
    assert started.status_code == 202, started.content
    assert api.get(started.json()["status_url"]).json()["state"] == "SUCCESS"
    assert other.get(summary_url).status_code == 404
    summary = api.get(summary_url).json()
    assert summary["status"] == "succeeded" and summary["is_current"] is True
    result = summary["result"]
    assert result["destination"] == "IN" and result["bom_version"] == 1
    totals = {row["eccn"]: row for row in result["eccn_totals"]}
    assert totals["4A090.a"]["outcomes"] == ["NLR"] and totals["4A090.a"]["quantity"] == 64
    assert totals["4A090.a"]["value"] == {"USD": "23872000.00"}  # 64 × 373,000
    assert totals["4A003.b"]["outcomes"] == ["licence_required"]
    optics = [line for line in lines if line.part_id == parts["optic"].pk]  # node and switch side
    assert totals["Not classified"]["lines"] == len(optics) == 2
    assert totals["Not classified"]["quantity"] == sum(line.quantity for line in optics)
    assert "EAR99" in totals and "NLR" not in totals["Not classified"]["outcomes"]
    licensed = [row["role"] for row in result["lines"] if row["outcome"] == "licence_required"]
    assert licensed == ["storage_appliance"]
    assert result["attention"] is True and "licence required: 1 line(s)" in result["headline"]
    assert ComplianceSummary.objects.get().requested_by == coordinator

    # The draft shipments from the plan: every proposal, every BOM line on one of them.
    plan_url = f"{base}shipment-plan/"
    assert other.post(plan_url, {}, format="json").status_code == 404
    assert Shipment.objects.count() == 0
    plan = api.get(plan_url).json()
    drafts = api.post(plan_url, {}, format="json")
    assert drafts.status_code == 201, drafts.content
    rows = drafts.json()["shipments"]
    assert len(rows) == len(plan["proposals"]) >= 2
    shipments = Shipment.objects.filter(cluster_links__design=design)
    assert {s.reference for s in shipments} == {row["reference"] for row in rows}
    assert {s.status for s in shipments} == {"draft"}
    assert sorted((line.part_id, line.quantity) for s in shipments for line in s.lines.all()) == sorted(
        (line.part_id, line.quantity) for line in lines
    )

    # Coverage: every piece of the bill of materials is on order on those drafts.
    coverage_url = f"{base}coverage/"
    assert other.get(coverage_url).status_code == 404
    coverage = api.get(coverage_url).json()
    total = sum(line.quantity for line in lines)
    assert coverage["totals"]["quantity"] == coverage["totals"]["on_order"] == total
    assert coverage["totals"]["outstanding"] == 0
    system = next(line for line in coverage["lines"] if line["role"] == "system")
    assert (system["quantity"], system["on_order"], system["outstanding"]) == (64, 64, 0)
    assert {s["reference"] for s in coverage["shipments"]} == {row["reference"] for row in rows}
