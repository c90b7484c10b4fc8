import dataclasses
import os
import subprocess
import sys
from decimal import Decimal as D
from pathlib import Path

import pytest

from apps.compliance.engines.countries import load_default
from apps.compliance.engines.determination import (
    REASONS_FOR_CONTROL,
    RULE_SETS,
    RULE_VERSION,
    EndUser,
    UnknownCountryError,
    determine,
)


@pytest.fixture(scope="module")
def data():
    return load_default()


@pytest.fixture
def run(data):
    def _run(eccn, destination, **kw):
        return determine(eccn, destination, data=data, **kw)

    return _run


def codes(result):
    return [r.code for r in result.rules]


def rule(result, code):
    matches = [r for r in result.rules if r.code == code]
    assert matches, f"{code} not in {codes(result)}"
    return matches[0]


# --- 3A090 / 4A090 (742.6(a)(6)) ---------------------------------------------------------------------


def test_3a090a_to_india_a5_is_nlr_with_the_no_mark_caveat(run):
    result = run("3A090.a", "IN")
    assert result.outcome == "NLR"
    assert (result.exception, result.exception_code) == (None, None)
    assert rule(result, "EAR 742.6(a)(6)").effect == "no_licence"
    assert "not a conclusion that the transaction is permitted" in rule(result, "CCC AT 1").text
    assert (result.eccn, result.destination, result.rule_version) == ("3A090.a", "IN", RULE_VERSION)


def test_3a090a_to_china_needs_a_licence_and_nac_is_not_for_data_centre_a(run):
    result = run("3A090.a", "CN")
    assert result.outcome == "licence_required"
    required = rule(result, "EAR 742.6(a)(6)")
    assert required.effect == "licence_required"
    assert "China (CN) is in D:1/D:4/D:5 and not in A:5/A:6" in required.text
    assert "NAC (C67) not available: data-centre 3A090.a-level item" in rule(result, "LE NAC 740.8").text
    assert result.exception is None


def test_3a090b_to_china_may_use_nac_with_notification(run):
    result = run("3A090.b", "CN")
    assert result.outcome == "licence_exception"
    assert (result.exception, result.exception_code) == ("NAC", "C67")
    assert any("25-day review" in c for c in result.conditions)
    assert rule(result, "LE NAC 740.8").effect == "exception_available"


def test_non_data_centre_3a090a_to_china_may_use_nac(run):
    result = run("3A090.a", "CN", data_centre=False)
    assert (result.outcome, result.exception) == ("licence_exception", "NAC")
    assert "stay controlled but may use NAC/ACA" in rule(result, "NOTE 3A090").text


def test_3a090a_to_uae_follows_the_data_file_a5(run):
    assert run("3A090.a", "AE").outcome == "NLR"


def test_4a090a_to_macau_needs_a_licence(run):
    result = run("4A090.a", "MO")
    assert result.outcome == "licence_required"
    assert "Macau, which the EAR names separately from D:5" in rule(result, "EAR 742.6(a)(6)").text


def test_4a090b_to_macau_uses_nac_not_aca(run):
    assert run("4A090.b", "MO").exception == "NAC"


def test_4a090b_to_saudi_arabia_d4_uses_aca(run):
    result = run("4A090.b", "SA")
    assert (result.outcome, result.exception, result.exception_code) == ("licence_exception", "ACA", "C68")
    assert "no prior notification" in result.conditions[0]


def test_data_centre_4a090a_to_saudi_arabia_needs_a_licence_but_non_data_centre_uses_aca(run):
    assert run("4A090.a", "SA").outcome == "licence_required"
    assert run("4A090.a", "SA", data_centre=False).exception == "ACA"


def test_israel_d4_but_a6_is_excluded(run):
    result = run("3A090.a", "IL")
    assert result.outcome == "NLR"
    assert "Israel (IL) is in D:4 but also in A:6 → excluded" in result.rules[0].text


def test_company_in_singapore_headquartered_in_china_needs_a_licence(run):
    buyer = EndUser("Example Cloud Pte Ltd", "SG", headquarters_country="CN")
    result = run("4A090.a", "SG", end_user=buyer)
    assert result.outcome == "licence_required"
    assert "headquartered in China (CN) (D:5/Macau), wherever located" in rule(result, "EAR 742.6(a)(6)").text


def test_parent_in_macau_triggers_and_3a090b_then_uses_nac(run):
    buyer = EndUser("Sub GmbH", "DE", parent_headquarters_country="MO")
    result = run("3A090.b", "DE", end_user=buyer)
    assert (result.outcome, result.exception) == ("licence_exception", "NAC")
    assert "ultimate parent headquartered in Macau (MO)" in rule(result, "EAR 742.6(a)(6)").text


def test_headquarters_in_india_does_not_trigger(run):
    assert run("3A090.a", "SG", end_user=EndUser("X", "SG", headquarters_country="IN")).outcome == "NLR"


def test_z_item_is_treated_as_a_level_for_nac_aca(run):
    result = run("5A992.z", "SA")
    assert result.outcome == "licence_required"
    assert "(.z items are treated as .a-level)" in rule(result, "LE ACA 740.8").text
    assert run("5A992.z", "SA", data_centre=False).exception == "ACA"


def test_5a002z_needs_both_aca_and_enc(run):
    result = run("5A002.z", "SA", data_centre=False)
    assert (result.outcome, result.exception, result.exception_code) == (
        "licence_exception",
        "ACA + ENC",
        "C68",
    )
    assert {"EAR 742.6(a)(6)", "CCC NS 1", "EI 742.15"} <= set(codes(result))


def test_china_case_by_case_note_for_tpp_below_21000(run):
    result = run("3A090.a", "CN", tpp=D(15832))
    assert result.outcome == "licence_required"
    note = rule(result, "NOTE BIS 2026-01 CN/MO")
    assert note.effect == "note"
    assert "a licence is still required" in note.text
    assert "NOTE BIS 2026-01 CN/MO" not in codes(run("3A090.a", "CN", tpp=D(36000)))
    assert "NOTE BIS 2026-01 CN/MO" not in codes(run("3A090.a", "IN", tpp=D(15832)))


def test_ai_diffusion_is_kept_switched_off_with_its_dates(run):
    diffusion = RULE_SETS["ai-diffusion"]
    assert diffusion.enabled is False
    assert str(diffusion.dates["effective"]) == "2025-01-13"
    assert str(diffusion.dates["not_enforced_announced"]) == "2025-05-13"
    assert rule(run("3A090.a", "IN"), "RULESET ai-diffusion (disabled)").effect == "note"
    assert RULE_SETS["advanced-computing-destinations"].enabled is True
    assert RULE_SETS["china-macau-case-by-case-2026"].enabled is True


def test_switching_ai_diffusion_on_requires_a_licence_everywhere(run):
    switched_on = {**RULE_SETS, "ai-diffusion": dataclasses.replace(RULE_SETS["ai-diffusion"], enabled=True)}
    result = run("3A090.a", "IN", rule_sets=switched_on)
    assert result.outcome == "licence_required"
    assert rule(result, "RULESET ai-diffusion").effect == "licence_required"


# --- parties ------------------------------------------------------------------------------------


def test_entity_list_party_in_india_needs_a_licence_without_exceptions(run):
    result = run(
        "3A090.a",
        "IN",
        end_user=EndUser("Listed Ltd", "IN", entity_list=True, listed_entry="LISTED LTD — Entity List"),
    )
    assert result.outcome == "licence_required"
    assert "no licence exceptions" in rule(result, "EL 744.11").text
    assert run(
        "EAR99",
        "DE",
        end_user=EndUser("Listed GmbH", "DE", entity_list=True, listed_entry="LISTED GMBH — Entity List"),
    ).outcome == ("licence_required")


def test_an_entity_list_determination_names_the_party_and_the_entry(run):
    buyer = EndUser(
        "Chennai AI Compute",
        "IN",
        entity_list=True,
        listed_entry="CHENNAI AI COMPUTE PVT. LTD. — Entity List",
    )
    text = rule(run("3A090.a", "IN", end_user=buyer), "EL 744.11").text
    assert text.startswith("Chennai AI Compute (listed as CHENNAI AI COMPUTE PVT. LTD. — Entity List) is on")


@pytest.mark.parametrize(
    "end_user, words",
    [
        (EndUser("", "IN", entity_list=True, listed_entry="X — Entity List"), "must be named"),
        (EndUser("  ", "DE", denied_persons=True), "must be named"),
        (EndUser("Chennai AI Compute", "IN", entity_list=True), "name the list entry"),
    ],
)
def test_a_listing_without_a_name_or_an_entry_is_refused(run, end_user, words):
    with pytest.raises(ValueError, match=words):
        run("3A090.a", "IN", end_user=end_user)


def test_entity_list_blocks_an_exception_that_would_otherwise_apply(run):
    result = run(
        "5A002.a",
        "DE",
        end_user=EndUser("Listed GmbH", "DE", entity_list=True, listed_entry="LISTED GMBH — Entity List"),
    )
    assert (result.outcome, result.exception) == ("licence_required", None)
    assert "would otherwise be available" in rule(result, "LE ENC 740.17").text


def test_denied_person_is_prohibited(run):
    result = run("EAR99", "DE", end_user=EndUser("Denied GmbH", "DE", denied_persons=True))
    assert result.outcome == "prohibited"
    assert rule(result, "DPL").effect == "prohibited"


def test_unverified_list_turns_aca_into_a_licence_with_a_uvl_statement(run):
    result = run("4A090.b", "SA", end_user=EndUser("Unverified Co", "SA", unverified_list=True))
    assert (result.outcome, result.exception) == ("licence_required", None)
    assert any("UVL statement required" in c for c in result.conditions)
    assert "Unverified List party" in rule(result, "LE ACA 740.8").text


def test_unverified_list_with_nlr_item_needs_the_statement(run):
    result = run("5A992.c", "DE", end_user=EndUser("Unverified GmbH", "DE", unverified_list=True))
    assert result.outcome == "NLR"
    assert result.conditions == ["UVL statement required from the consignee before shipping (744.15(b))"]


def test_military_end_user_needs_a_licence(run):
    result = run("5A992.c", "DE", end_user=EndUser("MEU", "DE", military_end_user=True))
    assert result.outcome == "licence_required"
    assert "MEU 744.21" in codes(result)


def test_a_single_flag_passed_as_a_string_is_one_flag(run):
    result = run("EAR99", "DE", end_use_flags="WMD")
    assert [r.text for r in result.rules if r.code == "END-USE 744"] == [
        "end use flagged: WMD → licence required under the Part 744 end-use controls"
    ]


def test_end_use_flags_are_named(run):
    result = run("EAR99", "DE", end_use_flags=["military end use", " ", "WMD"])
    assert result.outcome == "licence_required"
    texts = [r.text for r in result.rules if r.code == "END-USE 744"]
    assert len(texts) == 2
    assert "military end use" in texts[0] and "WMD" in texts[1]


def test_rules_are_listed_in_the_order_checked(run):
    buyer = EndUser(
        "Bad Co", "CN", denied_persons=True, entity_list=True, listed_entry="BAD CO — Entity List"
    )
    result = run("3A090.a", "CN", end_user=buyer, end_use_flags=["WMD"])
    assert result.outcome == "prohibited"
    assert codes(result)[:4] == ["DPL", "EL 744.11", "END-USE 744", "EAR 742.6(a)(6)"]


# --- embargoes and sanctions ----------------------------------------------------------------------


def test_5a002_to_iran_is_prohibited(run):
    result = run("5A002.a", "IR")
    assert result.outcome == "prohibited"
    assert "general policy of denial" in rule(result, "EMBARGO 746").text


@pytest.mark.parametrize("country", ["CU", "IR", "KP", "SY"])
def test_comprehensive_embargoes_prohibit_even_ear99(run, country):
    assert run("EAR99", country).outcome == "prohibited"


def test_end_user_in_an_embargoed_country_is_caught_behind_a_ship_to(run):
    result = run("EAR99", "AE", end_user=EndUser("Reseller", "IR"))
    assert result.outcome == "prohibited"
    assert codes(result)[:2] == ["ULTIMATE DESTINATION", "EMBARGO 746"]


def test_ear99_to_russia_needs_review_and_a_licence(run):
    result = run("EAR99", "RU")
    assert result.outcome == "licence_required"
    assert "many EAR99 items" in rule(result, "EMBARGO 746.8").text


def test_ccl_item_to_belarus_needs_a_licence(run):
    result = run("5A992.c", "BY")
    assert result.outcome == "licence_required"
    assert "all items on the CCL" in rule(result, "EMBARGO 746.8").text


# --- Commerce Country Chart ------------------------------------------------------------------------


def test_5a002_to_china_has_ns1_x_and_uses_enc(run):
    result = run("5A002.a", "CN")
    assert rule(result, "CCC NS 1").effect == "licence_required"
    assert rule(result, "EI 742.15").effect == "licence_required"
    assert (result.outcome, result.exception, result.exception_code) == ("licence_exception", "ENC", None)
    assert any("740.17(b)" in c for c in result.conditions)


def test_5a002_to_uk_has_no_ns1_x_but_ei_still_needs_enc(run):
    result = run("5A002.a", "GB")
    assert "CCC NS 1" not in codes(result)
    assert (result.outcome, result.exception) == ("licence_exception", "ENC")


def test_5a002_to_canada_is_nlr(run):
    assert run("5A002.a", "CA").outcome == "NLR"


def test_5a992_to_germany_is_nlr_with_the_caveat(run):
    result = run("5A992.c", "DE")
    assert result.outcome == "NLR"
    caveat = rule(result, "CCC AT 1")
    assert caveat.effect == "no_licence"
    assert "General Prohibitions Four through Ten" in caveat.text


@pytest.mark.parametrize("eccn", ["5A991", "4A994", "EAR99"])
def test_at_only_and_ear99_items_to_india_are_nlr(run, eccn):
    assert run(eccn, "IN").outcome == "NLR"


def test_hong_kong_uses_chinas_row(run):
    result = run("5A002.a", "HK")
    assert "uses China (CN)'s row" in rule(result, "CCC 738.3").text
    assert "Hong Kong (HK)" in rule(result, "CCC NS 1").text
    assert run("3A090.a", "HK").outcome == "licence_required"


def test_tmp_for_a_5a002_demo_unit_to_china(run):
    result = run("5A002.a", "CN", temporary=True)
    assert (result.outcome, result.exception) == ("licence_exception", "TMP")
    assert "Return to the United States within 1 year of export" in result.conditions
    assert "Remains under the exporter's effective control while abroad" in result.conditions
    assert "ENC would also apply; TMP is used" in rule(result, "LE ENC 740.17").text


def test_tmp_is_not_used_for_3a090_items(run):
    result = run("3A090.a", "SA", temporary=True)
    assert result.outcome == "licence_required"
    assert "conservative" in rule(result, "LE TMP 740.9").text


# --- inputs -------------------------------------------------------------------------------------


def test_unknown_destination_raises_naming_it(run):
    with pytest.raises(UnknownCountryError, match="'XX'"):
        run("EAR99", "XX")


def test_unknown_headquarters_country_raises(run):
    with pytest.raises(UnknownCountryError, match="headquarters country code 'QQ'"):
        run("EAR99", "DE", end_user=EndUser("X", "DE", headquarters_country="QQ"))


def test_destination_code_is_normalised(run):
    assert run("EAR99", " de ").destination == "DE"


def test_malformed_eccn_is_rejected(run):
    with pytest.raises(ValueError, match="malformed ECCN"):
        run("5A99", "DE")


def test_eccn_outside_the_table_needs_a_licence_until_checked(run):
    result = run("3A001.a.1", "DE")
    assert result.outcome == "licence_required"
    assert "compliance officer" in rule(result, "CCL").text


def test_reasons_for_control_table():
    assert REASONS_FOR_CONTROL["5A002"] == ["NS 1", "AT 1"]
    assert REASONS_FOR_CONTROL["5A992"] == REASONS_FOR_CONTROL["4A994"] == ["AT 1"]
    assert REASONS_FOR_CONTROL["3A090"] == REASONS_FOR_CONTROL["4A090"] == ["AT 1"]


def test_engines_import_without_django():
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = (
        "import sys\n"
        "from apps.compliance.engines.countries import load_default\n"
        "from apps.compliance.engines.determination import determine\n"
        "import apps.compliance.engines.classification\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'django'], 'django imported'\n"
        "print(determine('EAR99', 'DE', data=load_default()).outcome)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "NLR"


@pytest.mark.parametrize("eccn", ["4A090.zz", "5A992c", "9Z999", "4A090.a.", "3A090.ab.1"])
def test_the_engine_itself_refuses_what_is_not_an_eccn(eccn, data):
    with pytest.raises(ValueError, match="malformed ECCN"):
        determine(eccn, "SA", data=data)
