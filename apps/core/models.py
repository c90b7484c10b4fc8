"""Shared base models: timestamps, organisation scoping and the append-only audit log."""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models

from .scoping import OrgScopedQuerySet  # noqa: F401  (re-exported for apps)


class TimeStampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class AuditedModel(models.Model):
    """A business object whose every create, update and delete is written to the audit log.

    Subclasses may list fields to leave out of the recorded changes in `audit_exclude`.
    """

    audit_exclude: tuple[str, ...] = ("created_at", "updated_at")

    class Meta:
        abstract = True

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        from .audit import snapshot

        instance._audit_snapshot = snapshot(instance)
        return instance


class AuditChannel(models.TextChoices):
    BROWSER = "browser", "Browser"
    API = "api", "API"
    ADMIN = "admin", "Admin"
    TASK = "task", "Background task"
    SYSTEM = "system", "System (command line)"


class AuditAction(models.TextChoices):
    CREATE = "create", "Created"
    UPDATE = "update", "Updated"
    DELETE = "delete", "Deleted"
    TRANSITION = "transition", "State change"


class AuditEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("The audit log is append-only.")

    def delete(self):
        raise PermissionError("The audit log is append-only.")

    def for_object(self, obj: models.Model) -> AuditEventQuerySet:
        ct = ContentType.objects.get_for_model(obj, for_concrete_model=False)
        return self.filter(content_type=ct, object_id=str(obj.pk)).select_related("actor")


class AuditEvent(models.Model):
    """One change to a business object: who, when, from where, and the fields before and after.

    Append-only: the model refuses updates and deletes, and on PostgreSQL a trigger refuses them
    in the database too, so not even an admin with a SQL shell through Django can rewrite history.
    """

    timestamp = models.DateTimeField(auto_now_add=True, db_index=True)
    # No database constraint: deleting a user must not touch the log, which keeps actor_label.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    actor_label = models.CharField(max_length=300, blank=True)
    channel = models.CharField(max_length=10, choices=AuditChannel.choices)
    remote_addr = models.GenericIPAddressField(null=True, blank=True)
    content_type = models.ForeignKey(ContentType, on_delete=models.DO_NOTHING, db_constraint=False)
    object_id = models.CharField(max_length=64)
    object_repr = models.CharField(max_length=300)
    action = models.CharField(max_length=12, choices=AuditAction.choices)
    changes = models.JSONField(default=dict, blank=True)
    message = models.CharField(max_length=500, blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-timestamp", "-id"]
        indexes = [models.Index(fields=["content_type", "object_id", "-timestamp"])]

    def __str__(self) -> str:
        return (
            f"{self.timestamp:%Y-%m-%d %H:%M:%S} {self.actor_label or '—'} {self.action} {self.object_repr}"
        )

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PermissionError("The audit log is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("The audit log is append-only.")
