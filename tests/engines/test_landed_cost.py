from decimal import Decimal as D

import pytest

from apps.shipments.engines.landed_cost import LandedCostInput, TariffLine, duty_rate_for, landed_cost

TARIFF = [
    TariffLine("8471", D("0"), "ITA, duty free"),
    TariffLine("8517", D("0.10")),
    TariffLine("851762", D("0.20"), "BCD"),
]


def india_example(**changes) -> LandedCostInput:
    values = {
        "incoterm": "CIF",
        "valuation_basis": "CIF",
        "goods_value": D("100000"),
        "freight_cost": D("5000"),
        "insurance_cost": None,
        "lines": [("84715000", D("60000")), ("8517.62.90", D("40000"))],
        "tariff": TARIFF,
        "vat_rate": D("0.18"),
        "social_welfare_surcharge_rate": D("0.10"),
        "brokerage_fee": D("250"),
        "handling_fee": D("150"),
        "currency": "USD",
    }
    return LandedCostInput(**{**values, **changes})


def test_longest_matching_prefix_wins():
    # 851762… matches both 8517 (10 %) and 851762 (20 %); the longer prefix decides.
    rate, line = duty_rate_for("85176290", TARIFF)
    assert rate == D("0.20") and line.hs_prefix == "851762"
    rate, line = duty_rate_for("8517.12", TARIFF)
    assert rate == D("0.10") and line.hs_prefix == "8517"


def test_no_tariff_line_means_the_rate_is_unknown_not_zero():
    # Issue 11: an HS code the tariff does not list is not duty-free.
    assert duty_rate_for("940320", TARIFF) == (None, None)


def test_tariff_line_validation():
    with pytest.raises(ValueError, match="2 to 10 digits"):
        TariffLine("8", D("0.1"))
    with pytest.raises(ValueError, match=r"fraction \(0.10 for 10 %\)"):
        TariffLine("8517", D("10"))


def test_india_like_cif_example():
    result = landed_cost(india_example())
    # CIF: the seller insures at least 110 % of the price (Incoterms 2020 A5), so the premium is
    # estimated on that cover: 0.3 % × 110 % × (100,000 + 5,000) = 0.3 % × 115,500 = 346.50
    assert result.insurance == D("346.50") and result.insurance_estimated
    # customs value = 100,000 + 5,000 + 346.50 = 105,346.50
    assert result.customs_value == D("105346.50")
    # freight + insurance 5,346.50 shared 60:40 → 3,207.90 and 2,138.60
    first, second = result.duty_lines
    assert first.customs_value == D("63207.90") and first.duty_rate == D("0") and first.duty == D("0.00")
    # 42,138.60 × 20 % = 8,427.72
    assert second.customs_value == D("42138.60") and second.duty == D("8427.72")
    assert result.duty == D("8427.72")
    # SWS = 10 % × 8,427.72 = 842.772 → 842.77
    assert result.levies == D("842.77")
    # IGST = 18 % × (105,346.50 + 8,427.72 + 842.77 = 114,616.99) = 20,631.0582 → 20,631.06
    assert result.vat == D("20631.06")
    # 100,000 + 5,000 + 346.50 + 8,427.72 + 842.77 + 20,631.06 + 250 + 150 = 135,648.05
    assert result.total_landed == D("135648.05")
    assert result.who_pays_duty == "buyer"


def test_explanation_shows_each_formula_with_numbers():
    text = landed_cost(india_example()).explanation
    assert (
        "Insurance (estimated) = 0.3 % × 115,500.00 insured value "
        "(the CIF minimum cover: 110 % × (100,000.00 goods + 5,000.00 freight)) = 346.50 USD"
    ) in text
    assert (
        "Customs value (CIF) = 100,000.00 goods + 5,000.00 freight + 346.50 insurance = 105,346.50 USD"
        in text
    )
    assert (
        "Duty on HS 8517.62.90 = 42,138.60 (40,000.00 goods + 2,138.60 freight and insurance) × 20 % "
        "(tariff 851762, BCD) = 8,427.72 USD"
    ) in text
    assert "Levy on duty = 10 % × 8,427.72 duty = 842.77 USD" in text
    assert any(line.startswith("Import VAT/GST = 18 % × (105,346.50") for line in text)
    assert text[-1] == "Duty and import taxes are paid by the buyer under CIF (Cost, Insurance and Freight)"


@pytest.mark.parametrize(
    ("incoterm", "insurance"),
    [
        # The seller insures at least 110 % of the price: 0.3 % × 110 % × 105,000 = 346.50.
        ("CIP", D("346.50")),
        ("CIF", D("346.50")),
        # The buyer insures as it likes: the estimate is on goods and freight, 0.3 % × 105,000.
        ("CPT", D("315.00")),
        ("FCA", D("315.00")),
    ],
)
def test_the_insurance_estimate_of_cip_and_cif_covers_110_percent(incoterm, insurance):
    assert landed_cost(india_example(incoterm=incoterm)).insurance == insurance


def test_a_stated_insured_value_is_what_the_estimate_uses():
    result = landed_cost(india_example(incoterm="CIP", insured_value=D("120000")))
    assert result.insurance == D("360.00")  # 0.3 % × 120,000


def test_fob_valuation_leaves_freight_and_insurance_out_of_the_customs_value():
    result = landed_cost(
        LandedCostInput(
            incoterm="FCA",
            valuation_basis="FOB",
            goods_value=D("50000"),
            freight_cost=D("3000"),
            insurance_cost=D("200"),
            lines=[("847330", D("50000"))],
            tariff=[TariffLine("847330", D("0.025"))],
            vat_rate=D("0"),
            currency="USD",
        )
    )
    # customs value = goods only = 50,000; duty = 2.5 % × 50,000 = 1,250.00
    assert result.customs_value == D("50000.00")
    assert result.duty == D("1250.00")
    assert result.insurance == D("200.00") and not result.insurance_estimated
    # landed = 50,000 + 3,000 + 200 + 1,250 = 54,450.00
    assert result.total_landed == D("54450.00")


def test_ddp_means_the_seller_pays_duty():
    result = landed_cost(india_example(incoterm="DDP"))
    assert result.who_pays_duty == "seller"
    assert "paid by the seller under DDP" in result.explanation[-1]


def test_apportioned_cents_add_up_to_the_customs_value():
    # 100.00 freight over three equal lines: 33.33 each leaves 1 cent, which goes to the first.
    result = landed_cost(
        LandedCostInput(
            incoterm="CPT",
            valuation_basis="CIF",
            goods_value=D("300"),
            freight_cost=D("100"),
            insurance_cost=D("0"),
            lines=[("847150", D("100")), ("847330", D("100")), ("851762", D("100"))],
            tariff=TARIFF,
            vat_rate=D("0.19"),
            currency="EUR",
        )
    )
    assert [line.customs_value for line in result.duty_lines] == [D("133.34"), D("133.33"), D("133.33")]
    assert sum(line.customs_value for line in result.duty_lines) == result.customs_value == D("400.00")


def test_lines_must_add_up_to_the_goods_value():
    with pytest.raises(ValueError, match="lines add up to 90,000.00 but goods_value is 100,000.00"):
        india_example(lines=[("847150", D("50000")), ("851762", D("40000"))])


def test_input_validation():
    with pytest.raises(ValueError, match="Unknown Incoterm 'XYZ'"):
        india_example(incoterm="XYZ")
    with pytest.raises(ValueError, match="valuation_basis must be 'CIF' or 'FOB'"):
        india_example(valuation_basis="EXW")
    with pytest.raises(TypeError, match="freight_cost must be a Decimal, not float"):
        india_example(freight_cost=5000.0)
    with pytest.raises(ValueError, match="lines\\[1\\]: HS code 'router' must be digits"):
        india_example(lines=[("847150", D("60000")), ("router", D("40000"))])
