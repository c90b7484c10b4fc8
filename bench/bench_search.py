"""One search (page and API) at 10,000 shipments and 100,000 units, beside 1,000 and 10,000.

Each shipment has a buyer's order (PO), a shipper, a consignee (and every 10th a freight forwarder,
the partner caller's organisation), a main leg with its air waybill and (every 3rd) an ocean leg
with a bill of lading and a container number, and one line of 10 serialised units on it (units
and line serials). Everything is written with `bulk_create` (no services, no audit rows: this
measures reading). First the small size, measured; then grown to the large one and measured
again, in the same run.

Two callers: a coordinator (operator staff, sees everything) and the forwarder's partner user
(sees the 10 % of shipments naming it, and no units: none are its own or held for it). Each asks
the page and the API for: a shipment reference, a PO, an AWB, a B/L, a container number, a
serial (exact), a piece of a serial matching thousands of units, a party's name matching every
shipment, and a part number. Beside them, in the same run and taking turns with them, a trivial
request: `GET /api/v1/me/` (the API's baseline) and the dashboard-less login page is not used —
`/api/v1/me/` through the same token and middleware.

Correctness (fails the run): the SQL queries of each request are the same at both sizes; the
page's exact identifiers open the one shipment or unit they name (302 to it); the API finds the
same object first; the partner finds the shipments it is party to, never another's (its AWB
search of a shipment it is not on answers no group). Timings are printed only.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.catalog.models import Manufacturer, Part, PartCategory, Unit
from apps.shipments.models import (
    Leg,
    LineSerial,
    PartyRole,
    Shipment,
    ShipmentLine,
    ShipmentParty,
    ShipmentStatus,
    Site,
    SiteKind,
)
from bench.harness import Report, api_client_for, round_robin

SIZES = tuple(int(n) for n in os.environ.get("RACKPASS_BENCH_SEARCH_SHIPMENTS", "1000,10000").split(","))
UNITS_PER_SHIPMENT = 10  # 100,000 units at 10,000 shipments
FORWARDER_EVERY = 10
OCEAN_EVERY = 3
CHUNK = 1_000
REPEAT = 7


def run(report: Report) -> None:
    measure_sizes(report, SIZES, repeat=REPEAT)


def measure_sizes(
    report: Report, sizes: tuple[int, ...], *, repeat: int
) -> dict[tuple[str, str], dict[int, int]]:
    """Grow to each size in turn and measure every search there. Returns the query counts,
    (caller, request) → size → queries; a count that differs between sizes fails the run."""
    world = _World()
    queries: dict[tuple[str, str], dict[int, int]] = {}
    timings: dict[tuple[str, str], dict[int, float]] = {}
    for size in sizes:
        world.grow_to(size)
        for caller in ("coordinator", "partner"):
            calls = world.requests(caller, report)
            for name, call in calls.items():
                call()  # untimed: the token's last_used_at write, the session's first read
                with CaptureQueriesContext(connection) as captured:
                    call()
                queries.setdefault((caller, name), {})[size] = len(captured.captured_queries)
            # cache.clear() before each call, untimed: DRF's throttle keeps its history in the cache.
            for name, timing in round_robin(calls, repeat=repeat, setup=cache.clear).items():
                timings.setdefault((caller, name), {})[size] = timing.median_ms

    small, large = sizes[0], sizes[-1]
    for (caller, name), by_size in queries.items():
        counts = sorted(set(by_size.values()))
        if not name.startswith("baseline"):
            report.check(
                len(counts) == 1,
                f"{caller} {name}: the queries differ with the size "
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
    if connection.vendor == "postgresql":
        # Whether PostgreSQL reads a piece of a serial through the trigram index (catalog 0014).
        plan = Unit.objects.filter(serial__icontains="BSN0012").order_by().explain()
        report.note("units with a piece of a serial, PostgreSQL's plan: " + " / ".join(plan.splitlines()[:4]))
    report.note(
        f"{large:,} shipments, {Leg.objects.count():,} legs, {Unit.objects.count():,} units and as many "
        f"line serials at the large size; the partner is on {large // FORWARDER_EVERY:,} shipments. "
        f"Medians of {repeat} requests, each request taking turns with the others and the baseline."
    )
    return queries


class _World:
    def __init__(self) -> None:
        address = {"address_line1": "1 Bench Road", "city": "Singapore", "country": "SG"}
        self.operator = Organisation.objects.create(
            kind=OrganisationKind.OPERATOR, legal_name="Bench Operator Pte Ltd", **address
        )
        self.supplier = Organisation.objects.create(
            kind=OrganisationKind.SUPPLIER, legal_name="Bench Servers Co., Ltd.", **address
        )
        self.customer = Organisation.objects.create(
            kind=OrganisationKind.CUSTOMER, legal_name="Bench Compute Pvt. Ltd.", **address
        )
        self.forwarder = Organisation.objects.create(
            kind=OrganisationKind.FREIGHT_FORWARDER, legal_name="Bench Air & Ocean Pte. Ltd.", **address
        )
        self.coordinator = User.objects.create_user(
            "bench-coordinator", organisation=self.operator, role=Role.COORDINATOR
        )
        self.partner = User.objects.create_user(
            "bench-partner", organisation=self.forwarder, role=Role.PARTNER
        )
        self.origin = Site.objects.create(
            owner=self.operator, name="Bench factory", kind=SiteKind.FACTORY, city="Taoyuan", country="TW"
        )
        self.destination = Site.objects.create(
            owner=self.operator, name="Bench DC", kind=SiteKind.DATA_CENTRE, city="Chennai", country="IN"
        )
        self.port = Site.objects.create(
            owner=self.operator, name="Bench port", kind=SiteKind.SEAPORT, city="Chennai", country="IN",
            unlocode="INMAA",
        )  # fmt: skip
        maker = Manufacturer.objects.create(name="Bench Manufacturer", country="TW")
        self.part = Part.objects.create(
            owner=self.operator,
            manufacturer=maker,
            part_number="BSR-GPU-SRV-8",
            name="Bench 8-GPU server",
            category=PartCategory.SERVER,
            unit_weight_kg=Decimal("62.000"),
            length_cm=Decimal("90"),
            width_cm=Decimal("60"),
            height_cm=Decimal("25"),
            unit_value=Decimal("285000"),
            country_of_origin="TW",
            hs_code="847150",
        )
        self.api = {"coordinator": api_client_for(self.coordinator), "partner": api_client_for(self.partner)}
        self.pages = {}
        for caller, user in (("coordinator", self.coordinator), ("partner", self.partner)):
            self.pages[caller] = Client()
            self.pages[caller].force_login(user)
        self.today = timezone.localdate()
        self.size = 0

    # --- identifiers of shipment i --------------------------------------------------------------

    @staticmethod
    def reference(i: int) -> str:
        return f"SHP-2026-{i:06d}"

    @staticmethod
    def po(i: int) -> str:
        return f"PO-45{i * 7_919 % 1_000_003:08d}"

    @staticmethod
    def awb(i: int) -> str:
        serial = 1_000_000 + i
        return f"618-{serial:07d}{serial % 7}"

    @staticmethod
    def bill_of_lading(i: int) -> str:
        return f"MAEU{i * 104_729 % 1_000_000_007:09d}"

    @staticmethod
    def container(i: int) -> str:
        from apps.shipments.validators import container_number_problem

        return next(n for d in "0123456789" if container_number_problem(n := f"BSRU{i:06d}{d}") is None)

    @staticmethod
    def serial(i: int, k: int) -> str:
        return f"BSN{(i * UNITS_PER_SHIPMENT + k) * 7_919 % 10_000_019:08d}"

    # --- growing ---------------------------------------------------------------------------------

    def grow_to(self, size: int) -> None:
        for start in range(self.size, size, CHUNK):
            self._add(range(start, min(start + CHUNK, size)))
        self.size = size
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")  # as autovacuum would, before the planner meets the new rows

    def _add(self, numbers: range) -> None:
        ready = self.today
        shipments = Shipment.objects.bulk_create(
            [
                Shipment(
                    reference=self.reference(i),
                    owner=self.operator,
                    created_by=self.coordinator,
                    origin=self.origin,
                    destination=self.destination,
                    incoterm="DAP",
                    incoterm_place="Chennai, Bench DC",
                    mode="air",
                    ready_date=ready,
                    required_by=ready + dt.timedelta(days=21),
                    currency="USD",
                    status=ShipmentStatus.IN_TRANSIT,
                    buyer_order_reference=self.po(i),
                )
                for i in numbers
            ]
        )
        parties, legs, lines = [], [], []
        for i, shipment in zip(numbers, shipments, strict=True):
            parties += [
                ShipmentParty(shipment=shipment, role=PartyRole.SHIPPER, organisation=self.supplier),
                ShipmentParty(shipment=shipment, role=PartyRole.CONSIGNEE, organisation=self.customer),
            ]
            if i % FORWARDER_EVERY == 0:
                parties.append(
                    ShipmentParty(
                        shipment=shipment, role=PartyRole.FREIGHT_FORWARDER, organisation=self.forwarder
                    )
                )
            legs.append(
                Leg(
                    shipment=shipment, sequence=1, role="main", origin=self.origin,
                    destination=self.destination, mode="air", transport_document=self.awb(i),
                )
            )  # fmt: skip
            if i % OCEAN_EVERY == 0:
                legs.append(
                    Leg(
                        shipment=shipment, sequence=2, role="onward", origin=self.port,
                        destination=self.destination, mode="ocean", transport_document=self.bill_of_lading(i),
                        container_numbers=self.container(i),
                    )
                )  # fmt: skip
            lines.append(
                ShipmentLine(
                    shipment=shipment, line_number=1, part=self.part, description=self.part.name,
                    quantity=UNITS_PER_SHIPMENT, unit_value=self.part.unit_value, country_of_origin="TW",
                    hs_code="847150",
                )
            )  # fmt: skip
        ShipmentParty.objects.bulk_create(parties, batch_size=2_000)
        Leg.objects.bulk_create(legs, batch_size=2_000)
        lines = ShipmentLine.objects.bulk_create(lines, batch_size=2_000)
        units = Unit.objects.bulk_create(
            [
                Unit(
                    part=self.part,
                    manufacturer_id=self.part.manufacturer_id,
                    serial=self.serial(i, k),
                    owner=self.customer,
                )
                for i in numbers
                for k in range(UNITS_PER_SHIPMENT)
            ],
            batch_size=5_000,
        )
        LineSerial.objects.bulk_create(
            [
                LineSerial(line=line, unit=units[n * UNITS_PER_SHIPMENT + k])
                for n, line in enumerate(lines)
                for k in range(UNITS_PER_SHIPMENT)
            ],
            batch_size=5_000,
        )

    # --- the requests ----------------------------------------------------------------------------

    def requests(self, caller: str, report: Report) -> dict[str, Callable[[], Any]]:
        """Each search, page and API, checked once (untimed) as it is built."""
        page, api = self.pages[caller], self.api[caller]
        # A shipment the partner is on, in the middle of the table.
        i = (self.size // 2) // FORWARDER_EVERY * FORWARDER_EVERY
        i -= i % (FORWARDER_EVERY * OCEAN_EVERY)  # and with an ocean leg
        shipment_url = reverse("shipments:shipment-detail", args=[self.reference(i)])
        unit = Unit.objects.get(serial=self.serial(i, 3))
        unit_url = reverse("warehouse:unit-detail", args=[unit.pk])
        searches = {
            "reference": (self.reference(i), shipment_url),
            "PO": (self.po(i), shipment_url),
            "AWB": (self.awb(i), shipment_url),
            "B/L": (self.bill_of_lading(i), shipment_url),
            "container": (self.container(i), shipment_url),
            # A serial names one box: the coordinator opens the unit's page; the partner sees the
            # line (it is on the shipment), not the customer's unit, and opens the shipment's lines.
            "serial (exact)": (
                self.serial(i, 3),
                unit_url if caller == "coordinator" else f"{shipment_url}#lines",
            ),
            "piece of a serial (thousands)": ("BSN00", None),
            "party name (every shipment)": ("Bench Compute", None),
            "part number": ("BSR-GPU", None),
        }
        calls: dict[str, Callable[[], Any]] = {}
        for name, (text, jump) in searches.items():
            self._check(report, caller, name, page, api, text, jump, unit_url)
            calls[f"page {name}"] = _get(page, reverse("search"), q=text)
            calls[f"API {name}"] = _get(api, reverse("api:search"), q=text)
        # The partner is not on shipment i + 1: its AWB finds nothing for it.
        if caller == "partner":
            other = api.get(reverse("api:search"), {"q": self.awb(i + 1)}).json()
            report.check(other["groups"] == [], f"partner: another shipment's AWB answered {other['groups']}")
        calls["baseline GET /api/v1/me/"] = _get(api, reverse("api:me"))
        return calls

    def _check(self, report, caller, name, page, api, text, jump, unit_url) -> None:
        answer = page.get(reverse("search"), {"q": text})
        if jump:
            report.check(
                (answer.status_code, answer.get("Location")) == (302, jump),
                f"{caller} page {name}: answered {answer.status_code} {answer.get('Location')}, "
                f"expected {jump}",
            )
        else:
            report.check(answer.status_code == 200, f"{caller} page {name}: answered {answer.status_code}")
        body = api.get(reverse("api:search"), {"q": text})
        report.check(body.status_code == 200, f"{caller} API {name}: answered {body.status_code}")
        groups = body.json()["groups"]
        if jump:
            report.check(body.json()["jump"] == jump, f"{caller} API {name}: jump {body.json()['jump']}")
        if name == "serial (exact)" and caller == "coordinator":
            urls = [h["url"] for g in groups for h in g["hits"]]
            report.check(unit_url in urls, f"coordinator API {name}: the unit is not among {urls}")
        if name.startswith("piece") and caller == "coordinator":
            report.check(any(g["more"] for g in groups), f"coordinator API {name}: no kind says 'more'")


def _get(client, path: str, **params: Any) -> Callable[[], Any]:
    def call():
        response = client.get(path, params)
        if response.status_code not in (200, 302):
            raise AssertionError(f"GET {path} {params} answered {response.status_code}")
        return response

    return call
