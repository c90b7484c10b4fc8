from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import Connection, OrganisationKind
from apps.core.fields import MONEY_MAX, CountryField, CurrencyField, MoneyField
from apps.core.hscodes import hs_code_problem, normalise_hs_code
from apps.core.models import AuditedModel, CheckedInputModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW
from apps.core.validators import FREE_TEXT_MAX_LENGTH, validate_business_date

from ..engines import workflow

NON_NEGATIVE = [MinValueValidator(Decimal("0"))]
POSITIVE = [MinValueValidator(Decimal("0.001"))]
# Bounds well above any real consignment, so that totals fit where they are stored: a line holds
# at most 1,000,000 units and its value (quantity × unit value) at most MONEY_MAX, the largest
# amount a licence drawdown stores; a shipment has at most 9,999 lines and packages; a package
# measures at most 2,000 cm a side (a 40' container is 1,203 cm long) and weighs at most 50,000 kg.
LINE_QUANTITY_MAX = 1_000_000
NUMBER_MAX = 9_999
PACKAGE_SIDE = [*POSITIVE, MaxValueValidator(Decimal("2000"))]
PACKAGE_WEIGHT = [*POSITIVE, MaxValueValidator(Decimal("50000"))]


class ShipmentStatus(models.TextChoices):
    DRAFT = workflow.Status.DRAFT.value, workflow.LABELS[workflow.Status.DRAFT]
    COMPLIANCE_REVIEW = (
        workflow.Status.COMPLIANCE_REVIEW.value,
        workflow.LABELS[workflow.Status.COMPLIANCE_REVIEW],
    )
    APPROVED = workflow.Status.APPROVED.value, workflow.LABELS[workflow.Status.APPROVED]
    BOOKED = workflow.Status.BOOKED.value, workflow.LABELS[workflow.Status.BOOKED]
    IN_TRANSIT = workflow.Status.IN_TRANSIT.value, workflow.LABELS[workflow.Status.IN_TRANSIT]
    AT_CUSTOMS = workflow.Status.AT_CUSTOMS.value, workflow.LABELS[workflow.Status.AT_CUSTOMS]
    CLEARED = workflow.Status.CLEARED.value, workflow.LABELS[workflow.Status.CLEARED]
    DELIVERED = workflow.Status.DELIVERED.value, workflow.LABELS[workflow.Status.DELIVERED]
    ON_HOLD = workflow.Status.ON_HOLD.value, workflow.LABELS[workflow.Status.ON_HOLD]
    CANCELLED = workflow.Status.CANCELLED.value, workflow.LABELS[workflow.Status.CANCELLED]


class Incoterm(models.TextChoices):
    EXW = "EXW", "EXW — Ex Works"
    FCA = "FCA", "FCA — Free Carrier"
    CPT = "CPT", "CPT — Carriage Paid To"
    CIP = "CIP", "CIP — Carriage and Insurance Paid To"
    DAP = "DAP", "DAP — Delivered at Place"
    DPU = "DPU", "DPU — Delivered at Place Unloaded"
    DDP = "DDP", "DDP — Delivered Duty Paid"
    FAS = "FAS", "FAS — Free Alongside Ship"
    FOB = "FOB", "FOB — Free on Board"
    CFR = "CFR", "CFR — Cost and Freight"
    CIF = "CIF", "CIF — Cost, Insurance and Freight"


class TransportMode(models.TextChoices):
    AIR = "air", "Air"
    OCEAN = "ocean", "Ocean"
    ROAD = "road", "Road"
    MULTIMODAL = "multimodal", "Multimodal"


class PartyRole(models.TextChoices):
    SHIPPER = "shipper", "Shipper / exporter"
    CONSIGNEE = "consignee", "Consignee"
    ULTIMATE_CONSIGNEE = "ultimate_consignee", "Ultimate consignee / end user"
    IMPORTER_OF_RECORD = "importer_of_record", "Importer of record"
    EXPORTER_OF_RECORD = "exporter_of_record", "Exporter of record"
    FREIGHT_FORWARDER = "freight_forwarder", "Freight forwarder"
    CUSTOMS_BROKER = "customs_broker", "Customs broker"
    NOTIFY_PARTY = "notify_party", "Notify party"


# Parties whose organisation may change the shipment (not only read it): post its events, plan its
# legs and packages, edit its terms while a draft. Naming parties stays with the owner and the
# operator (services.party_set); a party reaches a partner's shipment only while connected with it.
CHANGING_ROLES = (
    PartyRole.SHIPPER,
    PartyRole.FREIGHT_FORWARDER,
    PartyRole.CUSTOMS_BROKER,
    PartyRole.IMPORTER_OF_RECORD,
    PartyRole.EXPORTER_OF_RECORD,
)


class ShipmentQuerySet(OrgScopedQuerySet):
    def for_list(self) -> ShipmentQuerySet:
        """What a list row shows. Line counts are added per page (`attach_line_counts`), not per row
        of the whole result: a subquery here would run for every row the page skips."""
        return self.select_related("origin", "destination", "owner")

    def with_parties(self) -> ShipmentQuerySet:
        return self.prefetch_related(
            models.Prefetch("parties", queryset=ShipmentParty.objects.select_related("organisation"))
        )


class EndUseFlag(models.TextChoices):
    """Red flags recorded on a shipment (EAR Part 732 'know your customer' guidance, Part 744 end uses)."""

    MILITARY = "military_end_use", "Military end use or military end user"
    WMD = "wmd", "Nuclear, missile, chemical or biological weapons end use"
    EVASIVE = "evasive", "Customer evasive about end use or end user"
    DIVERSION = "diversion", "Destination or routing inconsistent with the stated end use"
    UNUSUAL_TERMS = "unusual_terms", "Unusual payment or delivery terms"


def attach_line_counts(shipments: list) -> list:
    """Set `line_count` on a page of shipments with one grouped query."""
    counts = dict(
        ShipmentLine.objects.filter(shipment__in=[s.pk for s in shipments])
        .order_by()
        .values_list("shipment")
        .annotate(n=models.Count("id"))
    )
    for shipment in shipments:
        shipment.line_count = counts.get(shipment.pk, 0)
    return shipments


class Shipment(AuditedModel, TimeStampedModel):
    """Goods moving from an origin site to a destination site under one set of parties and terms."""

    # Why a shipment is held may take several lines (the compliance check lists its reasons).
    free_text_fields = ("hold_reason",)

    # Status fields are recorded as transitions by services.shipment_transition; eta is derived.
    audit_exclude = (
        "created_at",
        "updated_at",
        "status",
        "held_from",
        "hold_kind",
        "hold_reason",
        "status_changed_at",
        "eta",
        "amendments",
    )

    reference = models.CharField(max_length=20, unique=True, editable=False)
    owner = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        related_name="owned_shipments",
        help_text="Organisation that created the shipment.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
    )
    origin = models.ForeignKey("shipments.Site", on_delete=models.PROTECT, related_name="+")
    destination = models.ForeignKey("shipments.Site", on_delete=models.PROTECT, related_name="+")
    incoterm = models.CharField(max_length=3, choices=Incoterm.choices)
    incoterm_place = models.CharField("Incoterm named place", max_length=120)
    mode = models.CharField("transport mode", max_length=12, choices=TransportMode.choices)
    ready_date = models.DateField(
        help_text="When the goods are ready to leave the origin.", validators=[validate_business_date]
    )
    required_by = models.DateField("required at destination by", validators=[validate_business_date])
    currency = CurrencyField(default="USD")
    insurance_value = MoneyField(null=True, blank=True, help_text="Insured value, in the shipment currency.")
    freight_charge = MoneyField(
        null=True,
        blank=True,
        help_text="Main carriage charged to the buyer, in the shipment currency. On the invoice under "
        "CPT, CIP, CFR and CIF.",
    )
    insurance_charge = MoneyField(
        null=True,
        blank=True,
        help_text="Cargo insurance premium charged to the buyer, in the shipment currency. On the invoice "
        "under CIP and CIF.",
    )
    # What was booked, stored when the shipment enters "booked" (booked_freight.store_on_booking):
    # freight options are not re-priced once booked.
    booked_freight = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="The freight option (or per-leg plan) chosen at booking, amounts as strings.",
    )
    booked_freight_cost = MoneyField(
        null=True, blank=True, editable=False, help_text="Its cost at booking, in booked_freight_currency."
    )
    booked_freight_currency = CurrencyField(
        blank=True,
        default="",
        editable=False,
        help_text="The currency of the freight rates it was priced in.",
    )
    reason_for_export = models.CharField(max_length=40, default="sale", blank=True)
    end_use = models.CharField(
        max_length=300,
        blank=True,
        help_text="What the goods will be used for, e.g. 'AI training cluster, pod 2'.",
    )
    end_use_flags = models.JSONField(
        default=list, blank=True, help_text="Red flags; any one holds the shipment."
    )
    instructions = models.TextField(
        blank=True, max_length=FREE_TEXT_MAX_LENGTH, validators=[MaxLengthValidator(FREE_TEXT_MAX_LENGTH)]
    )
    payment_terms = models.CharField(
        max_length=120,
        blank=True,
        help_text="As agreed with the buyer, e.g. '30 days net from invoice date'.",
    )
    buyer_order_reference = models.CharField(
        "buyer's order reference", max_length=60, blank=True, help_text="The buyer's purchase order number."
    )

    status = models.CharField(max_length=20, choices=ShipmentStatus.choices, default=ShipmentStatus.DRAFT)
    hold_kind = models.CharField(max_length=12, blank=True)
    hold_reason = models.CharField(max_length=500, blank=True)
    held_from = models.CharField(max_length=20, choices=ShipmentStatus.choices, blank=True)
    status_changed_at = models.DateTimeField(default=timezone.now, validators=[validate_business_date])
    # Derived from events and legs by selectors.shipment_refresh_eta; stored so lists can filter "late".
    eta = models.DateField("ETA", null=True, blank=True, editable=False)
    # Counted by services.shipment_amend: the compliance answer rests on it, so an approved shipment
    # sent back to draft is checked again when resubmitted, even when nothing else changed.
    amendments = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text="How many times the shipment was sent back from approved to draft to be corrected.",
    )

    objects = ShipmentQuerySet.as_manager()

    # Terms and route people edit (browser form and API); parties are set separately.
    EDITABLE_FIELDS = (
        "origin", "destination", "incoterm", "incoterm_place", "mode", "ready_date", "required_by",
        "currency", "freight_charge", "insurance_charge", "insurance_value", "reason_for_export", "end_use",
        "end_use_flags", "instructions", "payment_terms", "buyer_order_reference",
    )  # fmt: skip

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status"]),
            models.Index(fields=["required_by"]),
            # The lists' order: without it every page sorts all visible shipments.
            models.Index(fields=["-created_at", "-id"], name="shipments_newest_first"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~Q(origin=models.F("destination")), name="shipments_origin_not_destination"
            ),
            models.CheckConstraint(
                condition=Q(status="on_hold", held_from__gt="") | ~Q(status="on_hold"),
                name="shipments_hold_remembers_where_from",
            ),
        ]

    def __str__(self) -> str:
        return self.reference

    def get_absolute_url(self) -> str:
        return reverse("shipments:shipment-detail", args=[self.reference])

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        parties = ShipmentParty.objects.filter(shipment=OuterRef("pk"), organisation_id=organisation_id)
        if action != VIEW:
            parties = parties.filter(role__in=CHANGING_ROLES)
        # A party reaches the operator's shipments (operator staff named it) and a partner's only
        # while the operator keeps the two connected: ending the connection ends the reach.
        connected = Connection.objects.filter(
            Q(organisation_a_id=OuterRef("owner_id"), organisation_b_id=organisation_id)
            | Q(organisation_b_id=OuterRef("owner_id"), organisation_a_id=organisation_id)
        )
        reachable = Q(owner__kind=OrganisationKind.OPERATOR) | Q(Exists(connected))
        # A supplier named on a consolidation's lines (`ShipmentLine.shipper`, or their exporter of
        # record) is a party of the shipment as much as the shipment-level shipper is.
        line_parties = ShipmentLine.objects.filter(shipment=OuterRef("pk")).filter(
            Q(shipper_id=organisation_id) | Q(exporter_of_record_id=organisation_id)
        )
        return Q(owner_id=organisation_id) | ((Q(Exists(parties)) | Q(Exists(line_parties))) & reachable)

    def clean(self) -> None:
        from ..engines.incoterms import mode_problem

        errors = {}
        if self.origin_id and self.origin_id == self.destination_id:
            errors["destination"] = "The destination must differ from the origin."
        if self.incoterm and self.mode and (problem := mode_problem(self.incoterm, self.mode)):
            errors["incoterm"] = problem
        unknown = [f for f in self.end_use_flags or [] if f not in EndUseFlag.values]
        if unknown:
            errors["end_use_flags"] = f"Unknown red flags: {', '.join(map(str, unknown))}."
        if self.ready_date and self.required_by and self.required_by < self.ready_date:
            errors["required_by"] = "The required date is before the goods are ready."
        if errors:
            raise ValidationError(errors)

    @property
    def is_editable(self) -> bool:
        """Lines, parties and terms change only before compliance review starts."""
        return self.status == ShipmentStatus.DRAFT

    @property
    def origin_country(self) -> str:
        return self.origin.country

    @property
    def destination_country(self) -> str:
        return self.destination.country


class ShipmentParty(AuditedModel, TimeStampedModel):
    shipment = models.ForeignKey(Shipment, on_delete=models.CASCADE, related_name="parties")
    role = models.CharField(max_length=24, choices=PartyRole.choices)
    organisation = models.ForeignKey(
        "accounts.Organisation", on_delete=models.PROTECT, related_name="shipment_roles"
    )

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["role"]
        constraints = [
            models.UniqueConstraint(fields=["shipment", "role"], name="shipments_one_party_per_role")
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.organisation}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        return Q(shipment__in=Shipment.objects.filter(Shipment.org_scope_q(organisation_id, action)))


class ShipmentLine(AuditedModel, TimeStampedModel):
    """A part and quantity on a shipment, with the trade data customs and export control read."""

    shipment = models.ForeignKey(Shipment, on_delete=models.CASCADE, related_name="lines")
    line_number = models.PositiveIntegerField(validators=[MaxValueValidator(NUMBER_MAX)])
    part = models.ForeignKey("catalog.Part", on_delete=models.PROTECT, related_name="shipment_lines")
    description = models.CharField(max_length=300)
    quantity = models.PositiveIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(LINE_QUANTITY_MAX)]
    )
    unit_value = MoneyField()
    country_of_origin = CountryField()
    hs_code = models.CharField("HS code", max_length=10)
    # Filled by the compliance check: ECCN, reasoning, licence decision — a snapshot, so later
    # changes to the part do not rewrite what was decided for this shipment.
    export_classification = models.JSONField(default=dict, blank=True)
    # A consolidation's goods leave several countries: each supplier exports its own lines. Empty
    # means the shipment's shipper and exporter of record act for the line.
    shipper = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="shipped_lines",
        verbose_name="shipper / exporter",
        help_text="The supplier exporting this line, if not the shipment's shipper.",
    )
    exporter_of_record = models.ForeignKey(
        "accounts.Organisation",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="exported_lines",
        help_text="Exporter of record for this line's origin, if not the shipment's.",
    )

    class Meta:
        ordering = ["shipment", "line_number"]
        constraints = [
            models.UniqueConstraint(fields=["shipment", "line_number"], name="shipments_line_number_unique"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="shipments_line_quantity_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.shipment_id}/{self.line_number}: {self.quantity} × {self.description}"

    def clean(self) -> None:
        errors = {}
        self.hs_code = normalise_hs_code(self.hs_code)
        if self.hs_code and (problem := hs_code_problem(self.hs_code)):
            errors["hs_code"] = problem
        if (
            isinstance(self.quantity, int)
            and isinstance(self.unit_value, Decimal)
            and self.unit_value * self.quantity > MONEY_MAX
        ):
            errors["quantity"] = (
                f"{self.quantity:,} × {self.unit_value:,} is more than the largest line value "
                f"({MONEY_MAX:,}); split the line or check the unit value."
            )
        if errors:
            raise ValidationError(errors)

    @property
    def line_value(self) -> Decimal:
        return self.unit_value * self.quantity


class LineSerial(CheckedInputModel):
    """One unit (`catalog.Unit`: part + serial, unique per manufacturer) on a line, and the package
    it is packed in. The serial is the unit's: one row per physical box wherever it goes."""

    line = models.ForeignKey(ShipmentLine, on_delete=models.CASCADE, related_name="serials")
    unit = models.ForeignKey("catalog.Unit", on_delete=models.PROTECT, related_name="line_serials")
    package = models.ForeignKey(
        "shipments.Package", on_delete=models.SET_NULL, null=True, blank=True, related_name="serials"
    )

    class Meta:
        ordering = ["line", "unit__serial"]
        constraints = [models.UniqueConstraint(fields=["line", "unit"], name="shipments_unit_once_per_line")]

    def __str__(self) -> str:
        return self.serial

    @property
    def serial(self) -> str:
        return self.unit.serial


class PackageType(models.TextChoices):
    CRATE = "crate", "Crate"
    PALLET = "pallet", "Pallet"
    CARTON = "carton", "Carton"
    RACK_IN_CRATE = "rack_in_crate", "Rack in crate"


class Package(AuditedModel, TimeStampedModel):
    shipment = models.ForeignKey(Shipment, on_delete=models.CASCADE, related_name="packages")
    number = models.PositiveIntegerField(validators=[MaxValueValidator(NUMBER_MAX)])
    package_type = models.CharField(max_length=16, choices=PackageType.choices)
    length_cm = models.DecimalField(max_digits=8, decimal_places=1, validators=PACKAGE_SIDE)
    width_cm = models.DecimalField(max_digits=8, decimal_places=1, validators=PACKAGE_SIDE)
    height_cm = models.DecimalField(max_digits=8, decimal_places=1, validators=PACKAGE_SIDE)
    gross_kg = models.DecimalField(
        "gross weight (kg)", max_digits=10, decimal_places=2, validators=PACKAGE_WEIGHT
    )
    net_kg = models.DecimalField(
        "net weight (kg)", max_digits=10, decimal_places=2, validators=PACKAGE_WEIGHT
    )
    tilt_indicator = models.BooleanField(default=False)
    shock_indicator = models.BooleanField(default=False)
    keep_dry = models.BooleanField(default=True)
    marks = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["shipment", "number"]
        constraints = [
            models.UniqueConstraint(fields=["shipment", "number"], name="shipments_package_number_unique"),
            models.CheckConstraint(
                condition=Q(net_kg__lte=models.F("gross_kg")), name="shipments_net_le_gross"
            ),
        ]

    def __str__(self) -> str:
        return f"Package {self.number} ({self.get_package_type_display()})"

    def clean(self) -> None:
        if self.net_kg is not None and self.gross_kg is not None and self.net_kg > self.gross_kg:
            raise ValidationError({"net_kg": "Net weight cannot exceed gross weight."})

    @property
    def volume_m3(self) -> Decimal:
        return (self.length_cm * self.width_cm * self.height_cm / Decimal(1_000_000)).quantize(
            Decimal("0.001")
        )


class PackageItem(models.Model):
    """How many units of a line are in a package."""

    package = models.ForeignKey(Package, on_delete=models.CASCADE, related_name="items")
    line = models.ForeignKey(ShipmentLine, on_delete=models.CASCADE, related_name="package_items")
    quantity = models.PositiveIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(LINE_QUANTITY_MAX)]
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["package", "line"], name="shipments_package_item_unique"),
            models.CheckConstraint(
                condition=Q(quantity__gte=1), name="shipments_package_item_quantity_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} × line {self.line.line_number}"
