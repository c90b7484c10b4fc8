"""Receipts against an advance notice: an inbound shipment, or one of its legs, arriving at a
warehouse, what was scanned against what was expected, and each discrepancy until a person
resolves it (written by `services/receipts.py`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel
from apps.core.scoping import VIEW

NOTHING = Q(pk__in=[])


class ReceiptStatus(models.TextChoices):
    OPEN = "open", "Open: discrepancies to resolve"
    CLOSED = "closed", "Closed"


class Receipt(AuditedModel, TimeStampedModel):
    reference = models.CharField(max_length=20, unique=True, editable=False)
    shipment = models.ForeignKey("shipments.Shipment", on_delete=models.PROTECT, related_name="receipts")
    leg = models.ForeignKey(
        "shipments.Leg",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="receipts",
        help_text="For a consolidation: the inbound leg that arrived at the hub.",
    )
    location = models.ForeignKey("warehouse.Location", on_delete=models.PROTECT, related_name="receipts")
    status = models.CharField(max_length=8, choices=ReceiptStatus.choices, default=ReceiptStatus.CLOSED)
    customs_reference = models.CharField(max_length=50, blank=True)
    received_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    received_at = models.DateTimeField()
    expected_units = models.PositiveIntegerField(default=0)
    received_units = models.PositiveIntegerField(default=0)

    objects = OrgScopedQuerySet.as_manager()

    identifier_fields = ("customs_reference",)

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [
            # A leg, or a shipment without one, arrives once: a second receipt would take the same
            # units into stock twice (`services.receipts.receipt_record` says which receipt took it).
            models.UniqueConstraint(
                fields=["leg"], condition=Q(leg__isnull=False), name="warehouse_receipt_leg_once"
            ),
            models.UniqueConstraint(
                fields=["shipment"], condition=Q(leg__isnull=True), name="warehouse_receipt_shipment_once"
            ),
        ]

    def __str__(self) -> str:
        return self.reference

    def get_absolute_url(self) -> str:
        return reverse("warehouse:receipt-detail", args=[self.reference])

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        # A partner reads the receipts of the shipments it sees; the warehouse's staff record them.
        if action != VIEW:
            return NOTHING
        from apps.shipments.models import Shipment

        return Q(
            shipment__in=Shipment.objects.filter(Shipment.org_scope_q(organisation_id, VIEW)).values("pk")
        )


class DiscrepancyKind(models.TextChoices):
    MISSING = "missing", "Missing"
    EXTRA = "extra", "Extra (not on the notice)"
    DAMAGED = "damaged", "Damaged"
    SHORT = "short", "Short (fewer pieces)"
    OVER = "over", "Over (more pieces)"


class Discrepancy(AuditedModel, TimeStampedModel):
    """One difference between a notice and what arrived; open until resolved with a note."""

    free_text_fields = ("resolution",)

    receipt = models.ForeignKey(Receipt, on_delete=models.CASCADE, related_name="discrepancies")
    kind = models.CharField(max_length=8, choices=DiscrepancyKind.choices)
    line = models.ForeignKey("shipments.ShipmentLine", on_delete=models.PROTECT, null=True, blank=True)
    part = models.ForeignKey("catalog.Part", on_delete=models.PROTECT, null=True, blank=True)
    serial = models.CharField(max_length=80, blank=True)
    unit = models.ForeignKey("catalog.Unit", on_delete=models.PROTECT, null=True, blank=True)
    quantity = models.PositiveIntegerField(default=1)
    note = models.CharField(
        max_length=300,
        blank=True,
        help_text="What the books knew of the serial at the receipt: for an extra one that is a known "
        "unit, where it should be.",
    )
    resolution = models.TextField(blank=True, max_length=2000)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["receipt", "kind", "serial", "id"]

    def __str__(self) -> str:
        what = self.serial or f"{self.quantity} × {self.part.part_number if self.part else 'pieces'}"
        return f"{self.get_kind_display()}: {what}"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        if action != VIEW:
            return NOTHING
        return Q(receipt__in=Receipt.objects.filter(Receipt.org_scope_q(organisation_id, VIEW)).values("pk"))
