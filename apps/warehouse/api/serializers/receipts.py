"""Serializers of receiving against an advance notice and of packing (the API side of
`services/receipts.py` and `services/packing.py`): the records as read, and the bodies of the writes.

Every object a body names is chosen among what the user may see — a shipment by its reference
among those it may change, a leg or line among those of such shipments, a location or unit among
those it sees — so another organisation's object is "does not exist", as an unknown one."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.catalog.models import Unit
from apps.core.api import ScopedPrimaryKeyRelatedField
from apps.core.disclosure import person_label
from apps.core.scoping import CHANGE, VIEW
from apps.core.validators import TextValidator
from apps.shipments.api.serializers import PackageSerializer
from apps.shipments.models import Leg, Package, Shipment, ShipmentLine

from ...models import LOT_QUANTITY_MAX, Discrepancy, DiscrepancyKind, Location, Receipt
from .stock import LocationBriefSerializer

KIND_HELP = "What did not match: " + ", ".join(f"`{value}`" for value in DiscrepancyKind.values) + "."
RECEIPT_STATUS_HELP = "`open` while a discrepancy is unresolved, then `closed`."


@extend_schema_field(OpenApiTypes.STR)
class ScopedReferenceField(ScopedPrimaryKeyRelatedField):
    """A shipment by its reference (`SHP-2026-000123`), among those the user may see
    (`action=VIEW`) or change: the scoping of every id field, read by reference instead of id."""

    default_error_messages = {
        "does_not_exist": "No shipment {value} that you may see.",
        "incorrect_type": "A shipment reference is a string, e.g. SHP-2026-000123.",
    }

    def __init__(self, *, action: str = VIEW, **kwargs):
        kwargs.setdefault("queryset", Shipment.objects.all())
        super().__init__(action=action, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("incorrect_type", data_type=type(data).__name__)
        # References are stored upper case; a scanner or a person may type them in lower case.
        reference = data.strip().upper()[:50]
        shipment = self.get_queryset().filter(reference=reference).first()
        if shipment is None:
            self.fail("does_not_exist", value=reference)
        return shipment

    def to_representation(self, value) -> str:
        return value.reference


def _changeable_shipments(user):
    return Shipment.objects.visible_to(user, CHANGE)


def _legs(queryset, user):
    """Legs of the shipments the user may change (a leg has no scope of its own)."""
    return Leg.objects.filter(shipment__in=_changeable_shipments(user))


def _lines(queryset, user):
    return ShipmentLine.objects.filter(shipment__in=_changeable_shipments(user))


def _active_locations(queryset, user):
    return Location.objects.visible_to(user).filter(is_active=True)


def _viewer(serializer):
    return getattr(serializer.context.get("request"), "user", None)


# --- reads ---------------------------------------------------------------------------------------


class DiscrepancySerializer(serializers.ModelSerializer):
    """One difference between a notice and what arrived; open until a person resolves it."""

    kind = serializers.CharField(read_only=True, help_text=KIND_HELP)
    line_number = serializers.IntegerField(
        source="line.line_number", read_only=True, default=None, allow_null=True
    )
    part_number = serializers.CharField(
        source="part.part_number", read_only=True, default=None, allow_null=True
    )
    is_open = serializers.BooleanField(read_only=True)
    resolved_by = serializers.SerializerMethodField()

    class Meta:
        model = Discrepancy
        fields = [
            "id",
            "kind",
            "line",
            "line_number",
            "part",
            "part_number",
            "serial",
            "unit",
            "quantity",
            "note",
            "is_open",
            "resolution",
            "resolved_by",
            "resolved_at",
        ]
        read_only_fields = fields

    def get_resolved_by(self, discrepancy) -> str:
        # A partner reads "Rackpass staff", not the operator's people (apps.core.disclosure).
        return person_label(discrepancy.resolved_by, _viewer(self))


class DiscrepancyDetailSerializer(DiscrepancySerializer):
    """A discrepancy read on its own: with its receipt and shipment."""

    receipt_reference = serializers.CharField(source="receipt.reference", read_only=True)
    shipment = serializers.CharField(source="receipt.shipment.reference", read_only=True)

    class Meta(DiscrepancySerializer.Meta):
        fields = ["id", "receipt", "receipt_reference", "shipment", *DiscrepancySerializer.Meta.fields[1:]]
        read_only_fields = fields


class NoticeReceiptSerializer(serializers.ModelSerializer):
    """A receipt of an inbound shipment (or one leg of a consolidation) against its notice, with
    every discrepancy it found."""

    shipment = serializers.CharField(source="shipment.reference", read_only=True)
    leg_sequence = serializers.IntegerField(
        source="leg.sequence", read_only=True, default=None, allow_null=True
    )
    location = LocationBriefSerializer(read_only=True)
    status = serializers.CharField(read_only=True, help_text=RECEIPT_STATUS_HELP)
    received_by = serializers.SerializerMethodField()
    open_discrepancies = serializers.SerializerMethodField()
    discrepancies = DiscrepancySerializer(many=True, read_only=True)

    class Meta:
        model = Receipt
        fields = [
            "id",
            "reference",
            "shipment",
            "leg",
            "leg_sequence",
            "location",
            "status",
            "customs_reference",
            "received_by",
            "received_at",
            "expected_units",
            "received_units",
            "open_discrepancies",
            "discrepancies",
        ]
        read_only_fields = fields

    def get_received_by(self, receipt) -> str:
        return person_label(receipt.received_by, _viewer(self))

    def get_open_discrepancies(self, receipt) -> int:
        # Counted from the prefetched rows: no query per receipt.
        return sum(1 for d in receipt.discrepancies.all() if d.is_open)


class PackableUnitSerializer(serializers.Serializer):
    """A picked unit allocated to a line of the shipment and in none of its packages yet."""

    unit = serializers.IntegerField(
        source="unit_id", help_text="The unit's id: what `units` of a pack takes."
    )
    serial = serializers.CharField(source="unit.serial")
    part = serializers.IntegerField(source="line.part_id")
    part_number = serializers.CharField(source="line.part.part_number")
    line = serializers.IntegerField(source="line_id", help_text="Shipment line id.")
    line_number = serializers.IntegerField(source="line.line_number")
    location = serializers.IntegerField(source="location_id")
    location_code = serializers.CharField(source="location.code")


# --- writes --------------------------------------------------------------------------------------


class CountedLineSerializer(serializers.Serializer):
    line = ScopedPrimaryKeyRelatedField(
        queryset=ShipmentLine.objects.all(), chooser=_lines, help_text="A non-serialised line's id."
    )
    counted = serializers.IntegerField(min_value=0, max_value=LOT_QUANTITY_MAX, help_text="Pieces counted.")


def _serials(help_text: str, max_length: int):
    return serializers.ListField(
        child=serializers.CharField(max_length=80, validators=[TextValidator("identifier")]),
        required=False,
        default=list,
        max_length=max_length,
        help_text=help_text,
    )


class NoticeReceiptRecordSerializer(serializers.Serializer):
    """What arrived of one inbound shipment (or leg), as the receiving page takes it: where, the
    serials scanned, the damaged ones, the pieces counted of each non-serialised line."""

    shipment = ScopedReferenceField(action=CHANGE, help_text="The inbound shipment's reference.")
    leg = ScopedPrimaryKeyRelatedField(
        queryset=Leg.objects.all(),
        chooser=_legs,
        required=False,
        allow_null=True,
        help_text="For a consolidation: the id of the inbound leg that arrived. Omit for the whole shipment.",
    )
    location = ScopedPrimaryKeyRelatedField(
        queryset=Location.objects.all(),
        chooser=_active_locations,
        help_text="Where it was received: a location of the warehouse the shipment (or leg) ends at.",
    )
    scanned = _serials("Every serial scanned (the expected ones go into stock; others are extras).", 5000)
    damaged = _serials("Serials received damaged: into quarantine, each an open discrepancy.", 1000)
    counted = CountedLineSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Pieces counted per non-serialised line; a line left out counts 0.",
    )
    customs_reference = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=50,
        validators=[TextValidator("identifier")],
        help_text="The bonded-warehouse receipt or entry number: required at a bonded warehouse.",
    )

    def validate_counted(self, rows):
        seen: set[int] = set()
        repeated = sorted({r["line"].pk for r in rows if r["line"].pk in seen or seen.add(r["line"].pk)})
        if repeated:
            raise serializers.ValidationError(f"Line {', '.join(map(str, repeated))} counted twice.")
        return rows

    def validate(self, data):
        leg = data.get("leg")
        if leg is not None and leg.shipment_id != data["shipment"].pk:
            raise serializers.ValidationError(
                {"leg": f"Leg {leg.sequence} is not a leg of {data['shipment'].reference}."}
            )
        return data


class DiscrepancyResolveSerializer(serializers.Serializer):
    """How a discrepancy was resolved: the note stays with the receipt."""

    resolution = serializers.CharField(max_length=2000, validators=[TextValidator("free_text")])
    found = serializers.BooleanField(
        required=False,
        default=False,
        help_text="A missing unit turned up: receive it now, at the receipt's location.",
    )
    release = serializers.BooleanField(
        required=False, default=False, help_text="A damaged unit passed inspection: out of quarantine."
    )


class PackSerializer(serializers.ModelSerializer):
    """Picked units of an outbound shipment into a new package of these sizes and weights."""

    shipment = ScopedReferenceField(action=CHANGE, help_text="The outbound shipment's reference.")
    units = ScopedPrimaryKeyRelatedField(
        queryset=Unit.objects.all(),
        many=True,
        help_text="Ids of picked units allocated to the shipment's lines (see `GET …/packs/?shipment=`).",
    )

    class Meta:
        model = Package
        fields = [
            "shipment",
            "units",
            "package_type",
            "length_cm",
            "width_cm",
            "height_cm",
            "gross_kg",
            "net_kg",
            "tilt_indicator",
            "shock_indicator",
            "keep_dry",
            "marks",
        ]
        extra_kwargs = {"marks": {"validators": [TextValidator("line")]}}

    def validate(self, data):
        if data["net_kg"] > data["gross_kg"]:
            raise serializers.ValidationError({"net_kg": "Net weight cannot exceed gross weight."})
        return data


class PackedSerializer(serializers.Serializer):
    """The package made, as the shipment's packages read it."""

    shipment = serializers.CharField(source="shipment.reference")
    package = PackageSerializer(source="*")
