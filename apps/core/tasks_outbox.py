"""The outbox: a state change that needs a background task records it as owed in its own
transaction, and the task is handed to the broker only after the commit.

    enqueue_on_commit("compliance.run_check", kwargs={...}, kind="compliance check", actor=user, ...)

- The `TaskRecord` (state *owed*) commits or rolls back with the state change: no task is sent
  for a change that did not happen, and no committed change loses its task.
- After the commit the task is published with short timeouts and no retry (settings: a dead
  broker fails within a second), then marked *sent*. A failure leaves it owed and is logged.
- `send_owed_tasks` (Celery beat, every minute, and `manage.py send_owed_tasks`) sends what is
  still owed, and counts every owed task. A message sent twice (a sweep racing the request that
  made the record, past the grace period) runs the work once: a worker claims the record before
  running it (`apps.core.task_lease`).
- The status a user reads (`task_progress`) comes from the record, which workers keep up to date
  (`apps.core.task_base`, `apps.core.celery_signals`): no result-backend read, so it answers
  while Redis is down, and it says when a task is owed, queued or stalled.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from typing import Any, NamedTuple

from celery import Task, current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules

from . import task_lease
from .models import TaskRecord, TaskState

logger = logging.getLogger(__name__)

# The request that made a record sends it within a second or two; the sweep leaves it that long.
SWEEP_GRACE = dt.timedelta(seconds=30)

QUEUED_MESSAGE = "Queued, waiting for the background worker."
OWED_MESSAGE = (
    "Queued, waiting for the background worker: the task queue cannot be reached just now; "
    "the task is recorded and will be sent as soon as it can."
)
STALLED_MESSAGE = "Stalled — the worker may have stopped; run it again."


def enqueue_on_commit(
    task: str | Task,
    *,
    kwargs: dict[str, Any],
    kind: str,
    actor=None,
    object_repr: str = "",
    object_url: str = "",
    task_id: str | None = None,
) -> TaskRecord:
    """Record `task(**kwargs)` as owed in the current transaction and send it once that commits.

    Returns the record; its `task_id` is what the caller polls (`/api/v1/tasks/{id}/`). Running
    again work that stalled (the same task with the same arguments, its lease run out) closes the
    stalled record, so the broker's redelivery of it does nothing; if that redelivery is running
    it already, its record is returned and nothing new is queued (`task_lease.stalled_twin`).

    `task` is the task's registered name (`"documents.generate"`) or the task itself. Services
    pass the name: the tasks module imports the services, so a service never imports it back."""
    if isinstance(task, str):
        task = task_named(task)
    task_id = task_id or str(uuid.uuid4())
    running = task_lease.stalled_twin(task.name, kwargs, rerun_task_id=task_id)
    if running is not None:
        return running
    record = TaskRecord.objects.create(
        task_id=task_id,
        kind=kind,
        user=actor,
        organisation=getattr(actor, "organisation", None),
        object_repr=object_repr[:200],
        object_url=object_url[:300],
        task_name=task.name,
        kwargs=kwargs,
        state=TaskState.OWED,
        time_limit=task.time_limit or settings.CELERY_TASK_TIME_LIMIT,
    )
    # robust: whatever happens while sending, the committed change stands and the record says so.
    transaction.on_commit(lambda: send(record, task=task), robust=True)
    return record


def publish(task, *, kwargs: dict[str, Any], task_id: str) -> None:
    """Hand the task to the broker once, without retrying (the outbox retries later). Raises only
    when the broker (or result store) cannot be reached.

    Eager (`make run`, tests) the task runs here; its failure is on its record, not raised: it is
    not a failure to deliver."""
    if task.app.conf.task_always_eager:
        task.apply(kwargs=kwargs, task_id=task_id, throw=False)
        return
    task.apply_async(kwargs=kwargs, task_id=task_id, retry=False)


def send(record: TaskRecord, *, task=None) -> bool:
    """Send one owed task; True when the broker took it (or, eager, when it ran)."""
    task = task or task_named(record.task_name)
    try:
        publish(task, kwargs=record.kwargs, task_id=record.task_id)
    except Exception as exc:  # noqa: BLE001 — whatever the broker says, the task stays owed
        TaskRecord.objects.filter(pk=record.pk).update(
            send_attempts=F("send_attempts") + 1, send_error=f"{type(exc).__name__}: {exc}"[:500]
        )
        logger.warning(
            "Task %s (%s, %s) is owed: the broker is unreachable (%s: %s); the sweep will send it.",
            record.task_id, record.task_name, record.object_repr or "-", type(exc).__name__, exc,
        )  # fmt: skip
        return False
    _mark_sent(record)
    return True


def _mark_sent(record: TaskRecord) -> None:
    # A worker (or an eager run) may already have started or finished it: never move it back.
    TaskRecord.objects.filter(pk=record.pk).update(
        state=Case(When(state=TaskState.OWED, then=Value(TaskState.SENT)), default=F("state")),
        sent_at=timezone.now(),
        send_attempts=F("send_attempts") + 1,
        send_error="",
    )


def task_named(name: str) -> Task:
    """The registered task called `name` (as in `@shared_task(name=...)`); LookupError if none."""
    task = _task(name)
    if task is None:
        raise LookupError(f"No task named {name!r}.")
    return task


def _task(name: str) -> Task | None:
    # The project's Celery app (config/celery.py) is the current one: it is made when Django reads
    # its settings, and `shared_task` binds every task to it the same way. Core never imports config.
    if name not in current_app.tasks:
        # The installed apps' `tasks` modules, imported as Django's own autodiscovery does. Not
        # Celery's `loader.import_default_modules()`: that is the worker's start-up, which runs
        # `django.setup()` again and so re-applies LOGGING in a running web process.
        autodiscover_modules("tasks")
    return current_app.tasks.get(name)


class Sweep(NamedTuple):
    sent: int
    owed: int  # every task still owed, those too recent to send included
    broker_down: bool = False


def send_owed_tasks(*, grace: dt.timedelta = SWEEP_GRACE, limit: int = 500) -> Sweep:
    """Send the owed tasks, oldest first: those whose own send failed at once, the others once
    owed for longer than `grace` (until then the request that made them is still sending them)."""
    owed = TaskRecord.objects.filter(state=TaskState.OWED)
    due = owed.filter(Q(send_attempts__gt=0) | Q(created_at__lte=timezone.now() - grace))
    sent, broker_down = 0, False
    for record in due.order_by("created_at")[:limit]:
        task = _task(record.task_name)
        if task is None:  # renamed or removed since: say so instead of retrying forever
            TaskRecord.objects.filter(pk=record.pk).update(
                state=TaskState.FAILED, error=f"No task named {record.task_name!r} exists any more."
            )
            logger.error("Owed task %s names no task: %r", record.task_id, record.task_name)
        elif send(record, task=task):
            sent += 1
        else:
            broker_down = True
            break  # the rest wait for the next sweep
    remaining = owed.count()
    if sent or broker_down:
        logger.info("Outbox sweep: %d owed task(s) sent, %d still owed.", sent, remaining)
    return Sweep(sent, remaining, broker_down)


# --- what the user reads ------------------------------------------------------------------------


def owed_messages(object_repr: str) -> list[str]:
    """One sentence per task about `object_repr` still owed (after its request tried to send it)."""
    records = TaskRecord.objects.filter(object_repr=object_repr, state=TaskState.OWED).order_by("created_at")
    return [f"The {r.kind} is {OWED_MESSAGE[:1].lower()}{OWED_MESSAGE[1:]}" for r in records]


def is_stalled(record: TaskRecord, now: dt.datetime | None = None) -> bool:
    """Started, and its lease has run out: no worker can still be running it (its worker renews
    the lease while it runs, and the time limit would have killed it), so it died with its worker
    (OOM, node loss). A record started before leases existed: no sign of life for longer than its
    time limit."""
    if record.state != TaskState.STARTED:
        return False
    now = now or timezone.now()
    if record.lease_expires_at is not None:
        return now > record.lease_expires_at
    last = record.progress_at or record.started_at
    limit = record.time_limit or settings.CELERY_TASK_TIME_LIMIT
    return last is not None and now - last > dt.timedelta(seconds=limit)


def task_progress(record: TaskRecord, now: dt.datetime | None = None) -> dict[str, Any]:
    """The task's state for people and clients: QUEUED, STARTED, PROGRESS, SUCCESS, FAILURE or
    STALLED, with a sentence saying what it means."""
    if not record.task_name and record.state == TaskState.SENT:
        record = _from_result_backend(record)
    state, message = {
        TaskState.OWED: ("QUEUED", OWED_MESSAGE),
        TaskState.SENT: ("QUEUED", QUEUED_MESSAGE),
        TaskState.STARTED: ("PROGRESS" if record.percent else "STARTED", "Running."),
        TaskState.SUCCEEDED: ("SUCCESS", "Done."),
        TaskState.FAILED: ("FAILURE", "Failed."),
    }[TaskState(record.state)]
    stale = is_stalled(record, now)
    if stale:
        state, message = "STALLED", STALLED_MESSAGE
    return {
        "task_id": record.task_id,
        "kind": record.kind,
        "object": record.object_repr,
        "object_url": record.object_url,
        "state": state,
        "message": message,
        "owed": record.state == TaskState.OWED,
        "stale": stale,
        "percent": 100 if record.state == TaskState.SUCCEEDED else record.percent,
        "step": (record.result or {}).get("summary") or ""
        if record.state == TaskState.SUCCEEDED
        else record.step,
        "result": record.result if record.state == TaskState.SUCCEEDED else None,
        "error": (record.error or "The task failed.") if record.state == TaskState.FAILED else None,
    }


def _from_result_backend(record: TaskRecord) -> TaskRecord:
    """A record made before the outbox (no task name): only the result backend knows its state."""
    from celery.result import AsyncResult

    try:
        result = AsyncResult(record.task_id)
        state, info = result.state, result.info
    except Exception:  # noqa: BLE001 — unreachable: say it is queued rather than fail the page
        logger.warning("Result backend unreachable reading task %s", record.task_id, exc_info=True)
        return record
    meta = info if isinstance(info, dict) else {}
    record.state = {
        "STARTED": TaskState.STARTED, "PROGRESS": TaskState.STARTED,
        "SUCCESS": TaskState.SUCCEEDED, "FAILURE": TaskState.FAILED,
    }.get(state, TaskState.SENT)  # fmt: skip
    record.percent = int(meta.get("percent", 0))
    record.step = meta.get("step") or meta.get("summary") or ""
    record.result = meta if state == "SUCCESS" else None
    record.error = str(info) if state == "FAILURE" else ""
    record.progress_at = None  # unknown: never call it stalled
    record.started_at = None
    return record
