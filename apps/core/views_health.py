"""`/healthz/`: is this web process ready to serve, and what of its infrastructure answers.

Readiness of the web tier, reported per dependency:

- `database`: without it nothing works → 503, and the orchestrator stops sending traffic here.
- `broker`: without it reads and state changes still work (their tasks are recorded as owed and
  sent by the outbox sweep later) → 200 with `"status": "degraded"`, so that a Redis outage does
  not take the web tier down with it; monitoring alerts on `degraded` and on `tasks_owed`.

Each check gives up within about a second. Details go to the log, not to the (public) answer.
"""

import logging

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

logger = logging.getLogger(__name__)

BROKER_TIMEOUT = 1.0
HEALTH_PATH = "/healthz/"


def _database_ok() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _broker_state() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "not used (tasks run in-process)"
    from kombu import Connection

    try:
        with Connection(
            settings.CELERY_BROKER_URL,
            connect_timeout=BROKER_TIMEOUT,
            transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS,
        ) as broker:
            broker.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT)
    except Exception as exc:  # noqa: BLE001 — any failure means "unreachable" here
        logger.warning("Health check: broker unreachable (%s: %s)", type(exc).__name__, exc)
        return "unreachable"
    return "ok"


def health(request):
    """Readiness: 200 while the database answers (broker down: "degraded"), 503 when it does not."""
    body = {"status": "ok", "database": "ok", "broker": _broker_state()}
    try:
        _database_ok()
        from .models import TaskRecord, TaskState

        body["tasks_owed"] = TaskRecord.objects.filter(state=TaskState.OWED).count()
    except Exception as exc:  # noqa: BLE001
        logger.error("Health check: database unreachable (%s: %s)", type(exc).__name__, exc)
        body["database"] = "unreachable"
        body["status"] = "unavailable"
        return JsonResponse(body, status=503)
    if body["broker"] == "unreachable":
        body["status"] = "degraded"
    return JsonResponse(body)


class HealthCheckMiddleware:
    """Answers `/healthz/` before anything reads the Host header.

    The container health check calls `http://127.0.0.1:8000/healthz/`, which `ALLOWED_HOSTS`
    (the real host name) refuses with a 400 in CommonMiddleware. The answer does not depend on
    the host (no absolute URL, no cookie, no redirect), so serving it whatever the Host header is
    safe; every other path still goes through host validation. Placed right after
    SecurityMiddleware, whose HTTPS redirect exempts this path (SECURE_REDIRECT_EXEMPT)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path == HEALTH_PATH and request.method in ("GET", "HEAD"):
            return health(request)
        return self.get_response(request)
