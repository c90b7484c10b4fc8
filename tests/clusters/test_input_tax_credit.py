"""Own or rent with input-tax credit: where the buyer can claim the import VAT/GST back (India: it
holds a GSTIN), the IGST is a timing cost — paid with the hardware, credited back — not a sunk
cost. Worked by hand on the engine, then through the service, the API and the panel; asking for
the credit where the buyer cannot claim it is refused naming the field."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from apps.accounts.models import Registration
from apps.clusters.engines import economics
from apps.clusters.models import ClusterDesign
from apps.clusters.services import own_or_rent

from . import plan_world


def inputs(**changes) -> economics.OwnOrRentInputs:
    base = {
        "hardware_cost": D("1180000"), "import_tax": D("180000"), "currency": "USD", "it_kw": D("100"),
        "pue": D("1.2"), "electricity_price": D("0.10"), "support_rate": D("12"), "gpus": 64,
        "gpu_hour_price": D("2.00"), "utilisation": D("100"), "months": 24, "import_tax_name": "IGST",
    }  # fmt: skip
    return economics.OwnOrRentInputs(**(base | changes))


# --- the engine, by hand -------------------------------------------------------------------------
# Hardware 1,180,000 landed, of which 180,000 import GST. Power 100 kW × 1.2 × 730 h × 0.10 =
# 8,760.00 a month; rent 64 × 730 × 2.00 = 93,440.00 a month.


def test_claimed_the_tax_comes_back_and_owning_pays_back_sooner():
    claimed = economics.own_or_rent(inputs(input_tax_credit_month=1))
    # Support on the hardware without the credited tax: 1,000,000 × 12 % / 12 = 10,000.00.
    assert claimed.support_per_month == D("10000.00") and claimed.own_running_per_month == D("18760.00")
    assert claimed.points[0].own == D("1180000.00")  # paid in full in month 0
    assert claimed.points[1].own == D("1018760.00")  # 1,180,000 − 180,000 + 18,760
    # From month 1: 1,000,000 + 18,760 m ≤ 93,440 m from m = 13.4 → month 14.
    assert claimed.break_even_month == 14
    assert (claimed.input_tax_credit, claimed.input_tax_credit_month) == (D("180000.00"), 1)
    assert (
        "IGST of 180,000.00 USD, paid with the hardware in month 0, is credited back in month 1 "
        "(input-tax credit): a timing cost, not a sunk cost"
    ) in claimed.explanation
    # Not claimed: 1,180,000 + (8,760 + 11,800) m ≤ 93,440 m from m = 16.2 → month 17.
    sunk = economics.own_or_rent(inputs())
    assert sunk.support_per_month == D("11800.00") and sunk.break_even_month == 17
    assert sunk.input_tax_credit == D("0.00") and sunk.input_tax_credit_month is None
    assert "IGST of 180,000.00 USD is not claimed: it stays in the hardware's cost" in sunk.explanation


def test_past_the_horizon_and_a_late_credit():
    assert economics.own_or_rent(inputs(months=12, input_tax_credit_month=1)).break_even_beyond == 14
    assert economics.own_or_rent(inputs(months=12)).break_even_beyond == 17
    # Credited only in month 20: owning has paid back before (1,180,000 / 74,680 = 15.8 → month 16).
    late = economics.own_or_rent(inputs(input_tax_credit_month=20))
    assert late.break_even_month == 16
    assert late.points[19].own == D("1536440.00") and late.points[20].own == D("1375200.00")
    assert economics.own_or_rent(inputs(months=12, input_tax_credit_month=20)).break_even_beyond == 16


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"import_tax": D("2000000")}, "import_tax"),
        ({"import_tax": D("-1")}, "import_tax"),
        ({"input_tax_credit_month": -1}, "input_tax_credit_month"),
        ({"input_tax_credit_month": True}, "input_tax_credit_month"),
    ],
)
def test_bad_input_is_named(changes, field):
    with pytest.raises(economics.EconomicsError) as caught:
        inputs(**changes)
    assert caught.value.field == field


def test_the_rule_names_its_source():
    india = economics.input_tax_rule("IN")
    assert india.tax == "IGST" and india.registration == "gstin"
    assert "CGST Act 2017" in india.source and "Customs Tariff Act 1975 s. 3(7)" in india.source
    assert economics.input_tax_rule("DE").registration == "vat"


# --- the service, API and panel -------------------------------------------------------------------


@pytest.fixture
def servers_only(operator, design):
    """4 servers from Taiwan (HS 8471, duty-free in India; IGST 18 %), power priced in rupees."""
    plan_world.rates()
    plan_world.india_taxes()
    parts = plan_world.plan_parts(operator)
    ClusterDesign.objects.filter(pk=design.pk).update(
        electricity_price=D("8.45"), electricity_currency="INR", required_on_site=dt.date(2027, 3, 1)
    )
    design.refresh_from_db()
    return plan_world.bom(design, parts, quantities=(("system", "server", 4),))


@pytest.fixture
def gstin(customer):
    return Registration.objects.create(
        organisation=customer, scheme="gstin", number="33AAKCC5521M1Z2", country="IN"
    )


def _compare(design, **changes):
    return own_or_rent.own_or_rent_for(
        design, gpu_hour_price=D("2"), support_rate=D("12"), months=24, today=dt.date(2027, 1, 4), **changes
    )


def test_a_buyer_with_a_gstin_has_the_igst_credited_by_default(servers_only, design, gstin):
    answer = _compare(design)
    r = answer.result
    assert answer.input_tax.claimable and answer.input_tax.claimed and answer.input_tax.month == 1
    # IGST 18 % × CIF 1,203,600.00 = 216,648.00, credited in month 1.
    assert r.hardware == D("1420248.00") and r.input_tax_credit == D("216648.00")
    # Support on 1,420,248 − 216,648 = 1,203,600: × 12 % / 12 = 12,036.00; power 8,760.00.
    assert r.support_per_month == D("12036.00")
    assert r.points[1].own == D("1224396.00")  # 1,420,248 − 216,648 + 20,796
    # Left out on purpose, it is a cost again.
    sunk = _compare(design, input_tax_credit=False).result
    assert sunk.input_tax_credit == D("0.00") and sunk.support_per_month == D("14202.48")
    assert _compare(design, credit_month=3).result.input_tax_credit_month == 3


def test_a_buyer_without_one_cannot_claim_and_is_told_why(servers_only, design, customer):
    answer = _compare(design)
    assert not answer.input_tax.claimable and not answer.input_tax.claimed
    assert answer.result.hardware == D("1420248.00") and answer.result.break_even_month == 2
    with pytest.raises(ValidationError) as caught:
        _compare(design, input_tax_credit=True)
    assert caught.value.message_dict["input_tax_credit"] == [
        f"{customer} holds no GSTIN in IN: the IGST is a cost it cannot claim back."
    ]
    # An expired GSTIN claims nothing either.
    Registration.objects.create(
        organisation=customer, scheme="gstin", number="33AAKCC5521M1Z2", country="IN",
        valid_until=dt.date(2020, 1, 1),
    )  # fmt: skip
    assert not _compare(design).input_tax.claimable


def test_api_offers_and_refuses_the_credit(servers_only, design, coordinator, api_as, customer):
    url = f"/api/v1/clusters/{design.pk}/own-or-rent/"
    query = {"gpu_hour_price": "2", "support_rate": "12", "months": "24"}
    body = api_as(coordinator).get(url, query).json()
    assert body["input_tax_credit"]["claimable"] is False and body["input_tax_credit"]["claimed"] is False
    refused = api_as(coordinator).get(url, query | {"input_tax_credit": "true"})
    assert refused.status_code == 400 and "holds no GSTIN" in refused.json()["input_tax_credit"][0]
    Registration.objects.create(organisation=customer, scheme="gstin", number="33AAKCC5521M1Z2", country="IN")
    body = api_as(coordinator).get(url, query).json()
    credit = body["input_tax_credit"]
    assert credit["claimed"] is True and credit["amount"] == "216648.00" and credit["month"] == 1
    assert credit["tax"] == "IGST" and "CGST Act 2017" in credit["source"]
    assert body["points"][1]["own"] == "1224396.00"
    off = api_as(coordinator).get(url, query | {"input_tax_credit": "false"}).json()
    assert off["input_tax_credit"]["claimed"] is False and off["input_tax_credit"]["amount"] == "0.00"
    bad = api_as(coordinator).get(url, query | {"credit_month": "-1"})
    assert bad.status_code == 400 and "credit_month" in bad.json()


def test_the_panel_offers_the_credit_only_where_it_can_be_claimed(
    servers_only, design, coordinator, customer, browser_as
):
    client = browser_as(coordinator)
    url = reverse("clusters:own-or-rent-panel", args=[design.pk])
    text = client.get(url).content.decode()
    assert 'name="oor-input_tax_credit"' not in text and "holds no GSTIN in IN" in text
    Registration.objects.create(organisation=customer, scheme="gstin", number="33AAKCC5521M1Z2", country="IN")
    text = client.get(url).content.decode()
    assert 'name="oor-input_tax_credit"' in text and "Claim the IGST back as input-tax credit" in text
    assert (
        'id="id_oor-input_tax_credit" checked' in text
        or "checked" in text.split('name="oor-input_tax_credit"')[1][:80]
    )
    assert "Source: Customs Tariff Act 1975" in text
    shown = client.get(
        url,
        {
            "oor-gpu_hour_price": "2",
            "oor-support_rate": "12",
            "oor-months": "24",
            "oor-input_tax_credit": "on",
        },
    ).content.decode()
    assert "216,648.00 USD back in month 1" in shown
    unticked = client.get(url, {"oor-gpu_hour_price": "2", "oor-support_rate": "12", "oor-months": "24"})
    assert "not claimed: part of the hardware's cost" in unticked.content.decode()
