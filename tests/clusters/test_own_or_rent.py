"""Own or rent (issue 14): the pure comparison worked by hand (Decimal throughout, the break-even
month, "not within N months", "never"), the hardware's landed cost from the shipments app's
engine for the site's country, the chart, and the API and page, refused to another organisation.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from apps.accounts.models import OrganisationKind
from apps.clusters import services
from apps.clusters.charts.own_or_rent import own_or_rent_chart
from apps.clusters.engines import economics
from apps.clusters.models import ClusterDesign
from apps.clusters.services import own_or_rent
from tests.factories import OrganisationFactory, UserFactory

from . import plan_world
from .builders import design_fields

SVG = "{http://www.w3.org/2000/svg}"


def inputs(**changes) -> economics.OwnOrRentInputs:
    base = {
        "hardware_cost": D("1000000"), "currency": "USD", "it_kw": D("100"), "pue": D("1.2"),
        "electricity_price": D("0.10"), "support_rate": D("12"), "gpus": 64, "gpu_hour_price": D("2.00"),
        "utilisation": D("100"), "months": 24,
    }  # fmt: skip
    return economics.OwnOrRentInputs(**(base | changes))


# --- the engine --------------------------------------------------------------------------------


def test_break_even_by_hand():
    result = economics.own_or_rent(inputs())
    # power: 100 kW × 1.2 × 730 h = 87,600 kWh × 0.10 = 8,760.00 a month
    # support: 1,000,000 × 12 % / 12 = 10,000.00 a month → running 18,760.00
    # rent: 64 GPUs × 730 h = 46,720 GPU-hours × 2.00 = 93,440.00 a month
    assert (result.power_per_month, result.support_per_month) == (D("8760.00"), D("10000.00"))
    assert result.own_running_per_month == D("18760.00") and result.rent_per_month == D("93440.00")
    # 1,000,000 + 18,760 m ≤ 93,440 m from m = 1,000,000 / 74,680 = 13.4 → month 14
    assert result.points[13] == economics.MonthPoint(13, D("1243880.00"), D("1214720.00"))
    assert result.points[14] == economics.MonthPoint(14, D("1262640.00"), D("1308160.00"))
    assert result.break_even_month == 14 and result.break_even_beyond is None
    assert result.points[0] == economics.MonthPoint(0, D("1000000.00"), D("0.00"))
    assert len(result.points) == 25 and result.own_total == D("1450240.00")
    assert all(isinstance(p.own, D) and isinstance(p.rent, D) for p in result.points)
    assert result.verdict.startswith("Owning breaks even in month 14")


def test_not_within_the_horizon_says_when():
    result = economics.own_or_rent(inputs(months=12))
    assert result.break_even_month is None and result.break_even_beyond == 14
    assert result.verdict == "Not within 12 months: owning would break even in month 14."


def test_utilisation_scales_the_rented_hours():
    result = economics.own_or_rent(inputs(utilisation=D("50")))
    assert result.gpu_hours_per_month == D("23360") and result.rent_per_month == D("46720.00")
    # 1,000,000 / (46,720 − 18,760) = 35.8 → month 36
    assert economics.own_or_rent(inputs(utilisation=D("50"), months=48)).break_even_month == 36


def test_never_when_renting_costs_less_than_running():
    result = economics.own_or_rent(inputs(gpu_hour_price=D("0.30")))  # 14,016.00 a month < 18,760.00
    assert result.break_even_month is None and result.break_even_beyond is None
    assert result.verdict.startswith("Owning never breaks even")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"gpu_hour_price": D("0")}, "gpu_hour_price"),
        ({"gpu_hour_price": D("-1")}, "gpu_hour_price"),
        ({"months": 0}, "months"),
        ({"months": -3}, "months"),
        ({"months": 601}, "months"),
        ({"support_rate": D("101")}, "support_rate"),
        ({"utilisation": D("0")}, "utilisation"),
        ({"pue": D("0.9")}, "pue"),
        ({"gpus": 0}, "gpus"),
        ({"gpu_hour_price": "abc"}, "gpu_hour_price"),
    ],
)
def test_bad_input_is_named(changes, field):
    with pytest.raises(economics.EconomicsError) as caught:
        inputs(**changes)
    assert caught.value.field == field


def test_chart_is_accessible_svg_with_the_break_even_marked():
    svg = own_or_rent_chart(economics.own_or_rent(inputs()))
    root = ET.fromstring(svg)
    assert root.get("role") == "img"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title.text == "Own or rent: cumulative cost over 24 months (USD)"
    assert "Owning breaks even in month 14" in desc.text and "1,000,000 USD" in desc.text
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert len(root.findall(f".//{SVG}polyline")) == 2
    [mark] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "break-even"]
    assert mark.get("data-month") == "14"
    labels = {t.text for t in root.iter(f"{SVG}text")}
    assert {"Month", "Cumulative cost (USD)", "Break-even: month 14"} <= labels
    never = ET.fromstring(own_or_rent_chart(economics.own_or_rent(inputs(gpu_hour_price=D("0.30")))))
    assert not [g for g in never.iter(f"{SVG}g") if g.get("class") == "break-even"]


# --- the service: landed cost, power, the design ------------------------------------------------


@pytest.fixture
def servers_only(operator, design):
    """4 servers from Taiwan (HS 8471, duty-free in India), power priced in rupees; no hub and no
    TW → IN rate, so the plan cannot price their freight."""
    plan_world.rates()
    plan_world.india_taxes()
    parts = plan_world.plan_parts(operator)
    ClusterDesign.objects.filter(pk=design.pk).update(
        electricity_price=D("8.45"), electricity_currency="INR", required_on_site=dt.date(2027, 3, 1)
    )
    design.refresh_from_db()
    return plan_world.bom(design, parts, quantities=(("system", "server", 4),))


def test_landed_hardware_power_in_the_hardwares_currency_and_break_even_by_hand(servers_only, design):
    answer = own_or_rent.own_or_rent_for(
        design, gpu_hour_price=D("2"), support_rate=D("12"), months=24, today=dt.date(2027, 1, 4)
    )
    landed = answer.landed
    # goods 1,200,000; no TW → IN air rate: freight not counted (said so); insurance 0.3 % = 3,600.00;
    # CIF 1,203,600.00; duty 0 % (HS 8471); IGST 18 % × 1,203,600 = 216,648.00
    assert (landed.goods_value, landed.freight, landed.insurance) == (
        D("1200000.00"),
        D("0.00"),
        D("3600.00"),
    )
    assert (landed.duty, landed.vat, landed.total_landed) == (D("0.00"), D("216648.00"), D("1420248.00"))
    assert any("Freight not counted" in note for note in answer.notes)
    r = answer.result
    assert r.hardware == D("1420248.00")
    # 8.45 INR/kWh at 1 USD = 84.5 INR = 0.10 USD; 100 kW × 1.2 × 730 h × 0.10 = 8,760.00
    assert r.power_per_month == D("8760.00")
    assert r.support_per_month == D("14202.48")  # 1,420,248 × 12 % / 12
    assert r.rent_per_month == D("747520.00")  # 512 GPUs × 730 h × 2.00
    assert r.break_even_month == 2  # 1,420,248 / (747,520 − 22,962.48) = 1.96
    # The converted price is worked and shown to the micro-unit, never as 0.0999…97.
    assert answer.electricity_price == D("0.1") and "× 0.1 USD/kWh" in " ".join(r.explanation)


def test_freight_of_a_fully_priced_plan_is_in_the_landed_cost(operator, design):
    plan_world.rates()
    plan_world.hub(operator)
    plan_world.india_taxes()
    plan_world.factories(operator)
    plan_world.bom(design, plan_world.plan_parts(operator))
    ClusterDesign.objects.filter(pk=design.pk).update(required_on_site=dt.date(2027, 3, 1))
    design.refresh_from_db()
    answer = own_or_rent.own_or_rent_for(design, gpu_hour_price=D("2"), today=dt.date(2027, 1, 4))
    assert answer.landed.freight == D("2938.00")  # 2,646.40 through Singapore + 291.60 by sea
    # duty: 20 % on the switches (8517) and 25 % on the racks (9403), with the levy of 10 % on it
    assert answer.landed.duty > 0 and answer.landed.levies == (answer.landed.duty * D("0.10")).quantize(
        D("0.01")
    )


def test_no_bill_of_materials_or_exchange_rate_is_named(operator, design, servers_only, parts):
    ClusterDesign.objects.filter(pk=design.pk).update(electricity_currency="EUR")
    design.refresh_from_db()
    with pytest.raises(ValidationError) as caught:
        own_or_rent.own_or_rent_for(design, gpu_hour_price=D("2"), today=dt.date(2027, 1, 4))
    assert "No exchange rate EUR → USD" in caught.value.message_dict["electricity_currency"][0]
    unsized = services.design_create(
        owner=operator,
        fields=design_fields(parts, customer=design.customer, site=design.site, name="Unsized"),
    )
    with pytest.raises(ValidationError) as caught:
        own_or_rent.own_or_rent_for(unsized, gpu_hour_price=D("2"))
    assert "bom" in caught.value.message_dict


# --- API and page ------------------------------------------------------------------------------


@pytest.fixture
def outsider(db):
    org = OrganisationFactory(
        kind=OrganisationKind.FREIGHT_FORWARDER, legal_name="Bravo Freight", country="SG"
    )
    return UserFactory(organisation=org, role="partner", username="bravo")


@pytest.fixture
def customer_user(customer):
    return UserFactory(organisation=customer, role="partner", username="customer-planner")


def test_api(servers_only, design, coordinator, customer_user, outsider, api_as):
    url = f"/api/v1/clusters/{design.pk}/own-or-rent/"
    answer = api_as(coordinator).get(url, {"gpu_hour_price": "2", "support_rate": "12", "months": "24"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["hardware_landed"] == "1420248.00" and body["break_even_month"] == 2
    assert body["points"][2] == {"month": 2, "own": "1466172.96", "rent": "1495040.00"}
    assert body["landed_cost"]["vat"] == "216648.00" and len(body["points"]) == 25
    assert api_as(customer_user).get(url, {"gpu_hour_price": "2"}).status_code == 200
    assert api_as(outsider).get(url, {"gpu_hour_price": "2"}).status_code == 404
    for query, field in (
        ({"gpu_hour_price": "0"}, "gpu_hour_price"),
        ({"gpu_hour_price": "-2"}, "gpu_hour_price"),
        ({}, "gpu_hour_price"),
        ({"gpu_hour_price": "2", "months": "0"}, "months"),
        ({"gpu_hour_price": "2", "months": "-1"}, "months"),
        ({"gpu_hour_price": "2", "utilisation": "0"}, "utilisation"),
    ):
        refused = api_as(coordinator).get(url, query)
        assert refused.status_code == 400 and field in refused.json(), (query, refused.content)


def test_page_panel_renders_the_chart_with_htmx(
    servers_only, design, coordinator, outsider, browser_as, client
):
    url = reverse("clusters:own-or-rent-panel", args=[design.pk])
    empty = browser_as(coordinator).get(url)
    assert empty.status_code == 200 and 'name="oor-gpu_hour_price"' in empty.content.decode()
    assert "<svg" not in empty.content.decode()
    shown = client.get(url, {"oor-gpu_hour_price": "2", "oor-support_rate": "12", "oor-months": "24"})
    text = shown.content.decode()
    assert shown.status_code == 200 and "<svg" in text and "Break-even: month 2" in text
    assert "1,420,248.00 USD" in text
    assert client.get(url, {"oor-gpu_hour_price": "0"}, HTTP_HX_REQUEST="true").status_code == 200
    refused = client.get(url, {"oor-gpu_hour_price": "0", "oor-months": "0"})
    text = refused.content.decode()
    assert refused.status_code == 400 and "<svg" not in text
    assert "The price per GPU-hour must be greater than 0." in text
    assert "The number of months must be greater than 0." in text
    client.logout()
    assert browser_as(outsider).get(url, {"oor-gpu_hour_price": "2"}).status_code == 404
