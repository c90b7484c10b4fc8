"""Listing 10,000 shipments of 20 lines (API and browser page), and a 1,000-line shipment's freight plan.

Two sizes (1,000 and 10,000 shipments, 20 lines each: 20,000 and 200,000 lines) and two callers:
an operator coordinator, who sees every shipment, and a freight forwarder's partner user, who
sees only the 10 % of shipments that name its organisation as freight forwarder.

Correctness (fails the run): the SQL queries per request are the same at both sizes, on every
page asked for (first, middle, last) and with every filter tried, for
`GET /api/v1/shipments/?page=N&page_size=100` and for the browser page `/shipments/?page=N` (also
with `?late=true` and `?status=in_transit`); each page holds the same shipments, in the same order,
as the baseline query, and the count shown is the number of matching shipments; the pages counted
do not all hold the same number of rows (else a query per row would go unseen). The freight plan
(`presenters.freight_plan_data`) runs the same number of queries for 100 and for 1,000 lines.

Timing (printed only): median and min wall time per page of the API (the whole Django stack
through DRF's APIClient) and of the browser page (Django's test client, logged in), each beside
a plain `values()` read of the same shipments; the freight plan of a 100- and a 1,000-line
shipment (database reads, freight engine, landed cost) beside the pure engine's `recommend()` on
pre-built pieces and a `values()` read of the lines; where a coordinator's API request and the
freight plan spend their time, step by step; and how long building the data took.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.accounts.services import api_token_create
from apps.catalog.models import Manufacturer, Part, PartCategory
from apps.core.jsonable import jsonable
from apps.shipments import selectors
from apps.shipments.api.serializers import ShipmentSerializer
from apps.shipments.api.views import ShipmentViewSet
from apps.shipments.engines import freight as freight_engine
from apps.shipments.models import (
    DestinationTax,
    FreightRate,
    PartyRole,
    Shipment,
    ShipmentLine,
    ShipmentParty,
    ShipmentStatus,
    Site,
    SiteKind,
    TariffRate,
)
from apps.shipments.presenters import freight_plan_data
from apps.shipments.views import ShipmentListView
from bench.harness import Report, Timing, interleaved, round_robin

SIZES = (1_000, 10_000)
LINES_PER_SHIPMENT = 20
API_PAGE_SIZE = 100
PAGE_SIZE = ShipmentListView.paginate_by  # the browser page's fixed page size (50)
SAMPLED_PAGES = 20  # timed requests per round, spread evenly from the first page to the last
ROUNDS = 2  # so each figure is the median of SAMPLED_PAGES * ROUNDS timed requests
WARMUP = 3
BREAKDOWN_REPEAT = 15
FREIGHT_LINES = (100, 1_000)
FREIGHT_REPEAT = 11
SHIPMENT_BATCH = 2_000  # about 25 columns a row: well under PostgreSQL's 65,535 parameters a statement
LINE_BATCH = 5_000
CHUNK = 1_000  # shipments built (with their parties and lines) per round of bulk_create
FORWARDER_EVERY = 10  # the partner's organisation is freight forwarder on every 10th shipment

# A status for each shipment, in turn: a quarter in transit, as a busy operator's list would be.
STATUSES = (
    [ShipmentStatus.DRAFT] * 2
    + [ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.APPROVED]
    + [ShipmentStatus.BOOKED] * 2
    + [ShipmentStatus.IN_TRANSIT] * 5
    + [ShipmentStatus.AT_CUSTOMS] * 2
    + [ShipmentStatus.CLEARED]
    + [ShipmentStatus.DELIVERED] * 4
    + [ShipmentStatus.ON_HOLD, ShipmentStatus.CANCELLED]
)
# The columns of a shipment and its two sites that the API serializer outputs (not its parties,
# line count or computed fields): what a plain read of the same page returns.
SITE_FIELDS = ("id", "name", "kind", "city", "country", "unlocode", "iata_code")
VALUES_FIELDS = (
    "reference",
    "status",
    "hold_kind",
    "hold_reason",
    "held_from",
    "owner_id",
    *(f"origin__{f}" for f in SITE_FIELDS),
    *(f"destination__{f}" for f in SITE_FIELDS),
    "incoterm",
    "incoterm_place",
    "mode",
    "ready_date",
    "required_by",
    "eta",
    "currency",
    "freight_charge",
    "insurance_charge",
    "insurance_value",
    "reason_for_export",
    "instructions",
    "created_at",
    "updated_at",
)
# What shipment_pieces reads of a line and its part.
LINE_VALUES_FIELDS = (
    "line_number",
    "quantity",
    "unit_value",
    "hs_code",
    "part__length_cm",
    "part__width_cm",
    "part__height_cm",
    "part__unit_weight_kg",
    "part__category",
)
# part number, category, L × W × H cm, kg, unit value, HS code: a data-centre build's usual mix.
PARTS = (
    ("BS-GPU-SRV", PartCategory.SERVER, ("90", "60", "25"), "62.000", "285000.00", "847150"),
    ("BS-H100-SXM", PartCategory.ACCELERATOR, ("40", "30", "15"), "4.500", "27500.00", "847330"),
    ("BS-SW-64P", PartCategory.NETWORK_SWITCH, ("70", "45", "9"), "11.000", "23800.00", "851762"),
    ("BS-OSFP-800G", PartCategory.OPTICAL_TRANSCEIVER, ("12", "6", "3"), "0.150", "1150.00", "851770"),
    ("BS-DAC-2M", PartCategory.CABLE, ("30", "20", "5"), "0.600", "180.00", "854442"),
    ("BS-PDU-3P", PartCategory.PDU, ("180", "15", "10"), "12.000", "2400.00", "853710"),
)
RACK = ("BS-RACK-48U", PartCategory.RACK, ("120", "60", "220"), "160.000", "3900.00", "940320")
# Rows of the freight breakdown that are not a step of freight_plan_data.
FREIGHT_NOT_STEPS = ("freight_plan_data (whole)", "for comparison: values() of the lines")
REFERENCE = re.compile(r'href="/shipments/(SHP-[0-9-]+)/"')


def run(report: Report) -> None:
    world = _World()
    # (variant, surface) → (size, which list and page, rows on the page, queries) per counted request
    queries: dict[tuple[str, str], list[tuple[int, str, int, int]]] = {}
    first_queries: dict[tuple[str, str], list[str]] = {}
    built: list[tuple[int, float]] = []
    for size in SIZES:
        began = time.perf_counter()
        world.grow_to(size)
        built.append((size, time.perf_counter() - began))
        for variant, user in (("coordinator", world.coordinator), ("partner", world.partner)):
            visible = Shipment.objects.visible_to(user).order_by("-created_at", "-id")
            expected = size if variant == "coordinator" else len(range(0, size, FORWARDER_EVERY))
            found = visible.count()
            report.check(
                found == expected,
                f"{variant} at {size:,}: visible_to() gives {found:,} shipments, expected {expected:,}",
            )
            for surface in ("API", "page"):
                observed = queries.setdefault((variant, surface), [])
                # (a) queries per request: first, middle and last page of each list; right contents.
                for label, params, subset in _filters(visible):
                    last = max(1, -(-subset.count() // _per_page(surface)))
                    for page in sorted({1, (last + 1) // 2, last}):
                        rows, n, sqls = _counted(
                            report, world, variant, surface, size, label, params, page, subset
                        )
                        observed.append((size, f"{label} page {page}", rows, n))
                        first_queries.setdefault((variant, surface), sqls)
                # (b) time per page beside (c) the values() baseline.
                timed, values = _time_pages(world, variant, surface, expected, visible)
                report.row(
                    benchmark=f"shipments {surface} {variant}",
                    shipments=size,
                    visible=expected,
                    **{
                        "rows/page": _per_page(surface),
                        "queries/request": ", ".join(
                            str(n) for n in sorted({n for s, _, _, n in observed if s == size})
                        ),
                        "ms/page (median, min)": str(timed),
                        "values() ms/page (median, min)": str(values),
                        "ratio": f"{timed.median_ms / values.median_ms:.1f}x",
                    },
                )
    for (variant, surface), observed in queries.items():
        if len({n for _, _, _, n in observed}) != 1:
            detail = "; ".join(f"{size:,} {where} ({rows} rows): {n}" for size, where, rows, n in observed)
            report.check(False, f"{variant} {surface}: the queries per request are not constant ({detail})")
        # Full pages alone would hide a query per row: every page would run the same number.
        report.check(
            len({rows for _, _, rows, _ in observed}) > 1,
            f"{variant} {surface}: every page counted held as many rows; a query per row would go unseen",
        )
    _breakdown(report, world)
    _freight(report, world)
    for size, seconds in built:
        report.row(
            "building the data with bulk_create (shipments, parties, lines)",
            shipments=size,
            lines=size * LINES_PER_SHIPMENT,
            **{"seconds to grow to it": seconds},
        )
    for (variant, surface), sqls in first_queries.items():
        report.note(
            f"{variant} {surface} page 1 runs {len(sqls)} queries: " + " | ".join(_gist(s) for s in sqls)
        )
    report.note(
        f"{SAMPLED_PAGES * ROUNDS} timed requests per row, spread over all pages of the unfiltered list; "
        "the queries are counted at the first, middle and last page of the list, of ?late=true and of "
        "?status=in_transit."
    )


def _per_page(surface: str) -> int:
    return API_PAGE_SIZE if surface == "API" else PAGE_SIZE


def _filters(visible):
    """The lists asked for: (label, extra query parameters, the matching shipments in list order)."""
    return [
        ("all", {}, visible),
        ("late=true", {"late": "true"}, visible.filter(selectors.late_q())),
        ("status=in_transit", {"status": "in_transit"}, visible.filter(status=ShipmentStatus.IN_TRANSIT)),
    ]


def _counted(
    report, world, variant, surface, size, label, params, page, subset
) -> tuple[int, int, list[str]]:
    """One untimed warm-up request, then one counted; checks what the page shows. Returns the rows
    on the page, the queries and their SQL."""
    get = world.get_api if surface == "API" else world.get_page
    per_page = _per_page(surface)
    get(variant, page, params)  # keeps the token's once-a-minute last_used_at write out of the count
    with CaptureQueriesContext(connection) as captured:
        response = get(variant, page, params)
    offset = (page - 1) * per_page
    want = list(subset.values_list("reference", flat=True)[offset : offset + per_page])
    total = subset.count()
    where = f"{variant} {surface} at {size:,}, {label}, page {page}"
    if surface == "API":
        body = response.json()
        report.check(body["count"] == total, f"{where}: count={body['count']:,}, expected {total:,}")
        got = [s["reference"] for s in body["results"]]
    else:
        html = response.content.decode()
        shown = f"{total:,} shipment"
        report.check(shown in html, f"{where}: the page does not say {shown!r}")
        got = REFERENCE.findall(html)
    report.check(bool(got), f"{where}: an empty page (the benchmark's data should fill it)")
    report.check(got == want, f"{where}: the shipments differ from the baseline query's")
    return len(got), len(captured), [q["sql"] for q in captured.captured_queries]


def _time_pages(world, variant, surface, expected, visible) -> tuple[Timing, Timing]:
    """Time requests spread over every page, alternating with a values() read of the same rows."""
    get = world.get_api if surface == "API" else world.get_page
    per_page = _per_page(surface)
    last = -(-expected // per_page)
    baseline = visible.values(*VALUES_FIELDS)
    pages = [1 + (k * (last - 1)) // (SAMPLED_PAGES - 1) for k in range(SAMPLED_PAGES)] * ROUNDS
    for page in pages[:WARMUP]:
        get(variant, page, {})
        list(baseline[(page - 1) * per_page : page * per_page])
    calls, values_calls = [], []
    for page in pages:
        calls.append(lambda page=page: get(variant, page, {}))
        offset = (page - 1) * per_page
        values_calls.append(lambda o=offset: list(baseline[o : o + per_page]))
    # cache.clear() before each call, untimed: DRF's throttle keeps its history in the cache.
    return interleaved(calls, values_calls, setup=cache.clear)


def _breakdown(report: Report, world: _World) -> None:
    """Where a coordinator's API request goes at the largest size: each step the view takes, timed alone."""
    # What ShipmentViewSet.list() runs: its queryset, scoped, ordered by OrderingFilter's default.
    view_qs = (
        ShipmentViewSet()
        .get_base_queryset()
        .visible_to(world.coordinator)
        .order_by(*ShipmentViewSet.ordering)
    )
    # The same rows and joins without the line_count subquery, to show what that costs.
    no_count = Shipment.objects.select_related("origin", "destination", "owner").order_by(
        *ShipmentViewSet.ordering
    )
    context = {"request": Request(APIRequestFactory().get(reverse("api:shipment-list")))}
    baseline = Shipment.objects.order_by("-created_at", "-id").values(*VALUES_FIELDS)
    last = -(-world.size // API_PAGE_SIZE)
    pages = (1, (last + 1) // 2, last)
    steps = [
        "whole request",
        "COUNT(*) for the paginator",
        "page SELECT and parties prefetch to 100 instances",
        "  of which the page SELECT's SQL and fetch alone",
        "  the same SQL without the line_count subquery",
        "serializer .data",
        "JSON rendering",
        "the rest: test client, middleware, auth, throttle",
        "for comparison: values() of the page",
    ]
    medians: dict[str, dict[int, float]] = {step: {} for step in steps}
    for page in pages:
        offset = (page - 1) * API_PAGE_SIZE
        page_qs = view_qs[offset : offset + API_PAGE_SIZE]
        sql, params = page_qs.query.sql_with_params()
        bare_sql, bare_params = no_count[offset : offset + API_PAGE_SIZE].query.sql_with_params()
        instances = list(page_qs)
        data = ShipmentSerializer(instances, many=True, context=context).data
        calls = {
            "whole request": lambda p=page: world.get_api("coordinator", p, {}),
            "COUNT(*) for the paginator": view_qs.count,
            "page SELECT and parties prefetch to 100 instances": lambda q=page_qs: list(q.all()),
            "  of which the page SELECT's SQL and fetch alone": lambda s=sql, p=params: _fetch(s, p),
            "  the same SQL without the line_count subquery": lambda s=bare_sql, p=bare_params: _fetch(s, p),
            "serializer .data": lambda i=instances: ShipmentSerializer(i, many=True, context=context).data,
            "JSON rendering": lambda d=data: JSONRenderer().render(d),
            "for comparison: values() of the page": lambda o=offset: list(baseline[o : o + API_PAGE_SIZE]),
        }
        for call in calls.values():
            call()  # warm-up
        for step, timing in round_robin(calls, repeat=BREAKDOWN_REPEAT, setup=cache.clear).items():
            medians[step][page] = timing.median_ms
        parts = (
            "COUNT(*) for the paginator",
            "page SELECT and parties prefetch to 100 instances",
            "serializer .data",
            "JSON rendering",
        )
        medians["the rest: test client, middleware, auth, throttle"][page] = medians["whole request"][
            page
        ] - sum(medians[step][page] for step in parts)
    title = (
        f"where a coordinator's API request goes at {world.size:,} shipments "
        f"(median ms of {BREAKDOWN_REPEAT}, each step alone)"
    )
    middle = pages[1]
    for step in steps:
        cells: dict[str, Any] = {"step": step}
        for page in pages:
            cells[f"page {page}"] = medians[step][page]
        cells[f"share at page {middle}"] = f"{medians[step][middle] / medians['whole request'][middle]:.0%}"
        report.row(title, **cells)


def _fetch(sql: str, params: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        cursor.fetchall()


def _freight(report: Report, world: _World) -> None:
    """freight_plan_data of a 100- and a 1,000-line shipment, the engine alone, and a values() read."""
    world.add_rates()
    title = f"freight plan of one shipment (median, min ms of {FREIGHT_REPEAT})"
    steps_title = f"where the freight plan's time goes (median ms of {FREIGHT_REPEAT}, each step alone)"
    counts: dict[int, int] = {}
    medians: dict[str, dict[int, float]] = {"freight_plan_data (whole)": {}}
    wholes = medians["freight_plan_data (whole)"]
    for n_lines in FREIGHT_LINES:
        shipment = world.freight_shipment(n_lines)
        # As the freight panel and the API's freight-options action load it: sites joined in.
        shipment = Shipment.objects.select_related("origin", "destination").get(pk=shipment.pk)
        with CaptureQueriesContext(connection) as captured:
            plan = freight_plan_data(shipment)
        counts[n_lines] = len(captured)
        report.check(
            plan["recommendation"] is not None and plan["landed_cost"] is not None,
            f"freight plan of {n_lines:,} lines: no recommendation or no landed cost ({plan.get('message')})",
        )
        ready = max(shipment.ready_date, timezone.localdate())
        pieces = selectors.shipment_pieces(shipment)
        rates = selectors.lane_rates(shipment.origin.country, shipment.destination.country, ready)
        recommendation = freight_engine.recommend(pieces, rates, ready, shipment.required_by)
        options = freight_engine.freight_options(pieces, rates, ready, shipment.required_by)
        cost = recommendation.split.cost if recommendation.split else recommendation.option.cost
        lines = (
            ShipmentLine.objects.filter(shipment=shipment).order_by("line_number").values(*LINE_VALUES_FIELDS)
        )
        calls = {
            "freight_plan_data (whole)": lambda s=shipment: freight_plan_data(s),
            "shipment_pieces(): lines and parts to pieces": lambda s=shipment: selectors.shipment_pieces(s),
            "lane_rates()": lambda s=shipment, d=ready: selectors.lane_rates(
                s.origin.country, s.destination.country, d
            ),
            "freight_options() on pre-built pieces": lambda p=pieces, r=rates, s=shipment, d=ready: (
                freight_engine.freight_options(p, r, d, s.required_by)
            ),
            "recommend() on pre-built pieces": lambda p=pieces, r=rates, s=shipment, d=ready: (
                freight_engine.recommend(p, r, d, s.required_by)
            ),
            "landed_cost(): lines again, duty and taxes": lambda s=shipment, c=cost: selectors.landed_cost(
                s, c
            ),
            "jsonable() of the plan": lambda r=recommendation, o=options: (jsonable(r), jsonable(o)),
            "for comparison: values() of the lines": lambda q=lines: list(q.all()),
        }
        for call in calls.values():
            call()  # warm-up
        timings = round_robin(calls, repeat=FREIGHT_REPEAT)
        whole = timings["freight_plan_data (whole)"]
        engine = timings["recommend() on pre-built pieces"]
        values = timings["for comparison: values() of the lines"]
        report.row(
            title,
            lines=n_lines,
            pieces=len(pieces),
            queries=counts[n_lines],
            **{
                "plan JSON KB": len(json.dumps(plan)) / 1024,
                "freight_plan_data": str(whole),
                "recommend() alone": str(engine),
                "values() of the lines": str(values),
                "ratio to values()": f"{whole.median_ms / values.median_ms:.1f}x",
            },
        )
        wholes[n_lines] = whole.median_ms
        steps = {step: t.median_ms for step, t in timings.items() if step not in FREIGHT_NOT_STEPS}
        # The rest: the step-to-step glue in freight_plan, and what timing each step alone misses.
        rest = {"the rest": whole.median_ms - sum(steps.values())}
        for step, ms in {**steps, **rest, FREIGHT_NOT_STEPS[1]: values.median_ms}.items():
            medians.setdefault(step, {})[n_lines] = ms
        recommended = plan["recommendation"]
        chosen = "split" if recommended["split"] else recommended["option"]["mode"]
        report.note(
            f"freight plan of {n_lines:,} lines: recommends {chosen}, {len(plan['options'])} options, "
            f"landed cost {plan['landed_cost']['total_landed']} {plan['landed_cost']['currency']}"
        )
    largest = FREIGHT_LINES[-1]
    for step, by_lines in medians.items():
        cells: dict[str, Any] = {"step": step}
        cells.update({f"{n:,} lines": ms for n, ms in by_lines.items()})
        cells[f"share at {largest:,}"] = f"{by_lines[largest] / wholes[largest]:.0%}"
        report.row(steps_title, **cells)
    report.check(
        len(set(counts.values())) == 1,
        "freight_plan_data's queries grow with the lines: "
        + ", ".join(f"{n:,} lines: {q}" for n, q in counts.items()),
    )


def _gist(sql: str) -> str:
    sql = " ".join(sql.split())
    return sql[:70] + ("…" if len(sql) > 70 else "")


class _World:
    """The organisations, sites, parts and users, the shipments with their parties and lines, and
    the freight rates, tariff and destination tax of the freight plan's lane (TW → IN)."""

    def __init__(self) -> None:
        def org(kind: str, name: str, city: str, country: str) -> Organisation:
            return Organisation.objects.create(
                kind=kind, legal_name=name, address_line1="1 Bench Street", city=city, country=country
            )

        self.operator = org(OrganisationKind.OPERATOR, "Bench Operator Inc.", "Palo Alto", "US")
        self.supplier = org(OrganisationKind.SUPPLIER, "Bench Supplier Ltd", "Taoyuan", "TW")
        self.customer = org(OrganisationKind.CUSTOMER, "Bench Customer Pvt Ltd", "Chennai", "IN")
        self.forwarder = org(OrganisationKind.FREIGHT_FORWARDER, "Bench Forwarder Pte Ltd", "Singapore", "SG")
        self.coordinator = User.objects.create_user(
            "bench-coordinator", organisation=self.operator, role=Role.COORDINATOR
        )
        self.partner = User.objects.create_user(
            "bench-partner", organisation=self.forwarder, role=Role.PARTNER
        )

        def site(owner: Organisation, name: str, kind: str, city: str, country: str) -> Site:
            return Site.objects.create(owner=owner, name=name, kind=kind, city=city, country=country)

        self.origins = [
            site(self.supplier, "Bench factory Guishan", SiteKind.FACTORY, "Taoyuan", "TW"),
            site(self.operator, "Bench factory Zapopan", SiteKind.FACTORY, "Zapopan", "MX"),
        ]
        self.destinations = [
            site(self.operator, "Bench DC Siruseri", SiteKind.DATA_CENTRE, "Chennai", "IN"),
            site(self.operator, "Bench DC Jurong", SiteKind.DATA_CENTRE, "Singapore", "SG"),
        ]
        manufacturer = Manufacturer.objects.create(name="Bench Manufacturer", country="TW")
        self.parts = [self._part(manufacturer, *spec) for spec in PARTS]
        self.rack = self._part(manufacturer, *RACK)

        self.api: dict[str, APIClient] = {}
        self.browser: dict[str, Client] = {}
        for variant, user in (("coordinator", self.coordinator), ("partner", self.partner)):
            _, key = api_token_create(user=user, name=f"bench {variant}")
            api = APIClient()
            api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            self.api[variant] = api
            browser = Client()
            browser.force_login(user)
            self.browser[variant] = browser
        self.today = timezone.localdate()
        self.size = 0

    def _part(self, manufacturer, number, category, dims, kg, value, hs_code) -> Part:
        length, width, height = (Decimal(d) for d in dims)
        return Part.objects.create(
            owner=self.operator,
            manufacturer=manufacturer,
            part_number=number,
            name=f"Benchmark {category.label}",
            category=category,
            unit_weight_kg=Decimal(kg),
            length_cm=length,
            width_cm=width,
            height_cm=height,
            unit_value=Decimal(value),
            country_of_origin="TW",
            hs_code=hs_code,
            is_serialised=False,
        )

    # --- the clients ------------------------------------------------------------------------

    def get_api(self, variant: str, page: int, params: dict[str, str]) -> Any:
        query = {"page": page, "page_size": API_PAGE_SIZE, **params}
        return self._ok(self.api[variant].get(reverse("api:shipment-list"), query), page)

    def get_page(self, variant: str, page: int, params: dict[str, str]) -> Any:
        query = {"page": page, **params}
        return self._ok(self.browser[variant].get(reverse("shipments:shipment-list"), query), page)

    @staticmethod
    def _ok(response, page: int) -> Any:
        if response.status_code != 200:
            raise AssertionError(
                f"GET page {page} answered {response.status_code}: {response.content[:300]!r}"
            )
        return response

    # --- the shipments ----------------------------------------------------------------------

    def grow_to(self, size: int) -> None:
        for start in range(self.size, size, CHUNK):
            self._add_shipments(range(start, min(start + CHUNK, size)))
        self.size = size
        self._analyze()

    def _add_shipments(self, numbers: range) -> None:
        shipments = Shipment.objects.bulk_create(
            [self._shipment(i) for i in numbers], batch_size=SHIPMENT_BATCH
        )
        parties = []
        for i, shipment in zip(numbers, shipments, strict=True):
            parties.append(
                ShipmentParty(shipment=shipment, role=PartyRole.SHIPPER, organisation=self.supplier)
            )
            parties.append(
                ShipmentParty(shipment=shipment, role=PartyRole.CONSIGNEE, organisation=self.customer)
            )
            if i % FORWARDER_EVERY == 0:
                parties.append(
                    ShipmentParty(
                        shipment=shipment, role=PartyRole.FREIGHT_FORWARDER, organisation=self.forwarder
                    )
                )
        ShipmentParty.objects.bulk_create(parties, batch_size=LINE_BATCH)
        lines = [
            self._line(shipment, number, self.parts[(i + number) % len(self.parts)])
            for i, shipment in zip(numbers, shipments, strict=True)
            for number in range(1, LINES_PER_SHIPMENT + 1)
        ]
        ShipmentLine.objects.bulk_create(lines, batch_size=LINE_BATCH)

    def _shipment(self, i: int) -> Shipment:
        # Not i % 20 alone: the partner's every-10th shipments would all be drafts or in transit.
        status = STATUSES[(i + i // FORWARDER_EVERY) % len(STATUSES)]
        ready = self.today + dt.timedelta(days=i % 90 - 60)
        required_by = ready + dt.timedelta(days=21)
        eta = None
        if status in (ShipmentStatus.BOOKED, ShipmentStatus.IN_TRANSIT, ShipmentStatus.AT_CUSTOMS):
            eta = required_by + dt.timedelta(days=i % 7 - 4)  # three days in seven late
        elif status in (ShipmentStatus.CLEARED, ShipmentStatus.DELIVERED):
            eta = required_by - dt.timedelta(days=2)
        on_hold = status == ShipmentStatus.ON_HOLD
        return Shipment(
            reference=f"SHP-2026-{i:06d}",
            owner=self.operator,
            created_by=self.coordinator,
            origin=self.origins[i % len(self.origins)],
            destination=self.destinations[(i // 2) % len(self.destinations)],
            incoterm="DAP",
            incoterm_place="Chennai, Siruseri DC1",
            mode="air",
            ready_date=ready,
            required_by=required_by,
            currency="USD",
            status=status,
            held_from=ShipmentStatus.IN_TRANSIT if on_hold else "",
            hold_kind="customs" if on_hold else "",
            hold_reason="Examination by customs" if on_hold else "",
            eta=eta,
        )

    @staticmethod
    def _line(shipment: Shipment, number: int, part: Part, quantity: int | None = None) -> ShipmentLine:
        return ShipmentLine(
            shipment=shipment,
            line_number=number,
            part=part,
            description=part.name,
            quantity=quantity or 1 + number % 4,
            unit_value=part.unit_value,
            country_of_origin=part.country_of_origin,
            hs_code=part.hs_code,
        )

    @staticmethod
    def _analyze() -> None:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")  # as autovacuum would, before the planner meets the new rows

    # --- the freight plan -------------------------------------------------------------------

    def add_rates(self) -> None:
        valid = {
            "valid_from": self.today - dt.timedelta(days=365),
            "valid_to": self.today + dt.timedelta(days=365),
        }
        lane = {"origin_country": "TW", "destination_country": "IN", "currency": "USD"}
        FreightRate.objects.create(
            **lane,
            **valid,
            mode="air",
            service="Air general cargo",
            carrier="Bench Air Cargo",
            price_per_kg=Decimal("4.20"),
            minimum_charge=Decimal("250"),
            transit_days=5,
        )
        FreightRate.objects.create(
            **lane,
            **valid,
            mode="ocean",
            service="Ocean FCL/LCL",
            carrier="Bench Line",
            price_20gp=Decimal("1400"),
            price_40gp=Decimal("2200"),
            price_40hc=Decimal("2400"),
            price_per_cbm=Decimal("65"),
            price_per_tonne=Decimal("45"),
            minimum_charge=Decimal("150"),
            transit_days=18,
        )
        for prefix, rate in (
            ("8471", "0"),
            ("847330", "0"),
            ("8517", "0.20"),
            ("8544", "0.10"),
            ("9403", "0.25"),
        ):
            TariffRate.objects.create(destination_country="IN", hs_prefix=prefix, duty_rate=Decimal(rate))
        DestinationTax.objects.create(
            country="IN",
            valuation_basis="CIF",
            vat_name="IGST",
            vat_rate=Decimal("0.18"),
            levy_on_duty_rate=Decimal("0.10"),
            brokerage_fee=Decimal("350"),
            handling_fee=Decimal("120"),
        )

    def freight_shipment(self, n_lines: int) -> Shipment:
        """A draft TW → IN shipment, ready in three days and required in four weeks, of `n_lines`
        lines of the six parts (and a rack every 50th line), not yet packed."""
        ready = self.today + dt.timedelta(days=3)
        shipment = Shipment.objects.create(
            reference=f"SHP-2026-F{n_lines:05d}",
            owner=self.operator,
            created_by=self.coordinator,
            origin=self.origins[0],
            destination=self.destinations[0],
            incoterm="DAP",
            incoterm_place="Chennai, Siruseri DC1",
            mode="air",
            ready_date=ready,
            required_by=ready + dt.timedelta(days=25),
            currency="USD",
            insurance_value=Decimal("1000000.00"),
        )
        lines = [
            self._line(
                shipment, number, self.rack if number % 50 == 0 else self.parts[number % len(self.parts)]
            )
            for number in range(1, n_lines + 1)
        ]
        ShipmentLine.objects.bulk_create(lines, batch_size=LINE_BATCH)
        self._analyze()
        return shipment
