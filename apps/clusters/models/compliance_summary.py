"""A cluster's compliance summary: one background run of "what this cluster needs licensed before
anything ships" for a version of the bill of materials — each line's ECCN, the licence
determination for the site's country with the design's customer as end user, totals by ECCN and
value. The result is stored as it was (JSON, Decimals as strings), like a sizing run's. Made by
`services/compliance_summary.py`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel

from .boms import BillOfMaterials


class SummaryStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class ComplianceSummary(AuditedModel, TimeStampedModel):
    """One compliance summary of a bill-of-materials version, run in the background.

    `result` holds the lines (ECCN, classification source, determination and the rules behind it,
    value), the totals by ECCN and by outcome (per currency: values are never added across
    currencies), the customer's restricted-party standing and what needs attention. `bom_lines`
    records the (line, part, quantity) it was made of, so a page can say when the bill of materials
    has changed since."""

    bom = models.ForeignKey(
        "clusters.BillOfMaterials", on_delete=models.CASCADE, related_name="compliance_summaries"
    )
    status = models.CharField(max_length=10, choices=SummaryStatus.choices, default=SummaryStatus.QUEUED)
    task_id = models.CharField(max_length=64, blank=True)
    result = models.JSONField(null=True, blank=True)
    bom_lines = models.JSONField(
        default=list, blank=True, help_text="[line id, part id, quantity] of every line summarised."
    )
    error = models.CharField(max_length=500, blank=True, help_text="Why the summary could not be made.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = OrgScopedQuerySet.as_manager()

    # The result is large and written once; the trail records the status moves.
    audit_exclude = ("created_at", "updated_at", "result", "bom_lines")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "compliance summaries"
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="succeeded") | Q(result__isnull=False, finished_at__isnull=False),
                name="clusters_summary_succeeded_has_result",
            ),
        ]

    def __str__(self) -> str:
        return f"Compliance summary of {self.bom}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        boms = BillOfMaterials.objects.filter(BillOfMaterials.org_scope_q(organisation_id, action))
        return Q(bom__in=boms.values("pk"))
