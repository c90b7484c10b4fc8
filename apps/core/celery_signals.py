"""Attribute audit records made by Celery tasks to the 'task' channel (and the user who asked), and
keep each task's `TaskRecord` up to date: started, finished (with its result) or failed."""

from celery.signals import task_postrun, task_prerun
from django.utils import timezone

from .audit import AuditContext, _context
from .jsonable import jsonable

_tokens: dict[str, object] = {}


@task_prerun.connect(dispatch_uid="rackpass-audit-task-prerun")
def _enter_task_context(task_id=None, task=None, kwargs=None, **_):
    actor = None
    actor_id = (kwargs or {}).get("actor_id")
    if actor_id:
        from django.contrib.auth import get_user_model

        actor = get_user_model().objects.filter(pk=actor_id).select_related("organisation").first()
    _tokens[task_id] = _context.set(AuditContext(channel="task", actor=actor))


@task_postrun.connect(dispatch_uid="rackpass-audit-task-postrun")
def _leave_task_context(task_id=None, **_):
    token = _tokens.pop(task_id, None)
    if token is not None:
        _context.reset(token)


@task_prerun.connect(dispatch_uid="rackpass-task-record-started")
def _record_started(task_id=None, **_):
    from .models import TaskRecord, TaskState

    now = timezone.now()
    # A redelivered task (its worker died) starts again: its last sign of life is now.
    TaskRecord.objects.filter(task_id=task_id).update(
        state=TaskState.STARTED, started_at=now, progress_at=now, finished_at=None, error=""
    )


@task_postrun.connect(dispatch_uid="rackpass-task-record-finished")
def _record_finished(task_id=None, retval=None, state=None, **_):
    from .models import TaskRecord, TaskState

    now = timezone.now()
    records = TaskRecord.objects.filter(task_id=task_id)
    if state == "SUCCESS":
        result = jsonable(retval) if isinstance(retval, dict) else {"value": jsonable(retval)}
        records.update(
            state=TaskState.SUCCEEDED, finished_at=now, progress_at=now, percent=100, result=result
        )
    elif state == "FAILURE":
        records.update(state=TaskState.FAILED, finished_at=now, progress_at=now, error=str(retval)[:2000])
    elif state == "RETRY":
        # Back in the queue until a worker takes it again.
        records.update(state=TaskState.SENT, progress_at=now, step="Waiting to retry")
