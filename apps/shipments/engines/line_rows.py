"""Lines in bulk as rows: a pasted or uploaded CSV (or a partner's JSON list) read into typed rows,
each numbered as its author sees it, with the problems of its form (a missing part number, a
quantity that is not a whole number, a unit value that is not money) named by row and field.

Plain Python: whether the part exists, the serials are free and the line validates is the
service's to say (`services.lines.lines_add_bulk`), with the same row numbers.

CSV: a header row naming the columns — `part_number`, `quantity`, `serials` (optional), `unit_value`
(optional); case, spaces and a "part number" / "qty" / "serial numbers" spelling are accepted —
then one line per row. Serial numbers in one cell are separated by spaces, semicolons or (in a
quoted cell) commas. Rows are numbered as a spreadsheet numbers them: the header is row 1, the
first line row 2; blank rows are skipped but keep their numbers. JSON rows are numbered from 1.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

MAX_ROWS = 5000  # a call; a shipment's line numbers are bounded on the model

COLUMNS = ("part_number", "quantity", "serials", "unit_value")
_ALIASES = {
    "part": "part_number",
    "partnumber": "part_number",
    "part_no": "part_number",
    "pn": "part_number",
    "p/n": "part_number",
    "qty": "quantity",
    "serial": "serials",
    "serial_numbers": "serials",
    "serial_number": "serials",
    "unit_price": "unit_value",
    "value": "unit_value",
}
_SERIAL_SPLIT = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class RowProblem:
    """One problem of one row: the row's number, the field (column) and what is wrong."""

    row: int
    field: str
    message: str

    def as_dict(self) -> dict:
        return {"row": self.row, "field": self.field, "message": self.message}


@dataclass
class LineRow:
    """One line to add: its row number, part number, quantity, serials and unit value (None: the
    catalogue's)."""

    row: int
    part_number: str
    quantity: int
    serials: list[str] = field(default_factory=list)
    unit_value: Decimal | None = None


def _column(name: str) -> str:
    key = re.sub(r"[\s\-]+", "_", name.strip().lower())
    return _ALIASES.get(key, key)


def split_serials(value) -> list[str]:
    """A cell's serial numbers: a list as given, or a text split on spaces, commas and semicolons."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(s).strip() for s in value]
    return [s for s in _SERIAL_SPLIT.split(str(value).strip()) if s]


def read_row(number: int, data: dict) -> tuple[LineRow | None, list[RowProblem]]:
    """One row from a mapping of column → value (a CSV row, or a JSON object)."""
    problems: list[RowProblem] = []
    part_number = str(data.get("part_number") or "").strip()
    if not part_number:
        problems.append(RowProblem(number, "part_number", "A part number is required."))
    raw_quantity = data.get("quantity")
    quantity = 0
    if raw_quantity in (None, ""):
        problems.append(RowProblem(number, "quantity", "A quantity is required."))
    else:
        try:
            quantity = int(str(raw_quantity).strip().replace(",", ""))
        except ValueError:
            problems.append(
                RowProblem(number, "quantity", f"{str(raw_quantity)[:40]!r} is not a whole number.")
            )
        else:
            if quantity < 1:
                problems.append(RowProblem(number, "quantity", "The quantity is at least 1."))
    unit_value = None
    raw_value = data.get("unit_value")
    if raw_value not in (None, ""):
        try:
            unit_value = Decimal(str(raw_value).strip().replace(",", ""))
        except InvalidOperation:
            problems.append(RowProblem(number, "unit_value", f"{str(raw_value)[:40]!r} is not an amount."))
        else:
            if not unit_value.is_finite() or unit_value < 0:
                problems.append(RowProblem(number, "unit_value", "The unit value is an amount of 0 or more."))
                unit_value = None
    serials = split_serials(data.get("serials"))
    if problems:
        return None, problems
    return LineRow(number, part_number, quantity, serials, unit_value), []


def read_csv(text: str) -> tuple[list[LineRow], list[RowProblem]]:
    """Rows of a pasted or uploaded CSV (tab-separated, as a spreadsheet copies, works too)."""
    text = text.lstrip("\ufeff")
    if not text.strip():
        return [], [RowProblem(1, "csv", "No rows: paste a header row and one row per line.")]
    first = text.splitlines()[0]
    dialect = "excel-tab" if "\t" in first and "," not in first else "excel"
    reader = csv.reader(io.StringIO(text), dialect=dialect)
    header = [_column(name) for name in next(reader)]
    unknown = [name for name in header if name and name not in COLUMNS]
    missing = [name for name in ("part_number", "quantity") if name not in header]
    if unknown or missing:
        said = []
        if missing:
            said.append(f"no {' or '.join(missing)} column")
        if unknown:
            said.append(f"unknown column{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}")
        return [], [
            RowProblem(
                1, "csv", f"The header row has {' and '.join(said)}; the columns are {', '.join(COLUMNS)}."
            )
        ]
    rows: list[LineRow] = []
    problems: list[RowProblem] = []
    for number, cells in enumerate(reader, start=2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) > len(header):
            problems.append(
                RowProblem(
                    number, "csv", f"{len(cells)} cells for {len(header)} columns (quote a cell with commas)."
                )
            )
            continue
        row, row_problems = read_row(number, dict(zip(header, cells, strict=False)))
        problems += row_problems
        if row is not None:
            rows.append(row)
    return _bounded(rows, problems)


def read_json(items) -> tuple[list[LineRow], list[RowProblem]]:
    """Rows of a JSON list of objects (`part_number`, `quantity`, `serials`, `unit_value`)."""
    if not isinstance(items, list):
        return [], [RowProblem(0, "lines", "A list of lines is expected.")]
    rows: list[LineRow] = []
    problems: list[RowProblem] = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            problems.append(
                RowProblem(number, "lines", "Each line is an object with part_number and quantity.")
            )
            continue
        unknown = sorted(set(item) - set(COLUMNS))
        if unknown:
            problems.append(
                RowProblem(number, unknown[0], f"Unknown field; the fields are {', '.join(COLUMNS)}.")
            )
            continue
        row, row_problems = read_row(number, item)
        problems += row_problems
        if row is not None:
            rows.append(row)
    return _bounded(rows, problems)


def _bounded(rows: list[LineRow], problems: list[RowProblem]) -> tuple[list[LineRow], list[RowProblem]]:
    if not rows and not problems:
        problems.append(RowProblem(0, "lines", "No lines given."))
    if len(rows) + len({p.row for p in problems}) > MAX_ROWS:
        return [], [RowProblem(0, "lines", f"At most {MAX_ROWS:,} lines a call.")]
    return rows, problems
