"""Server time of every main page each role may see, on the demo data (target: median under 310 ms).

The demo (`manage.py load_demo`) is loaded into the fresh test database. Then, signed in as each
demo role's user (coordinator, compliance officer, warehouse operator, administrator, and the
supplier as the partner), every main page the role's capabilities open is requested with
Django's test client: the dashboard, the lists, the "[Demo B]" consolidation's page, its
documents and compliance pages, a part of it, the licences, the review queue, the API tokens and
the API docs page.

Server time is the wall time of the request inside the test client (the middleware emits no
Server-Timing header): the whole Django stack, session and template rendering included, no
network or browser. One untimed warm-up request per page (it fills the caches a running server
would have warm, the API schema's among them), then `REPEAT` timed rounds, the pages taking
turns. The SQL query count is that of the warm-up's twin, a second untimed request.

Correctness (fails the run): every page answers 200 to each role it is requested for, and the
query count of a page does not change between two requests (nothing per request grows).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable

from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.accounts.models import User
from apps.shipments.models import Shipment
from bench.harness import Report, round_robin

REPEAT = 7
TARGET_MS = 310.0
# The demo user of each role (apps/accounts/demo.py); the supplier stands for the partners.
ROLE_USERS = {
    "coordinator": "coordinator",
    "compliance_officer": "compliance",
    "warehouse_operator": "warehouse",
    "admin": "admin",
    "partner": "supplier",
}
DEMO_SHIPMENT = "[Demo B]"  # the consolidation: legs, packages, events, documents, a check


def _pages(shipment: Shipment, part_pk: int) -> list[tuple[str, str, str]]:
    """(page, address, capability that opens it)."""
    ref = shipment.reference
    return [
        ("dashboard", reverse("dashboard"), "dashboard.view"),
        ("shipments", reverse("shipments:shipment-list"), "shipments.view"),
        ("shipment detail", reverse("shipments:shipment-detail", args=[ref]), "shipments.view"),
        ("shipment documents", reverse("documents:shipment", args=[ref]), "documents.view"),
        ("shipment compliance", reverse("compliance:shipment", args=[ref]), "compliance.view"),
        ("parts", reverse("catalog:part-list"), "catalog.view"),
        ("part detail", reverse("catalog:part-detail", args=[part_pk]), "catalog.view"),
        ("organisations", reverse("accounts:organisation-list"), "organisations.view"),
        ("sites", reverse("shipments:site-list"), "sites.view"),
        ("freight rates", reverse("shipments:rate-list"), "freight.rates.view"),
        ("licences", reverse("compliance:licences"), "compliance.view"),
        ("screening", reverse("compliance:lists"), "compliance.view"),
        ("review queue", reverse("compliance:queue"), "compliance.review"),
        ("API tokens", reverse("accounts:token-list"), "tokens.manage"),
        ("API docs", reverse("api-docs"), "dashboard.view"),
    ]


def run(report: Report) -> None:
    load_before = os.getloadavg()
    call_command("load_demo", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
    shipment = Shipment.objects.get(instructions__startswith=DEMO_SHIPMENT)
    part_pk = shipment.lines.order_by("line_number").values_list("part_id", flat=True).first()
    pages = _pages(shipment, part_pk)

    medians: dict[str, dict[str, float]] = {}  # role → page → median ms
    queries: dict[str, dict[str, int]] = {}
    for role, username in ROLE_USERS.items():
        user = User.objects.get(username=username)
        client = Client()
        client.force_login(user)
        calls: dict[str, Callable] = {}
        queries[role] = {}
        for page, url, capability in pages:
            if not user.can(capability):
                continue
            first = client.get(url)  # warm-up, untimed
            answered = f"{role}: {page} ({url}) answered {first.status_code}"
            if not report.check(first.status_code == 200, answered):
                continue
            with CaptureQueriesContext(connection) as captured:
                client.get(url)
            with CaptureQueriesContext(connection) as again:
                client.get(url)
            report.check(
                len(captured) == len(again),
                f"{role}: {page}: {len(captured)} then {len(again)} queries for the same request",
            )
            queries[role][page] = len(captured)
            calls[page] = lambda url=url, client=client: client.get(url)
        timed = round_robin(calls, repeat=REPEAT)
        medians[role] = {page: timing.median_ms for page, timing in timed.items()}
    load_after = os.getloadavg()

    for page, _url, _capability in pages:
        row: dict[str, str] = {"page": page}
        for role in ROLE_USERS:
            if page in medians[role]:
                ms = medians[role][page]
                flag = " !" if ms > TARGET_MS else ""
                row[role] = f"{ms:.0f} ({queries[role][page]}){flag}"
            else:
                row[role] = "—"
        report.row(**row)
    everything = [ms for by_page in medians.values() for ms in by_page.values()]
    summary = "per role and overall: median, slowest page (ms)"
    for role, by_page in medians.items():
        slowest = max(by_page, key=by_page.get)
        report.row(
            summary,
            role=role,
            pages=len(by_page),
            **{
                "median ms": f"{statistics.median(by_page.values()):.0f}",
                "slowest": f"{slowest} {by_page[slowest]:.0f}",
                "over 310 ms": ", ".join(p for p, ms in by_page.items() if ms > TARGET_MS) or "none",
            },
        )
    report.row(
        summary,
        role="overall",
        pages=len(everything),
        **{
            "median ms": f"{statistics.median(everything):.0f}",
            "slowest": f"{max(everything):.0f}",
            "over 310 ms": str(sum(ms > TARGET_MS for ms in everything)),
        },
    )
    report.note(
        f"cells: median ms of {REPEAT} requests (SQL queries per request); '!' over {TARGET_MS:.0f} ms; "
        "'—' a page the role may not open (not in its menu)."
    )
    report.note(f"the demo shipment: {shipment.reference} ({DEMO_SHIPMENT}); the part: #{part_pk}")
    report.note(
        "load average (1, 5, 15 min) before loading the demo: "
        + ", ".join(f"{x:.2f}" for x in load_before)
        + "; after the last request: "
        + ", ".join(f"{x:.2f}" for x in load_after)
    )
