"""Warehouse stock: locations in our warehouse sites, where each unit is, lots of non-serialised
goods, what is allocated to outbound shipment lines, and the append-only movement ledger.

Quantities are whole pieces (cables, optics, rails): integers, like a shipment line's quantity.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from apps.catalog.models import CustomsStatus, UnitStatus
from apps.core.models import AuditedModel, CheckedInputModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW
from apps.shipments.models import PartyRole, SiteKind

# At most this many pieces in one receipt, move, adjustment or allocation (a shipment line's
# bound); a lot holds at most LOT_QUANTITY_MAX.
QUANTITY_MAX = 1_000_000
LOT_QUANTITY_MAX = 1_000_000_000
QUANTITY = [MinValueValidator(1), MaxValueValidator(QUANTITY_MAX)]
WAREHOUSE_KINDS = (SiteKind.WAREHOUSE, SiteKind.SUPPLIER_WAREHOUSE)
NOTHING = Q(pk__in=[])


def _held_for(organisation_id: int) -> Q:
    """Shipment lines whose goods are held for `organisation_id`: it is the consignee or the
    ultimate consignee of the shipment they are allocated to."""
    return Q(
        shipment__parties__organisation_id=organisation_id,
        shipment__parties__role__in=[PartyRole.CONSIGNEE, PartyRole.ULTIMATE_CONSIGNEE],
    )


class Location(AuditedModel, TimeStampedModel):
    """A place in a warehouse site: zone, aisle, rack and bin ("RCV" with no aisle is a dock)."""

    site = models.ForeignKey("shipments.Site", on_delete=models.PROTECT, related_name="locations")
    zone = models.CharField(max_length=20, help_text="e.g. A, RCV (receiving), QC (quarantine).")
    aisle = models.CharField(max_length=20, blank=True)
    rack = models.CharField(max_length=20, blank=True)
    bin = models.CharField(max_length=20, blank=True)
    is_active = models.BooleanField(default=True, help_text="Inactive locations take no new stock.")

    objects = OrgScopedQuerySet.as_manager()

    identifier_fields = ("zone", "aisle", "rack", "bin")

    class Meta:
        ordering = ["site", "zone", "aisle", "rack", "bin"]
        constraints = [
            models.UniqueConstraint(
                fields=["site", "zone", "aisle", "rack", "bin"], name="warehouse_location_unique"
            ),
            models.CheckConstraint(condition=~Q(zone=""), name="warehouse_location_zone_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.site.name} {self.code}"

    @property
    def code(self) -> str:
        return "-".join(part for part in (self.zone, self.aisle, self.rack, self.bin) if part)

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        # A partner sees the locations holding stock it owns or that is held for it, and those of
        # its own warehouse sites; it changes none (the operator's staff keep the warehouse).
        if action != VIEW:
            return NOTHING
        lots = Lot.objects.filter(Lot.org_scope_q(organisation_id, VIEW)).values("location")
        units = UnitPlacement.objects.filter(UnitPlacement.org_scope_q(organisation_id, VIEW))
        return Q(site__owner_id=organisation_id) | Q(pk__in=lots) | Q(pk__in=units.values("location"))

    def clean(self) -> None:
        for name in ("zone", "aisle", "rack", "bin"):
            setattr(self, name, (getattr(self, name) or "").strip().upper())
        if self.site_id and self.site.kind not in WAREHOUSE_KINDS:
            raise ValidationError(
                {"site": f"{self.site} is not a warehouse: only warehouses have locations."}
            )


class UnitPlacement(CheckedInputModel, TimeStampedModel):
    """Where a serialised unit (`catalog.Unit`) is in which warehouse, and the shipment line it is
    allocated to. One row per unit in stock; shipping it out removes the row (the ledger keeps
    where it was). The unit's status and customs status stay on the unit."""

    unit = models.OneToOneField("catalog.Unit", on_delete=models.PROTECT, related_name="placement")
    location = models.ForeignKey(Location, on_delete=models.PROTECT, related_name="placements")
    customs_reference = models.CharField(
        max_length=50, blank=True, help_text="The customs entry or bonded-warehouse receipt it came in under."
    )
    line = models.ForeignKey(
        "shipments.ShipmentLine",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="allocated_units",
        help_text="The outbound shipment line the unit is allocated to.",
    )

    objects = OrgScopedQuerySet.as_manager()

    identifier_fields = ("customs_reference",)

    class Meta:
        ordering = ["location", "unit"]

    def __str__(self) -> str:
        return f"{self.unit} at {self.location}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        if action != VIEW:
            return NOTHING
        return Q(unit__owner_id=organisation_id) | cls.held_for_q(organisation_id)

    @classmethod
    def held_for_q(cls, organisation_id: int) -> Q:
        """Placements on a shipment line whose goods are held for `organisation_id` (a handful of
        lines: the subquery stays small however many units the warehouse holds)."""
        from apps.shipments.models import ShipmentLine

        return Q(line__in=ShipmentLine.objects.filter(_held_for(organisation_id)).values("pk"))


class Lot(CheckedInputModel, TimeStampedModel):
    """Non-serialised goods (cables, optics in bulk, rails) of one part at one location: how many
    are on hand and how many of those are allocated to shipment lines.

    One lot per part, location, owner and customs standing (status and reference), so bonded and
    duty-paid stock never mix. Quantities change only by conditional updates in the services;
    the database refuses a negative on-hand or more allocated than on hand."""

    part = models.ForeignKey("catalog.Part", on_delete=models.PROTECT, related_name="lots")
    location = models.ForeignKey(Location, on_delete=models.PROTECT, related_name="lots")
    owner = models.ForeignKey(
        "accounts.Organisation", on_delete=models.PROTECT, related_name="lots", help_text="Whose goods."
    )
    customs_status = models.CharField(max_length=12, choices=CustomsStatus.choices)
    customs_reference = models.CharField(max_length=50, blank=True)
    quantity = models.PositiveIntegerField(
        "on hand", default=0, validators=[MaxValueValidator(LOT_QUANTITY_MAX)]
    )
    allocated = models.PositiveIntegerField(default=0, validators=[MaxValueValidator(LOT_QUANTITY_MAX)])

    objects = OrgScopedQuerySet.as_manager()

    identifier_fields = ("customs_reference",)

    class Meta:
        ordering = ["location", "part"]
        constraints = [
            models.UniqueConstraint(
                fields=["part", "location", "owner", "customs_status", "customs_reference"],
                name="warehouse_lot_unique",
            ),
            models.CheckConstraint(condition=Q(quantity__gte=0), name="warehouse_lot_quantity_not_negative"),
            models.CheckConstraint(
                condition=Q(allocated__gte=0), name="warehouse_lot_allocated_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(allocated__lte=F("quantity")), name="warehouse_lot_allocated_le_on_hand"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} × {self.part.part_number} at {self.location}"

    @property
    def free(self) -> int:
        return self.quantity - self.allocated

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        if action != VIEW:
            return NOTHING
        from apps.shipments.models import ShipmentLine

        held = ShipmentLine.objects.filter(_held_for(organisation_id)).values("pk")
        allocated = LotAllocation.objects.filter(line__in=held).values("lot")
        return Q(owner_id=organisation_id) | Q(pk__in=allocated)


class AllocationStatus(models.TextChoices):
    ALLOCATED = "allocated", "Allocated"
    PICKED = "picked", "Picked"
    SHIPPED = "shipped", "Shipped"
    RELEASED = "released", "Released"


class LotAllocation(CheckedInputModel, TimeStampedModel):
    """A quantity of a lot set aside for an outbound shipment line, then picked, then shipped (or
    released back to the lot)."""

    lot = models.ForeignKey(Lot, on_delete=models.PROTECT, related_name="allocations")
    line = models.ForeignKey(
        "shipments.ShipmentLine", on_delete=models.PROTECT, related_name="lot_allocations"
    )
    quantity = models.PositiveIntegerField(validators=QUANTITY)
    status = models.CharField(
        max_length=10, choices=AllocationStatus.choices, default=AllocationStatus.ALLOCATED
    )

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["line", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(quantity__gte=1), name="warehouse_allocation_quantity_positive"
            )
        ]

    def __str__(self) -> str:
        return f"{self.quantity} × {self.lot.part.part_number} for line {self.line_id} ({self.status})"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        if action != VIEW:
            return NOTHING
        return Q(lot__in=Lot.objects.filter(Lot.org_scope_q(organisation_id, VIEW)))


class MovementKind(models.TextChoices):
    RECEIPT = "receipt", "Receipt"
    PUT_AWAY = "put_away", "Put-away"
    MOVE = "move", "Move"
    ALLOCATION = "allocation", "Allocation"
    RELEASE = "release", "Allocation released"
    PICK = "pick", "Pick"
    SHIPMENT = "shipment", "Shipment"
    ADJUSTMENT = "adjustment", "Adjustment"
    COUNT = "count", "Count correction"
    STATUS = "status", "Status change"
    CUSTOMS = "customs", "Customs status change"


class MovementQuerySet(OrgScopedQuerySet):
    def update(self, **kwargs):
        raise PermissionError("The movement ledger is append-only.")

    def delete(self):
        raise PermissionError("The movement ledger is append-only.")


class Movement(models.Model):
    """One row of the append-only movement ledger: every receipt, put-away, move, allocation,
    pick, shipment, adjustment and count correction, with who, when, why and (for bonded stock)
    the customs reference.

    Stock leaves `from_location` and arrives at `to_location`: a receipt has only a destination,
    a shipment only an origin, and a row that moves nothing physically (an allocation, a pick, a
    status change) names the same location twice. On-hand is therefore the sum of what arrived
    less what left, per lot key, and `selectors.rebuild_on_hand` rebuilds it from these rows alone.
    The model refuses updates and deletes; on PostgreSQL a trigger refuses them in the database.
    """

    kind = models.CharField(max_length=12, choices=MovementKind.choices)
    occurred_at = models.DateTimeField(default=timezone.now, db_index=True)
    # No database constraint, as in the audit log: the ledger outlives users and keeps actor_label.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    actor_label = models.CharField(max_length=300, blank=True)
    reason = models.CharField(max_length=500, blank=True)
    part = models.ForeignKey("catalog.Part", on_delete=models.PROTECT, related_name="+")
    unit = models.ForeignKey(
        "catalog.Unit", on_delete=models.PROTECT, null=True, blank=True, related_name="movements"
    )
    owner = models.ForeignKey("accounts.Organisation", on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(LOT_QUANTITY_MAX)]
    )
    from_location = models.ForeignKey(
        Location, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    to_location = models.ForeignKey(
        Location, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    customs_status = models.CharField(max_length=12, choices=CustomsStatus.choices, blank=True)
    customs_reference = models.CharField(max_length=50, blank=True)
    # A unit's status before and after (blank for lots).
    status_before = models.CharField(max_length=16, choices=UnitStatus.choices, blank=True)
    status_after = models.CharField(max_length=16, choices=UnitStatus.choices, blank=True)
    # The outbound shipment (and line) an allocation, pick or shipment was for. Kept as history:
    # no database constraint, so the ledger never stops a shipment's own housekeeping.
    shipment = models.ForeignKey(
        "shipments.Shipment",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    line = models.ForeignKey(
        "shipments.ShipmentLine",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )

    objects = MovementQuerySet.as_manager()

    class Meta:
        ordering = ["-occurred_at", "-id"]
        indexes = [models.Index(fields=["unit", "id"]), models.Index(fields=["part", "id"])]
        constraints = [
            models.CheckConstraint(condition=Q(quantity__gte=1), name="warehouse_movement_quantity_positive"),
            models.CheckConstraint(
                condition=Q(unit__isnull=True) | Q(quantity=1), name="warehouse_movement_unit_is_one"
            ),
            models.CheckConstraint(
                condition=Q(from_location__isnull=False) | Q(to_location__isnull=False),
                name="warehouse_movement_has_a_location",
            ),
        ]

    def __str__(self) -> str:
        what = str(self.unit) if self.unit_id else f"{self.quantity} × {self.part}"
        return f"{self.occurred_at:%Y-%m-%d %H:%M} {self.get_kind_display()}: {what}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PermissionError("The movement ledger is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("The movement ledger is append-only.")

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        if action != VIEW:
            return NOTHING
        from apps.shipments.models import ShipmentLine

        held = ShipmentLine.objects.filter(_held_for(organisation_id)).values("pk")
        return Q(owner_id=organisation_id) | Q(line__in=held)
