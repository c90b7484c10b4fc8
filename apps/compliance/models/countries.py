from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from apps.core.fields import CountryField
from apps.core.models import AuditedModel, TimeStampedModel


class CountryDataVersion(AuditedModel, TimeStampedModel):
    """One loaded edition of the EAR Country Groups and Commerce Country Chart.

    The rules read the active edition, so a change in the regulations is a new data file,
    loaded with `manage.py load_country_data`, not a code change.
    """

    as_of = models.DateField(help_text="The date of the regulations the files reflect.")
    source = models.CharField(max_length=1000)
    groups = models.JSONField(help_text="The country-groups file as published.")
    chart = models.JSONField(help_text="The Commerce Country Chart file as published.")
    is_active = models.BooleanField(default=False)
    loaded_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-as_of", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["as_of"], name="compliance_country_data_one_per_date"),
            models.UniqueConstraint(
                fields=["is_active"], condition=Q(is_active=True), name="compliance_country_data_one_active"
            ),
        ]

    def __str__(self) -> str:
        return f"EAR country data as of {self.as_of}{' (active)' if self.is_active else ''}"


class RequirementKind(models.TextChoices):
    IMPORTER_REGISTRATION = "importer_registration", "Importer registration"
    PRODUCT_REGISTRATION = "product_registration", "Product registration"


class ImportRequirement(AuditedModel, TimeStampedModel):
    """What an import into `country` needs, kept as data: importer registrations (India: IEC,
    GSTIN) and product registrations by HS code or category (India: BIS CRS, WPC)."""

    country = CountryField()
    kind = models.CharField(max_length=24, choices=RequirementKind.choices)
    scheme = models.CharField(max_length=20, help_text="e.g. iec, gstin, bis_crs, wpc.")
    name = models.CharField(max_length=120, help_text="e.g. 'BIS Compulsory Registration Scheme'.")
    hs_prefixes = models.CharField(
        max_length=200,
        blank=True,
        help_text="Comma-separated HS prefixes it applies to (product registrations).",
    )
    categories = models.CharField(
        max_length=200,
        blank=True,
        help_text="Comma-separated part categories it applies to (product registrations).",
    )
    authority = models.CharField(max_length=120, blank=True)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["country", "kind", "scheme"]
        constraints = [
            models.UniqueConstraint(
                fields=["country", "kind", "scheme"], name="compliance_requirement_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.country}: {self.name}"

    def clean(self) -> None:
        if self.kind == RequirementKind.PRODUCT_REGISTRATION and not (self.hs_prefixes or self.categories):
            raise ValidationError(
                {"hs_prefixes": "Say which HS codes or categories the registration applies to."}
            )
        bad = [p for p in self.hs_prefix_list if not p.isdigit()]
        if bad:
            raise ValidationError({"hs_prefixes": f"Not HS prefixes: {', '.join(bad)}."})

    @property
    def hs_prefix_list(self) -> list[str]:
        return [p.strip() for p in self.hs_prefixes.split(",") if p.strip()]

    @property
    def category_list(self) -> list[str]:
        return [c.strip() for c in self.categories.split(",") if c.strip()]

    def applies_to(self, *, hs_code: str, category: str) -> bool:
        return any(hs_code.startswith(p) for p in self.hs_prefix_list) or category in self.category_list
