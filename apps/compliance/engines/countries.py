"""EAR Country Groups (Part 740, Supp. 1) and the Commerce Country Chart (Part 738, Supp. 1).

No Django imports. The data lives in dated JSON files under ``apps/compliance/data/ear/``; this
module validates their structure once, turns them into frozensets, and answers "which groups is
this destination in" and "which chart columns carry an X for it".

Territories without their own entry take another destination's: Hong Kong is governed by
China's entry (85 FR 83788), Liechtenstein by Switzerland's, the Cayman Islands by the United
Kingdom's (738.3(b)). The chart file records that as ``territory_inheritance``; Hong Kong is also
absent from the Country Group tables for the same reason, so a territory that is in no group at
all takes the groups of the destination whose row it uses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "ear"
DEFAULT_GROUPS_FILE = DATA_DIR / "country-groups-2026-07-23.json"
DEFAULT_CHART_FILE = DATA_DIR / "country-chart-2026-07-23.json"

_CODE = re.compile(r"^[A-Z]{2}$")


class CountryDataError(ValueError):
    """The country-group or country-chart data does not have the expected structure."""


class UnknownCountryError(ValueError):
    """A destination code that the loaded data does not know."""

    def __init__(self, code: str, what: str = "destination") -> None:
        self.code = code
        super().__init__(
            f"unknown {what} country code {code!r}: not in the EAR Country Groups or the "
            "Commerce Country Chart (expected an ISO 3166 alpha-2 code such as 'IN' or 'HK')"
        )


@dataclass(frozen=True)
class CountryData:
    """The Country Groups and Country Chart as of one date. Treat the dicts as read-only."""

    as_of: date
    source: str
    groups: dict[str, frozenset[str]]
    chart_marks: dict[str, frozenset[str]]
    chart_row_for: dict[str, str]
    embargoed: dict[str, str]
    names: dict[str, str]
    columns: tuple[str, ...] = ()
    footnotes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    group_labels: dict[str, str] = field(default_factory=dict)
    no_mark_caveat: str = ""

    @property
    def countries(self) -> frozenset[str]:
        """Every destination code the data knows: group members, chart rows, embargoed, territories."""
        known: set[str] = set(self.chart_marks) | set(self.embargoed) | set(self.chart_row_for)
        for members in self.groups.values():
            known |= members
        return frozenset(known)

    def name_of(self, country: str) -> str:
        return self.names.get(country, country)


# --- loading ------------------------------------------------------------------------------------


def _require(obj: Any, key: str, where: str, kind: type) -> Any:
    if not isinstance(obj, dict):
        raise CountryDataError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    if key not in obj:
        raise CountryDataError(f"{where}: missing key {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise CountryDataError(f"{where}: key {key!r} should be {kind.__name__}, got {type(value).__name__}")
    return value


def _code(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _CODE.match(value):
        raise CountryDataError(f"{where}: bad country code {value!r} (expected 2 uppercase letters)")
    return value


def _as_of(obj: dict, where: str) -> date:
    raw = _require(obj, "as_of", where, str)
    try:
        return date.fromisoformat(raw)
    except ValueError as exc:
        raise CountryDataError(f"{where}: 'as_of' {raw!r} is not an ISO date (YYYY-MM-DD)") from exc


def load_country_data(groups_json: dict, chart_json: dict) -> CountryData:
    """Validate and load the Country Groups and Country Chart JSON (as parsed by ``json.load``).

    Raises ``CountryDataError`` naming the missing key or the bad country code.
    """
    g_where = "country groups"
    c_where = "country chart"
    groups_as_of = _as_of(groups_json, g_where)
    chart_as_of = _as_of(chart_json, c_where)

    groups: dict[str, frozenset[str]] = {}
    for group, members in _require(groups_json, "groups", g_where, dict).items():
        if not isinstance(members, list):
            raise CountryDataError(f"{g_where}: group {group!r} should be a list of country codes")
        groups[group] = frozenset(_code(cc, f"{g_where}: group {group!r}") for cc in members)
    labels = groups_json.get("labels") or {}

    columns = tuple(_require(chart_json, "columns", c_where, list))
    if not all(isinstance(col, str) for col in columns):
        raise CountryDataError(f"{c_where}: 'columns' should be a list of strings")

    names: dict[str, str] = {}
    chart_marks: dict[str, frozenset[str]] = {}
    footnote_numbers: dict[str, list[str]] = {}
    for cc, row in _require(chart_json, "rows", c_where, dict).items():
        where = f"{c_where}: row {cc!r}"
        _code(cc, f"{c_where}: rows")
        marks = _require(row, "marks", where, list)
        unknown = [m for m in marks if m not in columns]
        if unknown:
            raise CountryDataError(f"{where}: marks {unknown} are not chart columns")
        chart_marks[cc] = frozenset(marks)
        footnote_numbers[cc] = [str(n) for n in row.get("footnotes") or []]
        if isinstance(row.get("name"), str):
            names[cc] = row["name"]

    embargoed: dict[str, str] = {}
    for cc, entry in _require(chart_json, "embargoed", c_where, dict).items():
        _code(cc, f"{c_where}: embargoed")
        if isinstance(entry, dict):
            embargoed[cc] = str(entry.get("see", ""))
            if isinstance(entry.get("name"), str):
                names.setdefault(cc, entry["name"])
        else:
            embargoed[cc] = str(entry)

    chart_row_for: dict[str, str] = {}
    for cc, row_cc in _require(chart_json, "territory_inheritance", c_where, dict).items():
        _code(cc, f"{c_where}: territory_inheritance")
        _code(row_cc, f"{c_where}: territory_inheritance[{cc!r}]")
        if row_cc not in chart_marks:
            raise CountryDataError(f"{c_where}: territory {cc!r} inherits row {row_cc!r}, which has no row")
        chart_row_for[cc] = row_cc
    # The basis entries are keyed by the territory's name and name the row they use ("China"):
    # match the row name back to the code to name territories that have no row of their own.
    row_code_by_name = {name: cc for cc, name in names.items()}
    for territory_name, basis in (chart_json.get("territory_inheritance_basis") or {}).items():
        row_cc = row_code_by_name.get(basis.get("row", "")) if isinstance(basis, dict) else None
        heirs = [cc for cc, target in chart_row_for.items() if target == row_cc]
        if len(heirs) == 1:
            names.setdefault(heirs[0], territory_name.title())

    footnote_text = chart_json.get("footnotes") or {}
    footnotes = {
        cc: tuple(f"Footnote {n}: {footnote_text.get(n, '(text missing)')}" for n in numbers)
        for cc, numbers in footnote_numbers.items()
        if numbers
    }
    procedure = chart_json.get("procedure") or {}
    source = (
        f"{groups_json.get('source', 'Part 740 Supp. 1')}; {chart_json.get('source', 'Part 738 Supp. 1')}"
    )
    return CountryData(
        # The pair is only as current as its older half.
        as_of=min(groups_as_of, chart_as_of),
        source=source,
        groups=groups,
        chart_marks=chart_marks,
        chart_row_for=chart_row_for,
        embargoed=embargoed,
        names=names,
        columns=columns,
        footnotes=footnotes,
        group_labels={str(k): str(v) for k, v in labels.items()},
        no_mark_caveat=str(procedure.get("noMarkCaveat", "")),
    )


def load_default() -> CountryData:
    """Load the dated files shipped in ``apps/compliance/data/ear/``."""
    with DEFAULT_GROUPS_FILE.open(encoding="utf-8") as fh:
        groups_json = json.load(fh)
    with DEFAULT_CHART_FILE.open(encoding="utf-8") as fh:
        chart_json = json.load(fh)
    return load_country_data(groups_json, chart_json)


# --- lookups ------------------------------------------------------------------------------------


def require_known(data: CountryData, country: str, what: str = "destination") -> str:
    """Return the code if the data knows it, else raise ``UnknownCountryError``."""
    if country not in data.countries:
        raise UnknownCountryError(country, what)
    return country


def chart_row(data: CountryData, country: str) -> str:
    """The chart row a destination uses: its own, or the one it inherits (HK → CN)."""
    require_known(data, country)
    return data.chart_row_for.get(country, country)


def groups_of(data: CountryData, country: str) -> list[str]:
    """Country Groups the destination is in, sorted. A territory in no group takes its row's groups."""
    require_known(data, country)
    own = sorted(g for g, members in data.groups.items() if country in members)
    if own or country not in data.chart_row_for:
        return own
    parent = data.chart_row_for[country]
    return sorted(g for g, members in data.groups.items() if parent in members)


def in_group(data: CountryData, country: str, group: str) -> bool:
    if group not in data.groups:
        raise KeyError(f"unknown Country Group {group!r}; known: {', '.join(sorted(data.groups))}")
    return group in groups_of(data, country)


def chart_marks_for(data: CountryData, country: str) -> frozenset[str]:
    """Columns with an X for the destination, after territory inheritance (HK uses CN's row)."""
    return data.chart_marks.get(chart_row(data, country), frozenset())


def embargo_note(data: CountryData, country: str) -> str | None:
    """The chart's Part 746 pointer if the destination (or the row it uses) is embargoed."""
    row = chart_row(data, country)
    return data.embargoed.get(country) or data.embargoed.get(row)
