"""A bulk import of serials from a CSV file (written by `services/imports.py`): the upload, what
became of it, and every refused row."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW

NOTHING = Q(pk__in=[])
# How long a running import's claim holds after its last sign of life: the task's time limit (5
# minutes, apps/warehouse/tasks.py), past which its worker would have killed it anyway.
LEASE = dt.timedelta(minutes=5)


class SerialImportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Imported"
    REFUSED = "refused", "Refused"
    FAILED = "failed", "Failed"


class SerialImport(AuditedModel, TimeStampedModel):
    """One CSV upload of serials into a warehouse site: imported whole, or refused whole with every
    bad row's number, column and reason (`problems`, at most `services.imports.PROBLEMS_LISTED` of
    `problem_count`). A large file is stored first and imported by a background task
    (`task_id`), which holds a lease on it while it runs (`lease_expires_at`, moved on by each
    sign of progress): an import still *running* once its lease has run out lost its worker, wrote
    nothing (the write is one transaction) and can be run again (`services.imports.serial_import_rerun`)."""

    site = models.ForeignKey("shipments.Site", on_delete=models.PROTECT, related_name="serial_imports")
    owner = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Whose units, for the rows that name no owner.",
    )
    customs_reference = models.CharField(
        max_length=50, blank=True, help_text="The customs reference of the rows that give none."
    )
    file = models.FileField(upload_to="warehouse/imports/%Y/%m/", blank=True)
    file_name = models.CharField(max_length=200, blank=True)
    status = models.CharField(
        max_length=8, choices=SerialImportStatus.choices, default=SerialImportStatus.QUEUED
    )
    rows = models.PositiveIntegerField(default=0, help_text="Data rows in the file.")
    imported = models.PositiveIntegerField(default=0, help_text="Units imported.")
    problem_count = models.PositiveIntegerField(default=0)
    problems = models.JSONField(
        default=list, blank=True, help_text='[{"row": 7, "column": "serial", "reason": "…"}, …]'
    )
    error = models.TextField(blank=True, help_text="Why the import failed (not a refusal).")
    task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="While running: until when its worker's claim holds."
    )

    objects = OrgScopedQuerySet.as_manager()

    identifier_fields = ("customs_reference",)
    audit_exclude = ("created_at", "updated_at", "problems", "file")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Serial import {self.pk} ({self.file_name})"

    def is_stalled(self, now: dt.datetime | None = None) -> bool:
        """Running, but its worker's lease ran out: the worker died (or the import was running
        before leases existed and has shown no sign of life for longer than one)."""
        if self.status != SerialImportStatus.RUNNING:
            return False
        now = now or timezone.now()
        if self.lease_expires_at is None:
            return self.updated_at is not None and now - self.updated_at > LEASE
        return now > self.lease_expires_at

    def get_absolute_url(self) -> str:
        return reverse("warehouse:serial-import") + f"?import={self.pk}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        # Imports are the warehouse staff's (stock.manage); a partner reads only its own uploads.
        if action != VIEW:
            return NOTHING
        return Q(created_by__organisation_id=organisation_id)
