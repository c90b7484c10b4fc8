"""The stock export and the partner's unit lists at 1,000,000 units, beside PostgreSQL COPY of the rows.

The stock: 1,000,000 serialised units of 20 parts in two warehouses (400 locations), each with its
placement and its receipt row in the movement ledger, written with COPY (this measures reading).
One supplier (the partner) owns 99 % of them; the other 1 % belong to another supplier, and 1,000
of those are allocated to an outbound shipment line whose consignee is the partner (so they are
held for it, and its scoping has both arms: what it owns, and what is held for it).

Measured in the same run, on PostgreSQL:

(a) `COPY (SELECT … the export's columns, joined, in the list's order) TO STDOUT`, read to its
    last byte: the floor a CSV of these rows cannot beat; also in primary-key order;
(b) the operator's `/stock/?export=csv`: a list this long is built in the background, so the
    request answers at once with the progress page (its time is the first byte); the task that
    writes the file (as the worker runs it); and the download of the file, read to its last byte;
(c) the same rows streamed straight into a response (`apps.core.exports.csv_response`, as a list
    under the inline limit is), its first byte and its last;
(d) the units API (page 1 and a middle page) and the `/stock/` page, for the operator and for the
    partner: medians of requests taking turns.

Correctness (fails the run): the exported file has one line per unit (with its header), the same
lines as COPY wrote; the streamed CSV too; each list answers 200 counting what its caller may see.
Timings are printed only. The aims: the export's first byte under 1 s and the whole within 3x
COPY; the partner's lists within 2x the operator's.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.catalog.models import Manufacturer, Part, PartCategory
from apps.shipments import services as shipments
from apps.shipments.models import Site
from apps.warehouse.models import Location
from bench.harness import Report, api_client_for, round_robin

UNITS = int(os.environ.get("RACKPASS_BENCH_EXPORT_UNITS", 1_000_000))
REPEAT = int(os.environ.get("RACKPASS_BENCH_EXPORT_REPEAT", 5))
PARTS = 20
LOCATIONS = 400
HIDDEN = 100  # every 100th unit belongs to the other supplier
HELD = 1_000  # of those, this many are allocated to a line held for the partner
STATUSES = ("available",) * 8 + ("received", "quarantined")
CUSTOMS = ("in_bond", "duty_paid", "ftz")


def run(report: Report) -> None:
    if connection.vendor != "postgresql":
        report.note("This benchmark compares with PostgreSQL's COPY: run it with DATABASE_URL=postgres://….")
        return
    # No query of this benchmark may run on after it (an unindexed plan at a million rows once ran
    # for hours in the background, slowing everything else on the machine): five minutes at most.
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = '300s'")
    loads = [os.getloadavg()]
    world = World()
    began = time.perf_counter()
    world.seed(UNITS)
    report.note(f"seeding {UNITS:,} units (COPY, 3 tables) and ANALYZE: {time.perf_counter() - began:.1f} s")
    loads.append(os.getloadavg())
    measure_export(report, world)
    loads.append(os.getloadavg())
    measure_lists(report, world, repeat=REPEAT)
    loads.append(os.getloadavg())
    report.note(
        "load average (1, 5, 15 min) before seeding, after it, after the export, after the lists: "
        + "; ".join(", ".join(f"{x:.2f}" for x in load) for load in loads)
    )


# --- (a)–(c) the export --------------------------------------------------------------------------


def copy_out(sql: str) -> tuple[float, float, bytes]:
    """COPY (sql) TO STDOUT as CSV with a header: (first byte s, last byte s, the bytes)."""
    began = time.perf_counter()
    first = None
    out = io.BytesIO()
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv, HEADER)") as copy,
    ):
        for block in copy:
            if first is None:
                first = time.perf_counter() - began
            out.write(block)
    return first or 0.0, time.perf_counter() - began, out.getvalue()


def measure_export(report: Report, world: World) -> None:
    from apps.core import exports
    from apps.core.models import TaskRecord
    from apps.core.tasks_outbox import task_progress
    from apps.warehouse.views.stock import StockListView

    operator = world.pages["warehouse"]
    stock = reverse("warehouse:stock-list")
    view = StockListView()
    queryset = world.export_queryset(view)

    # (a) COPY of the export's own query (its columns, joins and order), and in key order.
    sql, params = exports.rows_sql(view.export_columns, queryset)
    with connection.cursor() as cursor:
        sql = cursor.mogrify(sql, params)
    copy_first, copy_s, copy_bytes = copy_out(sql)
    copy_lines = copy_bytes.count(b"\n")
    keyed_sql, keyed_params = exports.rows_sql(view.export_columns, queryset.order_by("pk"))
    with connection.cursor() as cursor:
        keyed_sql = cursor.mogrify(keyed_sql, keyed_params)
    keyed_first, keyed_s, _ = copy_out(keyed_sql)
    report.check(copy_lines == UNITS + 1, f"COPY wrote {copy_lines} lines, expected {UNITS + 1}")

    # (b) the operator's export through the page: answered at once, built by the task, downloaded.
    from apps.core import tasks_outbox
    from apps.core.tasks import write_export_file

    sent: list[tuple] = []
    real_publish = tasks_outbox.publish
    tasks_outbox.publish = lambda task, *, kwargs, task_id: sent.append((kwargs, task_id))  # run below
    try:
        cache.clear()
        began = time.perf_counter()
        response = operator.get(stock, {"export": "csv"})
        answered_s = time.perf_counter() - began
    finally:
        tasks_outbox.publish = real_publish
    report.check(response.status_code == 302, f"a {UNITS:,}-row export answered {response.status_code}")
    record = TaskRecord.objects.filter(task_id=sent[0][1]).first() if sent else None
    report.check(record is not None, "the large export enqueued no task")
    if record is None:
        return
    page_began = time.perf_counter()
    progress_page = operator.get(response["Location"])
    page_s = time.perf_counter() - page_began
    report.check(progress_page.status_code == 200, f"the export's page answered {progress_page.status_code}")
    began = time.perf_counter()
    write_export_file.apply(kwargs=sent[0][0], task_id=record.task_id)
    task_s = time.perf_counter() - began
    record.refresh_from_db()
    state = task_progress(record)
    report.check(state["state"] == "SUCCESS", f"the export task ended {state['state']}: {state['error']}")
    began = time.perf_counter()
    download = operator.get(reverse("core:export-download", args=[record.task_id]))
    first_chunk = None
    body = io.BytesIO()
    for chunk in download.streaming_content:
        if first_chunk is None:
            first_chunk = time.perf_counter() - began
        body.write(chunk)
    download_s = time.perf_counter() - began
    file_bytes = body.getvalue()
    report.check(download.status_code == 200, f"the download answered {download.status_code}")
    file_lines = file_bytes.count(b"\n")
    report.check(file_lines == UNITS + 1, f"the exported file has {file_lines} lines, expected {UNITS + 1}")
    differing = [(a, b) for a, b in zip(_rows(file_bytes), _rows(copy_bytes), strict=False) if a != b]
    report.check(not differing, f"the exported file's rows differ from COPY's: {differing[:1]}")

    # (c) the same rows streamed straight into a response.
    began = time.perf_counter()
    streamed = exports.csv_response(
        view.export_columns, exports.read_rows(view.export_columns, queryset), "x.csv"
    )
    stream_first = None
    lines = 0
    for chunk in streamed.streaming_content:
        if stream_first is None:
            stream_first = time.perf_counter() - began
        lines += chunk.count(b"\n")
    stream_s = time.perf_counter() - began
    report.check(lines == UNITS + 1, f"the streamed CSV has {lines} lines, expected {UNITS + 1}")

    def line(what: str, first: float, total: float) -> None:
        report.row(
            "the export of every unit (operator), CSV",
            **{
                "what": what,
                "first byte s": f"{first:.3f}",
                "last byte s": f"{total:.2f}",
                "vs COPY (list order)": f"{total / copy_s:.2f}x",
            },
        )

    line("(a) COPY (…) TO STDOUT, list order", copy_first, copy_s)
    line("(a) COPY (…) TO STDOUT, key order", keyed_first, keyed_s)
    line("(b) /stock/?export=csv answered (progress page)", answered_s, answered_s)
    line("(b) its progress page", page_s, page_s)
    line("(b) the task writing the file", task_s, task_s)
    line("(b) the file downloaded", first_chunk or 0.0, download_s)
    line("(b) request + task + download", answered_s, answered_s + task_s + download_s)
    line("(c) streamed straight into a response", stream_first or 0.0, stream_s)
    report.note(
        f"the CSV: {len(file_bytes):,} bytes; COPY's {len(copy_bytes):,} (COPY writes no byte-order mark)"
    )


def _rows(data: bytes) -> list[bytes]:
    """Every 37th serial of the first thousand rows (the first field: COPY writes codes and
    timestamps where the export writes labels and dates). The export starts with a byte-order
    mark and ends lines with CRLF (csv's default, as spreadsheets expect)."""
    lines = data.removeprefix("\ufeff".encode()).replace(b"\r\n", b"\n").split(b"\n")[1:1000:37]
    return [line.split(b",", 1)[0] for line in lines]


# --- (d) the lists ------------------------------------------------------------------------------


def measure_lists(report: Report, world: World, *, repeat: int) -> None:
    units, stock = reverse("api:unit-list"), reverse("warehouse:stock-list")
    hidden = -(-UNITS // HIDDEN)
    visible = {"warehouse": UNITS, "partner": UNITS - hidden + min(HELD, hidden)}
    calls: dict[str, Callable[[], Any]] = {}
    expected: dict[str, int] = {}
    for caller in ("warehouse", "partner"):
        api, page = world.api[caller], world.pages[caller]
        middle = visible[caller] // 50 // 2
        for name, call, count in (
            ("units API page 1", lambda api=api: api.get(units), visible[caller]),
            ("units API middle page", lambda api=api, m=middle: api.get(units, {"page": m}), visible[caller]),
            ("/stock/ page 1", lambda page=page: page.get(stock), visible[caller]),
        ):
            calls[f"{caller}: {name}"] = call
            expected[f"{caller}: {name}"] = count
    for name, call in calls.items():
        answer = call()
        report.check(answer.status_code == 200, f"{name} answered {answer.status_code}")
        found = (
            answer.json()["count"]
            if answer.get("Content-Type", "").startswith("application/json")
            else answer.context["page_obj"].paginator.count
        )
        report.check(found == expected[name], f"{name} counts {found}, expected {expected[name]}")
    timings = round_robin(calls, repeat=repeat, setup=cache.clear)
    for request in ("units API page 1", "units API middle page", "/stock/ page 1"):
        operator_ms = timings[f"warehouse: {request}"].median_ms
        partner_ms = timings[f"partner: {request}"].median_ms
        report.row(
            "the lists: operator and partner",
            request=request,
            **{
                "operator ms": f"{operator_ms:.1f}",
                "partner ms": f"{partner_ms:.1f}",
                "partner / operator": f"{partner_ms / operator_ms:.2f}x",
            },
        )
    report.note(
        f"lists: medians of {repeat} requests each, taking turns; partner sees {visible['partner']:,} units"
    )


# --- the world ----------------------------------------------------------------------------------


class World:
    """The operator, two suppliers, parts, two warehouses of locations, the two callers, and a
    shipment whose consignee is the partner (the line the held units are allocated to)."""

    def __init__(self) -> None:
        address = {"address_line1": "1 Bench Road", "city": "Singapore", "country": "SG"}
        self.operator = Organisation.objects.create(
            kind=OrganisationKind.OPERATOR, legal_name="Bench Operator Pte Ltd", **address
        )
        self.supplier = Organisation.objects.create(
            kind=OrganisationKind.SUPPLIER, legal_name="Bench Supplier Ltd", **address
        )
        self.other = Organisation.objects.create(
            kind=OrganisationKind.SUPPLIER, legal_name="Bench Other Supplier Ltd", **address
        )
        self.maker = Manufacturer.objects.create(name="NVIDIA", country="US")
        self.parts = Part.objects.bulk_create(
            [
                Part(
                    owner=self.operator,
                    manufacturer=self.maker,
                    part_number=f"BEX-{i:03d}",
                    name=f"Bench server {i}",
                    category=PartCategory.SERVER,
                    unit_weight_kg=Decimal("62.000"),
                    length_cm=Decimal("90.00"),
                    width_cm=Decimal("60.00"),
                    height_cm=Decimal("25.00"),
                    unit_value=Decimal(285_000 + i * 100),
                    currency="USD",
                    country_of_origin="TW",
                    hs_code="847150",
                )
                for i in range(PARTS)
            ]
        )
        self.sites = [
            Site.objects.create(
                owner=self.operator,
                name=name,
                kind="warehouse",
                city="Singapore",
                country="SG",
                is_bonded=True,
            )
            for name in ("Bench bonded hub", "Bench second warehouse")
        ]
        self.locations = Location.objects.bulk_create(
            [
                Location(
                    site=self.sites[i % 2],
                    zone="A",
                    aisle=f"{i // 2 // 20 + 1:02d}",
                    rack=f"{i // 2 % 20 // 4 + 1:02d}",
                    bin=f"{i // 2 % 4 + 1:02d}",
                )
                for i in range(LOCATIONS)
            ]
        )
        partner = User.objects.create_user("bench-partner", organisation=self.supplier, role=Role.PARTNER)
        keeper = User.objects.create_user(
            "bench-warehouse", organisation=self.operator, role=Role.WAREHOUSE_OPERATOR
        )
        coordinator = User.objects.create_user(
            "bench-coordinator", organisation=self.operator, role=Role.COORDINATOR
        )
        destination = Site.objects.create(
            owner=self.operator, name="Bench data centre", kind="datacentre", city="Chennai", country="IN"
        )
        today = timezone.localdate()
        shipment = shipments.shipment_create(
            actor=coordinator,
            fields={
                "origin": self.sites[0], "destination": destination, "incoterm": "DAP",
                "incoterm_place": "Chennai", "mode": "air", "end_use": "AI training cluster",
                "ready_date": today, "required_by": today,
            },
            parties={"shipper": self.other, "consignee": self.supplier},
        )  # fmt: skip
        self.line = shipments.line_add(shipment=shipment, part=self.parts[0], quantity=HELD)
        self.users = {"partner": partner, "warehouse": keeper}
        self.api: dict[str, APIClient] = {}
        self.pages: dict[str, Client] = {}
        for caller, user in self.users.items():
            self.api[caller] = api_client_for(user, f"bench {caller}")
            self.pages[caller] = Client()
            self.pages[caller].force_login(user)

    def export_queryset(self, view):
        """The operator's `/stock/` queryset, as its export reads it."""
        from django.test import RequestFactory

        request = RequestFactory().get("/stock/")
        request.user = self.users["warehouse"]
        view.setup(request)
        return view.export_queryset(view.get_filterset().qs)

    def seed(self, units: int) -> None:
        """`units` units, their placements and receipt rows, by COPY; then ANALYZE."""
        now = timezone.now()
        parts = [part.pk for part in self.parts]
        locations = [location.pk for location in self.locations]
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence('catalog_unit', 'id'), "
                "COALESCE((SELECT max(id) FROM catalog_unit), 0) + %s)",
                [units],
            )
            last = cursor.fetchone()[0]
            first = last - units + 1
            raw = cursor.cursor
            held = 0

            def owner(i: int) -> int:
                return self.other.pk if i % HIDDEN == 0 else self.supplier.pk

            with raw.copy(
                "COPY catalog_unit (id, part_id, manufacturer_id, serial, owner_id, status, customs_status, "
                "country_of_origin, created_at, updated_at) FROM STDIN"
            ) as copy:
                for i in range(units):
                    copy.write_row(
                        (first + i, parts[i % PARTS], self.maker.pk, f"BEX{i * 7_919 % 1_000_003:07d}",
                         owner(i), STATUSES[i % len(STATUSES)], CUSTOMS[i % len(CUSTOMS)], "TW", now, now)
                    )  # fmt: skip
            with raw.copy(
                "COPY warehouse_unitplacement (unit_id, location_id, customs_reference, line_id, created_at, "
                "updated_at) FROM STDIN"
            ) as copy:
                for i in range(units):
                    line = None
                    if i % HIDDEN == 0 and held < HELD:
                        line, held = self.line.pk, held + 1
                    copy.write_row(
                        (first + i, locations[i % LOCATIONS], f"SG-BENCH-{i // 1000:04d}", line, now, now)
                    )
            with raw.copy(
                "COPY warehouse_movement (kind, occurred_at, actor_label, reason, part_id, unit_id, "
                "owner_id, quantity, to_location_id, customs_status, customs_reference, status_before, "
                "status_after) FROM STDIN"
            ) as copy:
                for i in range(units):
                    copy.write_row(
                        ("receipt", now, "", "bench", parts[i % PARTS], first + i, owner(i), 1,
                         locations[i % LOCATIONS], CUSTOMS[i % len(CUSTOMS)], f"SG-BENCH-{i // 1000:04d}",
                         "expected", "received")
                    )  # fmt: skip
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
