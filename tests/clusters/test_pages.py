"""The cluster design pages (issue 14): the list (filters, sort, export), the design form and its
errors named on the fields, the design page with its charts and what-if table, a sizing run
started from the page (the task, eager here) and its figures with their formulas, a refused run
naming the design's fields, two runs compared, and the bill of materials (edit, issue, CSV, PDF).

Another organisation's design is a 404 on every page; a role without clusters.plan is refused
(403) every planning action and sees none of their buttons."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest
from django.urls import reverse

from apps.accounts.roles import Role
from apps.clusters import services
from apps.clusters.models import BillOfMaterials, ClusterDesign, RunStatus, SizingRun
from apps.core.models import AuditEvent
from tests.factories import OrganisationFactory, UserFactory

SVG = "{http://www.w3.org/2000/svg}"


def form_data(fields: dict) -> dict:
    """A design's inputs as the form posts them."""
    data = {}
    for name in ClusterDesign.INPUT_FIELDS:
        value = fields.get(name)
        if value is None:
            data[name] = ""
        elif hasattr(value, "pk"):
            data[name] = str(value.pk)
        else:
            data[name] = str(value)
    defaults = {
        "compute_topology": "auto", "compute_oversubscription": "1", "su_systems": "32",
        "storage_fabric": "infiniband", "storage_oversubscription": "1.33", "pdu_redundancy": "1",
        "cdu_redundancy": "1", "electricity_price": "0.10", "electricity_currency": "USD",
        "bytes_per_param": "14", "restart_minutes": "10",
    }  # fmt: skip
    return {name: data[name] or defaults.get(name, "") for name in data}


def svgs(html: str) -> list[ElementTree.Element]:
    """Every inline SVG of a page, parsed (each must be well-formed XML)."""
    return [ElementTree.fromstring(match) for match in re.findall(r"<svg\b.*?</svg>", html, flags=re.S)]


def bar_labels(svg: ElementTree.Element) -> dict[str, str]:
    return {g.get("data-label"): g.get("data-value") for g in svg.iter(f"{SVG}g") if g.get("class") == "bar"}


@pytest.fixture
def sized(design, coordinator):
    """The design with a finished run of the real engine."""
    run = services.sizing_run_now(design=design, actor=coordinator)
    assert run.status == RunStatus.SUCCEEDED, run.errors
    return run


@pytest.fixture
def stranger(db):
    """A partner of an organisation that has nothing to do with the design."""
    return UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere Compute"), role=Role.PARTNER)


def design_pages(design, run=None, bom=None, line=None) -> dict[str, str]:
    pages = {
        "detail": reverse("clusters:design-detail", args=[design.pk]),
        "edit": reverse("clusters:design-update", args=[design.pk]),
        "what-if": reverse("clusters:what-if", args=[design.pk]),
        "compare": reverse("clusters:run-compare", args=[design.pk]),
        "bom": reverse("clusters:bom", args=[design.pk]),
    }
    if run is not None:
        pages["run"] = reverse("clusters:run-detail", args=[design.pk, run.pk])
    if bom is not None:
        pages |= {
            "bom-version": reverse("clusters:bom-version", args=[design.pk, bom.pk]),
            "bom-csv": reverse("clusters:bom-csv", args=[design.pk, bom.pk]),
            "bom-pdf": reverse("clusters:bom-pdf", args=[design.pk, bom.pk]),
        }
    return pages


def plan_actions(design, run, bom, line) -> dict[str, tuple[str, dict]]:
    return {
        "edit": (reverse("clusters:design-update", args=[design.pk]), {}),
        "run-start": (reverse("clusters:run-start", args=[design.pk]), {}),
        "bom-create": (reverse("clusters:bom-create", args=[design.pk, run.pk]), {}),
        "bom-issue": (reverse("clusters:bom-issue", args=[design.pk, bom.pk]), {}),
        "line-edit": (
            reverse("clusters:bom-line-edit", args=[design.pk, line.pk]),
            {f"line-{line.pk}-quantity": "1", f"line-{line.pk}-note": "spares"},
        ),
    }


# --- the list ----------------------------------------------------------------------------------


def test_the_list_filters_sorts_and_exports(browser_as, coordinator, design, operator, parts, customer, dc):
    from tests.clusters.builders import design_fields

    services.design_create(
        owner=operator,
        fields=design_fields(parts, customer=customer, site=dc, name="Cerebras for India", gpus=1024),
        actor=coordinator,
    )
    client = browser_as(coordinator)
    url = reverse("clusters:design-list")
    page = client.get(url).content.decode()
    assert "Test cluster" in page and "Cerebras for India" in page
    assert 'href="/clusters/"' in client.get(reverse("dashboard")).content.decode()  # the menu

    found = client.get(url, {"q": "cerebras"}).content.decode()
    assert "Cerebras for India" in found and "Test cluster" not in found
    by_gpus = client.get(url, {"sort": "-gpus"}).content.decode()
    assert by_gpus.index("Cerebras for India") < by_gpus.index("Test cluster")
    partial = client.get(url, {"sort": "gpus"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and partial.index("Test cluster") < partial.index("Cerebras for India")

    export = client.get(url, {"q": "cerebras", "export": "csv"})
    rows = b"".join(export.streaming_content).decode("utf-8-sig").splitlines()
    assert rows[0].startswith("Name,Customer,Site") and len(rows) == 2
    assert rows[1].startswith("Cerebras for India,Chennai Speech AI Pvt. Ltd.,Siruseri DC1")

    refused = client.get(url, {"sort": "wattage", "cooling": "steam"})
    text = refused.content.decode()
    assert "nothing is listed" in text and "Cooling (&#x27;steam&#x27;)" in text and "Sort" in text
    assert "Test cluster" not in text


def test_the_list_reads_a_fixed_number_of_queries(browser_as, coordinator, design, django_assert_num_queries):
    client = browser_as(coordinator)
    client.get(reverse("clusters:design-list"))
    # session, user, count, page of designs (customer, site, system joined; runs counted).
    with django_assert_num_queries(4):
        client.get(reverse("clusters:design-list"), HTTP_HX_REQUEST="true")


# --- the form ----------------------------------------------------------------------------------


def test_a_design_is_made_and_edited_in_the_grouped_form(browser_as, coordinator, fields, operator):
    client = browser_as(coordinator)
    page = client.get(reverse("clusters:design-create")).content.decode()
    for legend in (
        "System",
        "Compute fabric",
        "Storage",
        "Management networks",
        "Racks",
        "Facility",
        "Training",
    ):
        assert f"<legend>{legend}</legend>" in page
    # A switch field offers switches only, searched among them (its own picker kind).
    assert 'data-picker-url="/pick/cluster-compute_switch/"' in page or 'id="id_compute_switch"' in page
    switch_options = re.search(r'<select name="compute_switch".*?</select>', page, flags=re.S).group(0)
    assert "QM9700" in switch_options and "DGX-H100" not in switch_options

    response = client.post(reverse("clusters:design-create"), form_data(fields))
    design = ClusterDesign.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/clusters/{design.pk}/"
    assert design.owner == operator and design.gpus == 512 and design.created_by == coordinator

    changed = form_data(fields) | {"gpus": "1024", "name": "Speech AI, phase 2"}
    response = client.post(reverse("clusters:design-update", args=[design.pk]), changed)
    assert response.status_code == 302
    design.refresh_from_db()
    assert (design.gpus, design.name) == (1024, "Speech AI, phase 2")
    assert AuditEvent.objects.for_object(design).filter(action="update").exists()


def test_form_errors_are_named_on_their_fields(browser_as, coordinator, fields, parts):
    client = browser_as(coordinator)
    data = form_data(fields) | {
        "gpus": "500",  # not a multiple of a DGX's 8
        "cdu": "",  # liquid cooling without a CDU
        "compute_switch": str(parts["system"].pk),  # a server is not a switch: not offered
    }
    response = client.post(reverse("clusters:design-create"), data)
    page = response.content.decode()
    assert response.status_code == 200 and not ClusterDesign.objects.exists()
    errors = dict(re.findall(r'<p class="error" id="id_(\w+)-error">([^<]+)</p>', page))
    assert "not a multiple of 8" in errors["gpus"]
    assert "needs a CDU" in errors["cdu"]
    assert "valid choice" in errors["compute_switch"]
    # Listed at the top too, each linking to its field.
    assert '<a href="#id_gpus">GPUs (accelerators)</a>' in page


def test_the_services_refusal_lands_on_the_field_it_names(browser_as, coordinator, design, fields):
    """A second design of the same name for the same owner: refused by the service, on `name`
    or above the form, never a 500."""
    client = browser_as(coordinator)
    response = client.post(reverse("clusters:design-create"), form_data(fields))
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert ClusterDesign.objects.count() == 1


# --- the design page, runs and pictures -------------------------------------------------------------


def test_a_sizing_run_started_from_the_page_shows_its_progress_and_pictures(
    browser_as, coordinator, design, django_capture_on_commit_callbacks
):
    client = browser_as(coordinator)
    page = client.get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
    assert f'action="/clusters/{design.pk}/runs/"' in page and "Not sized yet" in page

    with django_capture_on_commit_callbacks(execute=True):  # the task is sent once the run commits
        response = client.post(reverse("clusters:run-start", args=[design.pk]))
    run = SizingRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/clusters/{design.pk}/?task={run.task_id}#runs"
    assert run.status == RunStatus.SUCCEEDED  # eager in the tests; a worker's task in production

    page = client.get(response["Location"]).content.decode()
    assert f'hx-get="/compliance/tasks/{run.task_id}/?refresh=runs,latest"' in page  # the task box
    charts = {svg.find(f"{SVG}title").text: svg for svg in svgs(page)}
    power = next(svg for title, svg in charts.items() if title.startswith("IT power by component"))
    assert bar_labels(power)["Systems"] == "652.8"
    switches = next(svg for title, svg in charts.items() if title.startswith("Switches per tier"))
    assert bar_labels(switches) | {} == {
        "Compute leaf": "16", "Compute spine": "8", "Storage leaf": "5", "Storage spine": "4",
        "In-band leaf": "3", "In-band spine": "2", "Out-of-band leaf": "4", "Out-of-band spine": "1",
    }  # fmt: skip
    racks = [svg for svg in svgs(page) if svg.get("class") == "chart rack-elevation"]
    compute = next(
        svg for svg in racks if svg.get("data-kind") == "compute" and svg.get("data-count") == "10"
    )
    assert "× 10 racks" in "".join(compute.itertext())
    # 11 compute racks (10 of 6 DGX, 1 of 4); every switch in 2 shared network racks (filled to the
    # 40 kW air cooling takes); 6 storage appliances in 1 rack.
    assert sum(int(svg.get("data-count")) for svg in racks) == 14
    network = [svg for svg in racks if svg.get("data-kind") == "network"]
    assert sum(int(svg.get("data-count")) for svg in network) == 2
    # The what-if table, sized from 256 up to 16,384 GPUs by default.
    assert 'id="what-if-table"' in page and 'data-gpus="16384"' in page and 'data-gpus="32768"' not in page
    assert "Liquid cooling was chosen" in page  # the run's warning, shown


def test_the_what_if_table_follows_the_select(browser_as, coordinator, design):
    client = browser_as(coordinator)
    url = reverse("clusters:what-if", args=[design.pk])
    response = client.get(url, {"upto": "2"}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page
    assert re.findall(r'data-gpus="(\d+)"', page) == ["256", "512", "1024"]
    row = re.search(r'<tr class="this-design" data-gpus="512">(.*?)</tr>', page, flags=re.S).group(1)
    assert ">64<" in row  # systems
    chart = svgs(page)[0]
    assert list(bar_labels(chart)) == ["256 GPUs", "512 GPUs", "1,024 GPUs"]

    refused = client.get(url, {"upto": "99"})
    assert refused.status_code == 400
    assert "Sizes up to (&#x27;99&#x27;): choose a whole number from 0 to 9." in refused.content.decode()
    assert client.get(url, {"upto": "9" * 5000}).status_code == 400  # never int() of 5,000 digits


def test_a_run_page_explains_every_figure_by_section(browser_as, coordinator, design, sized):
    page = (
        browser_as(coordinator)
        .get(reverse("clusters:run-detail", args=[design.pk, sized.pk]))
        .content.decode()
    )
    for heading in ("Systems", "Racks", "Compute fabric", "Storage", "Power", "Cooling", "Checkpointing"):
        assert f"<h2>{heading}</h2>" in page
    assert "leaves = 8 rails × 1 per SU × 2 SU = 16" in page
    leaves = re.search(r'data-key="fabric.compute.leaves">(.*?)</tr>', page, flags=re.S).group(1)
    assert "16 switches" in leaves
    # Liquid cooling for an air-cooled DGX, and no cable part on the storage and management links.
    assert "4 warnings from run 1" in page and "Liquid cooling was chosen" in page
    assert page.count("No cable part is chosen for the") == 3
    assert f'action="/clusters/{design.pk}/runs/{sized.pk}/bom/"' in page  # Make bill of materials


def test_a_refused_run_names_the_design_fields(browser_as, coordinator, design, parts):
    storage = parts["storage"]
    storage.attributes = {}
    storage.save()
    run = services.sizing_run_now(design=design, actor=coordinator)
    assert run.status == RunStatus.FAILED
    page = (
        browser_as(coordinator).get(reverse("clusters:run-detail", args=[design.pk, run.pk])).content.decode()
    )
    refused = re.search(r'<li data-field="storage_appliance">(.*?)</li>', page, flags=re.S).group(1)
    assert f'href="/clusters/{design.pk}/edit/#id_storage_appliance"' in refused
    assert ">Storage appliance</a>" in refused and "has no capacity_tb in the catalogue" in refused
    assert "<svg" not in page  # nothing sized: no pictures


def test_two_runs_compare_side_by_side(browser_as, coordinator, design, sized):
    services.design_update(design=design, fields={"gpus": 1024})
    second = services.sizing_run_now(design=design, actor=coordinator)
    client = browser_as(coordinator)
    url = reverse("clusters:run-compare", args=[design.pk])
    page = client.get(url).content.decode()  # the last two by default
    assert "Run 1 → run 2" in page
    leaf = re.search(r"<td>Compute leaf</td>(.*?)</tr>", page, flags=re.S).group(1)
    assert re.findall(r">([^<]+)</td>", leaf) == ["16", "32", "+16"]
    racks = re.search(r'id="compare-racks">(.*?)</tr>', page, flags=re.S).group(1)
    before = sum(rack["count"] for rack in sized.result["racks"])
    after = sum(rack["count"] for rack in second.result["racks"])
    assert after > before
    assert re.findall(r">([^<]+)</td>", racks) == [
        "Racks",
        f"{before:,}",
        f"{after:,}",
        f"+{after - before:,}",
    ]
    assert "kW" in re.search(r'id="compare-it-kw">(.*?)</tr>', page, flags=re.S).group(1)

    refused = client.get(url, {"a": "1", "b": "7"})
    assert refused.status_code == 400 and "Against run (7)" in refused.content.decode()
    same = client.get(url, {"a": "1", "b": "1"})
    assert same.status_code == 400 and "Choose another run" in same.content.decode()


# --- the bill of materials ---------------------------------------------------------------------------


def test_a_bill_of_materials_is_made_edited_issued_and_exported(browser_as, coordinator, design, sized):
    client = browser_as(coordinator)
    response = client.post(reverse("clusters:bom-create", args=[design.pk, sized.pk]))
    bom = BillOfMaterials.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/clusters/{design.pk}/bom/{bom.pk}/"
    page = client.get(response["Location"]).content.decode()
    for heading in (
        "Systems",
        "Compute fabric",
        "Storage",
        "Management networks",
        "Racks, power and cooling",
    ):
        assert f"<h2>{heading}</h2>" in page
    leaves = bom.lines.get(role="compute_leaf")
    edit = reverse("clusters:bom-line-edit", args=[design.pk, leaves.pk])
    assert f'action="{edit}"' in page

    # A different quantity needs a reason: named on the line's form, nothing saved.
    refused = client.post(edit, {f"line-{leaves.pk}-quantity": "18", f"line-{leaves.pk}-note": ""})
    assert refused.status_code == 400
    assert "Note: Say why the quantity differs" in refused.content.decode()
    leaves.refresh_from_db()
    assert leaves.quantity == 16
    negative = client.post(edit, {f"line-{leaves.pk}-quantity": "-1"})
    assert (
        negative.status_code == 400
        and "Quantity: Ensure this value is greater than" in negative.content.decode()
    )

    saved = client.post(edit, {f"line-{leaves.pk}-quantity": "18", f"line-{leaves.pk}-note": "two spares"})
    assert saved.status_code == 302
    leaves.refresh_from_db()
    assert (leaves.quantity, leaves.engine_quantity, leaves.note) == (18, 16, "two spares")
    event = AuditEvent.objects.for_object(leaves).get(action="update")
    assert event.changes["quantity"] == [16, 18] and event.actor == coordinator
    page = client.get(saved["Location"]).content.decode()
    assert "Quantity changes" in page and "edited" in page

    csv = client.get(reverse("clusters:bom-csv", args=[design.pk, bom.pk]))
    rows = csv.content.decode("utf-8-sig").splitlines()
    assert csv["Content-Type"].startswith("text/csv") and rows[0].startswith("role,manufacturer,part_number")
    assert any(row.startswith("compute_leaf,") and ",18,16," in row for row in rows)
    pdf = client.get(reverse("clusters:bom-pdf", args=[design.pk, bom.pk]))
    assert pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")

    client.post(reverse("clusters:bom-issue", args=[design.pk, bom.pk]))
    bom.refresh_from_db()
    assert bom.status == "issued"
    page = client.get(reverse("clusters:bom", args=[design.pk])).content.decode()
    assert f'action="{edit}"' not in page  # fixed once issued
    again = client.post(edit, {f"line-{leaves.pk}-quantity": "20", f"line-{leaves.pk}-note": "more"})
    assert again.status_code == 400 and "is issued" in again.content.decode()


# --- who may do what -----------------------------------------------------------------------------------


@pytest.fixture
def everything(design, sized, coordinator):
    bom = services.bom_from_run(run=sized, actor=coordinator)
    return design, sized, bom, bom.lines.first()


def test_another_organisation_gets_404_on_every_page_and_action(client, stranger, everything):
    design, run, bom, line = everything
    client.force_login(stranger)
    for name, url in design_pages(design, run, bom, line).items():
        response = client.get(url)
        assert response.status_code == 404, (name, response.status_code)
        assert design.name not in response.content.decode(), name
    for name, (url, data) in plan_actions(design, run, bom, line).items():
        assert client.post(url, data).status_code == 404, name
    listed = client.get(reverse("clusters:design-list"), {"q": design.name}).content.decode()
    assert f'href="/clusters/{design.pk}/"' not in listed and "0 designs" in listed
    assert SizingRun.objects.count() == 1 and BillOfMaterials.objects.count() == 1
    line.refresh_from_db()
    assert line.quantity == line.engine_quantity


@pytest.mark.parametrize("role", [Role.COMPLIANCE_OFFICER, Role.WAREHOUSE_OPERATOR])
def test_a_role_without_clusters_plan_sees_and_is_refused_the_planning(client, operator, everything, role):
    design, run, bom, line = everything
    client.force_login(UserFactory(organisation=operator, role=role, username=f"walk-{role}"))
    pages = design_pages(design, run, bom, line)
    for name in ("detail", "run", "bom-version", "compare", "what-if"):
        assert client.get(pages[name]).status_code == 200, name
    shown = client.get(pages["detail"]).content.decode() + client.get(pages["bom-version"]).content.decode()
    assert "Run sizing" not in shown and "/edit/" not in shown and "/issue/" not in shown
    assert "New design" not in client.get(reverse("clusters:design-list")).content.decode()
    assert client.get(reverse("clusters:design-create")).status_code == 403
    assert client.get(pages["edit"]).status_code == 403
    for name, (url, data) in plan_actions(design, run, bom, line).items():
        assert client.post(url, data).status_code == 403, name
    assert SizingRun.objects.count() == 1 and BillOfMaterials.objects.count() == 1


def test_the_customer_reads_its_cluster_but_only_the_owner_plans_it(client, customer, everything):
    design, run, bom, line = everything
    client.force_login(UserFactory(organisation=customer, role=Role.PARTNER, username="chennai"))
    pages = design_pages(design, run, bom, line)
    page = client.get(pages["detail"]).content.decode()
    assert design.name in page and "Run sizing" not in page
    assert design.name in client.get(reverse("clusters:design-list")).content.decode()
    assert client.get(pages["bom-csv"]).status_code == 200
    # Partners plan their own designs only: the operator's is not found for changes.
    for name, (url, data) in plan_actions(design, run, bom, line).items():
        assert client.post(url, data).status_code == 404, name


def test_the_design_page_draws_the_panels_registered_for_it(
    browser_as, coordinator, design, tmp_path, settings
):
    from apps.clusters.views import panels as views_panels

    template = tmp_path / "panel.html"
    template.write_text("<p>{{ summary }} for {{ design.name }}</p>")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], tmp_path]}]
    shown = views_panels.DesignPanel(
        key="test-summary", title="Test summary", template="panel.html",
        context=lambda request, d: {"summary": f"{d.gpus} GPUs"},
    )  # fmt: skip
    hidden = views_panels.DesignPanel(
        key="test-hidden", title="Hidden", template="panel.html", context=lambda request, d: None
    )
    views_panels.register_design_panel(shown)
    views_panels.register_design_panel(hidden)
    try:
        page = (
            browser_as(coordinator).get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
        )
    finally:
        views_panels._panels.pop("test-summary")
        views_panels._panels.pop("test-hidden")
    assert '<section class="card design-panel" id="test-summary">' in page
    assert "<p>512 GPUs for Test cluster</p>" in page and "test-hidden" not in page


def test_unknown_inputs_from_the_engine_are_named_in_words():
    from apps.clusters.views.designs import field_label

    assert field_label("storage_write_gbs_per_node") == "Write per node (GB/s)"
    assert field_label("non_field_errors") == "The design"
    assert field_label("made_up_input") == "Made up input"


def test_the_dashboard_tile_counts_the_designs_each_user_sees(coordinator, stranger, customer, design):
    from apps.clusters.views.designs import design_tiles

    assert [(t.count, t.label, t.url) for t in design_tiles(coordinator)] == [
        (1, "cluster designs", "/clusters/")
    ]
    assert design_tiles(stranger)[0].count == 0
    reader = UserFactory(organisation=customer, role=Role.PARTNER, username="reader")
    assert design_tiles(reader)[0].count == 1  # the customer reads its cluster's design


def test_the_design_run_and_bom_pages_read_a_fixed_number_of_queries(browser_as, coordinator, everything):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    design, run, bom, _ = everything
    client = browser_as(coordinator)
    pages = design_pages(design, run, bom)
    urls = [pages["detail"], pages["run"], pages["bom-version"]]

    def counts() -> list[int]:
        found = []
        for url in urls:
            client.get(url)
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
            found.append(len(queries))
        return found

    before = counts()
    # More runs, versions and edited lines read no more queries.
    services.bom_from_run(run=services.sizing_run_now(design=design, actor=coordinator), actor=coordinator)
    for line in bom.lines.all()[:3]:
        services.bom_line_update(line=line, quantity=line.quantity + 1, note="spares", actor=coordinator)
    assert counts() == before
    # With the audit trails' names of what a change points at: one query per kind of object
    # named (parts, organisations, sites, people), whatever the number of rows.
    assert before == [10, 9, 12]
