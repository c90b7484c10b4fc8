from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
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
    """A place goods move between.

    Who sees a site (docs/security.md): the operator's shared infrastructure (ports,
    airports, our warehouses and hubs — operator sites of no customer that are not data centres)
    is seen by every organisation. Any other site belongs to its holder — the customer named on an
    operator-kept site, else its owner — and is seen by the holder, the organisations the operator
    connected with the holder, and the parties of shipments that start, end or pass through it.
    Only the owner changes it."""

    owner = models.ForeignKey("accounts.Organisation", on_delete=models.PROTECT, related_name="sites")
    customer = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="customer_sites",
        help_text="For a site the operator keeps for a customer (its data centre): the customer. "
        "Where a customer's cluster stands is the customer's: only it, the organisations connected "
        "with it and the parties of its shipments see the site.",
    )
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
    # What a data centre offers a cluster: the sizing warns when a design needs more
    # power than the site has, and a design may only use a cooling the site offers. Empty power
    # means "not known" (no check); no cooling ticked means "not known" either.
    power_mw = models.DecimalField(
        "available power (MW)",
        max_digits=8,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.001")), MaxValueValidator(Decimal("10000"))],
        help_text="For a data centre: the IT power available to clusters, in megawatts.",
    )
    cooling_air = models.BooleanField(
        "offers air cooling", default=False, help_text="For a data centre: racks cooled by air."
    )
    cooling_liquid = models.BooleanField(
        "offers direct-to-chip liquid cooling",
        default=False,
        help_text="For a data centre: facility water for direct-to-chip liquid cooling (CDUs).",
    )
    cooling_immersion = models.BooleanField(
        "offers immersion cooling", default=False, help_text="For a data centre: immersion tanks."
    )

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
        from apps.accounts.models import Connection

        from .shipments import Shipment
        from .tracking import Leg

        own = Q(owner_id=organisation_id)
        if action != VIEW:
            return own
        shared = Q(owner__kind="operator", customer__isnull=True) & ~Q(kind=SiteKind.DATA_CENTRE)
        partners = Connection.objects.partners_of(organisation_id)
        held = (
            Q(customer_id=organisation_id)
            | Q(customer_id__in=partners)
            | (Q(customer__isnull=True) & Q(owner_id__in=partners))
        )
        shipments = Shipment.objects.filter(Shipment.org_scope_q(organisation_id, VIEW))
        legs = Leg.objects.filter(shipment__in=shipments)
        routed = (
            Q(pk__in=shipments.values("origin"))
            | Q(pk__in=shipments.values("destination"))
            | Q(pk__in=legs.values("origin"))
            | Q(pk__in=legs.values("destination"))
        )
        return own | shared | held | routed

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
        if self.kind != SiteKind.DATA_CENTRE:
            if self.power_mw is not None:
                errors["power_mw"] = "Only a data centre has power available for clusters."
            if self.cooling_air or self.cooling_liquid or self.cooling_immersion:
                errors["cooling_liquid"] = "Only a data centre offers cooling for clusters."
        if self.customer_id and self.owner_id and self.owner.kind != "operator":
            errors["customer"] = (
                "Only a site the operator keeps names a customer; a partner's sites are its own."
            )
        elif self.customer_id and self.customer_id == self.owner_id:
            errors["customer"] = "The customer is the owner already."
        if errors:
            raise ValidationError(errors)

    @property
    def cooling_offered(self) -> list[str]:
        """The cooling kinds the site offers ("air", "liquid", "immersion"); empty when not known."""
        offered = (
            ("air", self.cooling_air),
            ("liquid", self.cooling_liquid),
            ("immersion", self.cooling_immersion),
        )
        return [kind for kind, yes in offered if yes]

    @property
    def airport_name(self) -> str:
        return airport_name(self.iata_code) if self.iata_code else ""
