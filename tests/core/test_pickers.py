"""Search-as-you-type object pickers (issue 12): every form field that takes an object searches as the
user types, and offers only what the user may see."""

import pytest
from django import forms
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.accounts.forms import ConnectionForm
from apps.accounts.models import OrganisationKind
from apps.catalog.forms import PartForm
from apps.compliance.forms import LicenceForm
from apps.core.pickers import SearchSelect
from apps.shipments.forms import EventForm, LegForm, LineForm, ShipmentForm, SiteForm
from tests.factories import OrganisationFactory, PartFactory


@pytest.fixture
def parts(operator, supplier):
    master = PartFactory(owner=operator, part_number="MQM9790-NS2F", name="Quantum-2 switch")
    own = PartFactory(owner=supplier, part_number="TS-GPU-SERVER", name="Taiwan GPU server")
    other = PartFactory(
        owner=OrganisationFactory(kind=OrganisationKind.SUPPLIER, legal_name="Rival Servers Ltd."),
        part_number="RIVAL-SECRET-1",
        name="Rival server",
    )
    return master, own, other


def pick(client, kind, q):
    return client.get(reverse("pick", args=[kind]), {"q": q})


def test_the_part_picker_finds_by_any_term_and_answers_only_what_the_user_sees(
    parts, supplier_user, browser_as
):
    master, own, other = parts
    client = browser_as(supplier_user)
    found = pick(client, "part", "server").json()
    assert [row["text"] for row in found["results"]] == ["NVIDIA TS-GPU-SERVER — Taiwan GPU server"]
    assert found["results"][0]["value"] == str(own.pk)
    # Every term must match (in any of part number, name, manufacturer).
    assert pick(client, "part", "nvidia quantum").json()["results"][0]["value"] == str(master.pk)
    # Another supplier's private part is not found, by name or by number.
    assert pick(client, "part", "RIVAL").json()["results"] == []
    assert pick(client, "part", "").json()["results"] == [
        {"value": str(master.pk), "text": "NVIDIA MQM9790-NS2F — Quantum-2 switch"},
        {"value": str(own.pk), "text": "NVIDIA TS-GPU-SERVER — Taiwan GPU server"},
    ]


def test_the_party_picker_offers_only_organisations_the_partner_may_name(
    supplier, supplier_user, operator, browser_as
):
    OrganisationFactory(kind=OrganisationKind.CUSTOMER, legal_name="Unconnected Customer Ltd.")
    client = browser_as(supplier_user)
    names = [row["text"] for row in pick(client, "organisation-nameable", "").json()["results"]]
    assert supplier.legal_name in names
    assert "Unconnected Customer Ltd." not in names


def test_the_picker_refuses_unknown_kinds_long_searches_and_strangers(coordinator, browser_as, client):
    assert client.get(reverse("pick", args=["part"])).status_code == 302  # to the sign-in page
    browser = browser_as(coordinator)
    assert pick(browser, "shipment-secrets", "x").status_code == 404
    response = pick(browser, "part", " ".join(["term"] * 11))
    assert response.status_code == 400
    assert "q" in response.json()


def test_answers_are_capped_and_say_when_there_are_more(operator, coordinator, browser_as):
    PartFactory.create_batch(21, owner=operator)
    answer = pick(browser_as(coordinator), "part", "test part").json()
    assert len(answer["results"]) == 20
    assert answer["more"] is True


def test_a_short_list_is_searched_in_the_page(parts, supplier_user):
    form = LineForm(user=supplier_user)
    html = str(form["part"])
    assert 'data-picker="inline"' in html
    assert "TS-GPU-SERVER" in html and "MQM9790-NS2F" in html
    assert "RIVAL-SECRET-1" not in html


def test_a_long_list_sends_only_the_chosen_option_and_searches_the_server(parts, supplier_user, settings):
    settings.PICKER_INLINE_LIMIT = 1
    master, own, _ = parts
    form = LineForm(user=supplier_user, initial={"part": own.pk})
    with CaptureQueriesContext(connection) as queries:
        html = str(form["part"])
    assert 'data-picker="remote"' in html
    assert f'data-picker-url="{reverse("pick", args=["part"])}"' in html
    assert "TS-GPU-SERVER" in html  # the chosen one
    assert "MQM9790-NS2F" not in html
    assert len(queries) == 2  # the capped look (limit + 1 rows), then the chosen option


def test_a_short_list_costs_the_one_query_a_plain_select_did(parts, supplier_user):
    form = LineForm(user=supplier_user)
    with CaptureQueriesContext(connection) as queries:
        str(form["part"])
    assert len(queries) == 1


def test_a_refused_choice_is_still_refused_whatever_the_picker_offered(parts, supplier_user):
    """The picker is a convenience: the form's own queryset decides (another's part is refused)."""
    _, _, other = parts
    form = LineForm(user=supplier_user, data={"part": other.pk, "quantity": 1})
    assert not form.is_valid()
    assert "part" in form.errors


@pytest.mark.parametrize(
    "make_form",
    [
        lambda user: ShipmentForm(user=user),
        lambda user: LineForm(user=user),
        lambda user: LegForm(user=user),
        lambda user: SiteForm(user=user),
        lambda user: PartForm(user=user),
        lambda user: LicenceForm(user=user),
        lambda user: ConnectionForm(user=user),
        lambda user: EventForm(),
    ],
    ids=["shipment", "line", "leg", "site", "part", "licence", "connection", "event"],
)
def test_every_single_object_field_of_the_browser_forms_is_a_picker(make_form, coordinator):
    form = make_form(coordinator)
    single = [
        name
        for name, field in form.fields.items()
        if isinstance(field, forms.ModelChoiceField) and not isinstance(field, forms.ModelMultipleChoiceField)
    ]
    assert single, "the form has an object field"
    for name in single:
        assert isinstance(form.fields[name].widget, SearchSelect), name
        assert "data-picker=" in str(form[name]), name


def test_an_object_filter_of_a_list_is_a_picker_too(parts, coordinator, browser_as):
    page = browser_as(coordinator).get("/parts/")
    field = page.context["filterset"].form["manufacturer"]
    assert isinstance(field.field.widget, SearchSelect)
    assert 'data-picker="inline"' in str(field)
