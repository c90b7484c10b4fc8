"""The base class of every Rackpass Celery task (`config/celery.py`: `task_cls`)."""

from __future__ import annotations

import logging

from celery import Task
from django.utils import timezone

logger = logging.getLogger(__name__)


class RecordedTask(Task):
    """Progress reported with `update_state` is also written to the task's `TaskRecord`, with the
    time: the status users read comes from the database, and a task whose worker died shows as
    stalled once its last sign of life is older than its time limit."""

    def update_state(self, task_id=None, state=None, meta=None, **kwargs):
        task_id = task_id or self.request.id
        if task_id and isinstance(meta, dict):
            from .models import TaskRecord

            TaskRecord.objects.filter(task_id=task_id).update(
                progress_at=timezone.now(),
                percent=max(0, min(100, int(meta.get("percent") or 0))),
                step=str(meta.get("step") or "")[:300],
            )
        try:
            super().update_state(task_id, state, meta, **kwargs)
        except Exception:  # noqa: BLE001 — the record above is what users read; the task goes on
            logger.warning("Progress of task %s not stored in the result backend", task_id, exc_info=True)
