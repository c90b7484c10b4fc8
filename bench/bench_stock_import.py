"""Bulk import of 100,000 serials (CSV): the import service beside PostgreSQL COPY and a save() loop.

The file: 100,000 rows `manufacturer,part_number,serial,location,owner,customs_reference` — one
serialised part, 200 locations of a bonded warehouse, every row with its customs reference.

Measured, in the same run, each writing the same rows (a unit, its placement and its receipt row
in the movement ledger per serial) into the same tables:

(a) a naive loop: per row `Unit.save()`, `UnitPlacement.save()`, `Movement.save()` (the audit
    log's signal writes an audit event per unit too, as any `save()` of a unit does), lookups
    resolved beforehand, one transaction; on NAIVE_ROWS rows (the whole file would take minutes);
(b) the import service (`imports.serial_import_run`, as the background task runs it): read the
    stored file, decode, parse, check every row with set-based queries, write in batches
    in one transaction — end to end, and its write phase alone; on PostgreSQL it writes by COPY
    itself, so (b') runs it again with its `bulk_create` writer (SQLite's) for comparison;
(c) PostgreSQL `COPY … FROM STDIN` (psycopg 3 `cursor.copy`) of the same rows into the three
    tables, ids drawn from the unit sequence in one query (PostgreSQL only).

Also: the same 100,000-row file with one serial repeated in its last row, refused whole (the time
to check everything and name the row).

Correctness (fails the run): each method leaves exactly its rows (units = placements = receipt
rows), the import's units are received and in bond, the refused file writes nothing and names
row 100,001. Timings are printed only; the aim is the import within 3× of COPY.
"""

from __future__ import annotations

import io
import os
import time

from django.db import connection, transaction
from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind
from apps.catalog.models import Manufacturer, Part, PartCategory, Unit
from apps.shipments.models import Site
from apps.warehouse.models import Location, Movement, SerialImport, UnitPlacement
from apps.warehouse.services import imports
from bench.harness import Report

ROWS = int(os.environ.get("RACKPASS_BENCH_IMPORT_ROWS", 100_000))
NAIVE_ROWS = int(os.environ.get("RACKPASS_BENCH_IMPORT_NAIVE_ROWS", 5_000))
LOCATIONS = 200
BOND = "SG-TWH-2026-0042"


def run(report: Report) -> None:
    world = _world()
    loads = [os.getloadavg()]
    data = _csv(world, prefix="IMP", rows=ROWS)

    # (b) the import service, end to end, as the background task runs it.
    serial_import = _stored(world, data, "import.csv")
    phases: dict[str, float] = {}
    began = time.perf_counter()
    imports.serial_import_run(serial_import=serial_import, progress=_phase_clock(phases))
    service_s = time.perf_counter() - began
    write_s = service_s - phases.get("write", service_s)
    serial_import.refresh_from_db()
    report.check(
        serial_import.status == "done" and serial_import.imported == ROWS,
        f"the import is {serial_import.status}, {serial_import.imported} units, {serial_import.problems[:3]}",
    )
    _check_rows(report, "import", "IMP", ROWS)
    report.check(
        not Unit.objects.filter(serial__startswith="IMP")
        .exclude(status="received", customs_status="in_bond")
        .exists(),
        "an imported unit is not received, in bond",
    )
    loads.append(os.getloadavg())

    # (b') the same with the bulk_create writer (SQLite's; on PostgreSQL for comparison).
    bulk_s = None
    if connection.vendor == "postgresql":
        imports.USE_COPY = False
        try:
            bulk_import = _stored(world, _csv(world, prefix="BLK", rows=ROWS), "bulk.csv")
            bulk_phases: dict[str, float] = {}
            began = time.perf_counter()
            imports.serial_import_run(serial_import=bulk_import, progress=_phase_clock(bulk_phases))
            bulk_s = time.perf_counter() - began
            bulk_write_s = bulk_s - bulk_phases.get("write", bulk_s)
        finally:
            imports.USE_COPY = True
        _check_rows(report, "import (bulk_create)", "BLK", ROWS)

    # (c) COPY of the same rows (new serials), on PostgreSQL.
    copy_s = None
    if connection.vendor == "postgresql":
        rows = _plan_rows(world, prefix="CPY", rows=ROWS)
        began = time.perf_counter()
        _copy(rows, world)
        copy_s = time.perf_counter() - began
        _check_rows(report, "COPY", "CPY", ROWS)
    else:
        report.note("COPY is PostgreSQL's: run with DATABASE_URL=postgres://… for (c).")
    loads.append(os.getloadavg())

    # (a) the naive loop, on fewer rows.
    began = time.perf_counter()
    _naive(world, prefix="NAI", rows=NAIVE_ROWS)
    naive_s = time.perf_counter() - began
    _check_rows(report, "naive loop", "NAI", NAIVE_ROWS)
    loads.append(os.getloadavg())

    # A refused file: the whole file checked, its last row named.
    refused = (
        _csv(world, prefix="REF", rows=ROWS)
        + f"NVIDIA,BENCH-GPU-SRV,REF{0:07d},A-01-01-01,,{BOND}\r\n".encode()
    )
    refused_import = _stored(world, refused, "refused.csv")
    began = time.perf_counter()
    imports.serial_import_run(serial_import=refused_import)
    refused_s = time.perf_counter() - began
    refused_import.refresh_from_db()
    report.check(
        refused_import.status == "refused"
        and refused_import.problems[:1]
        == [{"row": ROWS + 2, "column": "serial", "reason": "Serial REF0000000 repeats row 2."}],
        f"the refused file: {refused_import.status}, {refused_import.problems[:2]}",
    )
    report.check(not Unit.objects.filter(serial__startswith="REF").exists(), "the refused file wrote units")

    def line(method: str, rows: int, seconds: float) -> None:
        ratio = f"{seconds / copy_s * ROWS / rows:.2f}x" if copy_s else "-"
        report.row(
            "rows per second (a unit, its placement and its receipt row per serial)",
            method=method,
            rows=f"{rows:,}",
            seconds=f"{seconds:.2f}",
            **{"rows/s": f"{rows / seconds:,.0f}", "time per row vs COPY": ratio},
        )

    if copy_s:
        line("(c) PostgreSQL COPY (3 tables)", ROWS, copy_s)
    line("(b) import service, end to end", ROWS, service_s)
    line("(b) import service, write phase only", ROWS, write_s)
    if bulk_s:
        line("(b') import service, bulk_create writer, end to end", ROWS, bulk_s)
        line("(b') import service, bulk_create writer, write phase", ROWS, bulk_write_s)
    line("(b) import service, refusing the file (1 bad row)", ROWS + 1, refused_s)
    line("(a) naive save() per row", NAIVE_ROWS, naive_s)
    for name, seconds in phases.items():
        report.row("the import's steps (s elapsed when each began)", phase=name, seconds=f"{seconds:.2f}")
    report.note("load average (1, 5, 15 min) before, after (b), after (c), after (a): " + "; ".join(
        ", ".join(f"{x:.2f}" for x in load) for load in loads
    ))  # fmt: skip


def _phase_clock(phases: dict[str, float]):
    began = time.perf_counter()

    def progress(percent: int, step: str) -> None:
        name = step.split(" ")[0].lower()
        if name == "written":
            return
        phases["write" if name == "writing" else name] = time.perf_counter() - began

    return progress


def _world():
    operator = Organisation.objects.create(
        kind=OrganisationKind.OPERATOR, legal_name="Bench Operator Ltd", address_line1="1 Road",
        city="Singapore", country="SG",
    )  # fmt: skip
    supplier = Organisation.objects.create(
        kind=OrganisationKind.SUPPLIER, legal_name="Bench Supplier Ltd", address_line1="2 Road",
        city="Taipei", country="TW",
    )  # fmt: skip
    maker = Manufacturer.objects.create(name="NVIDIA", country="US")
    part = Part.objects.create(
        owner=operator, manufacturer=maker, part_number="BENCH-GPU-SRV", name="GPU server",
        category=PartCategory.SERVER, unit_weight_kg="62", length_cm="90", width_cm="60", height_cm="25",
        unit_value="285000", country_of_origin="TW", hs_code="847150",
    )  # fmt: skip
    site = Site.objects.create(
        owner=operator,
        name="Bench bonded hub",
        kind="warehouse",
        city="Singapore",
        country="SG",
        is_bonded=True,
    )
    locations = Location.objects.bulk_create(
        [
            Location(
                site=site,
                zone="A",
                aisle=f"{i // 20 + 1:02d}",
                rack=f"{i % 20 // 4 + 1:02d}",
                bin=f"{i % 4 + 1:02d}",
            )
            for i in range(LOCATIONS)
        ]
    )
    return {"part": part, "maker": maker, "site": site, "owner": supplier, "locations": locations}


def _csv(world, *, prefix: str, rows: int) -> bytes:
    codes = [loc.code for loc in world["locations"]]
    out = io.StringIO()
    out.write("manufacturer,part_number,serial,location,owner,customs_reference\r\n")
    for i in range(rows):
        out.write(f"NVIDIA,BENCH-GPU-SRV,{prefix}{i:07d},{codes[i % len(codes)]},,{BOND}\r\n")
    return out.getvalue().encode()


def _stored(world, data: bytes, name: str) -> SerialImport:
    from django.core.files.base import ContentFile

    serial_import = SerialImport(site=world["site"], owner=world["owner"], file_name=name)
    serial_import.file.save(name, ContentFile(data), save=False)
    serial_import.save()
    return serial_import


def _plan_rows(world, *, prefix: str, rows: int) -> list[tuple]:
    locations = [loc.pk for loc in world["locations"]]
    return [(f"{prefix}{i:07d}", locations[i % len(locations)]) for i in range(rows)]


def _copy(rows: list[tuple], world) -> None:
    part, maker, owner = world["part"].pk, world["maker"].pk, world["owner"].pk
    now = timezone.now()
    reason = "COPY bench"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence('catalog_unit', 'id')) FROM generate_series(1, %s)",
            [len(rows)],
        )
        ids = [r[0] for r in cursor.fetchall()]
        raw = cursor.cursor  # psycopg's own cursor: COPY
        with raw.copy(
            "COPY catalog_unit (id, part_id, manufacturer_id, serial, owner_id, status, customs_status, "
            "country_of_origin, created_at, updated_at) FROM STDIN"
        ) as copy:
            for unit_id, (serial, _) in zip(ids, rows, strict=True):
                copy.write_row((unit_id, part, maker, serial, owner, "received", "in_bond", "", now, now))
        with raw.copy(
            "COPY warehouse_unitplacement (unit_id, location_id, customs_reference, created_at, updated_at) "
            "FROM STDIN"
        ) as copy:
            for unit_id, (_, location) in zip(ids, rows, strict=True):
                copy.write_row((unit_id, location, BOND, now, now))
        with raw.copy(
            "COPY warehouse_movement (kind, occurred_at, actor_label, reason, part_id, unit_id, owner_id, "
            "quantity, to_location_id, customs_status, customs_reference, status_before, status_after) "
            "FROM STDIN"
        ) as copy:
            for unit_id, (_, location) in zip(ids, rows, strict=True):
                copy.write_row(
                    ("receipt", now, "", reason, part, unit_id, owner, 1, location, "in_bond", BOND,
                     "expected", "received")
                )  # fmt: skip


def _naive(world, *, prefix: str, rows: int) -> None:
    locations = world["locations"]
    with transaction.atomic():
        for i in range(rows):
            location = locations[i % len(locations)]
            unit = Unit(
                part=world["part"], manufacturer=world["maker"], serial=f"{prefix}{i:07d}",
                owner=world["owner"], status="received", customs_status="in_bond",
            )  # fmt: skip
            unit.save()
            UnitPlacement(unit=unit, location=location, customs_reference=BOND).save()
            Movement(
                kind="receipt", part=world["part"], unit=unit, owner=world["owner"], quantity=1,
                to_location=location, customs_status="in_bond", customs_reference=BOND,
                status_before="expected", status_after="received", reason="naive bench",
            ).save()  # fmt: skip


def _check_rows(report: Report, method: str, prefix: str, rows: int) -> None:
    units = Unit.objects.filter(serial__startswith=prefix).count()
    placements = UnitPlacement.objects.filter(unit__serial__startswith=prefix).count()
    movements = Movement.objects.filter(unit__serial__startswith=prefix, kind="receipt").count()
    report.check(
        units == placements == movements == rows,
        f"{method}: {units} units, {placements} placements, {movements} receipt rows; expected {rows} each",
    )
