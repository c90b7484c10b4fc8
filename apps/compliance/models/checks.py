from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import OrgScopedQuerySet


class CheckResult(models.TextChoices):
    PASS = "pass", "Pass"
    HOLD = "hold", "Hold"


class HoldKind(models.TextChoices):
    """Why a check held a shipment; the kind decides how (and whether) the reason can be resolved."""

    SCREENING = "screening", "Possible restricted-party match"
    BLOCKED = "blocked_party", "Blocked party (confirmed match)"
    PROHIBITED = "prohibited", "Prohibited"
    LICENCE = "licence", "Licence required"
    CLASSIFICATION = "classification", "Classification incomplete"
    UNCONFIRMED = "unconfirmed_classification", "Default classification to confirm"
    IMPORT = "import", "Import requirement"
    END_USE = "end_use", "End-use red flag"
    CHECK_ERROR = "check_error", "The check could not be completed"


class ResolvedVia(models.TextChoices):
    """How a hold reason was resolved: a fact that changed, never free text for the hard ones."""

    OFFICER_NOTE = "officer_note", "Compliance officer's note"
    LICENCE = "licence", "Licence held"
    HIT_CLEARED = "hit_cleared", "Screening hit cleared"
    BLOCK_LIFTED = "block_lifted", "Block lifted (match reversed)"
    CLASSIFICATION = "classification", "Classification confirmed"


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
    stale_since = models.DateTimeField(
        null=True, blank=True, help_text="Set when a fact the answer rests on changed after the check."
    )
    stale_reason = models.CharField(max_length=500, blank=True)

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
    kind = models.CharField(max_length=30, choices=HoldKind.choices)
    text = models.CharField(max_length=600)
    line = models.ForeignKey(
        "shipments.ShipmentLine", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    organisation = models.ForeignKey(
        "accounts.Organisation",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The party a screening reason concerns.",
    )
    hit = models.ForeignKey(
        "compliance.ScreeningHit",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="hold_reasons",
        help_text="The open screening hit that raised this reason.",
    )
    licence = models.ForeignKey(
        "compliance.Licence",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The licence that resolved a licence-required reason.",
    )
    resolved_via = models.CharField(max_length=20, choices=ResolvedVia.choices, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.text
