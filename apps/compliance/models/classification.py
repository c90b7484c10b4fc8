from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.fields import CountryField
from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW


class ClassificationSource(models.TextChoices):
    ENGINE = "engine", "Classification engine"
    OFFICER = "officer", "Compliance officer"


class PartClassificationQuerySet(OrgScopedQuerySet):
    def current(self):
        return self.filter(is_current=True)


class PartClassification(AuditedModel):
    """An ECCN for a part with the reasoning behind it. Rows are never rewritten: a new
    classification (engine run or officer override) becomes current and the history stays."""

    part = models.ForeignKey("catalog.Part", on_delete=models.CASCADE, related_name="classifications")
    eccn = models.CharField(
        "ECCN", max_length=20, blank=True, help_text="Empty when the figures are incomplete."
    )
    is_complete = models.BooleanField(default=True)
    source = models.CharField(max_length=10, choices=ClassificationSource.choices)
    reasoning = models.JSONField(default=list, blank=True)
    figures_used = models.JSONField(default=dict, blank=True)
    missing = models.JSONField(
        default=list, blank=True, help_text="Figures the engine needed but the part lacks."
    )
    rule_version = models.CharField(max_length=40)
    needs_confirmation = models.BooleanField(
        default=False,
        help_text="A category default (EAR99, 4A994, 5A991 …), not figures checked against a CCL entry: "
        "a compliance officer confirms it before a shipment relies on it.",
    )
    override_reason = models.TextField(blank=True)
    is_current = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = PartClassificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["part"], condition=Q(is_current=True), name="compliance_one_current_classification"
            ),
            models.CheckConstraint(
                condition=~Q(source="officer") | ~Q(override_reason=""),
                name="compliance_override_needs_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.part}: {self.eccn or 'incomplete'} ({self.get_source_display()})"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        from apps.catalog.models import Part

        return Q(part__in=Part.objects.filter(Part.org_scope_q(organisation_id, VIEW)))


class PartCertification(AuditedModel, TimeStampedModel):
    """Evidence of a product registration for a part in a country (e.g. BIS CRS in India)."""

    part = models.ForeignKey("catalog.Part", on_delete=models.CASCADE, related_name="certifications")
    scheme = models.CharField(max_length=20, help_text="e.g. bis_crs, wpc.")
    country = CountryField()
    number = models.CharField(max_length=60)
    valid_until = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["part", "country", "scheme"]
        constraints = [
            models.UniqueConstraint(
                fields=["part", "scheme", "country"], name="compliance_certification_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.scheme.upper()} {self.number} ({self.country})"
