"""The audit log mechanism shared by every app.

Who and from where come from a context variable: the middleware fills it for browser, admin and
API requests (DRF puts the token's user on the underlying request, so the actor is read lazily),
Celery tasks fill it for background work, and management commands default to "system".
Creates, updates and deletes of `AuditedModel` subclasses are recorded by signals; state changes
are recorded explicitly by the service that makes them (`record_transition`).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models.signals import post_delete, post_save

from .jsonable import jsonable

_context: contextvars.ContextVar[AuditContext | None] = contextvars.ContextVar("audit_context", default=None)


@dataclass
class AuditContext:
    channel: str
    actor: Any = None
    request: Any = None
    remote_addr: str | None = None

    def resolve_actor(self) -> Any:
        if self.actor is not None:
            return self.actor
        user = getattr(self.request, "user", None)
        if user is not None and getattr(user, "is_authenticated", False):
            return user
        return None


def current_context() -> AuditContext:
    return _context.get() or AuditContext(channel="system")


@contextmanager
def audit_context(*, channel: str, actor: Any = None, request: Any = None) -> Iterator[AuditContext]:
    """Attribute every audit record made inside the block to `actor` via `channel`."""
    ctx = AuditContext(
        channel=channel,
        actor=actor,
        request=request,
        remote_addr=_client_ip(request) if request is not None else None,
    )
    token = _context.set(ctx)
    try:
        yield ctx
    finally:
        _context.reset(token)


def _client_ip(request: Any) -> str | None:
    # REMOTE_ADDR only: X-Forwarded-For is client-controlled unless a trusted proxy rewrites it.
    return request.META.get("REMOTE_ADDR") or None


class AuditContextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path
        if path.startswith("/api/"):
            channel = "api"
        elif path.startswith("/admin/"):
            channel = "admin"
        else:
            channel = "browser"
        with audit_context(channel=channel, request=request):
            return self.get_response(request)


def _before(instance: models.Model) -> dict[str, Any]:
    if hasattr(instance, "_audit_snapshot"):
        return instance._audit_snapshot
    loaded = getattr(instance, "_audit_loaded", None)
    if loaded is None:
        return {}
    exclude = set(getattr(instance, "audit_exclude", ()))
    return {
        field.name: jsonable(loaded[field.attname])
        for field in instance._meta.concrete_fields
        if field.name not in exclude and field.attname in loaded
    }


def snapshot(instance: models.Model) -> dict[str, Any]:
    exclude = set(getattr(instance, "audit_exclude", ()))
    values = {}
    for field in instance._meta.concrete_fields:
        if field.name in exclude or field.attname not in instance.__dict__:
            continue
        values[field.name] = jsonable(getattr(instance, field.attname))
    return values


def record(
    instance: models.Model,
    *,
    action: str,
    changes: dict[str, Any] | None = None,
    message: str = "",
    actor: Any = None,
) -> Any:
    """Append one event to the audit log for `instance` (by `actor`, else the context's user)."""
    from django.contrib.contenttypes.models import ContentType

    from .models import AuditAction, AuditEvent

    if action not in AuditAction.values:
        # SQLite would store any string; PostgreSQL refuses one longer than the column. Fail the
        # same way everywhere, at the call that is wrong.
        raise ValueError(f"Unknown audit action {action!r}; use one of {', '.join(AuditAction.values)}.")
    ctx = current_context()
    actor = actor or ctx.resolve_actor()
    return AuditEvent.objects.create(
        actor=actor,
        actor_label=_actor_label(actor),
        channel=ctx.channel,
        remote_addr=ctx.remote_addr,
        content_type=ContentType.objects.get_for_model(instance, for_concrete_model=False),
        object_id=str(instance.pk),
        object_repr=str(instance)[:300],
        action=action,
        changes=changes or {},
        message=message[:500],
    )


def record_created_many(instances: list[models.Model]) -> None:
    """The create events of rows written by `bulk_create` (which sends no `post_save`): one event
    per row, as `_on_save` records them, written in one query. The rows have their keys."""
    from django.contrib.contenttypes.models import ContentType

    from .models import AuditAction, AuditEvent

    if not instances:
        return
    ctx = current_context()
    actor = ctx.resolve_actor()
    label = _actor_label(actor)
    content_type = ContentType.objects.get_for_model(instances[0], for_concrete_model=False)
    events = []
    for instance in instances:
        after = snapshot(instance)
        events.append(
            AuditEvent(
                actor=actor,
                actor_label=label,
                channel=ctx.channel,
                remote_addr=ctx.remote_addr,
                content_type=content_type,
                object_id=str(instance.pk),
                object_repr=str(instance)[:300],
                action=AuditAction.CREATE,
                changes={k: [None, v] for k, v in after.items() if v not in (None, "")},
            )
        )
        instance._audit_snapshot = after
    AuditEvent.objects.bulk_create(events)


def record_transition(
    instance: models.Model, *, field: str, before: str, after: str, reason: str = "", actor: Any = None
) -> Any:
    """Called by the one service that changes an object's state, inside its transaction."""
    return record(
        instance, action="transition", changes={field: [before, after]}, message=reason, actor=actor
    )


def _actor_label(actor: Any) -> str:
    if actor is None:
        return ""
    org = getattr(actor, "organisation", None)
    name = actor.get_full_name() or actor.get_username()
    return f"{name} ({org})" if org else name


def _on_save(sender, instance, created, raw=False, **kwargs):
    if raw:
        return
    after = snapshot(instance)
    if created:
        record(
            instance, action="create", changes={k: [None, v] for k, v in after.items() if v not in (None, "")}
        )
    else:
        before = _before(instance)
        changes = {k: [before.get(k), v] for k, v in after.items() if k in before and before.get(k) != v}
        if changes:
            record(instance, action="update", changes=changes)
    instance._audit_snapshot = after


def _on_delete(sender, instance, **kwargs):
    record(instance, action="delete", changes={k: [v, None] for k, v in snapshot(instance).items()})


def connect_signals() -> None:
    from django.apps import apps

    from .models import AuditedModel

    for model in apps.get_models():
        if issubclass(model, AuditedModel):
            post_save.connect(_on_save, sender=model, dispatch_uid=f"audit-save-{model._meta.label}")
            post_delete.connect(_on_delete, sender=model, dispatch_uid=f"audit-delete-{model._meta.label}")
