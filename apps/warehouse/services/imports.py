"""Bulk import of serials from a CSV file: validated as a whole, written as a whole.

The file
    UTF-8, with or without a byte-order mark (Excel's "CSV UTF-8"); any other encoding is refused
    with the row of the first byte that is not UTF-8. Comma-separated, quoted as Excel quotes.
    Row 1 is the header, exactly one of

        manufacturer,part_number,serial,location
        manufacturer,part_number,serial,location,owner
        manufacturer,part_number,serial,location,customs_reference
        manufacturer,part_number,serial,location,owner,customs_reference

    - manufacturer: the manufacturer's name as in the catalogue (any case);
    - part_number: a serialised part of that manufacturer (any case). Where two catalogues have
      the number (the operator's master catalogue and a supplier's own), the row's owner's part
      is taken, else the master catalogue's;
    - serial: new to that manufacturer, once in the file (any case: "qt01" is "QT01");
    - location: a location's code in the chosen warehouse site, zone-aisle-rack-bin as the pages
      show it ("A-01-R2-B3", "RCV"), active;
    - owner: the legal name of the organisation whose unit it is (blank: the import's owner);
    - customs_reference: the customs entry or bonded-warehouse receipt number (blank: the
      import's); a bonded site needs one for every row.

    At most MAX_ROWS data rows and MAX_BYTES bytes. Blank lines are skipped; rows are numbered as a
    spreadsheet numbers them (the header is row 1).

What it does
    Every row is checked with set-based queries — a handful per file, never one per row — and
    every problem is collected as (row, column, reason). One problem refuses the whole file
    (`ImportRefused`: the first PROBLEMS_LISTED problems and their total) and nothing is written.
    Otherwise, in one transaction, each serial becomes a unit (received, in bond at a bonded site,
    else duty paid: `engines.unit_flow`), placed at its location, with its receipt row in the
    movement ledger — the rows `stock.units_receive` writes one by one, written here in
    batches (`bulk_create`).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.catalog.models import Manufacturer, Part, Unit
from apps.core.scoping import VIEW
from apps.core.tasks_outbox import enqueue_on_commit
from apps.core.validators import text_problem
from apps.shipments.models import Site

from ..engines import unit_flow
from ..engines.unit_flow import Status
from ..models import (
    LEASE,
    WAREHOUSE_KINDS,
    Location,
    Movement,
    MovementKind,
    SerialImport,
    SerialImportStatus,
    UnitPlacement,
)
from .ledger import _actor_label

REQUIRED = ("manufacturer", "part_number", "serial", "location")
OPTIONAL = ("owner", "customs_reference")
HEADERS = tuple(
    REQUIRED + extra for extra in ((), ("owner",), ("customs_reference",), ("owner", "customs_reference"))
)
# 200,000 serials is a whole hall of GPU servers; a file of that many rows at ~100 bytes a row is
# 20 MB. More is a mistake (or someone else's database export) and is refused before parsing.
MAX_ROWS = 200_000
MAX_BYTES = 32 * 1024 * 1024
# A file of more rows is imported by a background task, with a progress bar.
BACKGROUND_FROM_ROWS = 5_000
# The refusal lists this many problems (the total is always given).
PROBLEMS_LISTED = 1_000
# Rows per INSERT (and per IN list of serials looked up: SQLite allows 32,766 parameters).
BATCH = 5_000
MAX_LENGTH = {"manufacturer": 120, "part_number": 80, "serial": 80, "location": 83, "owner": 200,
              "customs_reference": 50}  # fmt: skip
# On PostgreSQL the rows are written by COPY (`_write_by_copy`); False: `bulk_create`, as on SQLite.
USE_COPY = True
BOMS = {b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}

Progress = Callable[[int, str], None]


@dataclass(frozen=True)
class Problem:
    """Why one row (or, row None, the whole file) is refused; `column` is blank for the row."""

    row: int | None
    column: str
    reason: str

    def as_dict(self) -> dict:
        return {"row": self.row, "column": self.column, "reason": self.reason}


class ImportRefused(Exception):
    """The file is refused: `problems` (the first PROBLEMS_LISTED, by row) of `total`."""

    def __init__(self, problems: list[Problem], total: int | None = None):
        self.problems = problems[:PROBLEMS_LISTED]
        self.total = len(problems) if total is None else total
        super().__init__(self.summary)

    @property
    def summary(self) -> str:
        rows = {p.row for p in self.problems if p.row is not None}
        said = f"The file is refused: {self.total:,} problem{'' if self.total == 1 else 's'}"
        if rows:
            said += f" in {len(rows):,}{'+' if self.total > len(self.problems) else ''} row" + (
                "" if len(rows) == 1 else "s"
            )
        return said + "; nothing was imported."

    def as_dict(self) -> dict:
        return {
            "detail": self.summary,
            "problem_count": self.total,
            "problems": [p.as_dict() for p in self.problems],
        }


@dataclass
class Row:
    number: int
    manufacturer: str
    part_number: str
    serial: str
    location: str
    owner: str = ""
    customs_reference: str = ""


@dataclass
class Plan:
    """What a valid file writes: per row, the resolved ids."""

    site: Site
    customs_status: str
    units: list[tuple[int, int, str, int, int, str]] = field(default_factory=list)
    # (part_id, manufacturer_id, serial, owner_id, location_id, customs_reference)


# --- reading the file ------------------------------------------------------------------------


def decode(data: bytes) -> str:
    """The file's text: UTF-8 with or without a byte-order mark, else refused."""
    if len(data) > MAX_BYTES:
        raise ImportRefused(
            [Problem(None, "", f"The file is {len(data):,} bytes; at most {MAX_BYTES:,} are accepted.")]
        )
    for bom, name in BOMS.items():
        if data.startswith(bom):
            raise ImportRefused(
                [Problem(None, "", f"The file is {name}: save it as UTF-8 (“CSV UTF-8” in Excel).")]
            )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start : exc.start + 1].hex().upper()
        raise ImportRefused(
            [
                Problem(
                    row,
                    "",
                    f"Not UTF-8 (byte 0x{byte} at position {exc.start + 1:,} of the file): save the file "
                    "as UTF-8 (“CSV UTF-8” in Excel); other encodings (Latin-1, Windows-1252) are refused.",
                )
            ]
        ) from exc


def _clean(value: str) -> str:
    return value.strip()


def parse(text: str) -> list[Row]:
    """The data rows, each with its spreadsheet row number; refuses a wrong header, malformed rows
    (a field too many or too few, bad quoting) and too many rows."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise ImportRefused([Problem(1, "", f"The header is not valid CSV: {exc}.")]) from exc
    columns = tuple(_clean(c).lower() for c in header or ())
    if columns not in HEADERS:
        expected = " or ".join(",".join(h) for h in (HEADERS[0], HEADERS[-1]))
        raise ImportRefused(
            [
                Problem(
                    1,
                    "",
                    f"The header is “{','.join(header or ())[:200]}”; it must be {expected} "
                    "(owner and customs_reference are optional, in that order).",
                )
            ]
        )
    width = len(columns)
    rows: list[Row] = []
    problems: list[Problem] = []
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            # The reader cannot go on past broken quoting: the row is named, the rest unread.
            problems.append(
                Problem(reader.line_num, "", f"Malformed CSV ({exc}); the rows after it were not read.")
            )
            break
        if not fields or not any(f.strip() for f in fields):
            continue
        if len(rows) + len(problems) >= MAX_ROWS:
            raise ImportRefused(
                [Problem(None, "", f"The file has more than {MAX_ROWS:,} rows: split it into several files.")]
            )
        if len(fields) != width:
            problems.append(
                Problem(
                    reader.line_num,
                    "",
                    f"{len(fields)} fields; the header has {width} ({','.join(columns)}).",
                )
            )
            continue
        rows.append(Row(reader.line_num, **{c: _clean(v) for c, v in zip(columns, fields, strict=True)}))
    if problems:
        raise ImportRefused(problems + _field_problems(rows))
    if not rows:
        raise ImportRefused([Problem(None, "", "The file has a header but no rows.")])
    return rows


def _text_problem(value: str) -> str | None:
    # Printable ASCII is always a valid identifier: check the rare rest character by character.
    if value.isascii() and value.isprintable():
        return None
    return text_problem(value, "identifier")


def _field_problems(rows: list[Row]) -> list[Problem]:
    problems = []
    for row in rows:
        for name in (*REQUIRED, *OPTIONAL):
            value = getattr(row, name)
            if not value:
                if name in REQUIRED:
                    problems.append(Problem(row.number, name, f"The {name.replace('_', ' ')} is blank."))
                continue
            if len(value) > MAX_LENGTH[name]:
                problems.append(
                    Problem(row.number, name, f"At most {MAX_LENGTH[name]} characters ({len(value)} given).")
                )
            elif problem := (_text_problem(value) if name != "owner" else text_problem(value, "line")):
                problems.append(Problem(row.number, name, problem))
    return problems


# --- checking it against the database ----------------------------------------------------------


def _by_lower(values: set[str], queryset, field_name: str, *fields: str) -> dict[str, list[dict]]:
    """Rows of `queryset` whose `field_name`, lower-cased, is one of `values` (in batches)."""
    found: dict[str, list[dict]] = defaultdict(list)
    keys = sorted(values)
    for start in range(0, len(keys), BATCH):
        for row in (
            queryset.annotate(key=Lower(field_name))
            .filter(key__in=keys[start : start + BATCH])
            .values("key", *fields)
        ):
            found[row["key"]].append(row)
    return found


def _location_codes(site: Site) -> dict[str, tuple[int, bool]]:
    """Every location of the site by its code: (id, active)."""
    return {
        "-".join(p for p in (zone, aisle, rack, bin_) if p).upper(): (pk, active)
        for pk, zone, aisle, rack, bin_, active in Location.objects.filter(site=site).values_list(
            "pk", "zone", "aisle", "rack", "bin", "is_active"
        )
    }


def validate(
    rows: list[Row], *, site: Site, owner: Organisation, customs_reference: str = "", user: User | None = None
) -> Plan:
    """Check every row against the catalogue, the units known and the site's locations; the plan
    to write, or `ImportRefused` with every problem."""
    problems = _field_problems(rows)
    bad_rows = {p.row for p in problems}
    default_reference = (customs_reference or "").strip()
    customs = unit_flow.customs_on_receipt(bonded=site.is_bonded)
    needs_reference = customs in unit_flow.NEEDS_CUSTOMS_REFERENCE

    makers = {
        key: found[0]["pk"]
        for key, found in _by_lower(
            {r.manufacturer.lower() for r in rows}, Manufacturer.objects, "name", "pk"
        ).items()
    }
    owners = {
        key: found[0]["pk"]
        for key, found in _by_lower(
            {r.owner.lower() for r in rows if r.owner},
            Organisation.objects.visible_to(user, VIEW) if user is not None else Organisation.objects.all(),
            "legal_name",
            "pk",
        ).items()
    }
    parts_qs = Part.objects.visible_to(user, VIEW) if user is not None else Part.objects.all()
    parts_qs = parts_qs.filter(manufacturer_id__in=set(makers.values()))
    parts: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for key, found in _by_lower(
        {r.part_number.lower() for r in rows},
        parts_qs,
        "part_number",
        "pk",
        "manufacturer_id",
        "owner_id",
        "owner__kind",
        "is_serialised",
        "part_number",
    ).items():
        for part in found:
            parts[(part["manufacturer_id"], key)].append(part)
    locations = _location_codes(site)

    plan = Plan(site=site, customs_status=customs.value)
    first_seen: dict[tuple, int] = {}
    wanted: dict[int, dict[str, int]] = defaultdict(dict)  # manufacturer → serial key → row
    for row in rows:
        if row.number in bad_rows:
            continue
        row_problems = []
        maker_id = makers.get(row.manufacturer.lower())
        if maker_id is None:
            row_problems.append(
                Problem(row.number, "manufacturer", f"No manufacturer “{row.manufacturer}” in the catalogue.")
            )
        owner_id = owner.pk
        if row.owner:
            owner_id = owners.get(row.owner.lower())
            if owner_id is None:
                row_problems.append(Problem(row.number, "owner", f"No organisation “{row.owner}”."))
        part = None
        if maker_id is not None:
            candidates = parts.get((maker_id, row.part_number.lower()), [])
            usable = _parts_for_owner(candidates, owner_id)
            part = _choose_part(usable, owner_id)
            if not candidates:
                row_problems.append(
                    Problem(
                        row.number,
                        "part_number",
                        f"No part {row.part_number} of {row.manufacturer} in the catalogue.",
                    )
                )
            elif not usable:
                row_problems.append(
                    Problem(
                        row.number,
                        "part_number",
                        f"{row.part_number} is another organisation's part: goods of "
                        f"{row.owner or owner} are a part of its own catalogue or of the master catalogue.",
                    )
                )
            elif part is None:
                row_problems.append(
                    Problem(
                        row.number,
                        "part_number",
                        f"{row.part_number} is in several catalogues; name the owner whose part it is.",
                    )
                )
            elif not part["is_serialised"]:
                row_problems.append(
                    Problem(
                        row.number,
                        "part_number",
                        f"{part['part_number']} is not serialised: receive it as a lot quantity.",
                    )
                )
        key = (maker_id if maker_id is not None else row.manufacturer.lower(), row.serial.lower())
        if key in first_seen:
            row_problems.append(
                Problem(row.number, "serial", f"Serial {row.serial} repeats row {first_seen[key]}.")
            )
        else:
            first_seen[key] = row.number
            if maker_id is not None:
                wanted[maker_id][row.serial.lower()] = row.number
        location = locations.get(row.location.upper())
        if location is None:
            row_problems.append(
                Problem(row.number, "location", f"No location {row.location} at {site.name}.")
            )
        elif not location[1]:
            row_problems.append(
                Problem(row.number, "location", f"{row.location} is inactive: it takes no new stock.")
            )
        reference = row.customs_reference or default_reference
        if needs_reference and not reference:
            row_problems.append(
                Problem(
                    row.number,
                    "customs_reference",
                    f"{site.name} is bonded: goods enter it in bond, under the customs entry or warehouse "
                    "receipt number.",
                )
            )
        problems += row_problems
        if not row_problems:
            plan.units.append((part["pk"], maker_id, row.serial, owner_id, location[0], reference))

    for maker_id, serials in wanted.items():
        known = _by_lower(
            set(serials), Unit.objects.filter(manufacturer_id=maker_id), "serial", "serial", "status"
        )
        for key, found in known.items():
            unit = found[0]
            problems.append(
                Problem(
                    serials[key],
                    "serial",
                    f"Serial {unit['serial']} is already known ({unit['status']}): receive it against its "
                    "shipment, or correct the serial.",
                )
            )
    if problems:
        problems.sort(key=lambda p: (p.row or 0, REQUIRED.index(p.column) if p.column in REQUIRED else 9))
        raise ImportRefused(problems)
    return plan


def _parts_for_owner(candidates: list[dict], owner_id: int | None) -> list[dict]:
    """Of the parts with a row's number, those its owner's goods may be of: the owner's own and the
    master catalogue's (`catalog.units.parts_for_owner`, read here from the rows already loaded).
    Never a third organisation's private part, even the only one with that number."""
    return [
        p for p in candidates if p["owner_id"] == owner_id or p["owner__kind"] == OrganisationKind.OPERATOR
    ]


def _choose_part(candidates: list[dict], owner_id: int | None) -> dict | None:
    """Of the parts the owner may use, its own, else the master catalogue's when there is one."""
    for part in candidates:
        if part["owner_id"] == owner_id:
            return part
    master = [p for p in candidates if p["owner__kind"] == OrganisationKind.OPERATOR]
    return master[0] if len(master) == 1 else None


# --- writing -----------------------------------------------------------------------------------


def write(plan: Plan, *, actor: User | None, reason: str, progress: Progress | None = None) -> int:
    """Write the plan's units, placements and receipt rows in the caller's transaction: by
    PostgreSQL's COPY where the database is PostgreSQL (and `USE_COPY`), else `bulk_create` in
    batches. Both write the same rows as `stock.units_receive`: a unit received (expected →
    received), its placement, and its receipt row in the ledger."""
    if USE_COPY and connection.vendor == "postgresql":
        return _write_by_copy(plan, actor=actor, reason=reason, progress=progress)
    return _write_by_bulk_create(plan, actor=actor, reason=reason, progress=progress)


def _write_by_bulk_create(plan: Plan, *, actor: User | None, reason: str, progress: Progress | None) -> int:
    now = timezone.now()
    label = _actor_label(actor)
    actor_id = actor.pk if actor is not None and actor.pk else None
    total = len(plan.units)
    for start in range(0, total, BATCH):
        batch = plan.units[start : start + BATCH]
        units = Unit.objects.bulk_create(
            [
                Unit(
                    part_id=part_id,
                    manufacturer_id=maker_id,
                    serial=serial,
                    owner_id=owner_id,
                    status=Status.RECEIVED.value,
                    customs_status=plan.customs_status,
                )
                for part_id, maker_id, serial, owner_id, _, _ in batch
            ]
        )
        UnitPlacement.objects.bulk_create(
            [
                UnitPlacement(unit_id=unit.pk, location_id=row[4], customs_reference=row[5])
                for unit, row in zip(units, batch, strict=True)
            ]
        )
        Movement.objects.bulk_create(
            [
                Movement(
                    kind=MovementKind.RECEIPT,
                    occurred_at=now,
                    actor_id=actor_id,
                    actor_label=label,
                    reason=reason,
                    part_id=row[0],
                    unit_id=unit.pk,
                    owner_id=row[3],
                    quantity=1,
                    to_location_id=row[4],
                    customs_status=plan.customs_status,
                    customs_reference=row[5],
                    status_before=Status.EXPECTED.value,
                    status_after=Status.RECEIVED.value,
                )
                for unit, row in zip(units, batch, strict=True)
            ]
        )
        if progress is not None:
            done = start + len(batch)
            progress(50 + 50 * done // total, f"Written {done:,} of {total:,} units")
    return total


def _write_by_copy(plan: Plan, *, actor: User | None, reason: str, progress: Progress | None) -> int:
    """The same rows through COPY … FROM STDIN (psycopg 3), several times faster than INSERTs
    of Django's making at 100,000 rows (docs/benchmarks.md, stock_import). The units' ids are
    drawn from their sequence first (one query), so placements and ledger rows can name them.
    Column lists are the models' own fields: a field added to one of them without a database
    default fails here, loudly, on PostgreSQL (tests/warehouse/test_imports.py runs there in CI)."""
    now = timezone.now()
    label = _actor_label(actor)
    actor_id = actor.pk if actor is not None and actor.pk else None
    total = len(plan.units)
    received, expected, customs = Status.RECEIVED.value, Status.EXPECTED.value, plan.customs_status
    unit_table, placement_table = Unit._meta.db_table, UnitPlacement._meta.db_table
    # wrap_database_errors: psycopg's own errors from COPY (a serial's unique index) come out as
    # Django's, as from any query.
    with connection.wrap_database_errors, connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [unit_table, total],
        )
        ids = [row[0] for row in cursor.fetchall()]
        copy_from = cursor.cursor.copy  # psycopg's own cursor under Django's wrapper
        if progress is not None:
            progress(60, f"Copying {total:,} units")
        with copy_from(
            # Every NOT NULL column is named: COPY knows nothing of the model's defaults (a column
            # added to Unit later fails here, and tests/warehouse/test_imports.py on PostgreSQL says so).
            f"COPY {unit_table} (id, part_id, manufacturer_id, serial, owner_id, status, customs_status, "
            "country_of_origin, created_at, updated_at) FROM STDIN"
        ) as copy:
            for unit_id, (part_id, maker_id, serial, owner_id, _, _) in zip(ids, plan.units, strict=True):
                # No origin in the file: blank reads as the part's (Unit.origin_country).
                copy.write_row(
                    (unit_id, part_id, maker_id, serial, owner_id, received, customs, "", now, now)
                )
        if progress is not None:
            progress(75, f"Placing {total:,} units")
        with copy_from(
            f"COPY {placement_table} (unit_id, location_id, customs_reference, created_at, updated_at) "
            "FROM STDIN"
        ) as copy:
            for unit_id, row in zip(ids, plan.units, strict=True):
                copy.write_row((unit_id, row[4], row[5], now, now))
        if progress is not None:
            progress(85, f"Recording {total:,} receipts in the ledger")
        with copy_from(
            f"COPY {Movement._meta.db_table} (kind, occurred_at, actor_id, actor_label, reason, part_id, "
            "unit_id, owner_id, quantity, to_location_id, customs_status, customs_reference, status_before, "
            "status_after) FROM STDIN"
        ) as copy:
            for unit_id, (part_id, _, _, owner_id, location_id, reference) in zip(
                ids, plan.units, strict=True
            ):
                copy.write_row(
                    (MovementKind.RECEIPT.value, now, actor_id, label, reason, part_id, unit_id, owner_id, 1,
                     location_id, customs, reference, expected, received)
                )  # fmt: skip
    return total


# --- the services --------------------------------------------------------------------------------


@contextmanager
def _serials_taken_meanwhile():
    """A serial checked as new but written by someone else before this import's commit (another
    import, a receipt) hits the unique constraint: the whole file is refused, as for a known one."""
    try:
        yield
    except IntegrityError as exc:
        raise ImportRefused(
            [
                Problem(
                    None,
                    "serial",
                    "A serial of the file was added by someone else while it was being imported; nothing "
                    f"was imported: upload the file again to see which ({str(exc).splitlines()[0][:200]}).",
                )
            ]
        ) from exc


def _check_site(site: Site) -> None:
    if site.kind not in WAREHOUSE_KINDS:
        raise ImportRefused(
            [Problem(None, "site", f"{site.name} is not a warehouse: only warehouses hold stock.")]
        )


def _reason(serial_import: SerialImport) -> str:
    return f"Serial import {serial_import.pk} ({serial_import.file_name})"[:500]


def serial_import_create(
    *,
    site: Site,
    owner: Organisation,
    data: bytes,
    file_name: str,
    actor: User | None,
    customs_reference: str = "",
) -> SerialImport:
    """Import a CSV of serials into `site`. A small file is checked and imported now (status
    done, or `ImportRefused` and nothing written, not even the import); a file of more than
    BACKGROUND_FROM_ROWS rows is stored and queued for the background task (`task_id` to poll),
    which records its refusal on the import."""
    _check_site(site)
    rows = parse(decode(data))
    file_name = (file_name or "serials.csv").rsplit("/", 1)[-1][:200]
    with _serials_taken_meanwhile(), transaction.atomic():
        serial_import = SerialImport(
            site=site,
            owner=owner,
            customs_reference=(customs_reference or "").strip(),
            file_name=file_name,
            rows=len(rows),
            created_by=actor if actor is not None and actor.pk else None,
        )
        if len(rows) > BACKGROUND_FROM_ROWS:
            serial_import.file.save(file_name, ContentFile(data), save=False)
            serial_import.save()
            serial_import.task_id = _enqueue(serial_import, actor=actor)
            serial_import.save(update_fields=["task_id", "updated_at"])
            return serial_import
        plan = validate(rows, site=site, owner=owner, customs_reference=customs_reference, user=actor)
        serial_import.status = SerialImportStatus.DONE
        serial_import.finished_at = timezone.now()
        serial_import.file.save(file_name, ContentFile(data), save=False)
        serial_import.save()
        serial_import.imported = write(plan, actor=actor, reason=_reason(serial_import))
        serial_import.save(update_fields=["imported", "updated_at"])
    return serial_import


def _claimable(now) -> Q:
    """Queued, or running under a lease that has run out (its worker died; it wrote nothing)."""
    return Q(status=SerialImportStatus.QUEUED) | Q(status=SerialImportStatus.RUNNING) & (
        Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True, updated_at__lt=now - LEASE)
    )


def serial_import_run(*, serial_import: SerialImport, progress: Progress | None = None) -> SerialImport:
    """Import a stored upload (the background task): checked whole, then written in one
    transaction; a refusal is recorded on the import with its problems.

    The run claims the import first, in one conditional UPDATE, with a lease that each sign of
    progress moves on: an import queued, or stalled (running, its lease run out: its worker died
    and, the write being one transaction, wrote nothing). Any other (done, refused, failed, or
    running under a live lease) is returned as it is, so a redelivered task does nothing."""
    report = progress or (lambda percent, step: None)
    now = timezone.now()
    claimed = (
        SerialImport.objects.filter(pk=serial_import.pk)
        .filter(_claimable(now))
        .update(status=SerialImportStatus.RUNNING, lease_expires_at=now + LEASE, error="", updated_at=now)
    )
    serial_import = SerialImport.objects.select_related("site", "owner", "created_by").get(
        pk=serial_import.pk
    )
    if not claimed:
        return serial_import

    def progress(percent: int, step: str) -> None:
        # A sign of life: the lease holds for another LEASE (its own short UPDATE, outside the
        # write's transaction when called before it; inside, it commits with the write).
        moment = timezone.now()
        SerialImport.objects.filter(pk=serial_import.pk, status=SerialImportStatus.RUNNING).update(
            lease_expires_at=moment + LEASE
        )
        report(percent, step)

    actor = serial_import.created_by
    try:
        progress(5, f"Reading {serial_import.file_name}")
        with serial_import.file.open("rb") as stored:
            data = stored.read()
        rows = parse(decode(data))
        progress(20, f"Checking {len(rows):,} rows")
        plan = validate(
            rows,
            site=serial_import.site,
            owner=serial_import.owner,
            customs_reference=serial_import.customs_reference,
            user=actor,
        )
        progress(50, f"Writing {len(plan.units):,} units")
        with _serials_taken_meanwhile(), transaction.atomic():
            imported = write(plan, actor=actor, reason=_reason(serial_import), progress=progress)
            SerialImport.objects.filter(pk=serial_import.pk).update(
                status=SerialImportStatus.DONE,
                imported=imported,
                rows=len(rows),
                lease_expires_at=None,
                finished_at=timezone.now(),
                updated_at=timezone.now(),
            )
    except ImportRefused as refused:
        SerialImport.objects.filter(pk=serial_import.pk).update(
            status=SerialImportStatus.REFUSED,
            problems=[p.as_dict() for p in refused.problems],
            problem_count=refused.total,
            lease_expires_at=None,
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
    except Exception as exc:
        # A database outage is retried by the task (back in the queue, it is claimed again);
        # anything else is a failure to look into, not a refusal of the file.
        SerialImport.objects.filter(pk=serial_import.pk).update(
            status=SerialImportStatus.QUEUED
            if isinstance(exc, OperationalError)
            else SerialImportStatus.FAILED,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            lease_expires_at=None,
            updated_at=timezone.now(),
        )
        raise
    serial_import.refresh_from_db()
    return serial_import


def serial_import_rerun(*, serial_import: SerialImport, actor: User | None) -> SerialImport:
    """Run a stalled or failed background import again, from its stored file: queued again with a
    new task (the old task's redelivery then finds it taken or finished, and does nothing). Refused
    for an import still running under a live lease, or one imported or refused."""
    now = timezone.now()
    with transaction.atomic():
        again = (
            SerialImport.objects.filter(pk=serial_import.pk)
            .filter(
                _claimable(now) & Q(status=SerialImportStatus.RUNNING) | Q(status=SerialImportStatus.FAILED)
            )
            .exclude(file="")
            .update(status=SerialImportStatus.QUEUED, lease_expires_at=None, error="", updated_at=now)
        )
        current = SerialImport.objects.get(pk=serial_import.pk)
        if not again:
            if current.status in (SerialImportStatus.QUEUED, SerialImportStatus.RUNNING):
                why = "it is still running (or queued): its worker holds it"
            elif not current.file:
                why = "its file was not stored"
            else:
                why = f"it is {current.get_status_display().lower()}"
            raise ValidationError({"status": f"{current} cannot be run again: {why}."})
        current.task_id = _enqueue(current, actor=actor)
        current.save(update_fields=["task_id", "updated_at"])
    return SerialImport.objects.get(pk=current.pk)


def _enqueue(serial_import: SerialImport, *, actor: User | None) -> str:
    """Queue the background import of a stored upload (after the commit); its task id. The task
    (`tasks.run_serial_import`) is named, not imported: it calls back into this module."""
    return enqueue_on_commit(
        "warehouse.serial_import",
        kwargs={"import_id": serial_import.pk},
        kind="serial import",
        actor=actor if actor is not None and actor.pk else None,
        object_repr=serial_import.file_name,
        object_url=serial_import.get_absolute_url(),
    ).task_id


def import_template() -> str:
    """A CSV with the full header and one example row, for the upload page."""
    return ",".join(HEADERS[-1]) + "\r\nNVIDIA,935-24287-0001-000,1652422000123,A-01-R2-B3,,\r\n"
