"""Parsers for restricted-party lists: the US Consolidated Screening List (bulk JSON and CSV)
and OpenSanctions FollowTheMoney JSON lines (no Django imports).

Each parser reads the whole input and returns a `ParsedList` with every entry it could read and
every bad record it found, numbered from 1 (0 for a problem with the file as a whole). The
import is all or nothing: a caller refuses the list when `errors` is not empty, and shows all of
them, so that one fix-and-retry cycle is enough.

Countries become ISO 3166 alpha-2 codes. The CSL writes a few countries otherwise, and those are
read rather than refused, or the real list could never be imported: "UK" (→ GB), "PRC" (→ CN),
"TURKIYE", "MACAU", "MAN, ISLE OF", "CRIMEA (OCCUPIED)" (→ UA), and "REGION: …" labels, which
are resolved when they name a country ("REGION: RUSSIA") and otherwise skipped ("REGION:
KASHMIR"). Any other value that is not two letters is an error in the JSON. In the CSV the
country is the last comma-separated part of each ";"-separated address when that is a known
code or country name ("Komitas 26/114, Yerevan, Armenia, AM"), and nothing otherwise (an
address may simply not end with its country).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import pycountry

from .matcher import ListEntry
from .normalise import normalise

# The header of the CSL CSV download (consolidated.csv from data.trade.gov), in its order.
CSL_CSV_COLUMNS = (
    "_id",
    "source",
    "entity_number",
    "type",
    "programs",
    "name",
    "title",
    "addresses",
    "federal_register_notice",
    "start_date",
    "end_date",
    "standard_order",
    "license_requirement",
    "license_policy",
    "call_sign",
    "vessel_type",
    "gross_tonnage",
    "gross_registered_tonnage",
    "vessel_flag",
    "vessel_owner",
    "remarks",
    "source_list_url",
    "alt_names",
    "citizenships",
    "dates_of_birth",
    "nationalities",
    "places_of_birth",
    "source_information_url",
    "ids",
)
CSL_CSV_REQUIRED = ("_id", "source", "name", "alt_names", "addresses")

# FollowTheMoney schemata that are parties one can trade with; the rest (Sanction, Address,
# Ownership …) are skipped, not refused.
FTM_PARTY_SCHEMATA = frozenset(
    {"Person", "Company", "Organization", "LegalEntity", "PublicBody", "Vessel", "Airplane"}
)
FTM_NAME_PROPERTIES = ("alias", "previousName")  # "weakAlias" left out: nicknames, not names
FTM_COUNTRY_PROPERTIES = ("country", "jurisdiction", "mainCountry", "nationality", "citizenship")

# Spellings of countries on the lists that pycountry's names do not cover (keys normalised).
COUNTRY_ALIASES = {
    "uk": "GB",
    "prc": "CN",
    "turkiye": "TR",
    "turkey": "TR",
    "macau": "MO",
    "burma": "MM",
    "russia": "RU",
    "iran": "IR",
    "syria": "SY",
    "north korea": "KP",
    "south korea": "KR",
    "korea north": "KP",
    "korea south": "KR",
    "taiwan": "TW",
    "vietnam": "VN",
    "laos": "LA",
    "uae": "AE",
    "kosovo": "XK",
    "west bank": "PS",
    "gaza": "PS",
    "gaza strip": "PS",
    "palestinian territories": "PS",
    "crimea": "UA",
    "crimea occupied": "UA",
    "man isle of": "IM",
    "ivory coast": "CI",
    "cape verde": "CV",
    "swaziland": "SZ",
    "czech republic": "CZ",
    "bolivia": "BO",
    "venezuela": "VE",
    "tanzania": "TZ",
    "moldova": "MD",
    "brunei": "BN",
    "hong kong": "HK",
    "china": "CN",
    "netherlands antilles": "AN",
}
# Two-letter codes the lists use beyond ISO 3166-1: Kosovo, the Netherlands Antilles, "UK".
EXTRA_CODES = {"XK": "XK", "AN": "AN", "UK": "GB"}


@dataclass
class ParsedList:
    """What a parser read: the entries, every bad record as (number, message), and the version.

    `skipped` counts records that are fine but not parties (OpenSanctions sanctions, addresses).
    """

    entries: list[ListEntry]
    errors: list[tuple[int, str]]
    version: str
    published: dt.date | None
    source_format: str
    skipped: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class _Collector:
    source_format: str
    entries: list[ListEntry] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    skipped: int = 0

    def error(self, number: int, message: str) -> None:
        self.errors.append((number, message))

    def add(self, number: int, entry: ListEntry) -> None:
        if entry.entry_id in self.ids:
            self.error(number, f"id {entry.entry_id!r} appears more than once")
            return
        self.ids.add(entry.entry_id)
        self.entries.append(entry)

    def result(self, version: str, published: dt.date | None) -> ParsedList:
        return ParsedList(self.entries, self.errors, version, published, self.source_format, self.skipped)


def country_code(value: str, *, strict_code: bool = False) -> str | None:
    """An ISO 3166 alpha-2 code for a list's country value, or None when it names no country.

    Two letters are taken as a code (upper-cased; "UK" → "GB"); with `strict_code` only when
    ISO 3166 (or Kosovo) knows it, since a CSV address may end with a state ("TX"). Longer
    values are looked up as country names ("Armenia", "Russian Federation", "PRC", "TURKIYE").
    """
    value = value.strip()
    if value.upper().startswith("REGION:"):
        value = value.split(":", 1)[1]
    if len(value) == 2 and value.isalpha():
        code = value.upper()
        if code in EXTRA_CODES:
            return EXTRA_CODES[code]
        if strict_code and pycountry.countries.get(alpha_2=code) is None:
            return None
        return code
    return _country_names().get(normalise(value))


@lru_cache(maxsize=1)
def _country_names() -> dict[str, str]:
    names: dict[str, str] = {}
    ambiguous: set[str] = set()
    for country in pycountry.countries:
        for attribute in ("name", "official_name", "common_name", "alpha_3"):
            value = getattr(country, attribute, None)
            if value:
                names[normalise(value)] = country.alpha_2
        # "Iran, Islamic Republic of" → "iran"; "Korea, Republic of" is ambiguous, and skipped.
        short = normalise(country.name.split(",")[0])
        if short in ambiguous:
            continue
        if short in names and names[short] != country.alpha_2:
            ambiguous.add(short)
            del names[short]
        else:
            names.setdefault(short, country.alpha_2)
    names.update(COUNTRY_ALIASES)
    return names


def _content_version(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:16]


def _decode(data: bytes | str, collector: _Collector) -> str | None:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        collector.error(0, f"the file is not UTF-8 text ({exc.reason} at byte {exc.start})")
        return None


# --- CSL bulk JSON ---------------------------------------------------------------------------


def parse_csl_json(data: bytes | str | dict, *, version: str | None = None) -> ParsedList:
    """The CSL bulk download: `{"sources_used": [...], "total": N, "results": [...]}`.

    The version is the file's own ("version", else the latest `source_last_updated` of
    `sources_used`), else `version`, else a hash of the content. A `total` that disagrees with
    the number of results (a truncated download) is an error of the whole file.
    """
    collector = _Collector("csl-json")
    if isinstance(data, dict):
        document: Any = data
        raw = json.dumps(data, sort_keys=True).encode()
    else:
        text = _decode(data, collector)
        if text is None:
            return collector.result(version or "", None)
        raw = text.encode()
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            collector.error(0, f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
            return collector.result(version or _content_version(raw), None)
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        collector.error(0, 'expected an object with a "results" list (the CSL bulk download)')
        return collector.result(version or _content_version(raw), None)
    results = document["results"]
    total = document.get("total")
    if total is not None and total != len(results):
        collector.error(0, f'"total" says {total} entries but "results" holds {len(results)}')

    updated = [
        str(s.get("source_last_updated"))
        for s in document.get("sources_used") or []
        if isinstance(s, dict) and s.get("source_last_updated")
    ]
    file_version = document.get("version") or (max(updated) if updated else None)
    published = _date(document.get("published") or (max(updated) if updated else None))

    for number, record in enumerate(results, start=1):
        entry = _csl_json_entry(number, record, collector)
        if entry is not None:
            collector.add(number, entry)
    return collector.result(str(file_version or version or _content_version(raw)), published)


def _csl_json_entry(number: int, record: Any, collector: _Collector) -> ListEntry | None:
    if not isinstance(record, dict):
        collector.error(number, "not an object")
        return None
    problems: list[str] = []
    entry_id = _text(record.get("id"))
    if not entry_id:
        problems.append("no id")
    name = record.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("no name")
    alt_names = record.get("alt_names")
    if alt_names is None:
        alt_names = []
    if not isinstance(alt_names, list) or not all(isinstance(a, str) for a in alt_names):
        problems.append("alt_names is not a list of names")
        alt_names = []
    programs = record.get("programs") or []
    if not isinstance(programs, list) or not all(isinstance(p, str) for p in programs):
        problems.append("programs is not a list")
        programs = []
    countries: list[str] = []
    addresses = record.get("addresses") or []
    if not isinstance(addresses, list):
        problems.append("addresses is not a list")
        addresses = []
    for address in addresses:
        raw = address.get("country") if isinstance(address, dict) else None
        if raw is None or raw == "":
            continue
        if not isinstance(raw, str):
            problems.append(f"country {raw!r} is not text")
            continue
        code = country_code(raw)
        if code is None and not raw.strip().upper().startswith("REGION:"):
            problems.append(f"country {raw!r} is not a 2-letter code or a known country name")
        elif code and code not in countries:
            countries.append(code)
    if problems:
        label = f" ({name.strip()[:60]})" if isinstance(name, str) and name.strip() else ""
        collector.error(number, f"record {number}{label}: " + "; ".join(problems))
        return None
    return ListEntry(
        entry_id=entry_id,
        name=name.strip(),
        aliases=tuple(a.strip() for a in alt_names if a.strip()),
        countries=tuple(countries),
        source=_text(record.get("source")),
        entity_type=_text(record.get("type")),
        programs=tuple(programs),
        entity_number=_text(record.get("entity_number")),
        license_requirement=_text(record.get("license_requirement")),
        remarks=_text(record.get("remarks")),
    )


# --- CSL CSV -----------------------------------------------------------------------------------


def parse_csl_csv(data: bytes | str, *, version: str | None = None) -> ParsedList:
    """The CSL CSV download (header `CSL_CSV_COLUMNS`; extra columns are ignored).

    `alt_names` and `programs` are separated by ";", `addresses` too ("Shenyang, CN; Pyongyang,
    KP"). Records are numbered from 1 after the header. The version is `version`, else a hash of
    the content (the CSV carries none).
    """
    collector = _Collector("csl-csv")
    text = _decode(data, collector)
    if text is None:
        return collector.result(version or "", None)
    file_version = version or _content_version(text.encode())
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        collector.error(0, f"unreadable header: {exc}")
        return collector.result(file_version, None)
    if header is None:
        collector.error(0, "the file is empty")
        return collector.result(file_version, None)
    header = [h.strip() for h in header]
    missing = [c for c in CSL_CSV_REQUIRED if c not in header]
    if missing:
        collector.error(0, f"the header lacks {', '.join(missing)} (expected the CSL CSV columns)")
        return collector.result(file_version, None)
    column = {name: header.index(name) for name in CSL_CSV_COLUMNS if name in header}
    number = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            collector.error(
                number + 1, f"record {number + 1} (line {reader.line_num}): unreadable CSV: {exc}"
            )
            break
        if not any(cell.strip() for cell in row):
            continue
        number += 1
        if len(row) != len(header):
            collector.error(
                number,
                f"record {number} (line {reader.line_num}): "
                f"{len(row)} fields where the header has {len(header)}",
            )
            continue
        entry = _csl_csv_entry(number, {name: row[i] for name, i in column.items()}, collector)
        if entry is not None:
            collector.add(number, entry)
    return collector.result(file_version, None)


def _csl_csv_entry(number: int, row: dict[str, str], collector: _Collector) -> ListEntry | None:
    problems = []
    entry_id = row["_id"].strip()
    name = row["name"].strip()
    if not entry_id:
        problems.append("no _id")
    if not name:
        problems.append("no name")
    if problems:
        collector.error(number, f"record {number}: " + "; ".join(problems))
        return None
    countries: list[str] = []
    for address in _split(row.get("addresses", "")):
        code = country_code(address.rsplit(",", 1)[-1], strict_code=True)
        if code and code not in countries:
            countries.append(code)
    return ListEntry(
        entry_id=entry_id,
        name=name,
        aliases=tuple(_split(row.get("alt_names", ""))),
        countries=tuple(countries),
        source=row.get("source", "").strip(),
        entity_type=row.get("type", "").strip(),
        programs=tuple(_split(row.get("programs", ""))),
        entity_number=row.get("entity_number", "").strip(),
        license_requirement=row.get("license_requirement", "").strip(),
        remarks=row.get("remarks", "").strip(),
    )


def _split(value: str) -> list[str]:
    """A ";"-separated CSL field; the Entity List writes "X; and Y" for the last of several."""
    parts = []
    for part in value.split(";"):
        part = part.strip()
        if part.lower().startswith("and "):
            part = part[4:].strip()
        if part:
            parts.append(part)
    return parts


# --- OpenSanctions FollowTheMoney JSON lines ---------------------------------------------------


def parse_opensanctions_jsonl(data: bytes | str | Iterable[str], *, version: str | None = None) -> ParsedList:
    """OpenSanctions entities, one FollowTheMoney JSON object per line (`entities.ftm.json`).

    Parties (`FTM_PARTY_SCHEMATA`) become entries: the first `name` is the name, the other
    names, `alias` and `previousName` the aliases; countries from `country`, `jurisdiction`,
    `mainCountry`, `nationality` and `citizenship` (FtM's lower-case codes; "ua-cri" → UA;
    historical codes such as "suhh" are skipped). `topics` become the programs, `notes` the
    remarks, the datasets the source. Lines are numbered from 1; blank lines are skipped.
    """
    collector = _Collector("opensanctions-jsonl")
    if isinstance(data, bytes | str):
        text = _decode(data, collector)
        if text is None:
            return collector.result(version or "", None)
        lines: Iterable[str] = text.splitlines()
        file_version = version or _content_version(text.encode())
    else:
        lines = list(data)
        file_version = version or _content_version("\n".join(lines).encode())
    last_change: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            collector.error(number, f"line {number}: not JSON ({exc.msg}, column {exc.colno})")
            continue
        entry = _ftm_entry(number, record, collector)
        if entry is not None:
            collector.add(number, entry)
            if isinstance(record.get("last_change"), str):
                last_change.append(record["last_change"])
    return collector.result(file_version, _date(max(last_change)) if last_change else None)


def _ftm_entry(number: int, record: Any, collector: _Collector) -> ListEntry | None:
    if not isinstance(record, dict):
        collector.error(number, f"line {number}: not a JSON object")
        return None
    entity_id, schema, properties = record.get("id"), record.get("schema"), record.get("properties")
    problems = []
    if not isinstance(entity_id, str) or not entity_id:
        problems.append("no id")
    if not isinstance(schema, str) or not schema:
        problems.append("no schema")
    if not isinstance(properties, dict):
        problems.append("properties is not an object")
    if problems:
        collector.error(number, f"line {number}: " + "; ".join(problems))
        return None
    if schema not in FTM_PARTY_SCHEMATA:
        collector.skipped += 1
        return None

    def strings(prop: str) -> list[str]:
        values = properties.get(prop) or []
        if not isinstance(values, list):
            problems.append(f"{prop} is not a list")
            return []
        # Nested exports put entities (objects) in some properties: those are not names.
        return [v.strip() for v in values if isinstance(v, str) and v.strip()]

    names = strings("name")
    aliases = [a for prop in FTM_NAME_PROPERTIES for a in strings(prop)]
    countries: list[str] = []
    for prop in FTM_COUNTRY_PROPERTIES:
        for value in strings(prop):
            code = value.split("-", 1)[0]
            if len(code) == 2 and code.isalpha() and code.upper() not in countries:
                countries.append(EXTRA_CODES.get(code.upper(), code.upper()))
    if not names:
        problems.append("no name")
    if problems:
        collector.error(number, f"line {number} ({entity_id}): " + "; ".join(problems))
        return None
    datasets = record.get("datasets") or []
    return ListEntry(
        entry_id=entity_id,
        name=names[0],
        aliases=tuple(dict.fromkeys(n for n in names[1:] + aliases if n != names[0])),
        countries=tuple(countries),
        source="OpenSanctions: " + ", ".join(str(d) for d in datasets) if datasets else "OpenSanctions",
        entity_type=schema,
        programs=tuple(strings("topics")),
        remarks=" ".join(strings("notes")),
    )


# --- helpers -------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _date(value: Any) -> dt.date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None
