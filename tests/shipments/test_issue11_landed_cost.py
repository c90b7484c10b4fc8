"""Issue 11, "Landed cost by the destination's rules": India's valuation rules (rule 10), unknown duty
rates, dated exchange rates and what the insurance figure is.

India's figures come from the reference data the demo loads (`apps/shipments/demo.py`): basic
customs duty (BCD) 25 % on racks (9403) and 10 % on cable (8544), Social Welfare Surcharge (SWS)
10 % of BCD, IGST 18 % on (assessable value + BCD + SWS), brokerage 350.00 USD and handling
120.00 USD per entry; rule 10(2) of the Customs Valuation Rules 2007: air freight counts at most
20 % of FOB, insurance 1.125 % of FOB when the premium is not known. Every figure is rounded to the
cent, half up, at each step.
"""

import datetime as dt
from decimal import Decimal as D

import pytest
from django.utils import timezone

from apps.shipments import selectors, services
from apps.shipments.demo import EXCHANGE_RATES, TARIFF_IN, TAXES, VALUATION_RULES
from apps.shipments.engines.landed_cost import (
    CurrencyMismatch,
    ExchangeRate,
    LandedCostInput,
    TariffLine,
    ValuationRules,
    landed_cost,
)
from apps.shipments.models import DestinationTax, FreightRate, TariffRate
from apps.shipments.models import ExchangeRate as ExchangeRateRow
from tests.factories import PartFactory

IN_TARIFF = [TariffLine(prefix, D(rate), note) for prefix, rate, note in TARIFF_IN]
IN_RULES = ValuationRules(D("0.20"), D("0.01125"), "Customs Valuation Rules 2007, rule 10(2)")


def india(**changes) -> LandedCostInput:
    """Four 42U racks (4 × 2,500.00 USD, HS 940320) flown TW → IN: 956.0 kg chargeable × 4.20 USD.

    Chargeable weight: each rack crate 120 × 60 × 199.1 cm / 6,000 = 238.92 kg volumetric (150 kg
    gross); 4 × 238.92 = 955.68 → 956.0 kg; freight = 956.0 × 4.20 = 4,015.20 USD."""
    values = {
        "incoterm": "DAP",
        "valuation_basis": "CIF",
        "goods_value": D("10000.00"),
        "freight_cost": D("4015.20"),
        "air_freight_cost": D("4015.20"),
        "lines": [("940320", D("10000.00"))],
        "tariff": IN_TARIFF,
        "vat_rate": D("0.18"),
        "social_welfare_surcharge_rate": D("0.10"),
        "brokerage_fee": D("350"),
        "handling_fee": D("120"),
        "currency": "USD",
        "destination": "IN",
        "valuation_rules": IN_RULES,
    }
    return LandedCostInput(**(values | changes))


# --- rule 10: air freight cap and insurance at 1.125 % of FOB -----------------------------------


def test_four_racks_by_air_without_the_rule_overstate_duties_and_taxes():
    # What Rackpass worked out before: the whole air freight and the 0.3 % estimate in the CIF.
    #   insurance estimate = 0.3 % × (10,000.00 + 4,015.20) = 42.0456 → 42.05
    #   CIF  = 10,000.00 + 4,015.20 + 42.05 = 14,057.25
    #   BCD  = 25 % × 14,057.25 = 3,514.3125 → 3,514.31
    #   SWS  = 10 % × 3,514.31 = 351.431 → 351.43
    #   IGST = 18 % × (14,057.25 + 3,514.31 + 351.43 = 17,922.99) = 3,226.1382 → 3,226.14
    #   duties and taxes = 3,514.31 + 351.43 + 3,226.14 = 7,091.88
    wrong = landed_cost(india(valuation_rules=ValuationRules()))
    assert wrong.customs_value == D("14057.25")
    assert (wrong.duty, wrong.levies, wrong.vat) == (D("3514.31"), D("351.43"), D("3226.14"))
    assert wrong.duty + wrong.levies + wrong.vat == D("7091.88")


def test_four_racks_by_air_cap_the_freight_at_20_percent_of_fob():
    result = landed_cost(india())
    # Rule 10(2): air freight counted = min(4,015.20, 20 % × 10,000.00 = 2,000.00) = 2,000.00
    assert result.freight == D("4015.20") and result.customs_freight == D("2000.00")
    # No premium known, so insurance counts at 1.125 % × 10,000.00 = 112.50 (the 0.3 % estimate,
    # 0.3 % × 14,015.20 = 42.05, is still what is paid)
    assert result.insurance == D("42.05") and result.customs_insurance == D("112.50")
    # assessable value = 10,000.00 + 2,000.00 + 112.50 = 12,112.50
    assert result.customs_value == D("12112.50")
    # BCD  = 25 % × 12,112.50 = 3,028.125 → 3,028.13
    # SWS  = 10 % × 3,028.13 = 302.813 → 302.81
    # IGST = 18 % × (12,112.50 + 3,028.13 + 302.81 = 15,443.44) = 2,779.8192 → 2,779.82
    assert (result.duty, result.levies, result.vat) == (D("3028.13"), D("302.81"), D("2779.82"))
    # duties and taxes = 3,028.13 + 302.81 + 2,779.82 = 6,110.76: the old 7,091.88 overstated them by
    # 981.12 USD (+16 %). (The 1,086 USD came from another freight figure; same rule.)
    assert result.duty + result.levies + result.vat == D("6110.76")
    # total = 10,000.00 + 4,015.20 freight + 42.05 insurance + 3,028.13 + 302.81 + 2,779.82
    #         + 350.00 brokerage + 120.00 handling = 20,638.01
    assert result.total_landed == D("20638.01")
    assert result.complete
    text = result.explanation
    assert (
        "Air freight in the customs value = the lower of 4,015.20 air freight and 20 % × 10,000.00 FOB "
        "= 2,000.00: 2,000.00 USD (Customs Valuation Rules 2007, rule 10(2))"
    ) in text
    assert (
        "Insurance in the customs value (premium not known) = 1.125 % × 10,000.00 FOB = 112.50 USD "
        "(Customs Valuation Rules 2007, rule 10(2)); a charged premium would count as charged"
    ) in text
    assert (
        "Customs value (CIF) = 10,000.00 goods + 2,000.00 freight + 112.50 insurance = 12,112.50 USD" in text
    )


def test_300_usd_of_fibre_by_air():
    # Two 30 m fibres (2 × 150.00 USD, HS 854470 → 8544, BCD 10 %) flown: 1.5 kg chargeable × 4.20
    # = 6.30, so the 250.00 USD minimum charge.
    fibre = india(
        goods_value=D("300.00"),
        freight_cost=D("250.00"),
        air_freight_cost=D("250.00"),
        lines=[("854470", D("300.00"))],
    )
    # Before: CIF = 300.00 + 250.00 + 0.3 % × 550.00 (= 1.65) = 551.65; BCD 10 % = 55.165 → 55.17;
    # SWS = 5.517 → 5.52; IGST = 18 % × (551.65 + 55.17 + 5.52 = 612.34) = 110.2212 → 110.22;
    # duties and taxes 170.91, with freight counted at 250.00.
    before = landed_cost(LandedCostInput(**{**fibre.__dict__, "valuation_rules": ValuationRules()}))
    assert before.customs_value == D("551.65")
    assert before.duty + before.levies + before.vat == D("170.91")
    after = landed_cost(fibre)
    # After: air freight counted = min(250.00, 20 % × 300.00 = 60.00) = 60.00 (250.00 was 4.2 × too
    # much); insurance = 1.125 % × 300.00 = 3.375 → 3.38; CIF = 300.00 + 60.00 + 3.38 = 363.38
    assert (after.customs_freight, after.customs_insurance) == (D("60.00"), D("3.38"))
    assert after.customs_value == D("363.38")
    # BCD = 10 % × 363.38 = 36.338 → 36.34; SWS = 10 % × 36.34 = 3.634 → 3.63;
    # IGST = 18 % × (363.38 + 36.34 + 3.63 = 403.35) = 72.603 → 72.60; duties and taxes 112.57
    assert (after.duty, after.levies, after.vat) == (D("36.34"), D("3.63"), D("72.60"))
    assert after.duty + after.levies + after.vat == D("112.57")
    # total = 300.00 + 250.00 + 1.65 + 36.34 + 3.63 + 72.60 + 350.00 + 120.00 = 1,134.22
    assert after.total_landed == D("1134.22")


def test_ocean_freight_is_not_capped_and_a_split_caps_only_the_air_part():
    by_sea = landed_cost(india(air_freight_cost=D("0")))
    # 4,015.20 by sea counts in full: CIF = 10,000.00 + 4,015.20 + 112.50 = 14,127.70
    assert by_sea.customs_freight == D("4015.20") and by_sea.customs_value == D("14127.70")
    # A split: 3,000.00 flown for 6,000.00 of the goods + 1,015.20 by sea.
    # air counted = min(3,000.00, 20 % × 6,000.00 = 1,200.00) = 1,200.00; freight counted
    # = 1,015.20 + 1,200.00 = 2,215.20; CIF = 10,000.00 + 2,215.20 + 112.50 = 12,327.70
    split = landed_cost(india(air_freight_cost=D("3000.00"), air_goods_value=D("6000.00")))
    assert split.customs_freight == D("2215.20") and split.customs_value == D("12327.70")


def test_a_charged_premium_is_the_insurance_and_is_counted_as_it_is():
    result = landed_cost(india(insurance_cost=D("80.00")))
    # The premium is known, so it counts as charged (no 1.125 %): CIF = 10,000.00 + 2,000.00 + 80.00
    # = 12,080.00; BCD = 3,020.00; SWS = 302.00; IGST = 18 % × 15,402.00 = 2,772.36
    assert result.insurance == D("80.00") and result.insurance_basis == "charged premium"
    assert not result.insurance_estimated
    assert result.customs_value == D("12080.00")
    assert (result.duty, result.levies, result.vat) == (D("3020.00"), D("302.00"), D("2772.36"))
    assert "Insurance (charged premium) = 80.00 USD" in result.explanation


def test_insurance_from_the_insured_value_is_named_an_estimate():
    result = landed_cost(india(insured_value=D("11000.00")))
    # 0.3 % × 11,000.00 insured value = 33.00: an estimate, not a quote
    assert result.insurance == D("33.00") and result.insurance_basis == "estimated"
    assert "Insurance (estimated) = 0.3 % × 11,000.00 insured value = 33.00 USD" in result.explanation
    assert not any("quoted" in line for line in result.explanation)


# --- an unknown duty rate is not 0 % ----------------------------------------------------------------


def test_a_code_without_a_tariff_line_makes_the_estimate_incomplete():
    # Racks (10,000.00, 9403: 25 %) and a lithium-ion battery cabinet (90,000.00, 850760: no line
    # in India's tariff data), by sea for 1,000.00 with a 300.00 premium charged.
    result = landed_cost(
        india(
            goods_value=D("100000.00"),
            freight_cost=D("1000.00"),
            air_freight_cost=D("0"),
            insurance_cost=D("300.00"),
            lines=[("940320", D("10000.00")), ("850760", D("90000.00"))],
            line_refs={"850760": "line 2"},
        )
    )
    # CIF = 100,000.00 + 1,000.00 + 300.00 = 101,300.00; the 1,300.00 is shared 10:90 → 130.00 and
    # 1,170.00; racks: 10,130.00 × 25 % = 2,532.50; batteries: 91,170.00 × unknown
    racks, batteries = result.duty_lines
    assert racks.duty == D("2532.50")
    assert batteries.duty_rate is None and batteries.duty is None
    assert batteries.customs_value == D("91170.00")
    assert not result.complete and result.unknown_duty == ["HS 850760 (line 2)"]
    # SWS = 10 % × 2,532.50 = 253.25; IGST = 18 % × (101,300.00 + 2,532.50 + 253.25 = 104,085.75)
    # = 18,735.435 → 18,735.44; known total = 100,000.00 + 1,000.00 + 300.00 + 2,532.50 + 253.25
    # + 18,735.44 + 350.00 + 120.00 = 123,291.19, and too low
    assert (result.duty, result.levies, result.vat) == (D("2532.50"), D("253.25"), D("18735.44"))
    assert result.total_landed == D("123291.19")
    assert any("× unknown rate: IN's tariff has no line for this code" in line for line in result.explanation)
    assert result.incomplete_reasons == [
        "No duty rate for HS 850760 (line 2): duty, levies and VAT/GST on that duty are missing, "
        "so the total is too low"
    ]


def test_a_destination_without_tax_data_has_an_unknown_vat():
    result = landed_cost(india(vat_rate=None))
    assert not result.complete and result.vat == D("0.00")
    assert "No import VAT/GST rate for IN" in result.incomplete_reasons[0]


# --- currencies -------------------------------------------------------------------------------------

EUR_USD = ExchangeRate("EUR", "USD", D("1.08"), dt.date(2026, 11, 27), "ECB reference rate")


def test_usd_freight_and_fees_are_converted_into_a_eur_shipment():
    result = landed_cost(
        india(
            currency="EUR",
            freight_currency="USD",
            fees_currency="USD",
            exchange_rates=[EUR_USD, ExchangeRate("EUR", "USD", D("1.20"), dt.date(2026, 12, 10))],
            exchange_date=dt.date(2026, 12, 3),
        )
    )
    # Latest rate on or before 2026-12-03: 1 EUR = 1.08 USD of 2026-11-27 (the 2026-12-10 one is
    # later), used inverted: freight 4,015.20 / 1.08 = 3,717.777… → 3,717.78 EUR; brokerage
    # 350.00 / 1.08 = 324.074… → 324.07; handling 120.00 / 1.08 = 111.111… → 111.11
    assert (result.freight, result.brokerage, result.handling) == (D("3717.78"), D("324.07"), D("111.11"))
    # Cap: 20 % × 10,000.00 EUR = 2,000.00; insurance 1.125 % → 112.50; CIF 12,112.50 EUR, so the same
    # BCD 3,028.13, SWS 302.81 and IGST 2,779.82 as in USD. Insurance paid = 0.3 % × (10,000.00 +
    # 3,717.78) = 41.15334 → 41.15
    assert result.customs_value == D("12112.50") and result.insurance == D("41.15")
    # total = 10,000.00 + 3,717.78 + 41.15 + 3,028.13 + 302.81 + 2,779.82 + 324.07 + 111.11 = 20,304.87
    assert result.total_landed == D("20304.87") and result.currency == "EUR"
    assert [c.what for c in result.conversions] == ["freight", "brokerage fee", "handling fee"]
    assert (
        "Freight 4,015.20 USD → EUR at 1 EUR = 1.08 USD (inverted) (rate of 2026-11-27, ECB reference "
        "rate, the latest on or before 2026-12-03) = 3,717.78 EUR"
    ) in result.explanation


def test_no_exchange_rate_refuses_and_names_both_currencies():
    with pytest.raises(CurrencyMismatch) as refused:
        landed_cost(
            india(
                currency="EUR",
                freight_currency="USD",
                exchange_rates=[ExchangeRate("EUR", "USD", D("1.08"), dt.date(2026, 12, 10))],
                exchange_date=dt.date(2026, 12, 3),
            )
        )
    assert str(refused.value) == (
        "freight is in USD but the shipment is in EUR, and there is no USD/EUR exchange rate on or "
        "before 2026-12-03. Add one to the exchange-rate table."
    )


# --- through the database, the API and the page -------------------------------------------------------


@pytest.fixture
def india_reference(db):
    """India's tariff, taxes and valuation rules and the exchange rates, as the demo loads them, and
    the TW → IN air rate (4.20 USD per chargeable kg, 250.00 minimum)."""
    for prefix, rate, note in TARIFF_IN:
        TariffRate.objects.create(destination_country="IN", hs_prefix=prefix, duty_rate=D(rate), note=note)
    _, basis, vat_name, vat, levy, brokerage, handling = next(t for t in TAXES if t[0] == "IN")
    cap, insurance, citation = VALUATION_RULES["IN"]
    DestinationTax.objects.create(
        country="IN",
        valuation_basis=basis,
        vat_name=vat_name,
        vat_rate=D(vat),
        levy_on_duty_rate=D(levy),
        brokerage_fee=D(brokerage),
        handling_fee=D(handling),
        air_freight_cap_of_fob=D(cap),
        insurance_of_fob_when_unknown=D(insurance),
        valuation_rules_citation=citation,
    )
    for base, quote, rate, valid_on, source in EXCHANGE_RATES:
        ExchangeRateRow.objects.create(base=base, quote=quote, rate=D(rate), valid_on=valid_on, source=source)
    FreightRate.objects.create(
        origin_country="TW",
        destination_country="IN",
        mode="air",
        service="Air general cargo",
        price_per_kg=D("4.20"),
        minimum_charge=D("250"),
        transit_days=5,
        valid_from=dt.date(2026, 1, 1),
        valid_to=dt.date(2027, 12, 31),
    )


def rack(**fields):
    return PartFactory(
        **{
            "part_number": "AR3300",
            "category": "rack",
            "hs_code": "940320",
            "unit_value": D("2500.00"),
            "unit_weight_kg": D("150"),
            "length_cm": D("120"),
            "width_cm": D("60"),
            "height_cm": D("199.10"),
            "is_serialised": False,
            "country_of_origin": "US",
        }
        | fields
    )


def fibre(**fields):
    return PartFactory(
        **{
            "part_number": "MFP7E10-N030",
            "category": "cable",
            "hs_code": "854470",
            "unit_value": D("150.00"),
            "unit_weight_kg": D("0.4"),
            "length_cm": D("30"),
            "width_cm": D("25"),
            "height_cm": D("5"),
            "is_serialised": False,
            "country_of_origin": "CN",
        }
        | fields
    )


def test_the_destinations_rules_and_citation_come_from_its_data(india_reference, make_shipment):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=rack(), quantity=4)
    # The same four racks and 4,015.20 USD of air freight as above, read from the database.
    result = selectors.landed_cost(
        shipment, D("4015.20"), freight_currency="USD", air_freight_cost=D("4015.20")
    )
    assert result.customs_value == D("12112.50") and result.total_landed == D("20638.01")
    assert any("rule 10(2)" in line and "2,000.00" in line for line in result.explanation)


def test_freight_options_price_300_usd_of_fibre_by_india_rules(
    india_reference, make_shipment, api_as, coordinator
):
    shipment = make_shipment(required_by=timezone.localdate() + dt.timedelta(days=20))
    services.line_add(shipment=shipment, part=fibre(), quantity=2)
    response = api_as(coordinator).get(f"/api/v1/shipments/{shipment.reference}/freight-options/")
    assert response.status_code == 200, response.json()
    lc = response.json()["landed_cost"]
    # As in test_300_usd_of_fibre_by_air: 250.00 air freight counted at 60.00, insurance at 3.38.
    assert (lc["freight"], lc["customs_freight"], lc["customs_insurance"]) == ("250.00", "60.00", "3.38")
    assert (lc["customs_value"], lc["duty"], lc["levies"], lc["vat"]) == ("363.38", "36.34", "3.63", "72.60")
    assert lc["total_landed"] == "1134.22" and lc["currency"] == "USD" and lc["complete"] is True


def test_unknown_duty_is_shown_on_the_page_and_in_the_api(
    india_reference, make_shipment, api_as, browser_as, coordinator
):
    shipment = make_shipment(required_by=timezone.localdate() + dt.timedelta(days=20))
    services.line_add(shipment=shipment, part=fibre(), quantity=2)
    services.line_add(
        shipment=shipment,
        part=fibre(part_number="BATT-CELL-PACK", hs_code="850760", unit_value=D("1000.00")),
        quantity=1,
    )
    lc = (
        api_as(coordinator)
        .get(f"/api/v1/shipments/{shipment.reference}/freight-options/")
        .json()["landed_cost"]
    )
    assert lc["complete"] is False and lc["unknown_duty"] == ["HS 850760 (line 2)"]
    panel = browser_as(coordinator).get(f"/shipments/{shipment.reference}/freight/").content.decode()
    assert "Estimate incomplete." in panel and "No duty rate for HS 850760 (line 2)" in panel
    # Amounts carry their currency and thousands separators: goods 2 × 150.00 + 1,000.00 = 1,300.00
    assert "1,300.00 USD" in panel


def test_a_eur_shipment_is_converted_or_refused(
    india_reference, make_shipment, api_as, browser_as, coordinator
):
    shipment = make_shipment(currency="EUR", required_by=timezone.localdate() + dt.timedelta(days=20))
    services.line_add(shipment=shipment, part=fibre(), quantity=2, fields={"unit_value": D("140.00")})
    url = f"/api/v1/shipments/{shipment.reference}/freight-options/"
    # The demo's EUR/USD rate (1 EUR = 1.08 USD) converts the USD freight and fees.
    lc = api_as(coordinator).get(url).json()["landed_cost"]
    assert lc["currency"] == "EUR"
    # freight 250.00 / 1.08 = 231.481… → 231.48 EUR
    assert lc["freight"] == "231.48" and lc["conversions"][0]["from_currency"] == "USD"
    ExchangeRateRow.objects.all().delete()
    refused = api_as(coordinator).get(url)
    assert refused.status_code == 422
    assert refused.json()["from_currency"] == "USD" and refused.json()["to_currency"] == "EUR"
    assert "freight is in USD but the shipment is in EUR" in refused.json()["currency"][0]
    panel = browser_as(coordinator).get(f"/shipments/{shipment.reference}/freight/").content.decode()
    assert "freight is in USD but the shipment is in EUR" in panel


def test_the_charged_premium_is_used_and_labelled(india_reference, make_shipment, api_as, coordinator):
    shipment = make_shipment(
        required_by=timezone.localdate() + dt.timedelta(days=20), insurance_charge=D("12.00")
    )
    services.line_add(shipment=shipment, part=fibre(), quantity=2)
    lc = (
        api_as(coordinator)
        .get(f"/api/v1/shipments/{shipment.reference}/freight-options/")
        .json()["landed_cost"]
    )
    # 300.00 + 60.00 capped air freight + 12.00 premium = 372.00
    assert lc["insurance"] == "12.00" and lc["insurance_basis"] == "charged premium"
    assert lc["customs_insurance"] == "12.00" and lc["customs_value"] == "372.00"
    assert "Insurance (charged premium) = 12.00 USD" in lc["explanation"]


def test_another_organisations_landed_cost_is_not_found(india_reference, make_shipment, api_as):
    from apps.accounts.roles import Role
    from tests.factories import OrganisationFactory, UserFactory

    shipment = make_shipment()
    services.line_add(shipment=shipment, part=fibre(), quantity=2)
    outsider = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere Ltd"), role=Role.PARTNER)
    response = api_as(outsider).get(f"/api/v1/shipments/{shipment.reference}/freight-options/")
    assert response.status_code == 404


# --- the exchange-rate table ----------------------------------------------------------------------------


def test_operator_staff_keep_exchange_rates_and_partners_only_read_them(
    coordinator, supplier_user, compliance_officer, api_as
):
    payload = {"base": "EUR", "quote": "USD", "rate": "1.0815", "valid_on": "2026-12-01", "source": "ECB"}
    created = api_as(coordinator).post("/api/v1/exchange-rates/", payload, format="json")
    assert created.status_code == 201, created.json()
    assert ExchangeRateRow.objects.get().rate == D("1.0815")
    for user in (supplier_user, compliance_officer):
        assert api_as(user).post("/api/v1/exchange-rates/", payload, format="json").status_code == 403
        url = f"/api/v1/exchange-rates/{created.json()['id']}/"
        assert api_as(user).patch(url, {"rate": "2"}, format="json").status_code == 403
        assert api_as(user).delete(url).status_code == 403
    assert api_as(supplier_user).get("/api/v1/exchange-rates/?base=EUR").json()["count"] == 1
    assert ExchangeRateRow.objects.get().rate == D("1.0815")


@pytest.mark.parametrize(
    "change, field",
    [
        ({"quote": "EUR"}, "quote"),
        ({"rate": "0"}, "rate"),
        ({"rate": "-1.08"}, "rate"),
        ({"valid_on": "1999-12-31"}, "valid_on"),
        ({"base": "XXX"}, "base"),
    ],
)
def test_bad_exchange_rates_are_refused(coordinator, api_as, change, field):
    payload = {"base": "EUR", "quote": "USD", "rate": "1.08", "valid_on": "2026-12-01", "source": "ECB"}
    response = api_as(coordinator).post("/api/v1/exchange-rates/", payload | change, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
