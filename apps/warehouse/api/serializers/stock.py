"""Warehouse API serializers: stock as read (units, locations, lots, the ledger, on-hand), and the
bodies of the floor's actions (receipts, moves, adjustments, counts, allocations, picks,
dispatches). Every id a body takes is chosen among what the user may see
(`ScopedPrimaryKeyRelatedField`); the services decide the rest and name the field they refuse."""

from __future__ import annotations

from decimal import Decimal

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.accounts.models import Organisation
from apps.catalog.models import CustomsStatus, Part, Unit, UnitStatus
from apps.catalog.units import part_for_owner_problem
from apps.core.api import FittingDecimalField, ScopedPrimaryKeyRelatedField
from apps.core.disclosure import recorded_person_label
from apps.core.validators import TextValidator
from apps.shipments.models import Shipment, ShipmentLine, Site

from ...models import LOT_QUANTITY_MAX, QUANTITY_MAX, WAREHOUSE_KINDS, Location, Lot, LotAllocation, Movement

UNIT_STATUS_HELP = "A unit status: " + ", ".join(f"`{value}`" for value in UnitStatus.values) + "."
REASON = {"required": False, "allow_blank": True, "max_length": 500, "validators": [TextValidator("line")]}


def _warehouses(queryset, user):
    return Site.objects.visible_to(user).filter(kind__in=WAREHOUSE_KINDS)


def _outbound_lines(queryset, user):
    """Lines of the shipments the user sees (a line has no scope of its own: its shipment's)."""
    return ShipmentLine.objects.filter(shipment__in=Shipment.objects.visible_to(user))


def _code(zone: str, aisle: str, rack: str, bin_: str) -> str:
    return "-".join(part for part in (zone, aisle, rack, bin_) if part)


# --- reads ---------------------------------------------------------------------------------------


class LocationBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField(help_text="Zone-aisle-rack-bin, e.g. `A-01-02-03`; `RCV` is a dock.")
    warehouse = serializers.IntegerField(source="site_id")
    warehouse_name = serializers.CharField(source="site.name")


class LocationSerializer(serializers.ModelSerializer):
    """A location as read; `site`, `zone`, `aisle`, `rack` and `bin` are what a new one is made of."""

    site = ScopedPrimaryKeyRelatedField(
        queryset=Site.objects.all(), chooser=_warehouses, help_text="The warehouse (bonded or not)."
    )
    site_name = serializers.CharField(source="site.name", read_only=True)
    code = serializers.CharField(read_only=True)
    zone = serializers.CharField(max_length=20, help_text="e.g. A, RCV (receiving), QC (quarantine).")
    aisle = serializers.CharField(max_length=20, required=False, allow_blank=True)
    rack = serializers.CharField(max_length=20, required=False, allow_blank=True)
    bin = serializers.CharField(max_length=20, required=False, allow_blank=True)

    class Meta:
        model = Location
        fields = ["id", "site", "site_name", "code", "zone", "aisle", "rack", "bin", "is_active"]
        read_only_fields = ["is_active"]
        validators: list = []  # the service's full_clean names a duplicate


class LineBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    shipment = serializers.CharField(source="shipment.reference", help_text="Shipment reference.")
    line_number = serializers.IntegerField()


class UnitSerializer(serializers.ModelSerializer):
    """A serialised unit: what it is, whose, its status and where it is in a warehouse (null when it
    is in none), and the outbound shipment line it is allocated to."""

    part_number = serializers.CharField(source="part.part_number", read_only=True)
    location = serializers.SerializerMethodField()
    customs_reference = serializers.SerializerMethodField()
    allocated_to = serializers.SerializerMethodField()
    received_at = serializers.SerializerMethodField()
    # A plain string in the schema: an enum named `status` needs an ENUM_NAME_OVERRIDES entry.
    status = serializers.CharField(read_only=True, help_text=UNIT_STATUS_HELP)
    country_of_origin = serializers.CharField(
        source="origin_country",
        read_only=True,
        help_text="ISO country where this unit was made: declared by the line it was received under, "
        "else its part's.",
    )

    class Meta:
        model = Unit
        fields = [
            "id",
            "part",
            "part_number",
            "serial",
            "owner",
            "status",
            "customs_status",
            "country_of_origin",
            "location",
            "customs_reference",
            "allocated_to",
            "received_at",
        ]
        read_only_fields = fields

    @staticmethod
    def _placement(unit):
        try:
            return unit.placement
        except Unit.placement.RelatedObjectDoesNotExist:
            return None

    @extend_schema_field(LocationBriefSerializer(allow_null=True))
    def get_location(self, unit):
        placement = self._placement(unit)
        return LocationBriefSerializer(placement.location).data if placement else None

    def get_customs_reference(self, unit) -> str:
        placement = self._placement(unit)
        return placement.customs_reference if placement else ""

    @extend_schema_field(LineBriefSerializer(allow_null=True))
    def get_allocated_to(self, unit):
        placement = self._placement(unit)
        if placement is None or placement.line is None:
            return None
        return LineBriefSerializer(placement.line).data

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_received_at(self, unit):
        """When it entered the warehouse it is in (null when in none)."""
        placement = self._placement(unit)
        return serializers.DateTimeField().to_representation(placement.created_at) if placement else None


class LotSerializer(serializers.ModelSerializer):
    """Non-serialised goods of one part at one location, for one owner and customs standing."""

    part_number = serializers.CharField(source="part.part_number", read_only=True)
    location = LocationBriefSerializer(read_only=True)
    quantity = serializers.IntegerField(read_only=True, help_text="On hand.")
    allocated = serializers.IntegerField(read_only=True, help_text="Of those on hand, set aside for lines.")
    free = serializers.IntegerField(read_only=True, help_text="On hand less allocated.")

    class Meta:
        model = Lot
        fields = [
            "id",
            "part",
            "part_number",
            "location",
            "owner",
            "customs_status",
            "customs_reference",
            "quantity",
            "allocated",
            "free",
            "created_at",
        ]
        read_only_fields = fields


class LotAllocationSerializer(serializers.ModelSerializer):
    part_number = serializers.CharField(source="lot.part.part_number", read_only=True)
    location_code = serializers.CharField(source="lot.location.code", read_only=True)
    line = LineBriefSerializer(read_only=True)
    status = serializers.CharField(
        read_only=True, help_text="`allocated`, `picked`, `shipped` or `released`."
    )

    class Meta:
        model = LotAllocation
        fields = ["id", "lot", "part_number", "location_code", "line", "quantity", "status"]
        read_only_fields = fields


class MovementSerializer(serializers.ModelSerializer):
    """One row of the append-only ledger: stock left `from_location` and arrived at `to_location`."""

    actor = serializers.SerializerMethodField()
    part_number = serializers.CharField(source="part.part_number", read_only=True)
    serial = serializers.CharField(source="unit.serial", read_only=True, default=None, allow_null=True)
    from_location = LocationBriefSerializer(read_only=True, allow_null=True)
    to_location = LocationBriefSerializer(read_only=True, allow_null=True)
    shipment = serializers.CharField(
        source="shipment.reference",
        read_only=True,
        default=None,
        allow_null=True,
        help_text="Outbound shipment.",
    )
    # The unit's status around the row (blank for lots): a unit status, as `status` of a unit.
    status_before = serializers.CharField(read_only=True)
    status_after = serializers.CharField(read_only=True)

    class Meta:
        model = Movement
        fields = [
            "id",
            "kind",
            "occurred_at",
            "actor",
            "reason",
            "part",
            "part_number",
            "unit",
            "serial",
            "owner",
            "quantity",
            "from_location",
            "to_location",
            "customs_status",
            "customs_reference",
            "status_before",
            "status_after",
            "shipment",
            "line",
        ]
        read_only_fields = fields

    def get_actor(self, movement) -> str:
        # A partner reads "Rackpass staff", not the operator's people (apps.core.disclosure).
        viewer = getattr(self.context.get("request"), "user", None)
        return recorded_person_label(movement.actor, movement.actor_label, viewer)


class OnHandSerializer(serializers.Serializer):
    """Stock on hand of one part at one location, in one status and customs status."""

    kind = serializers.CharField(source="row_kind", help_text="`units` (serialised) or `lot`.")
    part = serializers.IntegerField(source="part_key")
    part_number = serializers.CharField()
    part_name = serializers.CharField()
    warehouse = serializers.IntegerField(source="warehouse_key")
    warehouse_name = serializers.CharField()
    location = serializers.IntegerField(source="location_key")
    location_code = serializers.SerializerMethodField()
    status = serializers.CharField(source="row_status", help_text=UNIT_STATUS_HELP)
    customs_status = serializers.ChoiceField(choices=CustomsStatus.choices, source="customs")
    quantity = serializers.IntegerField(source="pieces")
    unit_value = serializers.DecimalField(max_digits=16, decimal_places=2, source="part_value")
    value = FittingDecimalField(max_digits=20, decimal_places=2, help_text="unit_value × quantity.")
    currency = serializers.CharField(source="part_currency")
    oldest_received_at = serializers.DateTimeField(source="since")
    days_in_stock = serializers.SerializerMethodField(
        help_text="Days since the oldest piece arrived (a unit's receipt into this warehouse, a lot's "
        "first receipt)."
    )

    def get_location_code(self, row) -> str:
        return _code(row["zone_"], row["aisle_"], row["rack_"], row["bin_"])

    def get_days_in_stock(self, row) -> int:
        return max((timezone.now() - row["since"]).days, 0)

    def to_representation(self, row):
        row = {**row, "value": (row["part_value"] or Decimal(0)) * row["pieces"]}
        return super().to_representation(row)


# --- action bodies -------------------------------------------------------------------------------


def _units_field(help_text: str, **kwargs):
    return ScopedPrimaryKeyRelatedField(queryset=Unit.objects.all(), many=True, help_text=help_text, **kwargs)


class ReceiptSerializer(serializers.Serializer):
    """Goods received into a location: units by serial number, or a lot quantity."""

    location = ScopedPrimaryKeyRelatedField(queryset=Location.objects.all())
    part = ScopedPrimaryKeyRelatedField(queryset=Part.objects.all())
    owner = ScopedPrimaryKeyRelatedField(
        queryset=Organisation.objects.all(), help_text="Whose goods (a new serial becomes its unit)."
    )
    serials = serializers.ListField(
        child=serializers.CharField(max_length=80),
        required=False,
        max_length=1000,
        help_text="Serialised parts: every serial number received.",
    )
    quantity = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=QUANTITY_MAX,
        help_text="Non-serialised parts: pieces received.",
    )
    customs_reference = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=50,
        help_text="Customs entry or bonded-warehouse receipt number: required at a bonded warehouse.",
    )
    reason = serializers.CharField(**REASON)

    def validate(self, data):
        if ("serials" in data) == ("quantity" in data):
            raise serializers.ValidationError(
                {"serials": "Give either `serials` (serialised parts) or `quantity` (a lot), not both."}
            )
        # The part field offers every catalogue to the operator's staff: the goods' owner decides.
        if problem := part_for_owner_problem(data["part"], data["owner"]):
            raise serializers.ValidationError({"part": problem})
        return data


class MoveSerializer(serializers.Serializer):
    """Move units, or free pieces of a lot, to another location of the same warehouse (a received
    unit's first move is its put-away, which makes it available)."""

    to_location = ScopedPrimaryKeyRelatedField(queryset=Location.objects.all())
    units = _units_field("Units to move.", required=False)
    lot = ScopedPrimaryKeyRelatedField(
        queryset=Lot.objects.all(), required=False, help_text="Lot to move from."
    )
    quantity = serializers.IntegerField(required=False, min_value=1, max_value=QUANTITY_MAX)
    reason = serializers.CharField(**REASON)

    def validate(self, data):
        return _units_or_lot(data)


def _units_or_lot(data):
    if bool(data.get("units")) == ("lot" in data):
        raise serializers.ValidationError({"units": "Give either `units` or `lot` and `quantity`, not both."})
    if "lot" in data and "quantity" not in data:
        raise serializers.ValidationError({"quantity": "How many pieces of the lot?"})
    return data


class AdjustmentSerializer(serializers.Serializer):
    """Correct a lot's on-hand (found or damaged goods): never negative, never below what is allocated."""

    lot = ScopedPrimaryKeyRelatedField(queryset=Lot.objects.all())
    delta = serializers.IntegerField(
        min_value=-QUANTITY_MAX, max_value=QUANTITY_MAX, help_text="Pieces added (positive) or removed."
    )
    reason = serializers.CharField(max_length=500, validators=[TextValidator("line")])


class CountedLotSerializer(serializers.Serializer):
    lot = ScopedPrimaryKeyRelatedField(queryset=Lot.objects.all())
    counted = serializers.IntegerField(min_value=0, max_value=LOT_QUANTITY_MAX)


class CountSerializer(serializers.Serializer):
    """A cycle count of one location: every serial seen there, and the counted quantity of every
    lot with stock there."""

    location = ScopedPrimaryKeyRelatedField(queryset=Location.objects.all())
    serials = serializers.ListField(
        child=serializers.CharField(max_length=80), required=False, default=list, max_length=5000
    )
    lots = CountedLotSerializer(many=True, required=False, default=list)
    reason = serializers.CharField(**REASON)

    def validate_lots(self, value):
        seen: set[int] = set()
        repeated = sorted(
            {row["lot"].pk for row in value if row["lot"].pk in seen or seen.add(row["lot"].pk)}
        )
        if repeated:
            raise serializers.ValidationError(f"Lot {', '.join(map(str, repeated))} counted twice.")
        return value


class AllocationSerializer(serializers.Serializer):
    """Set available units, or a quantity of a lot, aside for an outbound shipment line."""

    line = ScopedPrimaryKeyRelatedField(
        queryset=ShipmentLine.objects.all(), chooser=_outbound_lines, help_text="Shipment line id."
    )
    units = _units_field("Available units of the line's part.", required=False)
    lot = ScopedPrimaryKeyRelatedField(queryset=Lot.objects.all(), required=False)
    quantity = serializers.IntegerField(required=False, min_value=1, max_value=QUANTITY_MAX)
    reason = serializers.CharField(**REASON)

    def validate(self, data):
        return _units_or_lot(data)


class UnitsAndAllocationsSerializer(serializers.Serializer):
    """Allocated units and lot allocations (by id) to act on."""

    units = _units_field("Serialised units.", required=False)
    allocations = ScopedPrimaryKeyRelatedField(
        queryset=LotAllocation.objects.all(), many=True, required=False, help_text="Lot allocations."
    )
    reason = serializers.CharField(**REASON)

    def validate(self, data):
        if not data.get("units") and not data.get("allocations"):
            raise serializers.ValidationError({"units": "Give `units`, `allocations` or both."})
        return data


class DispatchSerializer(serializers.Serializer):
    """Ship everything picked for an outbound line out of the warehouse."""

    line = ScopedPrimaryKeyRelatedField(
        queryset=ShipmentLine.objects.all(), chooser=_outbound_lines, help_text="Shipment line id."
    )
    reason = serializers.CharField(**REASON)


# --- action answers ------------------------------------------------------------------------------


class StockChangeSerializer(serializers.Serializer):
    """What an action changed: the units (as they are now), the lot (as it is now) and the lot
    allocations it made or moved along."""

    units = UnitSerializer(many=True)
    lot = LotSerializer(allow_null=True)
    allocations = LotAllocationSerializer(many=True)


class CorrectionSerializer(serializers.Serializer):
    lot = LotSerializer()
    before = serializers.IntegerField(help_text="On hand before the count.")
    counted = serializers.IntegerField()


class CountResultSerializer(serializers.Serializer):
    agrees = serializers.BooleanField(help_text="The count found the books right: nothing changed.")
    corrected = CorrectionSerializer(many=True)
    missing = UnitSerializer(many=True, help_text="Not seen: now quarantined as missing.")
    found = UnitSerializer(many=True, help_text="Seen here, booked elsewhere in the warehouse: moved here.")
