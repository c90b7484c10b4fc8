import pytest

from apps.shipments.engines.incoterms import RULES, Incoterm, mode_problem, rule


def test_table_has_all_eleven_incoterms_2020():
    assert [str(code) for code in RULES] == [
        "EXW",
        "FCA",
        "CPT",
        "CIP",
        "DAP",
        "DPU",
        "DDP",
        "FAS",
        "FOB",
        "CFR",
        "CIF",
    ]
    assert RULES[Incoterm.FCA].name == "Free Carrier"
    assert RULES[Incoterm.CIF].name == "Cost, Insurance and Freight"


@pytest.mark.parametrize(
    "code, sea_only",
    [
        ("FAS", True),
        ("FOB", True),
        ("CFR", True),
        ("CIF", True),
        ("EXW", False),
        ("FCA", False),
        ("CIP", False),
        ("DDP", False),
    ],
)
def test_sea_only_rules(code, sea_only):
    assert rule(code).sea_only is sea_only


def test_exw_leaves_export_clearance_to_the_buyer_and_warns_about_ear():
    exw = rule("EXW")
    assert (exw.export_clearance, exw.import_clearance, exw.main_carriage_paid_by) == (
        "buyer",
        "buyer",
        "buyer",
    )
    assert "EAR" in exw.note


def test_only_ddp_has_the_seller_clear_import_and_pay_duties():
    for code, r in RULES.items():
        expected = "seller" if code == Incoterm.DDP else "buyer"
        assert r.import_clearance == expected, code
        assert r.duties_paid_by == expected, code


@pytest.mark.parametrize(
    "code, payer",
    [
        ("EXW", "buyer"),
        ("FCA", "buyer"),
        ("FAS", "buyer"),
        ("FOB", "buyer"),
        ("CPT", "seller"),
        ("CIP", "seller"),
        ("CFR", "seller"),
        ("CIF", "seller"),
        ("DAP", "seller"),
        ("DPU", "seller"),
        ("DDP", "seller"),
    ],
)
def test_main_carriage_payer(code, payer):
    assert rule(code).main_carriage_paid_by == payer


def test_insurance_only_under_cip_all_risks_and_cif_minimum():
    assert (rule("CIP").insurance_by, rule("CIP").insurance_cover) == ("seller", "all risks (ICC A)")
    assert (rule("CIF").insurance_by, rule("CIF").insurance_cover) == ("seller", "minimum (ICC C)")
    others = [r for code, r in RULES.items() if code not in (Incoterm.CIP, Incoterm.CIF)]
    assert all(r.insurance_by is None and r.insurance_cover is None for r in others)


def test_rule_ignores_case_and_spaces():
    assert rule(" fca ").code == Incoterm.FCA


def test_unknown_code_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"Unknown Incoterm 'FOQ'; use one of EXW, FCA, CPT, .*CIF"):
        rule("FOQ")


def test_sea_only_rule_by_air_suggests_the_any_mode_equivalent():
    problem = mode_problem("FOB", "air")
    assert "FOB (Free on Board) is for sea and inland waterway transport only, not air" in problem
    assert "use FCA (Free Carrier)" in problem
    assert "use CIP" in mode_problem("CIF", "multimodal")


def test_no_problem_for_sea_rule_by_ocean_or_any_mode_rule_by_air():
    assert mode_problem("CIF", "ocean") is None
    assert mode_problem("FCA", "air") is None
    assert mode_problem("DDP", "road") is None


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="Unknown transport mode 'rail'"):
        mode_problem("FCA", "rail")
