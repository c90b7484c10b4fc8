"""Attribute audit records made by Celery tasks to the 'task' channel (and the user who asked)."""

from celery.signals import task_postrun, task_prerun

from .audit import AuditContext, _context

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
