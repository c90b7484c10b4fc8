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
    assert '<a href="#id_customer">Customer (whose cluster it is)</a>: This field is required.' in page


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
