"""Issue 12: one set of export columns written as CSV or XLSX (apps.core.exports)."""

import datetime as dt
import io
from decimal import Decimal

import pytest
from django.utils import timezone
from openpyxl import load_workbook

from apps.core import exports

COLUMNS = (
    ("Name", lambda row: row["name"]),
    ("Value", lambda row: row["value"]),
    ("Due", lambda row: row["due"]),
    ("Flag", lambda row: row["flag"]),
)
ROWS = [
    {"name": "Ångström GmbH", "value": Decimal("12.50"), "due": dt.date(2026, 12, 24), "flag": True},
    {"name": '=HYPERLINK("http://evil")', "value": None, "due": None, "flag": False},
    {"name": "bell\x07here", "value": 3, "due": dt.date(2027, 1, 2), "flag": False},
]


def _xlsx_rows(response) -> list[tuple]:
    workbook = load_workbook(io.BytesIO(b"".join(response.streaming_content)), read_only=True)
    return list(workbook.active.iter_rows(values_only=True))


def test_csv_cells_are_text_and_formulae_are_defused():
    assert exports.csv_cell(None) == ""
    assert exports.csv_cell(True) == "yes"
    assert exports.csv_cell(dt.date(2026, 12, 24)) == "2026-12-24"
    assert exports.csv_cell(Decimal("1.50")) == "1.50"
    assert exports.csv_cell("=1+1") == "'=1+1"
    assert exports.csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert exports.csv_cell("SHP-1") == "SHP-1"
    aware = timezone.make_aware(dt.datetime(2026, 12, 3, 10, 30))
    assert exports.csv_cell(aware) == "2026-12-03 10:30"


def test_xlsx_keeps_types_and_writes_formulae_as_text():
    response = exports.xlsx_response(COLUMNS, iter(ROWS), "rows.xlsx", title="Rows")
    assert response["Content-Type"] == exports.XLSX_CONTENT_TYPE
    assert 'filename="rows.xlsx"' in response["Content-Disposition"]
    rows = _xlsx_rows(response)
    assert rows[0] == ("Name", "Value", "Due", "Flag")
    assert rows[1][0] == "Ångström GmbH" and rows[1][1] == pytest.approx(12.5)
    assert rows[1][2].date() == dt.date(2026, 12, 24) and rows[1][3] == "yes"
    # Text, never a formula; empty cells for no value; characters XML cannot hold are dropped.
    assert rows[2] == ('=HYPERLINK("http://evil")', None, None, "no")
    assert rows[3][0] == "bellhere"


def test_in_batches_decorates_every_row_once_in_order():
    seen = []

    def decorate(batch):
        seen.append(len(batch))
        return [n * 10 for n in batch]

    assert list(exports.in_batches(iter(range(5)), 2, decorate)) == [0, 10, 20, 30, 40]
    assert seen == [2, 2, 1]


@pytest.mark.django_db
def test_the_parts_list_exports_xlsx_too(coordinator, supplier_user, browser_as):
    from tests.factories import OrganisationFactory, PartFactory

    theirs = PartFactory(owner=OrganisationFactory(kind="supplier"), unit_value=Decimal("5"))
    cheap, dear = PartFactory(unit_value=Decimal("10")), PartFactory(unit_value=Decimal("900"))
    client = browser_as(coordinator)
    assert 'id="export-xlsx"' in client.get("/parts/").content.decode()
    rows = _xlsx_rows(client.get("/parts/?sort=-unit_value&export=xlsx"))
    assert rows[0][0] == "Part number"
    assert [(r[0], r[rows[0].index("Unit value")]) for r in rows[1:]] == [
        (dear.part_number, 900),
        (cheap.part_number, 10),
        (theirs.part_number, 5),
    ]
    # The shared catalogue's parts belong to their suppliers: another supplier's are not exported.
    client.logout()
    partner_rows = _xlsx_rows(browser_as(supplier_user).get("/parts/?export=xlsx"))
    from apps.catalog.models import Part

    exported = {r[0] for r in partner_rows[1:]}
    assert exported == set(Part.objects.visible_to(supplier_user).values_list("part_number", flat=True))
    assert theirs.part_number not in exported and cheap.part_number in exported


# --- cells made fast, and the same as before ------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["plain", "", "=cmd()", "+1", "-2", "@x", "\ttab", 7, 0, Decimal("12.50"), dt.date(2026, 12, 5), None],
)
def test_the_fast_csv_cell_writes_what_the_general_rule_does(value):
    from apps.core.exports import _plain

    expected = "" if value is None else _plain(value)
    if isinstance(expected, dt.date):
        expected = expected.isoformat()
    elif isinstance(expected, str) and expected.startswith(("=", "+", "-", "@", "\t", "\r")):
        expected = "'" + expected
    assert exports.csv_cell(value) == str(expected)


def test_local_date_and_days_since_read_the_time_zone_once_per_export(settings):
    from django.utils import timezone

    settings.TIME_ZONE = "Asia/Kolkata"
    late = dt.datetime(2026, 12, 4, 20, 0, tzinfo=dt.UTC)  # 01:30 on the 5th in India
    with timezone.override("Asia/Kolkata"):
        local_date = exports.LocalDate().bind()
        days = exports.DaysSince().bind()
        assert local_date(late) == dt.date(2026, 12, 5) == exports.LocalDate()(late)
        assert days(None) is None and local_date(None) is None
        assert days(timezone.now() + dt.timedelta(days=3)) == 0  # never below zero
        assert days(timezone.now() - dt.timedelta(days=10)) == 10


def test_a_per_export_shape_without_bind_is_refused_when_defined():
    with pytest.raises(TypeError, match="must define bind"):

        class Broken(exports.PerExport):
            pass
