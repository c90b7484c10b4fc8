"""The lease on a task's record: a worker claims the work before it runs it, so the work is done once
however often the broker delivers its message, and work whose worker died is done once, eventually,
without anybody's action.

Why: a worker killed mid-task (OOM, node loss) leaves its message unacknowledged, and the broker
hands it to another worker after the visibility timeout, a quarter of an hour later; by then the
user may have run the work again. Without a claim both runs do the work (two drafts of the same
documents, the second superseding the user's).

- `claim` is one conditional UPDATE of the `TaskRecord`: it takes work that is owed or sent, or
  started under a lease that has run out (its worker died); it never takes finished work or work
  whose lease still holds. Whoever's UPDATE matches first wins; every other delivery is told why
  it lost (`Outcome`).
- The lease is short (`LEASE_SECONDS`, or a task's own shorter `lease_seconds`) and kept alive
  while the task runs: a thread of the worker process (`renew`, every third of a lease) moves it
  on, as does each progress report (`heartbeat`), never past the task's hard time limit (the
  worker kills the task then). A live worker keeps its lease however long it waits (on a row lock,
  a slow render); a dead worker's lease runs out within one lease, because its thread died with it.
  (A lease as long as the time limit is not enough: a message the broker hands out again while
  the dead worker's lease still held was skipped, acknowledged, and so lost.)
- A delivery of finished work does nothing and is acknowledged. A delivery of work whose lease
  holds is never dropped: the task sends its message again to come back when the lease runs out
  (`Claim.until`, `RecordedTask`). By then either the holder has finished (nothing to do), is
  still alive (its lease moved on: come back again), or died (the lease ran out: this delivery
  claims it and runs it).
- A task whose lease ran out reads as stalled. Running it again (`stalled_twin`, from the outbox)
  closes the stalled record first, so the broker's later redelivery of it finds it finished and
  does nothing; if the redelivery got there first and is running it, the re-run follows that run.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.utils import timezone

from .models import TaskRecord, TaskState

logger = logging.getLogger(__name__)

# How long a claim holds without a sign of life. Its worker renews it every third of it, so two
# missed renewals (a slow database) are survived; a dead worker's work is free again within it.
LEASE_SECONDS = 30
RENEWALS_PER_LEASE = 3


class Outcome(enum.StrEnum):
    CLAIMED = "claimed"  # this worker runs it
    FINISHED = "finished"  # done (or failed) already: a redelivery, nothing to do
    HELD = "held"  # another worker's lease holds: it is running there
    UNRECORDED = "unrecorded"  # no record to claim (beat's own tasks): runs unguarded


@dataclass(frozen=True)
class Claim:
    outcome: Outcome
    token: str | None = None
    until: dt.datetime | None = None  # HELD: when the holder's lease runs out unless renewed


@dataclass(frozen=True)
class Held:
    """A claim this process holds while it runs the task."""

    token: str
    deadline: dt.datetime  # the hard time limit: the lease never runs past it
    lease: dt.timedelta


# Claims held by this worker process, by task id (set before the task runs, dropped when it ends).
_held: dict[str, Held] = {}
_held_lock = threading.Lock()
_renewing_in: int | None = None  # the pid whose renewal thread runs (a forked child starts its own)


def worker_name() -> str:
    """This worker process, as people read it in the record: host:pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _run_out(now: dt.datetime, lease: dt.timedelta) -> Q:
    """Started, and its lease has run out. A record started before leases existed has none: it has
    run out once its last sign of life is older than a lease."""
    return Q(state=TaskState.STARTED) & (
        Q(lease_expires_at__lt=now)
        | Q(lease_expires_at__isnull=True) & (Q(progress_at__lt=now - lease) | Q(progress_at__isnull=True))
    )


def claim(
    task_id: str, *, lease: dt.timedelta, worker: str | None = None, now: dt.datetime | None = None
) -> Claim:
    """Take the task's record for this worker until `now + lease`, in one conditional UPDATE."""
    now = now or timezone.now()
    token = uuid.uuid4().hex
    taken = (
        TaskRecord.objects.filter(task_id=task_id)
        .filter(Q(state__in=(TaskState.OWED, TaskState.SENT)) | _run_out(now, lease))
        .update(
            state=TaskState.STARTED,
            claimed_by=(worker or worker_name())[:200],
            claim_token=token,
            lease_expires_at=now + lease,
            claims=F("claims") + 1,
            started_at=now,
            progress_at=now,
            finished_at=None,
            percent=0,
            step="",
            error="",
        )
    )
    if taken:
        return Claim(Outcome.CLAIMED, token)
    found = (
        TaskRecord.objects.filter(task_id=task_id)
        .values_list("state", "lease_expires_at", "progress_at")
        .first()
    )
    if found is None:
        return Claim(Outcome.UNRECORDED)
    state, expires, progress = found
    if state in (TaskState.SUCCEEDED, TaskState.FAILED):
        return Claim(Outcome.FINISHED)
    # A record started before leases existed runs out a lease after its last sign of life.
    until = expires or (progress + lease if progress else now + lease)
    return Claim(Outcome.HELD, until=until)


def hold(task_id: str, held: Held, *, renew_in_background: bool = True) -> None:
    """Keep the claim while the task runs; a worker renews it in the background (an eager run in
    the caller's process has no broker to redeliver it, and no thread of its own is wanted)."""
    with _held_lock:
        _held[task_id] = held
    if renew_in_background:
        _start_renewing()


def held(task_id: str) -> Held | None:
    return _held.get(task_id)


def release(task_id: str) -> Held | None:
    """Forget this process's claim on the task (it ended); the claim it had, if any."""
    with _held_lock:
        return _held.pop(task_id, None)


def renew(now: dt.datetime | None = None) -> int:
    """Move on the lease of every claim this process holds, never past its time limit; the number
    of claims renewed (one that is no longer this worker's, or finished, is left alone)."""
    now = now or timezone.now()
    with _held_lock:
        mine = list(_held.items())
    renewed = 0
    for task_id, claim_held in mine:
        renewed += TaskRecord.objects.filter(
            task_id=task_id, claim_token=claim_held.token, state=TaskState.STARTED
        ).update(lease_expires_at=min(now + claim_held.lease, claim_held.deadline))
    return renewed


def _renewal_interval() -> float:
    with _held_lock:
        leases = [h.lease.total_seconds() for h in _held.values()]
    return max(1.0, min(leases or [LEASE_SECONDS]) / RENEWALS_PER_LEASE)


def _renew_forever() -> None:
    while True:
        time.sleep(_renewal_interval())
        if not _held:
            continue
        try:
            renew()
        except Exception:  # noqa: BLE001 — the next renewal tries again; the lease allows two misses
            logger.warning("Task leases of %s not renewed", worker_name(), exc_info=True)
        finally:
            connection.close()  # this thread's own connection: reopened at the next renewal


def _start_renewing() -> None:
    global _renewing_in
    with _held_lock:
        if _renewing_in == os.getpid():
            return
        _renewing_in = os.getpid()
    threading.Thread(target=_renew_forever, name="rackpass-task-lease", daemon=True).start()


def heartbeat(task_id: str, *, now: dt.datetime, percent: int, step: str) -> None:
    """A sign of life with the task's progress; a lease shorter than the time limit moves on."""
    mine = _held.get(task_id)
    fields: dict[str, Any] = {"progress_at": now, "percent": percent, "step": step}
    records = TaskRecord.objects.filter(task_id=task_id)
    if mine is not None:
        records = records.filter(claim_token=mine.token)
        fields["lease_expires_at"] = min(now + mine.lease, mine.deadline)
    records.update(**fields)


def finish(task_id: str, token: str, **fields: Any) -> int:
    """Record the end of this worker's run (only while the claim is still its own)."""
    return TaskRecord.objects.filter(task_id=task_id, claim_token=token).update(
        lease_expires_at=None, **fields
    )


def _same_work(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def stalled_twin(
    task_name: str, kwargs: dict, *, rerun_task_id: str, now: dt.datetime | None = None
) -> TaskRecord | None:
    """Before the same work (same task, same arguments) is run again: close each earlier record of
    it whose lease ran out, naming the re-run, so the broker's redelivery of it does nothing.
    Returns the earlier record to follow instead when a redelivery already claimed it again and is
    running it; None when the re-run should go ahead."""
    now = now or timezone.now()
    lease = dt.timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    started = TaskRecord.objects.filter(task_name=task_name, state=TaskState.STARTED).order_by("created_at")
    for twin in started:
        if not _same_work(twin.kwargs, kwargs):
            continue
        closed = (
            TaskRecord.objects.filter(pk=twin.pk)
            .filter(_run_out(now, lease))
            .update(
                state=TaskState.FAILED,
                finished_at=now,
                lease_expires_at=None,
                claim_token="",
                error=(
                    f"Stalled: the worker running it ({twin.claimed_by or 'unknown'}) stopped before "
                    f"it finished. Run again as task {rerun_task_id}."
                ),
            )
        )
        if closed:
            continue
        running = TaskRecord.objects.get(pk=twin.pk)
        if running.state == TaskState.STARTED and running.claims > 1:
            return running  # a redelivery claimed it again and runs it now
    return None
