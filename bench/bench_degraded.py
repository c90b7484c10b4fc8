"""How fast a request answers while Redis (cache or broker) does not, beside the request with it up.

Three requests, each timed with its infrastructure up and with it unreachable (nothing listens on
127.0.0.1 port 1, so a connection is refused at once; a host that drops packets instead is bounded
by the configured timeouts, which the test suite checks as configuration):

- `/healthz/` (the container's health check) with the broker down: it must answer, and say
  "degraded", well inside the orchestrator's probe timeout;
- the parts list of the API with the cache down: the throttles read the cache on every request
  and fail open;
- `/healthz/` with everything up, the trivial baseline.

The test suite asserts what these requests answer (200, "degraded", the warning that names the
address); the time they take is measured here, where a busy machine does not fail a test.

Correctness (fails the run): every request answers 200; the degraded health check says
"degraded" and "unreachable"; the API with the cache down still lists the parts.
"""

from __future__ import annotations

import logging

from django.test import Client
from django.test.utils import override_settings
from rest_framework.test import APIClient

from apps.accounts.models import Organisation, OrganisationKind, Role, User
from bench.harness import Report, api_client_for, measure

REPEAT = 15
CLOSED_PORT = "redis://127.0.0.1:1/0"  # nothing listens on port 1: connections are refused


def _api_client() -> APIClient:
    operator = Organisation.objects.create(
        kind=OrganisationKind.OPERATOR,
        legal_name="Bench Operator Inc.",
        address_line1="1 Bench Street",
        city="Palo Alto",
        country="US",
    )
    user = User.objects.create_user("bench-coordinator", organisation=operator, role=Role.COORDINATOR)
    return api_client_for(user)


def run(report: Report) -> None:
    from config.settings.base import redis_cache

    web, api = Client(), _api_client()
    for call in (lambda: web.get("/healthz/"), lambda: api.get("/api/v1/parts/")):
        call()  # warm: the first request imports and builds a lot

    up_health = measure(lambda: web.get("/healthz/"), repeat=REPEAT)
    up_api = measure(lambda: api.get("/api/v1/parts/"), repeat=REPEAT)

    with override_settings(CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL=CLOSED_PORT):
        answer = web.get("/healthz/")
        report.check(answer.status_code == 200, f"/healthz/, broker down, answered {answer.status_code}")
        body = answer.json()
        report.check(
            body.get("status") == "degraded" and body.get("broker") == "unreachable",
            f"/healthz/ with the broker down said {body}",
        )
        down_health = measure(lambda: web.get("/healthz/"), repeat=REPEAT)

    # Django rebuilds its cache backends when CACHES changes (the setting_changed signal).
    # Each ignored cache error is logged with its traceback (tested in the suite); not here, 15 times.
    quiet = logging.getLogger("django_redis")
    level, quiet.level = quiet.level, logging.CRITICAL
    with override_settings(CACHES={"default": redis_cache(CLOSED_PORT)}):
        answer = api.get("/api/v1/parts/")
        report.check(answer.status_code == 200, f"the parts API, cache down, answered {answer.status_code}")
        down_api = measure(lambda: api.get("/api/v1/parts/"), repeat=REPEAT)
    quiet.setLevel(level)

    rows = (
        ("/healthz/, everything up (baseline)", up_health, up_health),
        ("/healthz/, broker unreachable", down_health, up_health),
        ("GET /api/v1/parts/, cache up", up_api, up_health),
        ("GET /api/v1/parts/, cache unreachable", down_api, up_api),
    )
    for request, timing, beside in rows:
        report.row(
            request=request,
            **{
                "median ms": timing.median_ms,
                "min ms": timing.min_ms,
                "× its baseline": f"{timing.median_ms / beside.median_ms:.2f}",
            },
        )
    report.note(
        f"{REPEAT} requests each with Django's test client; the broker-down health check against the "
        "health check with everything up, the cache-down API request against the same request with the "
        "cache up."
    )
