"""The EEI engine (apps/documents/engines/eei.py) on worked examples: no database."""

from decimal import Decimal

import pytest

from apps.documents.engines.eei import (
    AESLicence,
    EEILine,
    aes_licence,
    eei_filing,
    eei_rows,
    format_schedule_b,
)


def line(number, schedule_b="8471500150", **fields) -> EEILine:
    defaults = {
        "hs_code": schedule_b[:6] or "847150",
        "quantity": 1,
        "value": Decimal("1000"),
        "country_of_origin": "TW",
        "eccn": "4A090.a",
        "outcome": "NLR",
        "gross_kg": Decimal("150"),
        "net_kg": Decimal("130"),
    }
    return EEILine(number=number, schedule_b=schedule_b, **(defaults | fields))


@pytest.mark.parametrize(
    ("determination", "code", "text"),
    [
        ({"outcome": "NLR"}, "C33", "C33 NLR"),  # EAR99 and CCL items alike since C32 was withdrawn
        ({"outcome": "licence_exception", "licence_exception": "ENC"}, "C50", "C50 ENC"),
        ({"outcome": "licence_exception", "licence_exception": "NAC"}, "C67", "C67 NAC"),
        ({"outcome": "licence_exception", "licence_exception": "ACA"}, "C68", "C68 ACA"),
        ({"outcome": "licence_exception", "licence_exception": "LPP"}, "C75", "C75 LPP"),
        ({"outcome": "licence_required", "licence_number": "D1234567"}, "C30", "C30 D1234567"),
        # An exception whose AES code is not recorded is named, never given a guessed code.
        ({"outcome": "licence_exception", "licence_exception": "TMP"}, "", "TMP (AES code to be confirmed)"),
        ({"outcome": "licence_required"}, "", ""),  # no licence yet: nothing to declare
        ({"outcome": ""}, "", ""),
    ],
)
def test_aes_licence_codes(determination, code, text):
    licence = aes_licence(**determination)
    assert (licence.code, licence.text) == (code, text)


def test_lines_of_one_hs_code_with_different_eccns_are_separate_aes_lines():
    """Issue 10: the same Schedule B under two ECCNs was one line with the first line's ECCN."""
    rows = eei_rows(
        [
            line(1, eccn="4A090.a", value=Decimal("373000.40"), quantity=1),
            line(2, eccn="4A994", value=Decimal("12000"), quantity=2, country_of_origin="US"),
            line(3, eccn="4A090.a", value=Decimal("373000.20"), quantity=1),
            line(4, schedule_b="8517620090", eccn="5A992.c", quantity=4, value=Decimal("100000"),
                 outcome="licence_exception", licence_exception="ENC"),
            line(5, schedule_b="8517620090", eccn="5A992.c", quantity=1, value=Decimal("25000")),
        ]
    )  # fmt: skip
    assert [
        (r.schedule_b_text, r.origin, r.eccn, r.licence.text, r.quantity, r.value, r.lines) for r in rows
    ] == [
        ("8471.50.0150", "F", "4A090.a", "C33 NLR", 2, 746001, (1, 3)),  # whole dollars, half up
        ("8471.50.0150", "D", "4A994", "C33 NLR", 2, 12000, (2,)),  # US origin: domestic
        ("8517.62.0090", "F", "5A992.c", "C50 ENC", 4, 100000, (4,)),
        ("8517.62.0090", "F", "5A992.c", "C33 NLR", 1, 25000, (5,)),
    ]
    assert [r.unit_of_quantity for r in rows] == ["NO"] * 4
    assert rows[0].shipping_weight_kg == 300


def test_licence_numbers_split_lines_and_weights_round_to_whole_kilograms():
    rows = eei_rows(
        [
            line(1, outcome="licence_required", licence_number="D1234567", gross_kg=Decimal("0.3")),
            line(2, outcome="licence_required", licence_number="D7654321", gross_kg=Decimal("10.5")),
            line(3, outcome="licence_required", licence_number="D7654321", gross_kg=None),
        ]
    )
    assert [(r.licence.text, r.shipping_weight_kg) for r in rows] == [
        ("C30 D1234567", 1),  # never zero
        ("C30 D7654321", None),  # a line with no packed weight: the row's weight is unknown
    ]


def test_units_of_quantity_other_than_number():
    rows = eei_rows(
        [
            line(1, schedule_b="8544700000", unit_of_quantity="KG", quantity=10, net_kg=Decimal("12.6")),
            line(2, schedule_b="8473301180", unit_of_quantity="X", quantity=10),
        ]
    )
    assert [(r.quantity, r.unit_of_quantity) for r in rows] == [(13, "KG"), (0, "X")]


def test_lines_without_a_schedule_b_number_are_left_out():
    assert [r.lines for r in eei_rows([line(1, schedule_b=""), line(2)])] == [(2,)]


def test_filing_threshold_is_per_schedule_b_number_whatever_the_eccn():
    # Two ECCNs under one Schedule B number: USD 1,500 + 1,500 exceeds USD 2,500.
    lines = [
        line(1, value=Decimal("1500"), eccn="4A994"),
        line(2, value=Decimal("1500"), eccn="EAR99"),
        line(3, schedule_b="8517620090", value=Decimal("2500"), eccn="EAR99"),
    ]
    filing = eei_filing(origin_country="US", destination_country="IN", lines=lines)
    assert filing.required
    assert filing.reasons == ("Schedule B 8471.50.0150 exceed USD 2,500 per number.",)


def test_filing_not_mandatory_and_mandatory_reasons():
    small = [line(1, value=Decimal("2500"), eccn="EAR99")]
    assert eei_filing(origin_country="US", destination_country="IN", lines=small).reasons == (
        "No Schedule B number exceeds USD 2,500 and no licence applies: filing not mandatory.",
    )
    assert not eei_filing(origin_country="TW", destination_country="IN", lines=small).required
    licensed = [line(1, value=Decimal("10"), outcome="licence_exception", licence_exception="ACA")]
    assert eei_filing(origin_country="US", destination_country="SA", lines=licensed).reasons == (
        "A line is exported under a licence or licence exception.",
    )
    to_china = [line(1, value=Decimal("10"), eccn="5A992.c")]
    assert eei_filing(origin_country="US", destination_country="CN", lines=to_china).required
    z_item = [line(1, value=Decimal("10"), eccn="5A992.z")]
    assert ".z items" in eei_filing(origin_country="US", destination_country="IN", lines=z_item).reasons[0]
    # Without a Schedule B number a line counts under its HS subheading.
    no_code = [line(1, schedule_b="", hs_code="847150", value=Decimal("3000"), eccn="EAR99")]
    assert eei_filing(origin_country="US", destination_country="IN", lines=no_code).reasons == (
        "Schedule B 8471.50 exceed USD 2,500 per number.",
    )


def test_schedule_b_formatting():
    assert format_schedule_b("8471500150") == "8471.50.0150"
    assert format_schedule_b("84715000") == "8471.50.00"
    assert format_schedule_b("847150") == "8471.50"
    assert AESLicence("C33", "NLR").known and not AESLicence("", "TMP").known
