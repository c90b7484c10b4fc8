"""The base class of every Rackpass Celery task (`config/celery.py`: `task_cls`): it claims the
task's record before running it (`apps.core.task_lease`) and writes its progress there.

A delivery that finds the work finished is acknowledged and does nothing. One that finds another
worker's lease holding is not dropped: it sends its message again, due when that lease runs out,
and is then acknowledged. Acknowledging it outright lost the work whenever the holder had died
with its lease still running (the broker hands out a dead worker's message again, and nothing
else would ever finish it)."""

from __future__ import annotations

import datetime as dt
import logging
import warnings

from celery import Task
from celery.exceptions import AlwaysEagerIgnored, Ignore, Reject
from django.conf import settings
from django.utils import timezone

from . import task_lease

logger = logging.getLogger(__name__)

# The time the lease is reckoned in (tests move it on instead of sleeping).
clock = timezone.now


class RecordedTask(Task):
    """A task that runs only once its worker holds the lease on its `TaskRecord`: a message
    delivered again runs nothing when the work is finished or another worker holds it.

    Progress reported with `update_state` is also written to the record, with the time: the
    status users read comes from the database, and a task whose lease ran out (its worker died)
    shows as stalled. The lease (`task_lease.LEASE_SECONDS`, or a task's own `lease_seconds`) is
    renewed while the task runs, so a dead worker's work is free again within one lease."""

    lease_seconds: int | None = None
    # Past the holder's lease, so its last renewal has been written when the message comes back.
    come_back_margin = dt.timedelta(seconds=1)

    def __call__(self, *args, **kwargs):
        task_id = self.request.id
        if not task_id:  # called as a plain function
            return super().__call__(*args, **kwargs)
        now = clock()
        limit = dt.timedelta(seconds=self.time_limit or settings.CELERY_TASK_TIME_LIMIT)
        lease = min(dt.timedelta(seconds=self.lease_seconds or task_lease.LEASE_SECONDS), limit)
        claim = task_lease.claim(task_id, lease=lease, now=now)
        if claim.outcome == task_lease.Outcome.HELD and not self.request.is_eager:
            self.come_back_when_free(claim.until, now=now)
        if claim.outcome in (task_lease.Outcome.FINISHED, task_lease.Outcome.HELD):
            logger.info("Task %s (%s) not run again: %s", task_id, self.name, claim.outcome)
            raise Ignore()  # acknowledged, nothing recorded: the record stays as its run left it
        if claim.token:
            task_lease.hold(
                task_id,
                task_lease.Held(token=claim.token, deadline=now + limit, lease=lease),
                renew_in_background=not self.request.is_eager,
            )
        # The postrun signal records the end under this claim and drops it (celery_signals).
        return super().__call__(*args, **kwargs)

    def come_back_when_free(self, until: dt.datetime | None, *, now: dt.datetime) -> None:
        """Send this message again, due just after the holder's lease runs out: the holder has
        finished by then, renewed it (alive: come back again), or died (this delivery runs it).
        The same task id, arguments, queue and retry count: it is the same delivery, later."""
        wait = max((until or now) - now, dt.timedelta(0)) + self.come_back_margin
        again = self.signature_from_request(countdown=wait.total_seconds())
        try:
            # Through the broker even where tasks are configured to run eagerly (the test worker):
            # this delivery came from the broker, and run in place it would only find it held again.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", AlwaysEagerIgnored)
                self.app.send_task(self.name, again.args, again.kwargs, **again.options)
        except Exception as exc:
            # Not sent again: leave the message to the broker (requeued) rather than lose it.
            raise Reject(exc, requeue=True) from exc
        logger.info("Task %s (%s) held by another worker: back in %s", self.request.id, self.name, wait)

    def update_state(self, task_id=None, state=None, meta=None, **kwargs):
        task_id = task_id or self.request.id
        if task_id and isinstance(meta, dict):
            task_lease.heartbeat(
                task_id,
                now=clock(),
                percent=max(0, min(100, int(meta.get("percent") or 0))),
                step=str(meta.get("step") or "")[:300],
            )
        try:
            super().update_state(task_id, state, meta, **kwargs)
        except Exception:  # noqa: BLE001 — the record above is what users read; the task goes on
            logger.warning("Progress of task %s not stored in the result backend", task_id, exc_info=True)
