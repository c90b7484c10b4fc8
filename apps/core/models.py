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


class CheckedInputModel(models.Model):
    """A model whose `full_clean` also refuses invisible control characters in text, free text
    over its length limit and dates outside 2000–2100 (`validators.input_problems`), reported
    against each field. Every business model is one (through `AuditedModel`), so a field added
    later is checked without anyone remembering to.

    `identifier_fields` names the CharFields held to the stricter identifier rule (no format
    characters at all, not even joiners): numbers people match and compare, like part numbers;
    `free_text_fields` the CharFields that are free text (newlines and tabs allowed), like remarks.
    """

    identifier_fields: tuple[str, ...] = ()
    free_text_fields: tuple[str, ...] = ()

    class Meta:
        abstract = True

    def clean_fields(self, exclude=None):
        from django.core.exceptions import ValidationError

        from .validators import input_problems

        errors: dict = {}
        try:
            super().clean_fields(exclude=exclude)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        for name, problem in input_problems(self, exclude=set(exclude or ()) | set(errors)).items():
            errors[name] = [ValidationError(problem, code="invalid")]
        if errors:
            raise ValidationError(errors)


class AuditedModel(CheckedInputModel):
    """A business object whose every create, update and delete is written to the audit log.

    Subclasses may list fields to leave out of the recorded changes in `audit_exclude`.
    """

    audit_exclude: tuple[str, ...] = ("created_at", "updated_at")

    class Meta:
        abstract = True

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        # Keep the loaded values as they came (cheap); the "before" snapshot is built from them
        # only when the object is saved.
        instance._audit_loaded = dict(zip(field_names, values, strict=False))
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
    INTEGRITY = "integrity", "Integrity failure"  # a stored file missing or altered (documents)


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


class ReferenceSequence(models.Model):
    """Gap-free running numbers per prefix and year (SHP-2026-000123, CI-2026-000045 …)."""

    prefix = models.CharField(max_length=10)
    year = models.PositiveSmallIntegerField()
    last_number = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["prefix", "year"], name="core_reference_sequence_unique")
        ]

    def __str__(self) -> str:
        return f"{self.prefix}-{self.year}: {self.last_number}"


class IdempotencyRecord(models.Model):
    """The first response to a request sent with an `Idempotency-Key`, replayed for repeats."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    request_fingerprint = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="core_idempotency_key_unique_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}]"


class TaskState(models.TextChoices):
    OWED = "owed", "Owed (not yet handed to the broker)"
    SENT = "sent", "Sent to the broker"
    STARTED = "started", "Started by a worker"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class TaskRecord(models.Model):
    """A background task someone's action made: who and about what (its progress is shown only to
    them), and the task's own outbox row and progress.

    It is written in the transaction of the state change that needs the task, as *owed*; sending
    it after the commit marks it *sent* (`apps.core.tasks_outbox`), and a periodic sweep sends what
    stays owed. A worker claims it before running it (a lease: `apps.core.task_lease`), and
    records its progress and end here (`apps.core.task_base`), so its status reads the database,
    never the result backend."""

    task_id = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=60)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    organisation = models.ForeignKey(
        "accounts.Organisation", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    object_repr = models.CharField(max_length=200, blank=True)
    object_url = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The outbox: what to send, and how sending went.
    task_name = models.CharField(max_length=200, blank=True, help_text="The Celery task's name.")
    kwargs = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=10, choices=TaskState.choices, default=TaskState.OWED)
    send_attempts = models.PositiveIntegerField(default=0)
    send_error = models.CharField(max_length=500, blank=True, help_text="Why the last send failed.")
    sent_at = models.DateTimeField(null=True, blank=True)
    # The lease: the worker running it claims it first (apps.core.task_lease), so a message the
    # broker delivers twice runs the work once.
    claimed_by = models.CharField(
        max_length=200, blank=True, help_text="The worker (host:pid) that took it last."
    )
    claim_token = models.CharField(max_length=32, blank=True, help_text="That worker's claim, one per run.")
    lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="Until when the claim holds; past it, the work is stalled."
    )
    claims = models.PositiveSmallIntegerField(default=0, help_text="How many times a worker took it.")
    # What the worker reports.
    time_limit = models.PositiveIntegerField(
        null=True, blank=True, help_text="Seconds after which the worker kills the task."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    progress_at = models.DateTimeField(null=True, blank=True, help_text="The last sign of life.")
    finished_at = models.DateTimeField(null=True, blank=True)
    percent = models.PositiveSmallIntegerField(default=0)
    step = models.CharField(max_length=300, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["state", "created_at"], name="core_task_state_created")]

    def __str__(self) -> str:
        return f"{self.kind} {self.task_id}"
