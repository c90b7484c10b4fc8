import csv
import datetime as dt
import io
import json
from pathlib import Path

import pytest

from apps.compliance.screening.parsers import (
    CSL_CSV_COLUMNS,
    country_code,
    parse_csl_csv,
    parse_csl_json,
    parse_opensanctions_jsonl,
)
from apps.core.shared_data import shared_path

DEMO = Path(__file__).resolve().parents[2] / "apps" / "compliance" / "data" / "csl-demo.json"
REAL = shared_path("data/csl/consolidated-2026-07-31.json")


def csl_record(**fields):
    record = {
        "id": "abc123",
        "source": "Entity List (EL) - Bureau of Industry and Security",
        "entity_number": None,
        "type": None,
        "name": "Sugon",
        "alt_names": ["Dawning Information Industry"],
        "addresses": [{"country": "CN"}],
        "programs": [],
        "license_requirement": "For all items subject to the EAR.",
        "license_policy": "Presumption of denial.",
        "federal_register_notice": "84 FR 29371",
        "source_list_url": "https://www.bis.doc.gov/",
    }
    record.update(fields)
    return record


def csl_file(*records, **top):
    document = {
        "sources_used": [
            {"source": "Entity List (EL)", "source_last_updated": "2026-07-31T13:15:00+00:00"},
            {"source": "SDN", "source_last_updated": "2026-07-30T09:00:00+00:00"},
        ],
        "total": len(records),
        "results": list(records),
    }
    document.update(top)
    return document


# --- CSL JSON ----------------------------------------------------------------------------------


def test_csl_json_reads_entries_and_the_version():
    data = csl_file(
        csl_record(),
        csl_record(
            id="9647",
            source="Specially Designated Nationals (SDN) - Treasury Department",
            entity_number="9647",
            type="Individual",
            name="KONY, Joseph",
            alt_names=[],
            addresses=[{"country": "CF"}, {"country": "REGION: KAFIA KINGI"}],
            programs=["LRA"],
        ),
    )
    parsed = parse_csl_json(json.dumps(data).encode(), version="ignored")
    assert parsed.ok and parsed.errors == [] and parsed.source_format == "csl-json"
    assert parsed.version == "2026-07-31T13:15:00+00:00"  # the file's own, not the caller's
    assert parsed.published == dt.date(2026, 7, 31)
    sugon, kony = parsed.entries
    assert (sugon.entry_id, sugon.name, sugon.aliases, sugon.countries) == (
        "abc123",
        "Sugon",
        ("Dawning Information Industry",),
        ("CN",),
    )
    assert sugon.license_requirement == "For all items subject to the EAR."
    assert (kony.entity_type, kony.entity_number, kony.programs, kony.countries) == (
        "Individual",
        "9647",
        ("LRA",),
        ("CF",),
    )
    assert parse_csl_json(data) == parsed  # an already-loaded dict reads the same


def test_csl_json_version_from_the_caller_or_the_content():
    data = csl_file(csl_record())
    del data["sources_used"]
    assert parse_csl_json(data, version="2026-08-01").version == "2026-08-01"
    hashed = parse_csl_json(json.dumps(data))
    assert hashed.version.startswith("sha256:") and hashed.published is None


def test_csl_json_reports_every_bad_record_by_number():
    data = csl_file(
        csl_record(id="1"),
        csl_record(id="2", name="  "),
        csl_record(id="3", alt_names="Dawning"),
        csl_record(id="4", addresses=[{"country": "CHINA MAINLAND"}]),
        csl_record(id="5"),
        csl_record(id=""),
        "not a record",
        csl_record(id="5", name="Again"),
        csl_record(id="9", name=None, addresses=[{"country": "XYZ"}]),
    )
    parsed = parse_csl_json(data)
    assert [e.entry_id for e in parsed.entries] == ["1", "5"]
    assert [number for number, _ in parsed.errors] == [2, 3, 4, 6, 7, 8, 9]
    messages = dict(parsed.errors)
    assert "no name" in messages[2]
    assert "alt_names is not a list" in messages[3]
    assert "'CHINA MAINLAND' is not a 2-letter code" in messages[4]
    assert "no id" in messages[6] and messages[7] == "not an object"
    assert "appears more than once" in messages[8]
    assert "no name" in messages[9] and "'XYZ'" in messages[9]  # all of a record's problems
    assert not parsed.ok


def test_csl_json_country_spellings_of_the_real_list():
    addresses = [
        {"country": c} for c in ("UK", "PRC", "TURKIYE", "MACAU", "MAN, ISLE OF", "CRIMEA (OCCUPIED)")
    ]
    addresses += [{"country": "REGION: WEST BANK"}, {"country": "REGION: KASHMIR"}, {"country": "NM"}, {}]
    parsed = parse_csl_json(csl_file(csl_record(addresses=addresses)))
    assert parsed.ok
    assert parsed.entries[0].countries == ("GB", "CN", "TR", "MO", "IM", "UA", "PS", "NM")


def test_csl_json_refuses_a_truncated_or_foreign_file():
    data = csl_file(csl_record())
    data["total"] = 25_921
    assert parse_csl_json(data).errors == [(0, '"total" says 25921 entries but "results" holds 1')]
    assert parse_csl_json(b'{"results": [').errors[0][0] == 0
    assert "not JSON" in parse_csl_json(b'{"results": [').errors[0][1]
    assert parse_csl_json(b"[]").errors == [
        (0, 'expected an object with a "results" list (the CSL bulk download)')
    ]
    assert "not UTF-8" in parse_csl_json(b"\xff\xfe{").errors[0][1]


def test_the_demo_subset():
    document = json.loads(DEMO.read_text())
    assert document["subset_of"]["file"] == "consolidated-2026-07-31.json"
    assert document["total"] == len(document["results"])
    parsed = parse_csl_json(DEMO.read_bytes())
    assert parsed.ok and 100 <= len(parsed.entries) <= 200
    sources = {e.source for e in parsed.entries}
    for source in ("Entity List", "Specially Designated Nationals", "Denied Persons", "Unverified List"):
        assert any(source in s for s in sources), source
    names = " ".join(f"{e.name} {' '.join(e.aliases)}" for e in parsed.entries).upper()
    for name in ("SENSETIME", "INSPUR", "SUGON", "BIREN", "MOORE THREADS", "HUAWEI", "CAMBRICON"):
        assert name in names, name
    for country in ("IN", "SG", "AE", "TW"):
        assert sum(country in e.countries for e in parsed.entries) >= 3, country


@pytest.mark.skipif(not REAL.exists(), reason=f"{REAL} is absent")
def test_the_real_list_parses_without_errors():
    parsed = parse_csl_json(REAL.read_bytes())
    assert parsed.errors == []
    assert len(parsed.entries) == 25_921
    assert parsed.published == dt.date(2026, 7, 31)


# --- CSL CSV -----------------------------------------------------------------------------------


def csl_csv(*rows, header=CSL_CSV_COLUMNS):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.get(column, "") for column in header] if isinstance(row, dict) else row)
    return out.getvalue()


def test_csl_csv_reads_entries():
    text = csl_csv(
        {
            "_id": "52291",
            "source": "Specially Designated Nationals (SDN) - Treasury Department",
            "entity_number": "52291",
            "type": "Individual",
            "programs": "NPWMD; DPRK3",
            "name": "RIM, Ryong Nam",
            "addresses": "Shenyang, CN; Pyongyang, KP",
            "alt_names": "RIM, Ryong-nam; and LIM, Ryong Nam",
            "remarks": "Gender Male",
        },
        {
            "_id": "1b59",
            "source": "Unverified List (UVL) - Bureau of Industry and Security",
            "name": "Atlas Sanatgaran",
            "addresses": "Komitas 26/114, Yerevan, Armenia, AM",
        },
        {
            "_id": "b601",
            "source": "Denied Persons List (DPL) - Bureau of Industry and Security",
            "name": "I. ASH",
            "addresses": "605 TRAIL LAKE DRIVE, RICHARDSON, TX, 75081, US",
            "license_requirement": "",
        },
        {
            "_id": "99ed",
            "source": "Entity List (EL) - Bureau of Industry and Security",
            "name": "China Electronics Technology Group Corporation 13th Research Institute",
            "addresses": "113 Hezuo Road, Shijiazhuang, Hebei, China; and 21 Changsheng Street, Hebei, CN;"
            " 1 Main Street, Houston, TX",
        },
    )
    parsed = parse_csl_csv(("\ufeff" + text).encode(), version="2026-07-31")
    assert parsed.ok and parsed.version == "2026-07-31" and parsed.source_format == "csl-csv"
    rim, atlas, ash, cetc = parsed.entries
    assert rim.aliases == ("RIM, Ryong-nam", "LIM, Ryong Nam")
    assert (
        rim.programs == ("NPWMD", "DPRK3") and rim.countries == ("CN", "KP") and rim.remarks == "Gender Male"
    )
    assert atlas.countries == ("AM",)
    assert ash.countries == ("US",)
    assert cetc.countries == ("CN",)  # "China" read as CN; an address ending with a state gives nothing
    assert parse_csl_csv(text).version.startswith("sha256:")


def test_csl_csv_reports_bad_records_by_number():
    good = {"_id": "1", "source": "EL", "name": "Sugon"}
    short = ["2", "EL", "", "", "", "Short row"]
    text = csl_csv(good, {"_id": "3", "source": "EL", "name": " "}, short, {"_id": "", "name": "No id"}, good)
    parsed = parse_csl_csv(text)
    assert [e.entry_id for e in parsed.entries] == ["1"]
    assert [number for number, _ in parsed.errors] == [2, 3, 4, 5]
    messages = dict(parsed.errors)
    assert "no name" in messages[2]
    assert f"6 fields where the header has {len(CSL_CSV_COLUMNS)}" in messages[3]
    assert "no _id" in messages[4]
    assert "appears more than once" in messages[5]


def test_csl_csv_refuses_another_file():
    parsed = parse_csl_csv("id,full_name\n1,Sugon\n")
    assert parsed.entries == []
    assert parsed.errors == [
        (0, "the header lacks _id, source, name, alt_names, addresses (expected the CSL CSV columns)")
    ]
    assert parse_csl_csv("").errors == [(0, "the file is empty")]


def test_country_code():
    assert country_code("am") == "AM"
    assert country_code("Armenia") == "AM"
    assert country_code("Russian Federation") == "RU"
    assert country_code("Iran") == "IR"
    assert country_code("TX", strict_code=True) is None
    assert country_code("UK") == "GB"
    assert country_code("Korea") is None  # ambiguous
    assert country_code("REGION: RUSSIA") == "RU"


# --- OpenSanctions JSON lines ------------------------------------------------------------------


def test_opensanctions_jsonl():
    lines = [
        json.dumps(
            {
                "id": "NK-person",
                "schema": "Person",
                "properties": {
                    "name": ["Alexander Yuryevich Bryksin", "Брыксин Александр Юрьевич"],
                    "alias": ["Aleksandr Bryksin"],
                    "weakAlias": ["Sasha"],
                    "country": ["ru"],
                    "nationality": ["ru"],
                    "topics": ["sanction"],
                    "notes": ["Designated 2024."],
                },
                "datasets": ["us_ofac_sdn", "eu_fsf"],
                "last_change": "2026-07-30T10:00:00",
            }
        ),
        "",
        json.dumps({"id": "sanction-1", "schema": "Sanction", "properties": {"program": ["RUSSIA-EO14024"]}}),
        "{not json",
        json.dumps(
            {
                "id": "NK-company",
                "schema": "Company",
                "properties": {
                    "name": ["Feodosiya Enterprise"],
                    "jurisdiction": ["ua-cri"],
                    "country": ["suhh"],
                },
                "datasets": ["us_bis_el"],
                "last_change": "2026-07-31T08:00:00",
            }
        ),
        json.dumps({"id": "NK-nameless", "schema": "Organization", "properties": {"country": ["ir"]}}),
        json.dumps(["a", "list"]),
        json.dumps({"id": "NK-bad", "schema": "Company", "properties": {"name": "Not a list"}}),
    ]
    parsed = parse_opensanctions_jsonl("\n".join(lines).encode())
    assert parsed.source_format == "opensanctions-jsonl" and parsed.skipped == 1
    person, company = parsed.entries
    assert person.name == "Alexander Yuryevich Bryksin"
    assert person.aliases == ("Брыксин Александр Юрьевич", "Aleksandr Bryksin")  # no weak alias
    assert person.countries == ("RU",) and person.entity_type == "Person"
    assert person.source == "OpenSanctions: us_ofac_sdn, eu_fsf" and person.programs == ("sanction",)
    assert person.remarks == "Designated 2024."
    assert company.countries == ("UA",)  # Crimea is "ua-cri"; the Soviet Union's "suhh" is no country
    assert parsed.published == dt.date(2026, 7, 31)
    assert [number for number, _ in parsed.errors] == [4, 6, 7, 8]
    messages = dict(parsed.errors)
    assert messages[4].startswith("line 4: not JSON")
    assert messages[6] == "line 6 (NK-nameless): no name"
    assert messages[7] == "line 7: not a JSON object"
    assert "name is not a list" in messages[8]


def test_opensanctions_version():
    line = json.dumps({"id": "x", "schema": "Company", "properties": {"name": ["X"]}})
    assert parse_opensanctions_jsonl([line], version="20260731").version == "20260731"
    assert parse_opensanctions_jsonl(line).version.startswith("sha256:")
