from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q

from apps.core.models import AuditedModel, CheckedInputModel, TimeStampedModel
from apps.core.validators import validate_business_date

from ..validators import air_waybill_problem, container_number_problem, container_numbers_split
from .shipments import Shipment, TransportMode


class LegRole(models.TextChoices):
    INBOUND = "inbound", "Inbound (to consolidation)"
    MAIN = "main", "Main carriage"
    ONWARD = "onward", "Onward / final mile"


class Leg(AuditedModel, TimeStampedModel):
    """One movement: a supplier's goods to the consolidation warehouse, or the main carriage."""

    shipment = models.ForeignKey(Shipment, on_delete=models.CASCADE, related_name="legs")
    sequence = models.PositiveSmallIntegerField(validators=[MaxValueValidator(999)])
    role = models.CharField(max_length=10, choices=LegRole.choices)
    origin = models.ForeignKey("shipments.Site", on_delete=models.PROTECT, related_name="+")
    destination = models.ForeignKey("shipments.Site", on_delete=models.PROTECT, related_name="+")
    mode = models.CharField(max_length=12, choices=TransportMode.choices)
    carrier = models.CharField(max_length=120, blank=True)
    transport_document = models.CharField(
        "air waybill / bill of lading",
        max_length=40,
        blank=True,
        help_text="Air waybill number (e.g. 618-12345675) or bill of lading number.",
    )
    container_numbers = models.CharField(
        max_length=250,
        blank=True,
        help_text="ISO 6346 container numbers carried on this leg, separated by commas, e.g. "
        "MSCU1234566, CSQU3054383.",
    )
    lines = models.ManyToManyField(
        "shipments.ShipmentLine",
        blank=True,
        related_name="legs",
        help_text="For inbound legs: the lines this supplier sends.",
    )
    planned_departure = models.DateField(null=True, blank=True, validators=[validate_business_date])
    planned_arrival = models.DateField(null=True, blank=True, validators=[validate_business_date])
    actual_departure = models.DateTimeField(null=True, blank=True, validators=[validate_business_date])
    actual_arrival = models.DateTimeField(null=True, blank=True, validators=[validate_business_date])

    # An air waybill, bill of lading or container number: no invisible character may hide in it.
    identifier_fields = ("transport_document", "container_numbers")

    class Meta:
        ordering = ["shipment", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["shipment", "sequence"], name="shipments_leg_sequence_unique"),
            models.CheckConstraint(condition=~Q(origin=models.F("destination")), name="shipments_leg_moves"),
        ]

    def __str__(self) -> str:
        return f"Leg {self.sequence}: {self.origin} → {self.destination} ({self.get_mode_display()})"

    def clean(self) -> None:
        errors = {}
        if self.origin_id and self.origin_id == self.destination_id:
            errors["destination"] = "A leg must go somewhere: destination equals origin."
        problem = air_waybill_problem(self.transport_document) if self.transport_document else None
        if self.mode == TransportMode.AIR and problem:
            errors["transport_document"] = problem
        numbers = container_numbers_split(self.container_numbers)
        if problems := [p for number in numbers if (p := container_number_problem(number))]:
            errors["container_numbers"] = " ".join(problems)
        else:
            # Stored one way, as the search and the documents read them: "MSCU1234566, CSQU3054383".
            self.container_numbers = ", ".join(dict.fromkeys(numbers))
        if self.planned_departure and self.planned_arrival and self.planned_arrival < self.planned_departure:
            errors["planned_arrival"] = "Planned arrival is before planned departure."
        if errors:
            raise ValidationError(errors)


class EventCode(models.TextChoices):
    BOOKED = "booked", "Booked with carrier"
    PICKED_UP = "picked_up", "Picked up"
    RECEIVED_AT_WAREHOUSE = "received_at_warehouse", "Received at warehouse"
    DEPARTED = "departed", "Departed"
    ARRIVED = "arrived", "Arrived"
    CUSTOMS_HOLD = "customs_hold", "Customs hold"
    CUSTOMS_RELEASED = "customs_released", "Customs released"
    OUT_FOR_DELIVERY = "out_for_delivery", "Out for delivery"
    DELIVERED = "delivered", "Delivered"
    EXCEPTION = "exception", "Exception"


class TrackingEvent(CheckedInputModel):
    """A milestone posted by a forwarder, broker or coordinator. Append-only; sorted by event time."""

    free_text_fields = ("remarks",)

    shipment = models.ForeignKey(Shipment, on_delete=models.CASCADE, related_name="events")
    leg = models.ForeignKey(Leg, on_delete=models.SET_NULL, null=True, blank=True, related_name="events")
    code = models.CharField(max_length=24, choices=EventCode.choices)
    occurred_at = models.DateTimeField(validators=[validate_business_date])
    location = models.CharField(max_length=200, blank=True)
    remarks = models.CharField(max_length=1000, blank=True)
    eta = models.DateField(
        "new ETA",
        null=True,
        blank=True,
        help_text="Updated arrival estimate, if given.",
        validators=[validate_business_date],
    )
    posted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    organisation = models.ForeignKey(
        "accounts.Organisation", on_delete=models.PROTECT, related_name="+", null=True
    )
    recorded_at = models.DateTimeField(auto_now_add=True)
    status_before = models.CharField(max_length=20, blank=True)
    status_after = models.CharField(
        max_length=20, blank=True, help_text="Set when the event moved the status."
    )
    status_note = models.CharField(
        max_length=300,
        blank=True,
        help_text="What the event did to the status: the steps it inferred, or why it moved nothing.",
    )

    class Meta:
        ordering = ["occurred_at", "id"]
        indexes = [models.Index(fields=["shipment", "occurred_at"])]

    def __str__(self) -> str:
        return f"{self.get_code_display()} at {self.occurred_at:%Y-%m-%d %H:%M}"
