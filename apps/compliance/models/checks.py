from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import OrgScopedQuerySet


class CheckResult(models.TextChoices):
    PASS = "pass", "Pass"
    HOLD = "hold", "Hold"


class ComplianceCheck(models.Model):
    """The export-control check of one version of a shipment: written whole, in one transaction."""

    shipment = models.ForeignKey(
        "shipments.Shipment", on_delete=models.CASCADE, related_name="compliance_checks"
    )
    shipment_version = models.CharField(max_length=64, help_text="Fingerprint of what the check looked at.")
    result = models.CharField(max_length=4, choices=CheckResult.choices)
    summary = models.CharField(max_length=500)
    rule_versions = models.JSONField(default=dict, blank=True)
    list_versions = models.JSONField(default=list, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(auto_now_add=True)

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["-finished_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["shipment", "shipment_version"], name="compliance_one_check_per_shipment_version"
            )
        ]

    def __str__(self) -> str:
        return f"Check of {self.shipment} ({self.get_result_display()})"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        from apps.shipments.models import Shipment

        return Q(shipment__in=Shipment.objects.filter(Shipment.org_scope_q(organisation_id, action)))

    @property
    def open_holds(self):
        return [h for h in self.hold_reasons.all() if h.resolved_at is None]


class CheckLineResult(models.Model):
    compliance_check = models.ForeignKey(
        ComplianceCheck, on_delete=models.CASCADE, related_name="line_results"
    )
    line = models.ForeignKey("shipments.ShipmentLine", on_delete=models.CASCADE, related_name="+")
    eccn = models.CharField(max_length=20, blank=True)
    classification_source = models.CharField(max_length=20)
    outcome = models.CharField(
        max_length=20, blank=True, help_text="NLR, licence_exception, licence_required …"
    )
    licence_exception = models.CharField(max_length=10, blank=True)
    licence = models.ForeignKey(
        "compliance.Licence", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    rules = models.JSONField(default=list, blank=True)
    result = models.CharField(max_length=4, choices=CheckResult.choices)
    reasons = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["line__line_number"]

    def __str__(self) -> str:
        return f"Line {self.line_id}: {self.eccn or '?'} {self.outcome} ({self.result})"


class CheckPartyResult(models.Model):
    compliance_check = models.ForeignKey(
        ComplianceCheck, on_delete=models.CASCADE, related_name="party_results"
    )
    role = models.CharField(max_length=24)
    organisation = models.ForeignKey("accounts.Organisation", on_delete=models.PROTECT, related_name="+")
    screening = models.ForeignKey(
        "compliance.Screening", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    result = models.CharField(max_length=4, choices=CheckResult.choices)
    reasons = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["role"]

    def __str__(self) -> str:
        return f"{self.role}: {self.result}"


class HoldReason(models.Model):
    """One reason a check held the shipment; a compliance officer resolves each one."""

    compliance_check = models.ForeignKey(
        ComplianceCheck, on_delete=models.CASCADE, related_name="hold_reasons"
    )
    kind = models.CharField(max_length=30, help_text="licence, screening, classification, import, end_use …")
    text = models.CharField(max_length=600)
    line = models.ForeignKey(
        "shipments.ShipmentLine", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.text
