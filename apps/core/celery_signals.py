"""Attribute audit records made by Celery tasks to the 'task' channel (and the user who asked), and
record on each task's `TaskRecord` how its run ended: finished (with its result), failed or to be
retried. Its start is its claim (`apps.core.task_base`)."""

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


@task_postrun.connect(dispatch_uid="rackpass-task-record-finished")
def _record_finished(task_id=None, retval=None, state=None, **_):
    """The end of a run, under the claim this worker took before it (`RecordedTask`): a delivery
    that claimed nothing (the work was finished or held elsewhere) records nothing."""
    from . import task_lease
    from .models import TaskState

    held = task_lease.release(task_id)
    if held is None:
        return
    now = timezone.now()
    if state == "SUCCESS":
        result = jsonable(retval) if isinstance(retval, dict) else {"value": jsonable(retval)}
        task_lease.finish(
            task_id, held.token,
            state=TaskState.SUCCEEDED, finished_at=now, progress_at=now, percent=100, result=result,
        )  # fmt: skip
    elif state == "FAILURE":
        task_lease.finish(
            task_id,
            held.token,
            state=TaskState.FAILED,
            finished_at=now,
            progress_at=now,
            error=str(retval)[:2000],
        )
    elif state == "RETRY":
        # Back in the queue until a worker takes it again (and claims it again).
        task_lease.finish(task_id, held.token, state=TaskState.SENT, progress_at=now, step="Waiting to retry")
