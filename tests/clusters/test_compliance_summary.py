"""A cluster's compliance summary: each line's ECCN from the compliance app's classification, the
licence determination for the site's country with the customer as end user (the real EAR data the
compliance app loads), totals by ECCN and value per currency; unclassified parts flagged, never
EAR99; the background task; what a partner reads; another organisation refused everywhere."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.urls import NoReverseMatch, reverse

from apps.accounts.models import OrganisationKind
from apps.clusters import services
from apps.clusters.models import BillOfMaterials, BomLine, ComplianceSummary, SummaryStatus
from apps.clusters.services import compliance_summary as summaries
from apps.compliance import services as compliance
from apps.compliance.models import ClassificationSource, PartClassification
from apps.core.models import AuditEvent, TaskRecord
from apps.shipments.models import Site
from tests.compliance.conftest import LIST
from tests.factories import OrganisationFactory, UserFactory
from tests.four_eyes import classify_with_second_officer

from .builders import design_fields

API = "/api/v1/clusters/"


@pytest.fixture
def country_data(db):
    """The EAR Country Groups and Commerce Country Chart the compliance app ships (2026-07-23)."""
    return compliance.country_data_load_default()


@pytest.fixture
def vn_customer(db):
    return OrganisationFactory(
        kind=OrganisationKind.CUSTOMER, legal_name="Hanoi GPU Cloud JSC", city="Hanoi", country="VN"
    )


def _site(operator, customer, country: str, city: str) -> Site:
    return Site.objects.create(
        owner=operator, customer=customer, name=f"{city} DC", kind="data_centre", city=city, country=country,
        power_mw="20", cooling_air=True, cooling_liquid=True,
    )  # fmt: skip


@pytest.fixture
def vn_design(operator, coordinator, parts, vn_customer):
    site = _site(operator, vn_customer, "VN", "Hanoi")
    fields = design_fields(parts, customer=vn_customer, site=site, name="Hanoi cluster")
    return services.design_create(owner=operator, fields=fields, actor=coordinator)


def hand_bom(design, lines) -> BillOfMaterials:
    """A bill of materials written by hand: (role, part, quantity) per line."""
    run = services.sizing_run_create(design=design)
    version = design.boms.count() + 1
    bom = BillOfMaterials.objects.create(design=design, run=run, version=version)
    for role, part, quantity in lines:
        BomLine.objects.create(bom=bom, part=part, role=role, quantity=quantity, engine_quantity=quantity)
    return bom


@pytest.fixture
def classified(parts, compliance_officer, country_data):
    """Officers' classifications of the parts (the optic and the CDU are left out: see the tests)."""
    for key, eccn in {"system": "4A090.a", "switch": "5A992.c", "rack": "EAR99", "pdu": "EAR99"}.items():
        classify_with_second_officer(
            part=parts[key],
            eccn=eccn,
            reason="Manufacturer's classification on file",
            actor=compliance_officer,
        )
    # The rack is bought in euros: its value must never be added to dollar values.
    parts["rack"].currency = "EUR"
    parts["rack"].save()
    return parts


def bom_lines(parts):
    return [
        ("system", parts["system"], 64),
        ("compute_leaf", parts["switch"], 16),
        ("storage_leaf", parts["switch"], 2),
        ("compute_node_optic", parts["optic"], 100),
        ("rack", parts["rack"], 11),
    ]


def by(rows, key):
    return {row[key]: row for row in rows}


# --- the summary ---------------------------------------------------------------------------------


def test_ecn_totals_and_values_per_currency_on_a_hand_built_bom(vn_design, classified):
    parts = classified
    switch_value = parts["switch"].unit_value * 18
    bom = hand_bom(vn_design, bom_lines(parts))
    result, rows = summaries.compliance_summary_compute(bom=bom)

    assert result["destination"] == "VN" and result["bom_version"] == 1
    totals = result["eccn_totals"]
    # Not classified first (it needs attention), then the ECCNs in order.
    assert [t["eccn"] for t in totals] == ["Not classified", "4A090.a", "5A992.c", "EAR99"]
    totals = by(totals, "eccn")
    assert totals["4A090.a"] | {"value": None} == {
        "eccn": "4A090.a", "lines": 1, "quantity": 64, "value": None, "outcomes": ["licence_required"],
        "outcome_labels": ["Licence required"],
    }  # fmt: skip
    assert totals["4A090.a"]["value"] == {"USD": "23872000.00"}  # 64 × 373,000
    # Two lines of one part and ECCN (compute and storage leaves) add up.
    assert totals["5A992.c"]["lines"] == 2 and totals["5A992.c"]["quantity"] == 18
    assert totals["5A992.c"]["value"] == {"USD": str(switch_value)}
    assert totals["5A992.c"]["outcomes"] == ["NLR"]
    assert totals["EAR99"]["value"] == {"EUR": "33000.00"}  # 11 × 3,000 EUR, kept apart
    assert totals["Not classified"]["value"] == {"USD": "120000.00"}  # 100 × 1,200

    assert result["value_total"] == {
        "EUR": "33000.00",
        "USD": str(Decimal("23872000.00") + switch_value + Decimal("120000.00")),
    }
    assert result["licence_required_value"] == {"USD": "23872000.00"}
    outcomes = by(result["outcome_totals"], "outcome")
    assert list(outcomes) == ["licence_required", "not_classified", "NLR"]
    assert outcomes["NLR"]["lines"] == 3 and outcomes["NLR"]["value"] == {
        "EUR": "33000.00", "USD": str(switch_value),
    }  # fmt: skip
    system = result["lines"][0]
    assert system["eccn"] == "4A090.a" and system["classification"]["source"] == "officer"
    assert system["determination"]["rules"] and system["attention"]
    assert (
        "Vietnam" in result["headline"]
        and "licence required: 1 line(s), 23,872,000.00 USD" in result["headline"]
    )
    assert rows == [[line.pk, line.part_id, line.quantity] for line in bom.lines.order_by("id")]
    json.dumps(result)  # stored as JSON: Decimals are strings


def test_an_unclassified_part_shows_as_not_classified_and_needs_attention(vn_design, classified):
    parts = classified
    # The CDU's classification is incomplete (a figure missing); the optic has none at all.
    PartClassification.objects.create(
        part=parts["cdu"], eccn="", is_complete=False, source=ClassificationSource.ENGINE,
        missing=["cooling capacity"], rule_version="test",
    )  # fmt: skip
    bom = hand_bom(vn_design, [("compute_node_optic", parts["optic"], 100), ("cdu", parts["cdu"], 4)])
    before = PartClassification.objects.count()
    result, _ = summaries.compliance_summary_compute(bom=bom)

    for line in result["lines"]:
        assert line["eccn"] == "" and line["outcome"] == "not_classified"
        assert line["classification"]["status"] == "not_classified"
        assert line["outcome"] != "NLR" and "EAR99" not in line["outcome_label"]
        assert line["attention"] and line["attention"][0].startswith("Not classified")
    assert "missing cooling capacity" in result["lines"][1]["attention"][0]
    assert [t["eccn"] for t in result["eccn_totals"]] == ["Not classified"]
    assert "EAR99" not in {t["eccn"] for t in result["eccn_totals"]}
    assert result["attention_lines"] == 2 and result["attention"] is True
    assert "not classified: 2 line(s)" in result["headline"]
    # A read: the summary classifies nothing itself.
    assert PartClassification.objects.count() == before


def test_the_licence_depends_on_the_sites_country_group(vn_design, design, classified):
    """The same bill of materials: NLR for 4A090.a to India (no advanced-computing licence there in
    the 2026-07-23 data), a licence to Vietnam (742.6(a)(6))."""
    parts = classified
    lines = [("system", parts["system"], 64), ("compute_leaf", parts["switch"], 16)]
    to_india, _ = summaries.compliance_summary_compute(bom=hand_bom(design, lines))
    to_vietnam, _ = summaries.compliance_summary_compute(bom=hand_bom(vn_design, lines))
    assert [line["outcome"] for line in to_india["lines"]] == ["NLR", "NLR"]
    assert to_india["licence_required_value"] == {} and not to_india["attention"]
    assert "no line needs a licence" in to_india["headline"]
    assert [line["outcome"] for line in to_vietnam["lines"]] == ["licence_required", "NLR"]
    rule_codes = [rule["code"] for rule in to_vietnam["lines"][0]["determination"]["rules"]]
    assert any("742.6" in code or "RS" in code for code in rule_codes), rule_codes


@pytest.fixture
def listed_customer(db, country_data):
    """A customer whose name is on the Entity List, confirmed and blocked by an officer."""
    compliance.screening_list_import(
        name="CSL", source_format="csl_json", data=json.dumps(LIST).encode(), version="t-1", rescreen=False
    )
    return OrganisationFactory(
        kind=OrganisationKind.CUSTOMER, legal_name="Shenzhen Demo AI Technology Co., Ltd.",
        city="Shenzhen", country="CN",
    )  # fmt: skip


def test_a_blocked_customer_needs_a_licence_for_every_line_and_a_partner_reads_only_under_review(
    operator, coordinator, compliance_officer, parts, classified, listed_customer
):
    hit = compliance.organisation_screen(organisation=listed_customer).hits.get()
    compliance.hit_confirm(hit=hit, actor=compliance_officer, reason="Same address as the EL entry")
    site = _site(operator, listed_customer, "CN", "Shenzhen")
    design = services.design_create(
        owner=operator, fields=design_fields(parts, customer=listed_customer, site=site), actor=coordinator
    )
    bom = hand_bom(design, [("rack", parts["rack"], 2), ("compute_leaf", parts["switch"], 4)])
    summary = summaries.compliance_summary_now(design=design, actor=coordinator)
    assert summary.status == SummaryStatus.SUCCEEDED and summary.bom == bom
    result = summary.result
    # EAR99 racks and 5A992.c switches: licence required for an Entity List end user.
    assert [line["outcome"] for line in result["lines"]] == ["licence_required", "licence_required"]
    assert all("EL 744.11" in [r["code"] for r in line["determination"]["rules"]] for line in result["lines"])
    assert result["customer"]["status"] == "blocked" and result["customer"]["blocks"] == ["entity_list"]

    assert summaries.result_for(summary, coordinator) == result
    partner = UserFactory(organisation=listed_customer, role="partner", username="shenzhen")
    shown = summaries.result_for(summary, partner)
    assert shown["customer"]["status"] == "under_review" and shown["customer"]["blocks"] == []
    text = json.dumps(shown)
    assert "Entity List" not in text and "entity_list" not in text
    assert [line["outcome"] for line in shown["lines"]] == ["licence_required", "licence_required"]


def test_a_customer_resembling_a_list_entry_nobody_reviewed_needs_attention(
    operator, coordinator, parts, classified, listed_customer
):
    site = _site(operator, listed_customer, "CN", "Shenzhen")
    design = services.design_create(
        owner=operator, fields=design_fields(parts, customer=listed_customer, site=site), actor=coordinator
    )
    hand_bom(design, [("rack", parts["rack"], 2)])
    summary = summaries.compliance_summary_now(design=design)
    standing = summary.result["customer"]
    assert standing["status"] == "under_review" and standing["new_matches"][0]["entry_id"] == "el-1"
    assert summary.result["attention"] and "restricted-party" in summary.result["headline"]


# --- in the background ---------------------------------------------------------------------------


def test_the_api_starts_the_summary_as_a_task_and_reads_the_latest(
    api_as, coordinator, vn_design, classified, django_capture_on_commit_callbacks
):
    hand_bom(vn_design, bom_lines(classified))
    api = api_as(coordinator)
    url = f"{API}{vn_design.pk}/compliance-summary/"
    assert api.get(url).status_code == 404  # none yet
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(url, {}, format="json")
    assert started.status_code == 202, started.content
    body = started.json()
    assert body["summary"]["status"] == "queued" and body["summary"]["bom_version"] == 1
    assert body["status_url"] == f"/api/v1/tasks/{body['task_id']}/"
    task = api.get(body["status_url"]).json()
    assert task["state"] == "SUCCESS" and task["percent"] == 100 and task["kind"] == "compliance summary"
    assert "licence required" in task["step"]
    record = TaskRecord.objects.get(task_id=body["task_id"])
    assert record.task_name == "clusters.compliance_summary" and record.object_repr == "Hanoi cluster BOM v1"

    latest = api.get(url).json()
    assert latest["id"] == body["summary"]["id"] and latest["status"] == "succeeded"
    assert latest["is_current"] is True and latest["requested_by"]
    assert [t["eccn"] for t in latest["result"]["eccn_totals"]][:2] == ["Not classified", "4A090.a"]
    summary = ComplianceSummary.objects.get()
    moves = AuditEvent.objects.for_object(summary).filter(action="transition").order_by("id")
    assert [e.changes["status"] for e in moves] == [["queued", "running"], ["running", "succeeded"]]
    # Idempotent: running the task's service again changes nothing.
    again = summaries.compliance_summary_execute(summary=summary)
    assert again.finished_at == summary.finished_at and again.result == summary.result


def test_a_summary_goes_stale_when_the_bom_changes(api_as, coordinator, vn_design, classified):
    bom = hand_bom(vn_design, bom_lines(classified))
    summaries.compliance_summary_now(design=vn_design)
    api = api_as(coordinator)
    url = f"{API}{vn_design.pk}/compliance-summary/"
    assert api.get(url).json()["is_current"] is True
    line = bom.lines.get(role="system")
    services.bom_line_update(line=line, quantity=72, note="One spare scalable unit", actor=coordinator)
    assert api.get(url).json()["is_current"] is False


def test_a_summary_that_fails_says_why(vn_design, classified, monkeypatch):
    hand_bom(vn_design, bom_lines(classified))

    def broken(*args, **kwargs):
        raise RuntimeError("country data unreadable")

    monkeypatch.setattr(summaries, "determine", broken)
    summary = summaries.compliance_summary_now(design=vn_design)
    assert summary.status == SummaryStatus.FAILED and summary.result is None
    assert "RuntimeError: country data unreadable" in summary.error


def test_bad_input_is_a_clear_400(api_as, coordinator, design, country_data):
    api = api_as(coordinator)
    url = f"{API}{design.pk}/compliance-summary/"
    no_bom = api.post(url, {}, format="json")
    assert no_bom.status_code == 400 and "no bill of materials" in no_bom.json()["bom"][0]
    hand_bom(design, [("rack", design.rack, 1)])
    unknown = api.post(url, {"bom_version": 7}, format="json")
    assert unknown.status_code == 400 and "version 7" in unknown.json()["bom_version"][0]
    assert api.post(url, {"bom_version": "x"}, format="json").status_code == 400
    assert not ComplianceSummary.objects.exists()


# --- who may ---------------------------------------------------------------------------------------


@pytest.fixture
def outsider(db):
    org = OrganisationFactory(kind=OrganisationKind.CUSTOMER, legal_name="Bravo Compute", country="SG")
    return UserFactory(organisation=org, role="partner", username="bravo")


def test_another_organisation_is_refused_on_every_endpoint(
    api_as, browser_as, outsider, vn_design, classified
):
    hand_bom(vn_design, bom_lines(classified))
    summary = summaries.compliance_summary_now(design=vn_design)
    api = api_as(outsider)
    url = f"{API}{vn_design.pk}/compliance-summary/"
    assert api.get(url).status_code == 404
    assert api.post(url, {}, format="json").status_code in (403, 404)
    assert api.get(f"/api/v1/tasks/{summary.task_id or 'x'}/").status_code == 404
    # An operator staff member of another organisation would see it; a B partner with the
    # capability to run compliance does not exist (partners lack compliance.run), so a B admin:
    b_admin = UserFactory(organisation=outsider.organisation, role="admin", username="bravo-admin")
    assert api_as(b_admin).get(url).status_code == 404
    assert api_as(b_admin).post(url, {}, format="json").status_code == 404
    assert ComplianceSummary.objects.count() == 1
    try:
        pages = [
            reverse("clusters:compliance-summary-panel", args=[vn_design.pk]),
            reverse("clusters:compliance-summary-run", args=[vn_design.pk]),
        ]
    except NoReverseMatch:  # pragma: no cover — the pages' URLs not included yet
        pytest.fail("clusters pages are not routed: include views.summary.summary_urlpatterns")
    browser = browser_as(b_admin)
    assert browser.get(pages[0]).status_code == 404
    assert browser.post(pages[1]).status_code == 404


def test_the_customer_reads_the_summary_but_may_not_start_one(api_as, vn_design, vn_customer, classified):
    hand_bom(vn_design, bom_lines(classified))
    summaries.compliance_summary_now(design=vn_design)
    partner = UserFactory(organisation=vn_customer, role="partner", username="hanoi")
    api = api_as(partner)
    url = f"{API}{vn_design.pk}/compliance-summary/"
    assert api.get(url).status_code == 200
    assert api.post(url, {}, format="json").status_code == 403
    assert ComplianceSummary.objects.count() == 1


# --- the page's panel ----------------------------------------------------------------------------


def test_the_panel_shows_the_summary_and_starts_one(
    browser_as, coordinator, vn_design, classified, django_capture_on_commit_callbacks
):
    hand_bom(vn_design, bom_lines(classified))
    browser = browser_as(coordinator)
    panel = reverse("clusters:compliance-summary-panel", args=[vn_design.pk])
    empty = browser.get(panel)
    assert empty.status_code == 200 and b"Make the compliance summary" in empty.content
    with django_capture_on_commit_callbacks(execute=True):
        started = browser.post(
            reverse("clusters:compliance-summary-run", args=[vn_design.pk]), HTTP_HX_REQUEST="true"
        )
    assert started.status_code == 200
    summary = ComplianceSummary.objects.get()
    assert f"/tasks/{summary.task_id}/".encode() in started.content  # the progress box
    shown = browser.get(panel).content.decode()
    assert "4A090.a" in shown and "Not classified" in shown and "23,872,000.00 USD" in shown
    assert "33,000.00 EUR" in shown and "Make the summary again" in shown


def test_the_panel_offers_no_button_to_a_role_that_may_not_run_it(
    browser_as, vn_design, vn_customer, classified
):
    hand_bom(vn_design, bom_lines(classified))
    partner = UserFactory(organisation=vn_customer, role="partner", username="hanoi")
    browser = browser_as(partner)
    shown = browser.get(reverse("clusters:compliance-summary-panel", args=[vn_design.pk]))
    assert shown.status_code == 200 and b"Make the compliance summary" not in shown.content
    refused = browser.post(reverse("clusters:compliance-summary-run", args=[vn_design.pk]))
    assert refused.status_code == 403 and not ComplianceSummary.objects.exists()


def test_a_summary_whose_task_died_shows_no_progress_box_that_would_reload_for_ever(
    browser_as, coordinator, vn_design, classified
):
    """A worker killed mid-summary: its task record failed, the summary still says running."""
    bom = hand_bom(vn_design, bom_lines(classified))
    ComplianceSummary.objects.create(bom=bom, status=SummaryStatus.RUNNING, task_id="dead-task")
    TaskRecord.objects.create(
        task_id="dead-task",
        kind="compliance summary",
        task_name="clusters.compliance_summary",
        state="failed",
    )
    shown = browser_as(coordinator).get(reverse("clusters:compliance-summary-panel", args=[vn_design.pk]))
    assert shown.status_code == 200
    assert b"/tasks/dead-task/" not in shown.content and b"stopped before it finished" in shown.content
    # A summary still queued for a task not yet finished shows its progress.
    TaskRecord.objects.filter(task_id="dead-task").update(state="sent")
    shown = browser_as(coordinator).get(reverse("clusters:compliance-summary-panel", args=[vn_design.pk]))
    assert b"/tasks/dead-task/" in shown.content
