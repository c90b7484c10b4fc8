import copy
import dataclasses
import json
from datetime import date

import pytest

from apps.compliance.engines.countries import (
    DEFAULT_CHART_FILE,
    DEFAULT_GROUPS_FILE,
    CountryDataError,
    UnknownCountryError,
    chart_marks_for,
    chart_row,
    embargo_note,
    groups_of,
    in_group,
    load_country_data,
    load_default,
)


@pytest.fixture(scope="module")
def raw():
    with DEFAULT_GROUPS_FILE.open() as g, DEFAULT_CHART_FILE.open() as c:
        return json.load(g), json.load(c)


@pytest.fixture(scope="module")
def data():
    return load_default()


# --- loading -------------------------------------------------------------------------------------


def test_load_default_reads_the_dated_files(data):
    assert data.as_of == date(2026, 7, 23)
    assert "part=740" in data.source and "part=738" in data.source
    assert "NS 1" in data.columns and "AT 1" in data.columns
    assert data.no_mark_caveat.startswith("738.4(a)(2)(ii)(B)")
    assert dataclasses.is_dataclass(data)
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.as_of = date(2020, 1, 1)


def test_groups_are_frozensets_of_codes(data):
    assert isinstance(data.groups["D:5"], frozenset)
    assert {"CN", "RU", "IR"} <= data.groups["D:5"]
    assert data.group_labels["A:6"] == "Additional STA-eligible destinations"


def test_macau_is_not_in_d5_but_in_d1_and_d4(data):
    assert not in_group(data, "MO", "D:5")
    assert in_group(data, "MO", "D:1") and in_group(data, "MO", "D:4")


def test_groups_of_follows_the_data_file(data):
    # The data file, not memory: the UAE is A:5 here; Israel is D:4 and A:6; Saudi Arabia is D:4 only.
    assert "A:5" in groups_of(data, "AE")
    assert {"A:6", "D:4"} <= set(groups_of(data, "IL"))
    sa = groups_of(data, "SA")
    assert "D:4" in sa and not {"A:5", "A:6", "D:1", "D:5"} & set(sa)
    assert groups_of(data, "IN") == sorted(groups_of(data, "IN"))


def test_hong_kong_uses_chinas_row_and_groups(data):
    assert chart_row(data, "HK") == "CN"
    assert chart_marks_for(data, "HK") == chart_marks_for(data, "CN")
    assert "NS 1" in chart_marks_for(data, "HK")
    assert groups_of(data, "HK") == groups_of(data, "CN")
    assert data.name_of("HK") == "Hong Kong"


def test_liechtenstein_keeps_its_row_code_but_uses_switzerlands_marks(data):
    assert chart_row(data, "LI") == "CH"
    assert chart_marks_for(data, "LI") == chart_marks_for(data, "CH")


def test_chart_marks_for_india_and_uk(data):
    assert chart_marks_for(data, "IN") == frozenset({"CB 1", "NP 1", "NS 1", "MT 1", "RS 1"})
    assert "NS 1" not in chart_marks_for(data, "GB")
    assert "AT 1" not in chart_marks_for(data, "CN")


def test_embargoed_rows_carry_the_part_746_pointer(data):
    assert set(data.embargoed) == {"CU", "IR", "KP", "SY"}
    assert "746" in embargo_note(data, "IR")
    assert "742.19" in embargo_note(data, "KP")
    assert embargo_note(data, "CN") is None
    assert chart_marks_for(data, "CU") == frozenset()
    assert data.name_of("KP") == "Korea, North"


def test_known_countries_include_territories_and_the_us(data):
    assert {"HK", "KY", "LI", "US", "CU"} <= data.countries
    assert "XX" not in data.countries


def test_unknown_country_raises_naming_it(data):
    with pytest.raises(UnknownCountryError, match="'XX'"):
        groups_of(data, "XX")
    with pytest.raises(UnknownCountryError):
        chart_marks_for(data, "ZZ")
    assert issubclass(UnknownCountryError, ValueError)


def test_in_group_rejects_an_unknown_group(data):
    with pytest.raises(KeyError, match="D:9"):
        in_group(data, "CN", "D:9")


# --- validation ----------------------------------------------------------------------------------


def test_missing_groups_key_is_named(raw):
    groups, chart = copy.deepcopy(raw)
    del groups["groups"]
    with pytest.raises(CountryDataError, match="country groups: missing key 'groups'"):
        load_country_data(groups, chart)


@pytest.mark.parametrize("key", ["rows", "columns", "embargoed", "territory_inheritance", "as_of"])
def test_missing_chart_key_is_named(raw, key):
    groups, chart = copy.deepcopy(raw)
    del chart[key]
    with pytest.raises(CountryDataError, match=f"country chart: missing key '{key}'"):
        load_country_data(groups, chart)


def test_lowercase_code_in_a_group_is_rejected(raw):
    groups, chart = copy.deepcopy(raw)
    groups["groups"]["D:5"].append("cn")
    with pytest.raises(CountryDataError, match=r"group 'D:5'.*bad country code 'cn'"):
        load_country_data(groups, chart)


def test_three_letter_row_code_is_rejected(raw):
    groups, chart = copy.deepcopy(raw)
    chart["rows"]["CHN"] = chart["rows"]["CN"]
    with pytest.raises(CountryDataError, match="bad country code 'CHN'"):
        load_country_data(groups, chart)


def test_mark_outside_the_columns_is_rejected(raw):
    groups, chart = copy.deepcopy(raw)
    chart["rows"]["DE"]["marks"].append("XX 9")
    with pytest.raises(CountryDataError, match=r"row 'DE'.*'XX 9'"):
        load_country_data(groups, chart)


def test_territory_inheriting_a_missing_row_is_rejected(raw):
    groups, chart = copy.deepcopy(raw)
    chart["territory_inheritance"]["GI"] = "QQ"
    with pytest.raises(CountryDataError, match="'GI' inherits row 'QQ'"):
        load_country_data(groups, chart)


def test_bad_as_of_is_rejected(raw):
    groups, chart = copy.deepcopy(raw)
    groups["as_of"] = "23/07/2026"
    with pytest.raises(CountryDataError, match="not an ISO date"):
        load_country_data(groups, chart)


def test_as_of_is_the_older_of_the_two_files(raw):
    groups, chart = copy.deepcopy(raw)
    groups["as_of"] = "2026-07-01"
    assert load_country_data(groups, chart).as_of == date(2026, 7, 1)
