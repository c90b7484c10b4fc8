"""The planner's path through a design's pages: "Make bill of materials" wherever a finished run
is shown (the design page and its runs table), the design form started from a template or a copy
of a design, with its labels spelled out and its required fields marked, and the customer chosen,
never assumed."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apps.accounts.roles import Role
from apps.clusters import services
from apps.clusters.models import BillOfMaterials, RunStatus
from tests.factories import UserFactory


@pytest.fixture
def sized(design, coordinator):
    run = services.sizing_run_now(design=design, actor=coordinator)
    assert run.status == RunStatus.SUCCEEDED, run.errors
    return run


# --- make bill of materials ---------------------------------------------------------------------


def test_the_design_page_offers_make_bill_of_materials_from_the_latest_run(
    browser_as, coordinator, design, sized
):
    client = browser_as(coordinator)
    page = client.get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
    action = reverse("clusters:bom-create", args=[design.pk, sized.pk])
    head = page.split('<dl class="facts')[0]
    assert f'action="{action}"' in head and "Make bill of materials" in head
    runs = re.search(r'<section class="card" id="runs">(.*?)</section>', page, flags=re.S).group(1)
    row = re.search(rf'<tr id="run-{sized.number}">(.*?)</tr>', runs, flags=re.S).group(1)
    assert f'action="{action}"' in row and "Make bill of materials" in row

    response = client.post(action)
    bom = BillOfMaterials.objects.get(design=design)
    assert response["Location"] == reverse("clusters:bom-version", args=[design.pk, bom.pk])
    runs = client.get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
    row = re.search(rf'<tr id="run-{sized.number}">(.*?)</tr>', runs, flags=re.S).group(1)
    assert f">v{bom.version}</a>" in row
    assert "Make another version" in row  # a run already made into one can make the next


def test_a_failed_run_and_a_reader_get_no_make_button(
    browser_as, coordinator, design, sized, customer, parts
):
    parts["storage"].attributes = {}  # the appliance's capacity unknown: the next run is refused
    parts["storage"].save()
    failed = services.sizing_run_now(design=design, actor=coordinator)
    assert failed.status == RunStatus.FAILED
    page = browser_as(coordinator).get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
    row = re.search(rf'<tr id="run-{failed.number}">(.*?)</tr>', page, flags=re.S).group(1)
    assert "Make bill of materials" not in row
    reader = UserFactory(organisation=customer, role=Role.PARTNER)
    page = browser_as(reader).get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
    assert "Make bill of materials" not in page
    assert browser_as(reader).post(
        reverse("clusters:bom-create", args=[design.pk, sized.pk])
    ).status_code in (
        403,
        404,
    )


# --- the design form: templates, copies, labels, required fields ------------------------------------


@pytest.fixture
def catalogue(operator):
    """The demo catalogue's parts (the templates name them by part number), and the demo's
    liquid-cooled HGX server."""
    from apps.catalog import demo as catalog_demo
    from apps.clusters import demo as clusters_demo

    catalog_demo.load()
    clusters_demo._liquid_hgx_server(operator)


def _selected(page: str, name: str) -> list[str]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, flags=re.S).group(1)
    return re.findall(r'<option value="([^"]*)"[^>]*selected', select)


def test_the_new_design_form_marks_required_fields_spells_out_labels_and_assumes_no_customer(
    browser_as, coordinator, customer, dc
):
    page = browser_as(coordinator).get(reverse("clusters:design-create")).content.decode()
    assert _selected(page, "customer") in ([], [""])  # not the planner's own organisation
    for name in ("name", "customer", "site", "system", "gpus", "pdu", "oob_switch"):
        tag = re.search(rf'<(input|select)[^>]*name="{name}"[^>]*>', page).group(0)
        assert 'aria-required="true"' in tag, name
    for name in ("cdu", "required_on_site", "compute_cable"):
        tag = re.search(rf'<(input|select)[^>]*name="{name}"[^>]*>', page).group(0)
        assert "aria-required" not in tag, name
    for label in (
        "In-band management switch",
        "Out-of-band management switch",
        "Rack PDU (power distribution unit)",
        "CDU (coolant distribution unit)",
        "PUE (power usage effectiveness)",
    ):
        assert f'>{label} <span class="req"' in page or f">{label}</label>" in page, label
    assert 'id="required-note"' in page


def test_a_design_without_a_customer_is_refused_naming_the_field(browser_as, coordinator, fields):
    from tests.clusters.test_pages import form_data

    data = form_data(fields) | {"customer": ""}
    response = browser_as(coordinator).post(reverse("clusters:design-create"), data)
    assert response.status_code == 200  # the form again, not saved
    page = response.content.decode()
    assert '<a href="#id_customer">Customer</a>: This field is required.' in page


def test_a_template_fills_the_form_but_not_the_customer_or_site(browser_as, coordinator, catalogue, dc):
    from apps.catalog.models import Part

    client = browser_as(coordinator)
    page = client.get(reverse("clusters:design-create"), {"template": "dgx-h100-air"}).content.decode()
    dgx = Part.objects.get(part_number="DGXH-G640F+P2CMI36")
    assert _selected(page, "system") == [str(dgx.pk)]
    assert re.search(r'name="gpus" value="512"', page)
    assert _selected(page, "cooling") == ["air"]
    assert _selected(page, "customer") in ([], [""]) and _selected(page, "site") in ([], [""])
    refused = client.get(reverse("clusters:design-create"), {"template": "nope"})
    assert refused.status_code == 400
    assert "Start from: Select a valid choice. nope is not one of the available choices." in (
        refused.content.decode()
    )


@pytest.mark.parametrize("key", ["dgx-h100-air", "hgx-h100-liquid", "cerebras-cs3"])
def test_every_template_makes_a_design_that_sizes(key, operator, coordinator, catalogue, customer, dc):
    from apps.clusters.forms import DesignForm, template_initial

    initial = template_initial(key, coordinator)
    data = {name: "" if value is None else str(value) for name, value in initial.items()}
    data |= {"name": key, "customer": str(customer.pk), "site": str(dc.pk)}
    form = DesignForm(data, user=coordinator)
    assert form.is_valid(), form.errors
    design = services.design_create(owner=operator, fields=form.inputs(), actor=coordinator)
    run = services.sizing_run_now(design=design, actor=coordinator)
    assert run.status == RunStatus.SUCCEEDED, run.errors


def test_copy_fills_the_form_from_a_design_the_user_sees(browser_as, coordinator, design, customer):
    client = browser_as(coordinator)
    page = client.get(reverse("clusters:design-detail", args=[design.pk])).content.decode()
    copy_url = reverse("clusters:design-create") + f"?copy={design.pk}"
    assert f'href="{copy_url}"' in page and ">Copy</a>" in page
    form = client.get(copy_url).content.decode()
    assert f'value="Copy of {design.name}"' in form
    assert _selected(form, "customer") == [str(customer.pk)]
    assert _selected(form, "system") == [str(design.system_id)]
    assert 'id="copied-from"' in form


def test_copy_of_another_organisations_design_is_a_404(browser_as, design):
    from tests.factories import OrganisationFactory

    stranger = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere"), role=Role.PARTNER)
    client = browser_as(stranger)
    assert client.get(reverse("clusters:design-create") + f"?copy={design.pk}").status_code == 404
    assert client.get(reverse("clusters:design-create") + "?copy=x1").status_code == 404


# --- lead times and the shipment plan by ready date -------------------------------------------------


def test_a_new_version_takes_the_catalogues_lead_time(design, sized, parts):
    parts["system"].attributes = {**parts["system"].attributes, "lead_time_days": 56}
    parts["system"].save()
    parts["switch"].attributes = {**parts["switch"].attributes, "lead_time_days": "many"}  # not a number
    parts["switch"].save()
    bom = services.bom_from_run(run=sized)
    assert bom.lines.get(role="system").lead_time_days == 56
    assert bom.lines.get(role="compute_leaf").lead_time_days is None
    rows = services.bom_csv_rows(bom)
    assert rows[0][-1] == "lead_time_days"
    assert next(row for row in rows if row[0] == "system")[-1] == 56
    assert next(row for row in rows if row[0] == "compute_leaf")[-1] == ""


def test_a_lead_time_is_set_on_an_issued_version_from_its_page(browser_as, coordinator, design, sized):
    bom = services.bom_from_run(run=sized)
    services.bom_issue(bom=bom)
    line = bom.lines.get(role="system")
    client = browser_as(coordinator)
    url = reverse("clusters:bom-line-lead-time", args=[design.pk, line.pk])
    page = client.get(reverse("clusters:bom-version", args=[design.pk, bom.pk])).content.decode()
    assert f'action="{url}"' in page
    response = client.post(url, {f"lead-{line.pk}-lead_time_days": "56"})
    assert response.status_code == 302
    line.refresh_from_db()
    assert line.lead_time_days == 56
    refused = client.post(url, {f"lead-{line.pk}-lead_time_days": "-3"})
    assert refused.status_code == 400
    assert "lead time (days): Ensure this value is greater than or equal to 0." in refused.content.decode()
    cleared = client.post(url, {f"lead-{line.pk}-lead_time_days": ""})
    assert cleared.status_code == 302
    line.refresh_from_db()
    assert line.lead_time_days is None


def test_a_lead_time_through_the_api_and_another_organisation_refused(api_as, coordinator, design, sized):
    from tests.factories import OrganisationFactory

    bom = services.bom_from_run(run=sized)
    line = bom.lines.get(role="system")
    url = f"/api/v1/clusters/{design.pk}/bom/lines/{line.pk}/"
    answer = api_as(coordinator).patch(url, {"lead_time_days": 42}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["lead_time_days"] == 42 and answer.json()["quantity"] == line.quantity
    empty = api_as(coordinator).patch(url, {}, format="json")
    assert empty.status_code == 400 and "lead_time_days" in empty.json()["quantity"][0]
    too_long = api_as(coordinator).patch(url, {"lead_time_days": 9999}, format="json")
    assert too_long.status_code == 400 and "lead_time_days" in too_long.json()
    stranger = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere"), role=Role.PARTNER)
    assert api_as(stranger).patch(url, {"lead_time_days": 1}, format="json").status_code == 404
    line.refresh_from_db()
    assert line.lead_time_days == 42


@pytest.fixture
def march_world(operator, design):
    """64 DGX-class servers from Taiwan, eight weeks' lead time, needed on site in March; air and
    ocean Taiwan → India as the demo's rate table has them."""
    import datetime as dt

    from apps.clusters.models import ClusterDesign

    from . import plan_world

    plan_world.air("TW", "IN", "4.20", "250", 5)
    plan_world.ocean("TW", "IN", "65", "45", "150", 18)
    sites = plan_world.factories(operator)
    parts = plan_world.plan_parts(operator)
    ClusterDesign.objects.filter(pk=design.pk).update(required_on_site=dt.date(2027, 3, 31))
    design.refresh_from_db()
    bom = plan_world.bom(design, parts, quantities=(("system", "server", 64),))
    bom.lines.update(lead_time_days=56)
    return {"bom": bom, "sites": sites}


def test_a_march_need_with_factory_lead_times_sends_the_servers_by_sea_once(march_world, coordinator):
    import datetime as dt

    from apps.clusters.services import shipment_plan
    from apps.shipments.models import Shipment, ShipmentParty

    today = dt.date(2026, 12, 4)
    plan = shipment_plan.plan_for(march_world["bom"], today=today)
    [proposal] = plan.proposals
    assert proposal.key == "ocean-tw-nvidia" and proposal.mode == "ocean"
    assert proposal.ready_date == dt.date(2027, 1, 29) and proposal.arrival == dt.date(2027, 2, 16)
    result = shipment_plan.shipments_create_from_plan(bom=march_world["bom"], actor=coordinator, today=today)
    [shipment] = result.made
    assert shipment.mode == "ocean" and shipment.ready_date == dt.date(2027, 1, 29)
    shipper = ShipmentParty.objects.get(shipment=shipment, role="shipper").organisation
    assert shipper == march_world["sites"]["TW"].owner  # the supplier whose factory it leaves
    again = shipment_plan.shipments_create_from_plan(bom=march_world["bom"], actor=coordinator, today=today)
    assert again.made == [] and again.already == {"ocean-tw-nvidia": [shipment.reference]}
    assert Shipment.objects.count() == 1


# --- the API: templates and copies --------------------------------------------------------------------


def test_api_lists_the_templates_with_the_parts_the_user_sees(api_as, coordinator, catalogue):
    from apps.catalog.models import Part

    answer = api_as(coordinator).get("/api/v1/clusters/design-templates/")
    assert answer.status_code == 200, answer.content
    rows = {row["key"]: row for row in answer.json()}
    assert set(rows) == {"dgx-h100-air", "hgx-h100-liquid", "cerebras-cs3"}
    dgx = rows["dgx-h100-air"]
    assert dgx["values"]["system"] == Part.objects.get(part_number="DGXH-G640F+P2CMI36").pk
    assert dgx["values"]["gpus"] == 512 and dgx["values"]["pue"] == "1.45"
    assert "customer" not in dgx["values"] and "site" not in dgx["values"]
    assert dgx["missing_parts"] == []


def test_api_copies_a_design_and_refuses_another_organisations(api_as, coordinator, design, customer):
    from tests.factories import OrganisationFactory

    url = f"/api/v1/clusters/{design.pk}/copy/"
    made = api_as(coordinator).post(url, {"name": "Second hall"}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["name"] == "Second hall" and body["id"] != design.pk
    assert (
        body["customer"] == customer.pk and body["system"] == design.system_id and body["gpus"] == design.gpus
    )
    default = api_as(coordinator).post(url, {}, format="json")
    assert default.status_code == 201 and default.json()["name"] == f"Copy of {design.name}"
    stranger = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere"), role=Role.PARTNER)
    assert api_as(stranger).post(url, {}, format="json").status_code == 404
    reader = UserFactory(organisation=customer, role=Role.COMPLIANCE_OFFICER)  # reads, plans none
    assert api_as(reader).post(url, {}, format="json").status_code == 403
