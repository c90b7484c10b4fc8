"""Listing 10,000 parts through /api/v1/parts/ (100 per page) beside a plain values() query of the same rows.

Two sizes (1,000 and 10,000 parts) and two callers: an operator coordinator, who sees every part,
and a supplier's partner user, whose queryset is scoped to the operator's master catalogue plus
the supplier's own parts (1 % of the rows belong to another supplier and stay hidden from it).

Correctness (fails the run): the SQL queries per page request are the same at page 1, a middle
page and the last page, at both sizes; each page holds the same parts, in the same order, as the
values() query; the reported count is the number of visible parts.

Timing (printed only): median and min wall time per page of `GET /api/v1/parts/?page=N&page_size=100`
through DRF's APIClient (the whole Django stack: middleware, token auth, throttle, filters,
pagination with its COUNT, serializer, JSON), over requests spread across all pages; beside it the
same 100 rows read with `Part.objects.order_by(...).values(...)[offset:offset + 100]`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.catalog.api.views import PartViewSet
from apps.catalog.models import Manufacturer, Part, PartCategory
from bench.harness import Report, api_client_for, interleaved, round_robin

SIZES = (1_000, 10_000)
PAGE_SIZE = 100
SAMPLED_PAGES = 30  # requests per round, spread evenly from the first page to the last
ROUNDS = 2  # so each figure is the median of SAMPLED_PAGES * ROUNDS timed requests
WARMUP = 5
BREAKDOWN_REPEAT = 21
BATCH = 1_000
MANUFACTURERS = ("Arista", "Broadcom", "Cisco", "Dell", "NVIDIA", "Supermicro")
CATEGORIES = list(PartCategory)
# What the serializer outputs, as columns: the baseline reads the same data without the stack.
VALUES_FIELDS = (
    "id",
    "owner_id",
    "manufacturer__name",
    "part_number",
    "name",
    "description",
    "category",
    "unit_weight_kg",
    "length_cm",
    "width_cm",
    "height_cm",
    "unit_value",
    "currency",
    "country_of_origin",
    "hs_code",
    "is_serialised",
    "contains_lithium_batteries",
    "power_draw_w",
    "rack_units",
    "port_count",
    "port_speed_gbps",
    "gpus_per_server",
    "accelerator_id",
    "tpp",
    "die_area_mm2",
    "dense_tops",
    "attributes",
    "is_active",
    "created_at",
    "updated_at",
)


def run(report: Report) -> None:
    world = _World()
    queries: dict[str, list[tuple[int, int, int]]] = {"coordinator": [], "partner": []}
    first_queries: dict[str, list[str]] = {}
    for size in SIZES:
        world.grow_to(size)
        for variant, user in (("coordinator", world.coordinator), ("partner", world.partner)):
            client = world.clients[variant]
            visible = Part.objects.visible_to(user)
            expected = size if variant == "coordinator" else size - world.hidden_from_partner
            last = -(-expected // PAGE_SIZE)
            found = visible.count()
            report.check(
                found == expected,
                f"{variant} at {size:,}: visible_to() gives {found:,} parts, expected {expected:,}",
            )
            baseline = visible.order_by("manufacturer__name", "part_number").values(*VALUES_FIELDS)

            # (a) queries per page, at the first, a middle and the last page; correct contents.
            for page in (1, (last + 1) // 2, last):
                _get(client, page)  # untimed warm-up; also keeps the token's last_used_at write away
                with CaptureQueriesContext(connection) as captured:
                    response = _get(client, page)
                queries[variant].append((size, page, len(captured)))
                first_queries.setdefault(variant, [q["sql"] for q in captured.captured_queries])
                body = response.json()
                offset = (page - 1) * PAGE_SIZE
                want = [row["id"] for row in baseline[offset : offset + PAGE_SIZE]]
                report.check(
                    body["count"] == expected,
                    f"{variant} at {size:,}: the API says count={body['count']:,}, expected {expected:,}",
                )
                report.check(
                    [p["id"] for p in body["results"]] == want,
                    f"{variant} at {size:,}, page {page}: the API's parts differ from the values() query's",
                )
                if variant == "partner":
                    hidden = [p["id"] for p in body["results"] if p["owner"] == world.other_supplier.pk]
                    report.check(
                        not hidden, f"partner at {size:,}: the API shows another supplier's parts {hidden}"
                    )

            # (b) API time per page and (c) the values() baseline, interleaved page by page.
            pages = [1 + (k * (last - 1)) // (SAMPLED_PAGES - 1) for k in range(SAMPLED_PAGES)] * ROUNDS
            for page in pages[:WARMUP]:
                _get(client, page)
                list(baseline[(page - 1) * PAGE_SIZE : page * PAGE_SIZE])
            api_calls, values_calls = [], []
            for page in pages:
                api_calls.append(lambda page=page, c=client: _get(c, page))
                offset = (page - 1) * PAGE_SIZE
                values_calls.append(lambda o=offset, qs=baseline: list(qs[o : o + PAGE_SIZE]))
            # cache.clear() before each call, untimed: DRF's throttle keeps its history in the cache.
            api, values = interleaved(api_calls, values_calls, setup=cache.clear)

            distinct = sorted({n for s, _, n in queries[variant] if s == size})
            cells = {
                "benchmark": f"parts_api {variant}",
                "rows": expected,
                "queries/page": ", ".join(str(n) for n in distinct),
                "API ms/page (median, min)": str(api),
                "values() ms/page (median, min)": str(values),
                "ratio": f"{api.median_ms / values.median_ms:.1f}x",
            }
            report.row(**cells)

    for variant, observed in queries.items():
        if len({n for _, _, n in observed}) != 1:
            detail = "; ".join(f"{size:,} rows page {page}: {n}" for size, page, n in observed)
            report.check(False, f"{variant}: the queries per page are not constant ({detail})")
    _breakdown(report, world)
    for variant, sqls in first_queries.items():
        report.note(f"{variant} page 1 runs {len(sqls)} queries: " + " | ".join(_gist(s) for s in sqls))
    report.note(
        f"{SAMPLED_PAGES * ROUNDS} timed requests per row, spread over all pages; the API time includes "
        "Django's test client, middleware, token auth, throttle, COUNT(*) and JSON rendering."
    )


def _get(client: APIClient, page: int) -> Any:
    response = client.get(reverse("api:part-list"), {"page": page, "page_size": PAGE_SIZE})
    if response.status_code != 200:
        raise AssertionError(f"GET page {page} answered {response.status_code}: {response.content[:300]!r}")
    return response


def _breakdown(report: Report, world: _World) -> None:
    """Where a coordinator's request goes, at the largest size: each step the view takes, timed alone."""
    client = world.clients["coordinator"]
    # What PartViewSet.list() runs: its queryset, scoped, ordered by OrderingFilter's default.
    view_qs = PartViewSet.queryset.all().visible_to(world.coordinator).order_by(*PartViewSet.ordering)
    context = {"request": Request(APIRequestFactory().get(reverse("api:part-list")))}
    serializer = PartViewSet.serializer_class
    last = -(-world.size // PAGE_SIZE)
    pages = (1, (last + 1) // 2, last)
    steps = [
        "whole request",
        "COUNT(*) for the paginator",
        "page SELECT to 100 model instances",
        "  of which SQL and fetch alone",
        "serializer .data",
        "JSON rendering",
        "the rest: test client, middleware, auth, throttle",
        "for comparison: values() of the page",
    ]
    medians: dict[str, dict[int, float]] = {step: {} for step in steps}
    for page in pages:
        offset = (page - 1) * PAGE_SIZE
        page_qs = view_qs[offset : offset + PAGE_SIZE]
        sql, params = page_qs.query.sql_with_params()
        instances = list(page_qs)
        data = serializer(instances, many=True, context=context).data
        calls = {
            "whole request": lambda p=page: _get(client, p),
            "COUNT(*) for the paginator": view_qs.count,
            "page SELECT to 100 model instances": lambda q=page_qs: list(q.all()),
            "  of which SQL and fetch alone": lambda s=sql, p=params: _fetch(s, p),
            "serializer .data": lambda i=instances: serializer(i, many=True, context=context).data,
            "JSON rendering": lambda d=data: JSONRenderer().render(d),
            "for comparison: values() of the page": (
                lambda o=offset: list(view_qs.values(*VALUES_FIELDS)[o : o + PAGE_SIZE])
            ),
        }
        for call in calls.values():
            call()  # warm-up
        for step, timing in round_robin(calls, repeat=BREAKDOWN_REPEAT, setup=cache.clear).items():
            medians[step][page] = timing.median_ms
        parts = (
            "COUNT(*) for the paginator",
            "page SELECT to 100 model instances",
            "serializer .data",
            "JSON rendering",
        )
        accounted = sum(medians[step][page] for step in parts)
        medians["the rest: test client, middleware, auth, throttle"][page] = (
            medians["whole request"][page] - accounted
        )
    title = (
        f"where a coordinator's request goes at {world.size:,} rows "
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


def _gist(sql: str) -> str:
    sql = " ".join(sql.split())
    return sql[:70] + ("…" if len(sql) > 70 else "")


class _World:
    """An operator, two suppliers, a coordinator and a partner with API tokens, and the parts."""

    def __init__(self) -> None:
        address = {"address_line1": "1 Bench Street", "city": "Palo Alto", "country": "US"}
        self.operator = Organisation.objects.create(
            kind=OrganisationKind.OPERATOR, legal_name="Bench Operator Inc.", **address
        )
        self.supplier = Organisation.objects.create(
            kind=OrganisationKind.SUPPLIER, legal_name="Bench Supplier Ltd", **address
        )
        self.other_supplier = Organisation.objects.create(
            kind=OrganisationKind.SUPPLIER, legal_name="Bench Other Supplier Ltd", **address
        )
        self.manufacturers = [Manufacturer.objects.create(name=name, country="US") for name in MANUFACTURERS]
        self.coordinator = User.objects.create_user(
            "bench-coordinator", organisation=self.operator, role=Role.COORDINATOR
        )
        self.partner = User.objects.create_user(
            "bench-partner", organisation=self.supplier, role=Role.PARTNER
        )
        self.clients: dict[str, APIClient] = {}
        for variant, user in (("coordinator", self.coordinator), ("partner", self.partner)):
            self.clients[variant] = api_client_for(user, f"bench {variant}")
        self.size = 0
        self.hidden_from_partner = 0
        self.accelerator_id: int | None = None

    def owner_of(self, i: int) -> Organisation:
        # 98 % master catalogue, 1 % the partner's own parts, 1 % another supplier's (hidden from it).
        return {1: self.supplier, 2: self.other_supplier}.get(i % 100, self.operator)

    def grow_to(self, size: int) -> None:
        if self.accelerator_id is None:
            self.accelerator_id = Part.objects.bulk_create([self.part(0)])[0].pk
            self.size = 1
        parts = [self.part(i) for i in range(self.size, size)]
        Part.objects.bulk_create(parts, batch_size=BATCH)
        self.hidden_from_partner += sum(1 for i in range(self.size, size) if i % 100 == 2)
        self.size = size
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")  # as autovacuum would, before the planner meets 10,000 new rows

    def part(self, i: int) -> Part:
        category = CATEGORIES[i % len(CATEGORIES)]
        accelerator = category == PartCategory.ACCELERATOR
        server = category == PartCategory.SERVER
        return Part(
            owner=self.owner_of(i),
            manufacturer=self.manufacturers[i % len(self.manufacturers)],
            part_number=f"BP-{i:06d}",
            name=f"Benchmark {category.label} {i}",
            description="A part made up for the benchmark, with a sentence of description.",
            category=category,
            unit_weight_kg=Decimal("14.500"),
            length_cm=Decimal("60.00"),
            width_cm=Decimal("45.00"),
            height_cm=Decimal("10.00"),
            unit_value=Decimal(25000 + i % 1000) / 100,
            currency="USD",
            country_of_origin="MX",
            hs_code="851762",
            power_draw_w=100 + i % 1500,
            rack_units=1 + i % 4 if server else None,
            gpus_per_server=8 if server else None,
            accelerator_id=self.accelerator_id if server else None,
            die_area_mm2=Decimal("814.00") if accelerator else None,
            dense_tops={"8": "1979", "16": "989.5"} if accelerator else {},
            attributes={"memory_gb": 80} if accelerator else {},
        )
