"""A list exported as CSV or XLSX: one set of columns, every row the filter shows, constant memory.

A column is `(header, value)` where `value(obj)` returns a plain Python value (str, int, Decimal,
date, datetime, bool or None), or `(header, read("path__to__field", ...))`, read straight from the
database (`values_list`: no model instance, no per-row query) and shaped by an optional function of
those values. A list whose columns are all read that way writes a million rows in seconds. Each
format writes a value its own way: CSV as text (dates in ISO 8601), XLSX as a typed cell (a number
stays a number, a date a date), so a spreadsheet sums and sorts the export without retyping it.

How long a list may be before it is not answered inline: `INLINE_ROWS` per format. A longer one is
written to a file by a background task and downloaded from its page (`apps.core.export_files`):
a request streaming it would outlive the web server's worker timeout and end, early, in a 200.
"""

from __future__ import annotations

import csv
import datetime as dt
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from operator import itemgetter
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.http import FileResponse, StreamingHttpResponse
from django.utils import timezone

Column = tuple[str, Any]  # (header, value(obj) or read(...))

# Rows a list answers inline at most, per format; past this it is written in the background.
# Streaming CSV of `read` columns runs at 100,000+ rows a second and XLSX at about 10,000: these
# keep an inline answer to a few seconds, far inside gunicorn's 30 s worker timeout.
INLINE_ROWS: dict[str, int] = {"csv": 50_000, "xlsx": 10_000}

# Rows fetched per round trip (a server-side cursor on PostgreSQL).
CHUNK_ROWS = 10_000


@dataclass(frozen=True)
class Read:
    """A column read from the database: `paths` for `values_list`, `shape(*values)` (if any) makes
    the cell of them."""

    paths: tuple[str, ...]
    shape: Callable[..., Any] | None = None


def read(*paths: str, shape: Callable[..., Any] | None = None) -> Read:
    """`read("unit__serial")`, or `read("line__shipment__reference", "line__line_number",
    shape=lambda ref, n: f"{ref} line {n}" if ref else "")`."""
    return Read(tuple(paths), shape)


def reads_only(columns: Iterable[Column]) -> bool:
    """Whether every column is read from the database (the fast path)."""
    return all(isinstance(value, Read) for _, value in columns)


class ReadRows:
    """The rows of a queryset as cell values, one tuple per row, read with `values_list` in
    chunks: what `csv_response` and `xlsx_response` write when the columns are all `read`."""

    def __init__(self, columns: Iterable[Column], queryset, chunk_size: int = CHUNK_ROWS) -> None:
        self.columns = tuple(columns)
        self.paths = _paths(self.columns)
        self.queryset = queryset.values_list(*self.paths)
        self.chunk_size = chunk_size

    def cell_functions(self) -> list[Callable[[tuple], Any]]:
        """One function per column from a row of `values_list` to the column's cell. Shapes that
        depend on the moment (`PerExport`: the time zone, today) are bound here, once per export,
        not once per cell."""
        where = {path: i for i, path in enumerate(self.paths)}
        functions: list[Callable[[tuple], Any]] = []
        for _, column in self.columns:
            indexes = tuple(where[path] for path in column.paths)
            shape = column.shape.bind() if isinstance(column.shape, PerExport) else column.shape
            if shape is None:
                functions.append(itemgetter(indexes[0]))
            elif len(indexes) == 1:
                functions.append(_shape_one(shape, indexes[0]))
            else:
                functions.append(_shape_many(shape, indexes))
        return functions

    def values(self) -> Iterator[tuple]:
        """The `values_list` rows. On PostgreSQL, outside a transaction (a worker writing an export,
        a streamed answer), they come through `COPY (…) TO STDOUT` in binary, typed by psycopg: the
        server streams every row while this process shapes the ones it has, where a server-side
        cursor waits for each chunk to be asked for (a million stock rows in about half the time).

        The COPY runs on a connection of its own: while it streams, its connection takes no other
        statement, and the export reports progress (and renews its lease) through the default one
        as it goes. Inside a transaction a second connection would not see the transaction's rows,
        so there, on other databases, and for values Django converts after reading
        (`from_db_value`), the rows come from `iterator()`: the same values either way."""
        queryset = self.queryset
        connection = connections[queryset.db]
        if connection.vendor != "postgresql" or connection.in_atomic_block:
            yield from queryset.iterator(chunk_size=self.chunk_size)
            return
        compiler = queryset.query.get_compiler(queryset.db)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:
            return
        if compiler.get_converters([expression for expression, _, _ in compiler.select]):
            yield from queryset.iterator(chunk_size=self.chunk_size)
            return
        connection.ensure_connection()
        statement = connection.ops.compose_sql(sql, params)
        own = connection.get_new_connection(connection.get_connection_params())
        try:
            own.autocommit = True
            with own.cursor() as cursor:
                # Times as the default connection reads them (Django keeps it in UTC).
                cursor.execute("SET TIME ZONE 'UTC'")
                cursor.execute(f"SELECT * FROM ({statement}) AS export_rows LIMIT 0")
                types = [column.type_code for column in cursor.description]
                with cursor.copy(f"COPY ({statement}) TO STDOUT (FORMAT BINARY)") as copy:
                    copy.set_types(types)
                    yield from copy.rows()
        finally:
            own.close()

    def __iter__(self) -> Iterator[tuple]:
        functions = self.cell_functions()
        for values in self.values():
            yield tuple([function(values) for function in functions])

    def csv_rows(self) -> Iterator[list[str]]:
        """Each row as its CSV cells (`csv_cell` of each cell), in one pass: one call per cell,
        the column's value and its CSV text together."""
        functions = [_csv_of(function) for function in self.cell_functions()]
        for values in self.values():
            yield [function(values) for function in functions]


def _csv_of(function: Callable[[tuple], Any]) -> Callable[[tuple], str]:
    if isinstance(function, itemgetter):
        # A column read as it is: most are text, written here without a second call.
        def cell(values: tuple, get=function) -> str:
            value = get(values)
            if type(value) is str:
                return "'" + value if value[:1] in _FORMULA_FIRST else value
            return csv_cell(value)

        return cell
    return lambda values: csv_cell(function(values))


def _shape_one(shape: Callable[..., Any], index: int) -> Callable[[tuple], Any]:
    return lambda values: shape(values[index])


def _shape_many(shape: Callable[..., Any], indexes: tuple[int, ...]) -> Callable[[tuple], Any]:
    pick = itemgetter(*indexes)
    return lambda values: shape(*pick(values))


class PerExport(ABC):
    """A column's shape that depends on the moment of the export (the active time zone, today):
    `bind()` reads it once and returns the per-cell function; called directly it reads it each
    time (pages and other callers)."""

    @abstractmethod
    def bind(self) -> Callable[[Any], Any]:
        """Read the moment (time zone, date) once; return the function that shapes each cell."""

    # A subclass without bind() is refused where it is written, not first when an export runs.
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "bind" not in cls.__dict__:
            raise TypeError(f"{cls.__name__} must define bind()")

    def __call__(self, value: Any) -> Any:
        return self.bind()(value)


class LocalDate(PerExport):
    """An aware datetime as the date it was in the active time zone (None stays None)."""

    def bind(self) -> Callable[[Any], Any]:
        zone = timezone.get_current_timezone()
        return lambda value: None if value is None else value.astimezone(zone).date()


class DaysSince(PerExport):
    """Whole days from an aware datetime's local date to today (never below 0; None stays None)."""

    def bind(self) -> Callable[[Any], Any]:
        zone = timezone.get_current_timezone()
        today = timezone.localdate()
        return lambda value: None if value is None else max((today - value.astimezone(zone).date()).days, 0)


def _paths(columns: tuple) -> tuple[str, ...]:
    paths: list[str] = []
    for _, column in columns:
        paths.extend(path for path in column.paths if path not in paths)
    return tuple(paths)


def read_rows(columns: Iterable[Column], queryset, chunk_size: int = CHUNK_ROWS) -> ReadRows:
    return ReadRows(columns, queryset, chunk_size)


def rows_sql(columns: Iterable[Column], queryset) -> tuple[str, tuple]:
    """The SQL and parameters an export of `read` columns runs (the benchmark COPYs it)."""
    compiler = ReadRows(columns, queryset).queryset.query.get_compiler(queryset.db)
    return compiler.as_sql()


def fits_inline(queryset, export_format: str) -> bool:
    """Whether the list is short enough to answer inline; counts at most the limit plus one row,
    so asking costs the same for a list of a million."""
    limit = INLINE_ROWS[export_format]
    return queryset.order_by().values("pk")[: limit + 1].count() <= limit


def _csv_rows(columns: tuple, objects: Iterable[Any]) -> Iterator[list[str]]:
    """Each row's CSV cells: `ReadRows` makes them in one pass; objects through `_cells_of`."""
    if isinstance(objects, ReadRows):
        yield from objects.csv_rows()
        return
    for cells in _cells_of(columns, objects):
        yield [csv_cell(cell) for cell in cells]


def _cells_of(columns: tuple, objects: Iterable[Any]) -> Iterator[tuple]:
    """Each row's cell values: `ReadRows` gives them; objects go through each column's function."""
    if isinstance(objects, ReadRows):
        yield from objects
        return
    values = [value for _, value in columns]
    for obj in objects:
        yield tuple(value(obj) for value in values)


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


_FORMULA_FIRST = frozenset(_FORMULA_STARTS)


def csv_cell(value: Any) -> str:
    # The commonest cells first, by exact type: a million-row export spends its time here.
    kind = type(value)
    if kind is str:
        return "'" + value if value[:1] in _FORMULA_FIRST else value
    if value is None:
        return ""
    if kind is int or kind is Decimal:
        return str(value)
    if kind is dt.date:
        return value.isoformat()
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


def csv_lines(columns: Iterable[Column], objects: Iterable[Any], *, batch: int = 500) -> Iterator[str]:
    """The CSV text (UTF-8 byte-order mark and header first, so spreadsheets read accents), a
    few hundred rows a piece: one piece per row would spend more on passing pieces than on rows."""
    columns = tuple(columns)
    writer = csv.writer(_Echo())
    yield "\ufeff" + writer.writerow([header for header, _ in columns])
    lines: list[str] = []
    for cells in _csv_rows(columns, objects):
        lines.append(writer.writerow(cells))
        if len(lines) >= batch:
            yield "".join(lines)
            lines = []
    if lines:
        yield "".join(lines)


def csv_write(
    columns: Iterable[Column], objects: Iterable[Any], out, *, progress: Callable[[int], None] | None = None
) -> int:
    """Write the CSV (as `csv_lines` makes it) to the binary file `out`; returns the rows written.
    `progress(rows)` is called every `CHUNK_ROWS` rows."""
    columns = tuple(columns)
    writer = csv.writer(_Echo())
    out.write(("\ufeff" + writer.writerow([header for header, _ in columns])).encode())
    rows = 0
    lines: list[str] = []
    for cells in _csv_rows(columns, objects):
        lines.append(writer.writerow(cells))
        rows += 1
        if rows % CHUNK_ROWS == 0:
            out.write("".join(lines).encode())
            lines = []
            if progress is not None:
                progress(rows)
    out.write("".join(lines).encode())
    return rows


def csv_response(columns: Iterable[Column], objects: Iterable[Any], filename: str) -> StreamingHttpResponse:
    """Stream the rows as CSV. The query runs and its first rows are read before the response is
    made: a query that fails is a 500, never a 200 that stops after the header."""
    pieces = csv_lines(columns, objects)
    header = next(pieces)
    first = next(pieces, "")

    def body() -> Iterator[str]:
        yield header + first
        yield from pieces

    response = StreamingHttpResponse(body(), content_type="text/csv; charset=utf-8")
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
    """The rows as an XLSX workbook of one sheet, header row bold and frozen (`xlsx_write`); the
    response streams the finished file. (An XLSX is a zip whose directory comes last: it cannot be
    sent before it is done.)"""
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (FileResponse closes it once sent)
    xlsx_write(columns, objects, spool, title=title)
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=filename, content_type=XLSX_CONTENT_TYPE)


def xlsx_write(
    columns: Iterable[Column],
    objects: Iterable[Any],
    out,
    *,
    title: str = "Export",
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write the rows as an XLSX workbook to the binary file `out`; returns the rows written.

    openpyxl's write-only mode spools each row to a temporary file as it is appended and zips the
    workbook into `out`, so memory stays flat however many rows. `progress(rows)` is called every
    `CHUNK_ROWS` rows.
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
    rows = 0
    for cells in _cells_of(columns, objects):
        sheet.append([_xlsx_cell(sheet, cell) for cell in cells])
        rows += 1
        if progress is not None and rows % CHUNK_ROWS == 0:
            progress(rows)
    workbook.save(out)
    return rows


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
