from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse

from apps.core.fields import CountryField
from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW

from ..validators import airport_name, iata_problem, locode_problem


class SiteKind(models.TextChoices):
    FACTORY = "factory", "Factory"
    SUPPLIER_WAREHOUSE = "supplier_warehouse", "Supplier warehouse"
    WAREHOUSE = "warehouse", "Our warehouse"
    AIRPORT = "airport", "Airport"
    SEAPORT = "seaport", "Seaport"
    DATA_CENTRE = "data_centre", "Data centre"


class Site(AuditedModel, TimeStampedModel):
    """A place goods move between. Sites of the operator (ports, airports, our warehouses) are
    shared with every organisation; a partner's own sites are its own."""

    owner = models.ForeignKey("accounts.Organisation", on_delete=models.PROTECT, related_name="sites")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=SiteKind.choices)
    is_bonded = models.BooleanField(
        "bonded", default=False, help_text="Goods here are under customs control."
    )
    address_line1 = models.CharField("address", max_length=200, blank=True)
    city = models.CharField(max_length=100)
    postal_code = models.CharField(max_length=20, blank=True)
    country = CountryField()
    unlocode = models.CharField("UN/LOCODE", max_length=5, blank=True)
    iata_code = models.CharField("IATA code", max_length=3, blank=True)

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["country", "city", "name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="shipments_site_name_unique")]

    def __str__(self) -> str:
        code = self.iata_code or self.unlocode
        return f"{self.name} ({code})" if code else f"{self.name}, {self.city}"

    def get_absolute_url(self) -> str:
        return reverse("shipments:site-list") + f"#site-{self.pk}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        own = Q(owner_id=organisation_id)
        return own | Q(owner__kind="operator") if action == VIEW else own

    def clean(self) -> None:
        errors = {}
        self.unlocode = (self.unlocode or "").strip().upper()
        self.iata_code = (self.iata_code or "").strip().upper()
        if self.unlocode and (problem := locode_problem(self.unlocode, self.country)):
            errors["unlocode"] = problem
        if self.iata_code and (problem := iata_problem(self.iata_code, self.country)):
            errors["iata_code"] = problem
        if self.kind == SiteKind.AIRPORT and not self.iata_code:
            errors["iata_code"] = "An airport needs its IATA code."
        if self.kind == SiteKind.SEAPORT and not self.unlocode:
            errors["unlocode"] = "A seaport needs its UN/LOCODE."
        if self.is_bonded and self.kind not in (SiteKind.WAREHOUSE, SiteKind.SUPPLIER_WAREHOUSE):
            errors["is_bonded"] = "Only warehouses are bonded."
        if errors:
            raise ValidationError(errors)

    @property
    def airport_name(self) -> str:
        return airport_name(self.iata_code) if self.iata_code else ""
