"""The stock lists at 100,000 units beside 1,000: units API, on-hand API, the /stock/ page and its CSV export.

One supplier owns the stock (99 % of the units; 1 % belong to another supplier and stay hidden
from it) in two warehouses with 400 locations, plus one lot per 40 units. Units, placements and
lots are written with `bulk_create` (no services, no audit rows: this measures reading). First
1,000 units, measured; then grown to 100,000 and measured again, in the same run.

Two callers: the supplier's partner user (its querysets carry the scoping subqueries) and a
warehouse operator (operator staff, sees everything). Each request is made through Django's test
client (the API with a token, the page with a session), at page 1, a middle page, and filtered by
part, by status, by warehouse and by serial search; the CSV export of the /stock/ units list is
read to its last byte.

Correctness (fails the run): the SQL queries of each request (counted with
CaptureQueriesContext, after an untimed request so that the token's once-a-minute `last_used_at`
write is not counted) are the same at both sizes; each answer is 200 and counts the units the
caller may see; the export holds one line per visible unit. Timings are printed only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.accounts.services import api_token_create
from apps.catalog.models import CustomsStatus, Manufacturer, Part, PartCategory, Unit, UnitStatus
from apps.shipments.models import Site
from apps.warehouse.models import Location, Lot, UnitPlacement
from bench.harness import Report, measure, round_robin

SIZES = tuple(int(n) for n in os.environ.get("RACKPASS_BENCH_STOCK_SIZES", "1000,100000").split(","))
REPEAT = 7  # timed requests per figure (each request of a size taking turns with the others)
EXPORT_REPEAT = 3
PARTS = 20
LOCATIONS = 400  # 200 per warehouse
UNITS_PER_LOT = 40  # 2,500 lots at 100,000 units
HIDDEN = 100  # every 100th unit belongs to another supplier
BATCH = 5_000
STATUSES = (UnitStatus.AVAILABLE,) * 8 + (UnitStatus.RECEIVED, UnitStatus.QUARANTINED)
CUSTOMS = (CustomsStatus.IN_BOND, CustomsStatus.DUTY_PAID, CustomsStatus.FREE_TRADE_ZONE)


def run(report: Report) -> None:
    measure_sizes(report, SIZES, repeat=REPEAT, export_repeat=EXPORT_REPEAT)


def measure_sizes(
    report: Report, sizes: tuple[int, ...], *, repeat: int, export_repeat: int
) -> dict[tuple[str, str], dict[int, int]]:
    """Grow the stock to each size in turn and measure every request there. Returns the query
    counts, (caller, request) → size → queries; a count that differs between sizes fails the run."""
    world = _World()
    queries: dict[tuple[str, str], dict[int, int]] = {}
    timings: dict[tuple[str, str], dict[int, float]] = {}
    for size in sizes:
        world.grow_to(size)
        for caller in ("partner", "warehouse"):
            visible = world.visible(caller)
            requests = _requests(world, caller, visible)
            for name, (call, expected) in requests.items():
                call()  # untimed: the token's last_used_at write, the first session read
                with CaptureQueriesContext(connection) as captured:
                    answer = call()
                queries.setdefault((caller, name), {})[size] = len(captured.captured_queries)
                found = _count_of(answer)
                if expected is not None:
                    report.check(
                        found == expected,
                        f"{caller} at {size:,} units, {name}: the answer counts {found}, expected {expected}",
                    )
            exporting = {name: call for name, (call, _) in requests.items() if name.startswith("CSV")}
            listing = {name: call for name, (call, _) in requests.items() if name not in exporting}
            # cache.clear() before each call, untimed: DRF's throttle keeps its history in the cache.
            for name, timing in round_robin(listing, repeat=repeat, setup=cache.clear).items():
                timings.setdefault((caller, name), {})[size] = timing.median_ms
            for name, call in exporting.items():
                timings.setdefault((caller, name), {})[size] = measure(
                    call, repeat=export_repeat, setup=cache.clear
                ).median_ms

    small, large = sizes[0], sizes[-1]
    for (caller, name), by_size in queries.items():
        counts = sorted(set(by_size.values()))
        report.check(
            len(counts) == 1,
            f"{caller} {name}: the queries differ with the units "
            + ", ".join(f"{n} at {size:,}" for size, n in by_size.items()),
        )
        ms = timings[(caller, name)]
        report.row(
            **{
                "caller": caller,
                "request": name,
                "queries": ", ".join(str(n) for n in counts),
                f"ms at {small:,}": ms[small],
                f"ms at {large:,}": ms[large],
                "ratio": f"{ms[large] / ms[small]:.1f}x" if ms[small] else "-",
            }
        )
    report.note(
        f"{world.visible('partner'):,} of {world.size:,} units visible to the partner, "
        f"{Lot.objects.count():,} lots, {LOCATIONS} locations in 2 warehouses, {PARTS} parts; "
        f"medians of {repeat} requests ({export_repeat} for the CSV export, read to the end)."
    )
    return queries


def _count_of(response) -> int | None:
    """How many rows an answer says it holds: the API's `count`, the page's paginator, the CSV's lines."""
    if response.status_code != 200:
        raise AssertionError(f"{response.request['PATH_INFO']} answered {response.status_code}")
    if getattr(response, "streaming", False):
        return response.bench_body.count(b"\n") - 1  # less the header
    if response.get("Content-Type", "").startswith("application/json"):
        return response.json()["count"]
    return response.context["page_obj"].paginator.count


def _requests(world: _World, caller: str, visible: int) -> dict[str, tuple[Callable[[], Any], int | None]]:
    """Each request: its call and the count its answer should give (None: not checked)."""
    api, page = world.api[caller], world.pages[caller]
    units, on_hand, stock = (
        reverse("api:unit-list"),
        reverse("api:stock-on-hand-list"),
        reverse("warehouse:stock-list"),
    )
    middle = max(1, -(-visible // 50) // 2)
    part, site = world.parts[0].pk, world.sites[0].pk
    serial = world.sample_serial
    in_part = world.visible_where(caller, part=0)

    def get(client, path: str, **params: Any) -> Callable[[], Any]:
        return lambda: client.get(path, params)

    def export(**params: Any) -> Callable[[], Any]:
        def call():
            # A streamed export is made as it is read: read it to the end, inside the timing.
            response = page.get(stock, {"export": "csv", **params})
            response.bench_body = b"".join(response.streaming_content)
            return response

        return call

    return {
        "units API page 1": (get(api, units), visible),
        "units API middle page": (get(api, units, page=middle), visible),
        "units API ?part=": (get(api, units, part=part), in_part),
        "units API ?status=available": (get(api, units, status="available"), None),
        "units API ?warehouse=": (get(api, units, warehouse=site), None),
        "units API ?serial= (exact)": (get(api, units, serial=serial.lower()), 1),
        "units API ?search= (serial)": (get(api, units, search=serial[-5:]), None),
        "on-hand API page 1": (get(api, on_hand), None),
        "on-hand API last page": (get(api, on_hand, page="last"), None),
        "on-hand API ?part=": (get(api, on_hand, part=part), None),
        "on-hand API ?status=available": (get(api, on_hand, status="available"), None),
        "on-hand API ?warehouse=": (get(api, on_hand, warehouse=site), None),
        "/stock/ page 1": (get(page, stock), visible),
        "/stock/ middle page": (get(page, stock, page=middle), visible),
        "/stock/ ?part=": (get(page, stock, part=part), in_part),
        "/stock/ ?status=available": (get(page, stock, status="available"), None),
        "/stock/ ?warehouse=": (get(page, stock, warehouse=site), None),
        "/stock/ ?q= (serial)": (get(page, stock, q=serial), 1),
        "CSV export, all units": (export(), visible),
        "CSV export ?part=": (export(part=part), in_part),
    }


class _World:
    """Two suppliers, an operator with two warehouses of locations, parts, the two callers, and the
    stock, grown by `grow_to`."""

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
        maker = Manufacturer.objects.create(name="NVIDIA", country="US")
        self.parts = Part.objects.bulk_create(
            [
                Part(
                    owner=self.operator,
                    manufacturer=maker,
                    part_number=f"BSL-{i:03d}",
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
        self.api: dict[str, APIClient] = {}
        self.pages: dict[str, Client] = {}
        for caller, user in (("partner", partner), ("warehouse", keeper)):
            _, key = api_token_create(user=user, name=f"bench {caller}")
            self.api[caller] = APIClient()
            self.api[caller].credentials(HTTP_AUTHORIZATION=f"Token {key}")
            self.pages[caller] = Client()
            self.pages[caller].force_login(user)
        self.size = 0
        self.lots = 0
        self.sample_serial = ""

    def visible(self, caller: str) -> int:
        return self.size if caller == "warehouse" else self.size - -(-self.size // HIDDEN)

    def visible_where(self, caller: str, *, part: int) -> int:
        return sum(1 for i in range(self.size) if i % PARTS == part and (caller == "warehouse" or i % HIDDEN))

    @staticmethod
    def serial(i: int) -> str:
        # Serial order is not insertion order (7,919 and the prime 1,000,003 are coprime).
        return f"BSL{i * 7_919 % 1_000_003:07d}"

    def grow_to(self, size: int) -> None:
        maker = self.parts[0].manufacturer_id
        for start in range(self.size, size, BATCH):
            stop = min(start + BATCH, size)
            units = Unit.objects.bulk_create(
                [
                    Unit(
                        part=self.parts[i % PARTS],
                        manufacturer_id=maker,
                        serial=self.serial(i),
                        owner=self.other if i % HIDDEN == 0 else self.supplier,
                        status=STATUSES[i % len(STATUSES)],
                        customs_status=CUSTOMS[i % len(CUSTOMS)],
                    )
                    for i in range(start, stop)
                ]
            )
            UnitPlacement.objects.bulk_create(
                [
                    UnitPlacement(
                        unit=unit,
                        location=self.locations[i % LOCATIONS],
                        customs_reference=f"SG-BENCH-{i // 1000:04d}",
                    )
                    for i, unit in zip(range(start, stop), units, strict=True)
                ]
            )
        lots = max(1, size // UNITS_PER_LOT)
        Lot.objects.bulk_create(
            [
                Lot(
                    part=self.parts[i % PARTS],
                    location=self.locations[i // PARTS % LOCATIONS],
                    owner=self.supplier,
                    customs_status=CUSTOMS[i % len(CUSTOMS)],
                    customs_reference=f"SG-LOT-{i:05d}",
                    quantity=10 + i % 90,
                    allocated=i % 7,
                )
                for i in range(self.lots, lots)
            ]
        )
        self.lots = lots
        self.size = size
        self.sample_serial = self.serial(size // 2 + 1 if (size // 2 + 1) % HIDDEN else size // 2 + 2)
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")  # as autovacuum would, before the planner meets the new rows
