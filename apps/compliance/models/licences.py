from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q, Sum
from django.utils import timezone

from apps.core.countries import validate_country
from apps.core.fields import MONEY_MAX, CurrencyField
from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel

# normalise_eccn lives in the pure engines.eccn module; it stays importable from here.
from ..engines.eccn import eccn_problem, normalise_eccn

MAX_LICENCE_QUANTITY = 10_000_000  # far above any licence for cluster hardware; keeps sums in range


class Licence(AuditedModel, TimeStampedModel):
    """An export licence held: what it covers, for whom, how much, until when."""

    number = models.CharField(max_length=60, unique=True)
    issuing_authority = models.CharField(max_length=120, default="US Department of Commerce, BIS")
    eccns = models.CharField("ECCNs", max_length=200, help_text="Comma-separated, e.g. 4A090.a, 3A090.a")
    destination_countries = models.CharField(
        max_length=200, help_text="Comma-separated ISO codes, e.g. SA, AE"
    )
    licensee = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="licences_held",
        help_text="The exporter the licence was issued to; only its shipments may use it.",
    )
    consignee = models.ForeignKey(
        "accounts.Organisation", on_delete=models.PROTECT, related_name="licences_as_consignee"
    )
    end_user = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="licences_as_end_user",
        null=True,
        blank=True,
    )
    permitted_quantity = models.PositiveIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(MAX_LICENCE_QUANTITY)]
    )
    permitted_value = models.DecimalField(
        max_digits=16,
        decimal_places=2,
        # Money's own ceiling: SQLite reads back 15 significant digits, and drawdowns sum to it.
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(MONEY_MAX)],
    )
    currency = CurrencyField(default="USD")
    valid_from = models.DateField()
    expires_on = models.DateField()
    conditions = models.TextField(blank=True)

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["expires_on", "number"]
        constraints = [
            models.CheckConstraint(
                condition=Q(expires_on__gte=models.F("valid_from")), name="compliance_licence_dates"
            )
        ]

    def __str__(self) -> str:
        return self.number

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return (
            Q(licensee_id=organisation_id) | Q(consignee_id=organisation_id) | Q(end_user_id=organisation_id)
        )

    def clean(self) -> None:
        errors = {}
        for code in self.country_list:
            try:
                validate_country(code)
            except ValidationError as exc:
                errors["destination_countries"] = exc.messages[0]
        if not self.eccn_list:
            errors["eccns"] = "Name at least one ECCN."
        elif problems := [p for e in self.eccn_list if (p := eccn_problem(e))]:
            errors["eccns"] = " ".join(problems)
        else:
            self.eccns = ", ".join(self.eccn_list)
        if self.valid_from and self.expires_on and self.expires_on < self.valid_from:
            errors["expires_on"] = "The licence expires before it starts."
        if errors:
            raise ValidationError(errors)

    @property
    def eccn_list(self) -> list[str]:
        return [normalise_eccn(e) for e in self.eccns.split(",") if e.strip()]

    @property
    def country_list(self) -> list[str]:
        return [c.strip().upper() for c in self.destination_countries.split(",") if c.strip()]

    def covers_eccn(self, eccn: str) -> bool:
        """A licence for 4A090 covers 4A090.a and 4A090.b; one for 4A090.a covers only that."""
        eccn = eccn.lower()
        return any(eccn == e.lower() or eccn.startswith(e.lower() + ".") for e in self.eccn_list)

    @property
    def is_expired(self) -> bool:
        return self.expires_on < timezone.localdate()

    def used(self) -> tuple[int, Decimal]:
        totals = self.drawdowns.filter(released_at__isnull=True).aggregate(q=Sum("quantity"), v=Sum("value"))
        return totals["q"] or 0, totals["v"] or Decimal("0")


class LicenceDrawdown(models.Model):
    """The part of a licence a shipment line uses, written when its compliance check passes.

    A re-check or a cancellation releases it (kept, with the reason) rather than deleting it, so
    the licence's history shows every use; only unreleased drawdowns count against the licence."""

    licence = models.ForeignKey(Licence, on_delete=models.PROTECT, related_name="drawdowns")
    compliance_check = models.ForeignKey(
        "compliance.ComplianceCheck", on_delete=models.CASCADE, related_name="drawdowns"
    )
    line = models.ForeignKey("shipments.ShipmentLine", on_delete=models.CASCADE, related_name="drawdowns")
    quantity = models.PositiveIntegerField()
    value = models.DecimalField(max_digits=16, decimal_places=2)
    created_at = models.DateTimeField(auto_now_add=True)
    released_at = models.DateTimeField(null=True, blank=True)
    released_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["licence", "line"],
                condition=Q(released_at__isnull=True),
                name="compliance_one_drawdown_per_line",
            )
        ]

    def __str__(self) -> str:
        return f"{self.licence}: {self.quantity} for line {self.line_id}"
