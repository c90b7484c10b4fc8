"""The base class of every Rackpass Celery task (`config/celery.py`: `task_cls`): it claims the
task's record before running it (`apps.core.task_lease`) and writes its progress there."""

from __future__ import annotations

import datetime as dt
import logging

from celery import Task
from celery.exceptions import Ignore
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
    shows as stalled. A task that reports progress may set `lease_seconds` shorter than its time
    limit: each report extends the lease, so a dead worker is noticed sooner."""

    lease_seconds: int | None = None

    def __call__(self, *args, **kwargs):
        task_id = self.request.id
        if not task_id:  # called as a plain function
            return super().__call__(*args, **kwargs)
        now = clock()
        limit = dt.timedelta(seconds=self.time_limit or settings.CELERY_TASK_TIME_LIMIT)
        lease = min(dt.timedelta(seconds=self.lease_seconds), limit) if self.lease_seconds else limit
        claim = task_lease.claim(task_id, lease=lease, now=now)
        if claim.outcome in (task_lease.Outcome.FINISHED, task_lease.Outcome.HELD):
            logger.info("Task %s (%s) not run again: %s", task_id, self.name, claim.outcome)
            raise Ignore()  # acknowledged, nothing recorded: the record stays as its run left it
        if claim.token:
            task_lease.hold(task_id, task_lease.Held(token=claim.token, deadline=now + limit, lease=lease))
        # The postrun signal records the end under this claim and drops it (celery_signals).
        return super().__call__(*args, **kwargs)

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
