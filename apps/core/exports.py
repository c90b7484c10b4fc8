"""A list exported as CSV or XLSX: one set of columns, every row the filter shows, constant memory.

A column is `(header, value)` where `value(obj)` returns a plain Python value (str, int, Decimal,
date, datetime, bool or None). Each format writes that value its own way: CSV as text (dates in ISO
8601), XLSX as a typed cell (a number stays a number, a date a date), so a spreadsheet sums and
sorts the export without retyping it.
"""

from __future__ import annotations

import csv
import datetime as dt
import tempfile
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any

from django.http import FileResponse, StreamingHttpResponse
from django.utils import timezone

Column = tuple[str, Callable[[Any], Any]]

# ?export=<key> → the label the page shows.
FORMATS: dict[str, str] = {"csv": "CSV", "xlsx": "Excel (XLSX)"}

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

# A cell starting with one of these is read as a formula by spreadsheets: a partner naming its
# organisation "=HYPERLINK(…)" must not run it on the operator's machine (CSV/formula injection).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _plain(value: Any) -> Any:
    """A value both formats understand: aware datetimes in local time, lazy strings as str."""
    if isinstance(value, dt.datetime) and timezone.is_aware(value):
        return timezone.make_naive(value)  # Excel has no time zones; the page shows local time too
    if value is None or isinstance(value, (bool, int, float, Decimal, dt.date, str)):
        return value
    return str(value)


def csv_cell(value: Any) -> str:
    value = _plain(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        return "'" + value if value.startswith(_FORMULA_STARTS) else value
    return str(value)


class _Echo:
    """csv.writer writes to this and gets the line back, so each row can be yielded as it is made."""

    def write(self, value: str) -> str:
        return value


def csv_response(columns: Iterable[Column], objects: Iterable[Any], filename: str) -> StreamingHttpResponse:
    """Stream the rows as CSV (UTF-8 with a byte-order mark, so spreadsheets read accents)."""
    columns = tuple(columns)
    writer = csv.writer(_Echo())

    def rows() -> Iterator[str]:
        yield "\ufeff" + writer.writerow([header for header, _ in columns])
        for obj in objects:
            yield writer.writerow([csv_cell(value(obj)) for _, value in columns])

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _xlsx_cell(sheet, value: Any):
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    value = _plain(value)
    if value == "":
        value = None
    elif isinstance(value, bool):
        value = "yes" if value else "no"  # as the CSV says it
    if isinstance(value, str):
        value = ILLEGAL_CHARACTERS_RE.sub("", value)  # control characters openpyxl refuses to write
    cell = WriteOnlyCell(sheet, value=value)
    if isinstance(value, str) and value.startswith("="):
        cell.data_type = "s"  # text, never a formula (see _FORMULA_STARTS)
    return cell


def xlsx_response(
    columns: Iterable[Column], objects: Iterable[Any], filename: str, *, title: str = "Export"
) -> FileResponse:
    """The rows as an XLSX workbook of one sheet, header row bold and frozen.

    openpyxl's write-only mode spools each row to a temporary file as it is appended and zips the
    workbook into another, so memory stays flat however many rows; the response then streams
    that file. (An XLSX is a zip whose directory comes last: it cannot be sent before it is done.)
    """
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    columns = tuple(columns)
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(title=title[:31])  # Excel's limit on a sheet name
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)
    header = []
    for name, _ in columns:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = bold
        header.append(cell)
    sheet.append(header)
    for obj in objects:
        sheet.append([_xlsx_cell(sheet, value(obj)) for _, value in columns])
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it once sent)
    workbook.save(spool)
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=filename, content_type=XLSX_CONTENT_TYPE)


def in_batches(objects: Iterable[Any], size: int, decorate: Callable[[list], list]) -> Iterator[Any]:
    """Yield `objects`, `size` at a time passed through `decorate` (per-row figures read for a
    batch in a fixed number of queries, as a page does)."""
    batch: list = []
    for obj in objects:
        batch.append(obj)
        if len(batch) >= size:
            yield from decorate(batch)
            batch = []
    if batch:
        yield from decorate(batch)
