"""`/api/v1/clusters/`: designs, sizing runs (started in the background: 202 and a task to poll),
comparisons and bills of materials — every endpoint, its refusals, another organisation's 404s
and the query counts of the lists."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import OrganisationKind
from apps.clusters import services
from apps.clusters.models import BillOfMaterials, BomLine, ClusterDesign, RunStatus, SizingRun
from apps.core.models import AuditEvent
from apps.shipments.models import Site
from tests.factories import OrganisationFactory, PartFactory, UserFactory

from .conftest import result_for

API = "/api/v1/clusters/"


def _ids(fields: dict) -> dict:
    """A design's fields as the API takes them: objects by id, numbers as strings."""
    body = {}
    for name, value in fields.items():
        if hasattr(value, "pk"):
            body[name] = value.pk
        elif isinstance(value, Decimal):
            body[name] = str(value)
        else:
            body[name] = value
    return body


@pytest.fixture
def partner(customer):
    """A user of the customer, who reads its cluster designs and plans none of the operator's."""
    return UserFactory(organisation=customer, role="partner", username="customer-planner")


@pytest.fixture
def outsider(db):
    org = OrganisationFactory(
        kind=OrganisationKind.FREIGHT_FORWARDER, legal_name="Bravo Freight", country="SG"
    )
    return UserFactory(organisation=org, role="partner", username="bravo")


@pytest.fixture
def sized(design, fake_engine, coordinator):
    fake_engine(lambda inputs: result_for(design))
    return services.sizing_run_now(design=design, actor=coordinator)


@pytest.fixture
def bom(sized, coordinator):
    return services.bom_from_run(run=sized, actor=coordinator)


# --- designs -------------------------------------------------------------------------------------


def test_a_planner_creates_reads_changes_and_deletes_a_design(api_as, coordinator, fields, operator):
    api = api_as(coordinator)
    made = api.post(API, _ids(fields), format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["owner"] == operator.pk and body["gpus"] == 512 and body["gpus_per_server"] == 8
    url = f"{API}{body['id']}/"
    assert api.get(url).json()["name"] == "Test cluster"
    assert [row["id"] for row in api.get(API).json()["results"]] == [body["id"]]
    changed = api.patch(url, {"gpus": 1024, "checkpoint_interval_minutes": "20"}, format="json")
    assert changed.status_code == 200 and changed.json()["gpus"] == 1024
    history = api.get(f"{url}history/").json()["results"]
    assert history[0]["changes"]["gpus"] == [512, 1024]
    assert api.delete(url).status_code == 204
    assert not ClusterDesign.objects.exists()


def test_bad_input_is_a_400_naming_each_field_and_writes_nothing(api_as, coordinator, fields, parts):
    api = api_as(coordinator)
    body = _ids(fields) | {
        "gpus": 500,
        "cooling": "immersion",
        "compute_switch": parts["fibre"].pk,
        "pue": "0.5",
    }
    answer = api.post(API, body, format="json")
    assert answer.status_code == 400
    errors = answer.json()
    assert {"pue"} <= set(errors)  # the field checks come first
    answer = api.post(API, body | {"pue": "1.2"}, format="json")
    assert answer.status_code == 400
    assert {"gpus", "cooling", "compute_switch"} <= set(answer.json()), answer.json()
    assert "multiple of 8" in answer.json()["gpus"][0]
    assert api.post(API, _ids(fields) | {"owner": 999, "gpus": -8}, format="json").status_code == 400
    assert not ClusterDesign.objects.exists()


def test_a_partner_plans_its_own_design_from_what_it_sees(api_as, customer, partner, parts, fields, operator):
    own_dc = Site.objects.create(
        owner=customer, name="Own DC", kind="data_centre", city="Chennai", country="IN", cooling_liquid=True
    )
    api = api_as(partner)
    made = api.post(API, _ids(fields | {"site": own_dc, "customer": customer}), format="json")
    assert made.status_code == 201, made.content
    assert made.json()["owner"] == customer.pk
    # Another organisation's private part, data centre or organisation is not a choice.
    stranger = OrganisationFactory(legal_name="Someone Else Ltd")
    private = PartFactory(owner=stranger, category="server", hs_code="847150", gpus_per_server=8)
    other_dc = Site.objects.create(
        owner=stranger, name="Their DC", kind="data_centre", city="Pune", country="IN"
    )
    body = _ids(fields | {"site": other_dc, "customer": stranger, "system": private, "name": "Again"})
    refused = api.post(API, body, format="json")
    assert refused.status_code == 400
    assert {"site", "customer", "system"} <= set(refused.json())


def test_roles_without_planning_read_but_change_nothing(api_as, compliance_officer, design, fields):
    api = api_as(compliance_officer)
    assert api.get(f"{API}{design.pk}/").status_code == 200
    assert api.post(API, _ids(fields | {"name": "Officer's"}), format="json").status_code == 403
    assert api.patch(f"{API}{design.pk}/", {"gpus": 8}, format="json").status_code == 403
    assert api.post(f"{API}{design.pk}/sizing-runs/").status_code == 403


def test_the_customer_reads_its_design_but_plans_none_of_it(api_as, partner, design, bom):
    api = api_as(partner)
    assert api.get(f"{API}{design.pk}/").status_code == 200
    assert api.get(f"{API}{design.pk}/bom/").status_code == 200
    assert api.patch(f"{API}{design.pk}/", {"gpus": 8}, format="json").status_code == 404
    assert api.post(f"{API}{design.pk}/sizing-runs/").status_code == 404
    line = bom.lines.first()
    assert (
        api.patch(
            f"{API}{design.pk}/bom/lines/{line.pk}/", {"quantity": 1, "note": "x"}, format="json"
        ).status_code
        == 404
    )
    assert api.post(f"{API}{design.pk}/bom/versions/{bom.pk}/issue/").status_code == 404


def test_another_organisation_is_refused_every_endpoint(api_as, outsider, design, sized, bom):
    api = api_as(outsider)
    line = bom.lines.first()
    base = f"{API}{design.pk}/"
    reads = [
        base,
        f"{base}history/",
        f"{base}sizing-runs/",
        f"{base}sizing-runs/{sized.pk}/",
        f"{base}sizing-runs/compare/?a=1&b=1",
        f"{base}bom/",
        f"{base}bom/versions/",
        f"{base}bom/versions/{bom.pk}/",
        f"{base}bom/versions/{bom.pk}/csv/",
    ]
    for url in reads:
        answer = api.get(url)
        assert answer.status_code == 404, url
        assert "Test cluster" not in answer.content.decode()
    assert api.get(API).json()["results"] == []
    writes = [
        ("patch", base, {"gpus": 8}),
        ("delete", base, None),
        ("post", f"{base}sizing-runs/", None),
        ("post", f"{base}bom/", {"run": 1}),
        ("post", f"{base}bom/versions/{bom.pk}/issue/", None),
        ("patch", f"{base}bom/lines/{line.pk}/", {"quantity": 1, "note": "x"}),
    ]
    for method, url, body in writes:
        assert getattr(api, method)(url, body, format="json").status_code == 404, (method, url)
    assert SizingRun.objects.count() == 1 and BomLine.objects.get(pk=line.pk).quantity == line.quantity


def test_an_unknown_query_parameter_is_refused(api_as, coordinator, design):
    answer = api_as(coordinator).get(API, {"colour": "red"})
    assert answer.status_code == 400 and "colour" in answer.json()


# --- sizing runs ---------------------------------------------------------------------------------


def test_starting_a_run_answers_202_with_the_task_and_sizes_in_the_background(
    api_as, coordinator, design, fake_engine, django_capture_on_commit_callbacks
):
    fake_engine(lambda inputs: result_for(design))
    api = api_as(coordinator)
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(f"{API}{design.pk}/sizing-runs/")
    assert started.status_code == 202, started.content
    body = started.json()
    assert body["run"]["number"] == 1 and body["run"]["status"] == "queued"
    assert body["status_url"] == f"/api/v1/tasks/{body['task_id']}/"
    task = api.get(body["status_url"]).json()
    assert task["state"] == "SUCCESS" and task["percent"] == 100
    run = SizingRun.objects.get()
    assert run.status == RunStatus.SUCCEEDED and run.task_id == body["task_id"]
    listed = api.get(f"{API}{design.pk}/sizing-runs/").json()["results"]
    assert [(row["number"], row["status"]) for row in listed] == [(1, "succeeded")]
    assert "result" not in listed[0]
    detail = api.get(f"{API}{design.pk}/sizing-runs/{run.pk}/").json()
    assert detail["result"]["switches_by_tier"]["compute leaf"] == 16
    assert detail["inputs"]["gpus"] == 512 and detail["engine_version"] == "1.0.0"


def test_a_refused_run_names_the_design_fields(api_as, coordinator, design, parts, fake_engine):
    fake_engine(lambda inputs: pytest.fail("the engine was called"))
    parts["pdu"].attributes = {}
    parts["pdu"].save()
    run = services.sizing_run_now(design=design)
    detail = api_as(coordinator).get(f"{API}{design.pk}/sizing-runs/{run.pk}/").json()
    assert detail["status"] == "failed" and set(detail["errors"]) == {"pdu"}


def test_a_run_of_another_design_is_not_found(api_as, coordinator, design, sized, operator, fields):
    other = services.design_create(owner=operator, fields=fields | {"name": "Other"})
    assert api_as(coordinator).get(f"{API}{other.pk}/sizing-runs/{sized.pk}/").status_code == 404


def test_two_runs_compare(api_as, coordinator, design, fake_engine):
    fake_engine(lambda inputs: result_for(design, leaves=8, racks=6))
    services.sizing_run_now(design=design)
    fake_engine(lambda inputs: result_for(design, leaves=16, racks=11))
    services.sizing_run_now(design=design)
    api = api_as(coordinator)
    answer = api.get(f"{API}{design.pk}/sizing-runs/compare/", {"a": 1, "b": 2})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["switches_by_tier"]["compute leaf"] == {"a": 8.0, "b": 16.0, "change": 8.0}
    assert body["racks"]["change"] == 5
    assert Decimal(body["bom_cost"]["USD"]["change"]) == Decimal("200000.00")
    missing = api.get(f"{API}{design.pk}/sizing-runs/compare/", {"a": 1, "b": 9})
    assert missing.status_code == 400 and "b" in missing.json()
    assert api.get(f"{API}{design.pk}/sizing-runs/compare/", {"a": "one"}).status_code == 400
    huge = api.get(f"{API}{design.pk}/sizing-runs/compare/", {"a": 10**30, "b": 1})
    assert huge.status_code == 400 and "a" in huge.json()  # not a 500 from the database


# --- bills of materials --------------------------------------------------------------------------


def test_a_bom_is_made_read_edited_issued_and_exported(api_as, coordinator, design, sized, parts):
    api = api_as(coordinator)
    base = f"{API}{design.pk}/bom/"
    none_yet = api.get(base)
    assert none_yet.status_code == 404 and "no bill of materials" in none_yet.json()["detail"]
    assert api.post(base, {"run": 7}, format="json").status_code == 400
    made = api.post(base, {"run": sized.number}, format="json")
    assert made.status_code == 201, made.content
    bom = made.json()
    assert (bom["version"], bom["status"], bom["run"]) == (1, "draft", 1)
    leaf = next(line for line in bom["lines"] if line["role"] == "compute_leaf")
    assert (leaf["quantity"], leaf["part"], leaf["part_number"]) == (16, parts["switch"].pk, "T-QM9700")
    assert Decimal(bom["totals"]["USD"]) == 64 * Decimal("373000") + 18 * Decimal("25000")
    assert api.get(base).json()["id"] == bom["id"]

    line_url = f"{base}lines/{leaf['id']}/"
    assert api.patch(line_url, {"quantity": 18}, format="json").json() == {
        "note": ["Say why the quantity differs from the sizing's."]
    }
    assert api.patch(line_url, {"quantity": -1, "note": "x"}, format="json").status_code == 400
    edited = api.patch(line_url, {"quantity": 18, "note": "Two spares"}, format="json")
    assert edited.status_code == 200 and edited.json()["quantity"] == 18
    assert edited.json()["engine_quantity"] == 16
    assert AuditEvent.objects.for_object(BomLine.objects.get(pk=leaf["id"])).filter(action="update").exists()

    versions = api.get(f"{base}versions/").json()["results"]
    assert [(v["version"], v["status"]) for v in versions] == [(1, "draft")]
    version_url = f"{base}versions/{bom['id']}/"
    assert api.get(version_url).json()["lines"][0]["id"]

    exported = api.get(f"{version_url}csv/")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(exported.content.decode())))
    assert rows[0][:5] == ["role", "manufacturer", "part_number", "name", "quantity"]
    exported_leaf = next(row for row in rows if row[0] == "compute_leaf")
    assert (exported_leaf[2], exported_leaf[4], exported_leaf[5], exported_leaf[10]) == (
        "T-QM9700",
        "18",
        "16",
        "Two spares",
    )

    issued = api.post(f"{version_url}issue/")
    assert issued.status_code == 200 and issued.json()["status"] == "issued"
    refused = api.patch(line_url, {"quantity": 20, "note": "more"}, format="json")
    assert refused.status_code == 400 and "issued" in refused.json()["quantity"][0]
    assert api.post(f"{version_url}issue/").status_code == 400
    # A new version from the same run starts as a draft again.
    again = api.post(base, {"run": sized.number}, format="json").json()
    assert (again["version"], again["status"]) == (2, "draft")
    assert api.get(base).json()["version"] == 2
    # The design with an issued version stays.
    assert api.delete(f"{API}{design.pk}/").status_code == 400


def test_a_line_of_another_design_is_not_found(api_as, coordinator, bom, operator, fields):
    other = services.design_create(owner=operator, fields=fields | {"name": "Other"})
    line = bom.lines.first()
    answer = api_as(coordinator).patch(
        f"{API}{other.pk}/bom/lines/{line.pk}/", {"quantity": 1, "note": "x"}, format="json"
    )
    assert answer.status_code == 404


# --- query counts --------------------------------------------------------------------------------


def _queries(api, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert api.get(url).status_code == 200
    return len(captured)


def test_lists_take_the_same_queries_whatever_their_length(
    api_as, coordinator, operator, fields, fake_engine
):
    api = api_as(coordinator)
    first = services.design_create(owner=operator, fields=fields)
    fake_engine(lambda inputs: result_for(first))
    services.sizing_run_now(design=first, actor=coordinator)
    run = services.sizing_run_now(design=first, actor=coordinator)
    services.bom_from_run(run=run, actor=coordinator)
    api.get(API)  # the token's first use records when it was used
    counts = {
        "designs": _queries(api, API),
        "runs": _queries(api, f"{API}{first.pk}/sizing-runs/"),
        "versions": _queries(api, f"{API}{first.pk}/bom/versions/"),
        "bom": _queries(api, f"{API}{first.pk}/bom/"),
    }
    for n in range(3):
        services.design_create(owner=operator, fields=fields | {"name": f"More {n}"})
        services.sizing_run_now(design=first, actor=coordinator)
        services.bom_from_run(run=run, actor=coordinator)
    # More lines in the newest version too.
    newest = BillOfMaterials.objects.filter(design=first).order_by("-version").first()
    extra = PartFactory(owner=operator, category="rack", hs_code="940320", rack_units=48)
    BomLine.objects.create(
        bom=newest, part=extra, role="rack", quantity=11, engine_quantity=11, figure="racks"
    )
    assert {
        "designs": _queries(api, API),
        "runs": _queries(api, f"{API}{first.pk}/sizing-runs/"),
        "versions": _queries(api, f"{API}{first.pk}/bom/versions/"),
        "bom": _queries(api, f"{API}{first.pk}/bom/"),
    } == counts


def test_list_query_counts_are_exact(api_as, coordinator, design, bom, django_assert_num_queries):
    api = api_as(coordinator)
    api.get(API)  # the token's first use
    # The token with its user, the count and the page.
    with django_assert_num_queries(3):
        api.get(API)
    with django_assert_num_queries(4):  # + the design
        api.get(f"{API}{design.pk}/sizing-runs/")
    with django_assert_num_queries(4):
        api.get(f"{API}{design.pk}/bom/versions/")
    with django_assert_num_queries(
        4
    ):  # the token, the design, the version with its run, the lines with parts
        api.get(f"{API}{design.pk}/bom/")


def test_the_documented_example_names_every_input():
    from apps.clusters.api.designs_schema import DESIGN_WRITE

    assert set(DESIGN_WRITE) == set(ClusterDesign.INPUT_FIELDS)


def test_a_data_centres_power_and_cooling_through_the_sites_api(api_as, coordinator, dc):
    api = api_as(coordinator)
    answer = api.get(f"/api/v1/sites/{dc.pk}/").json()
    assert (
        answer["power_mw"],
        answer["cooling_air"],
        answer["cooling_liquid"],
        answer["cooling_immersion"],
    ) == (
        "12.000",
        True,
        True,
        False,
    )
    changed = api.patch(
        f"/api/v1/sites/{dc.pk}/", {"power_mw": "20", "cooling_immersion": True}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["power_mw"] == "20.000"
    factory = Site.objects.create(
        owner=dc.owner, name="Factory", kind="factory", city="Taoyuan", country="TW"
    )
    refused = api.patch(f"/api/v1/sites/{factory.pk}/", {"power_mw": "5"}, format="json")
    assert refused.status_code == 400 and "power_mw" in refused.json()
