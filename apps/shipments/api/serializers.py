from django.db.models import Q
from rest_framework import serializers

from apps.accounts.models import Organisation, RecordService
from apps.catalog.models import Part
from apps.core.api import FittingDecimalField, ScopedPrimaryKeyRelatedField
from apps.core.disclosure import person_label
from apps.core.fields import MONEY_MAX
from apps.core.hscodes import normalise_hs_code
from apps.core.validators import TextValidator

from ..engines.incoterms import rule as incoterm_rule
from ..models import (
    EndUseFlag,
    EventCode,
    ExchangeRate,
    FreightRate,
    Incoterm,
    Leg,
    Package,
    PackageType,
    PartyRole,
    Shipment,
    ShipmentLine,
    ShipmentParty,
    Site,
    TrackingEvent,
)
from ..models.shipments import LINE_QUANTITY_MAX, NUMBER_MAX
from ..readiness import line_warnings
from ..selectors import is_late, package_dangerous_goods


class SiteSerializer(serializers.ModelSerializer):
    owner = serializers.PrimaryKeyRelatedField(read_only=True)
    customer = ScopedPrimaryKeyRelatedField(
        queryset=Organisation.objects.all(),
        allow_null=True,
        required=False,
        help_text="On a site the operator keeps for a customer (its data centre): the customer, the "
        "only organisation (with those connected with it and its shipments' parties) that sees it.",
    )

    class Meta:
        model = Site
        fields = [
            "id",
            "owner",
            "name",
            "kind",
            "is_bonded",
            "address_line1",
            "city",
            "postal_code",
            "country",
            "unlocode",
            "iata_code",
            "customer",
            "power_mw",
            "cooling_air",
            "cooling_liquid",
            "cooling_immersion",
        ]
        validators: list = []


class SiteBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Site
        fields = ["id", "name", "kind", "city", "country", "unlocode", "iata_code"]


class PartySerializer(serializers.Serializer):
    role = serializers.CharField()
    organisation = serializers.IntegerField(source="organisation_id")
    name = serializers.CharField(source="organisation.legal_name")
    country = serializers.CharField(source="organisation.country")


class ShipmentSerializer(serializers.ModelSerializer):
    """A shipment as partners read it."""

    origin = SiteBriefSerializer()
    destination = SiteBriefSerializer()
    parties = PartySerializer(many=True)
    is_late = serializers.SerializerMethodField()
    incoterm_rule = serializers.SerializerMethodField()
    line_count = serializers.IntegerField(read_only=True, required=False)
    url = serializers.HyperlinkedIdentityField(view_name="api:shipment-detail", lookup_field="reference")

    class Meta:
        model = Shipment
        fields = [
            "reference",
            "url",
            "status",
            "hold_kind",
            "hold_reason",
            "held_from",
            "owner",
            "origin",
            "destination",
            "parties",
            "incoterm",
            "incoterm_place",
            "incoterm_rule",
            "mode",
            "ready_date",
            "required_by",
            "eta",
            "is_late",
            "currency",
            "freight_charge",
            "insurance_charge",
            "insurance_value",
            "reason_for_export",
            "end_use",
            "end_use_flags",
            "instructions",
            "payment_terms",
            "buyer_order_reference",
            "line_count",
            "amendments",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["owner"]  # read only: writes go through ShipmentWriteSerializer

    def get_is_late(self, obj) -> bool:
        return is_late(obj)

    def get_incoterm_rule(self, obj) -> dict:
        rule = incoterm_rule(obj.incoterm)
        return {
            "export_clearance": rule.export_clearance,
            "import_clearance": rule.import_clearance,
            "main_carriage_paid_by": rule.main_carriage_paid_by,
            "insurance_by": rule.insurance_by,
        }


def _nameable(queryset, user):
    return queryset.nameable_by(user)


class PartyOrganisationField(ScopedPrimaryKeyRelatedField):
    """An organisation the user may name as a party (`nameable_by`), or the one already named in
    that role on the shipment being changed (keeping a party is never refused)."""

    def __init__(self, **kwargs):
        super().__init__(chooser=_nameable, **kwargs)

    def get_queryset(self):
        queryset = super().get_queryset()
        shipment = getattr(self.root, "instance", None)
        if isinstance(shipment, Shipment) and shipment.pk:
            named = ShipmentParty.objects.filter(shipment=shipment).values("organisation")
            queryset = Organisation.objects.filter(Q(pk__in=queryset.values("pk")) | Q(pk__in=named))
        return queryset


class ShipmentWriteSerializer(serializers.ModelSerializer):
    """Create or change a shipment. `parties` maps a role to an organisation id: your own
    organisation or one Rackpass has connected it with (operator staff: any active one)."""

    origin = ScopedPrimaryKeyRelatedField(queryset=Site.objects.all())
    destination = ScopedPrimaryKeyRelatedField(queryset=Site.objects.all())
    incoterm = serializers.ChoiceField(choices=Incoterm.choices)
    end_use_flags = serializers.ListField(
        child=serializers.ChoiceField(choices=EndUseFlag.choices), required=False
    )
    parties = serializers.DictField(
        child=PartyOrganisationField(queryset=Organisation.objects.all(), allow_null=True),
        required=False,
        write_only=True,
    )

    class Meta:
        model = Shipment
        fields = [*Shipment.EDITABLE_FIELDS, "parties"]

    def validate_parties(self, value):
        unknown = sorted(set(value) - set(PartyRole.values))
        if unknown:
            raise serializers.ValidationError(
                f"Unknown party role(s) {', '.join(unknown)}; use {', '.join(PartyRole.values)}."
            )
        return value


class SerialsField(serializers.ListField):
    """Serial numbers: written as strings, read from the object's `serials` (loaded rows)."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.CharField(max_length=80), required=False, **kwargs)

    def get_attribute(self, instance):
        return [s.serial for s in instance.serials.all()]


class LineNumbersField(serializers.ListField):
    """Line numbers of the shipment: written as integers, read from the object's `lines`."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.IntegerField(min_value=1, max_value=NUMBER_MAX), **kwargs)

    def get_attribute(self, instance):
        return [line.line_number for line in instance.lines.all()]


class LinePartyField(ScopedPrimaryKeyRelatedField):
    """An organisation the user may name (`nameable_by`) as a line's shipper or exporter of record,
    or the one already on the line being changed."""

    def __init__(self, **kwargs):
        super().__init__(chooser=_nameable, queryset=Organisation.objects.all(), **kwargs)

    def get_queryset(self):
        queryset = super().get_queryset()
        line = getattr(self.root, "instance", None)
        if isinstance(line, ShipmentLine) and line.pk:
            kept = [pk for pk in (line.shipper_id, line.exporter_of_record_id) if pk]
            queryset = Organisation.objects.filter(Q(pk__in=queryset.values("pk")) | Q(pk__in=kept))
        return queryset


class LineSerializer(serializers.ModelSerializer):
    part = ScopedPrimaryKeyRelatedField(queryset=Part.objects.filter(is_active=True))
    shipper = LinePartyField(
        required=False,
        allow_null=True,
        help_text="The supplier exporting this line when the shipment has several origins (a "
        "consolidation); null means the shipment's shipper.",
    )
    exporter_of_record = LinePartyField(
        required=False,
        allow_null=True,
        help_text="Exporter of record for this line's origin country when not the shipment's; see "
        "`record-parties` for whether one is needed.",
    )
    part_number = serializers.CharField(source="part.part_number", read_only=True)
    line_value = FittingDecimalField(max_digits=18, decimal_places=2)
    serials = SerialsField()
    unit_value = serializers.DecimalField(
        max_digits=16, decimal_places=2, required=False, min_value=0, max_value=MONEY_MAX
    )
    description = serializers.CharField(required=False, max_length=300)
    country_of_origin = serializers.CharField(required=False, max_length=2)
    hs_code = serializers.CharField(required=False, max_length=14)
    warnings = serializers.SerializerMethodField(
        help_text="What the documents will miss on this line (a serialised part with fewer serial "
        "numbers than units); a warning, not a refusal."
    )

    class Meta:
        model = ShipmentLine
        fields = [
            "id",
            "line_number",
            "part",
            "part_number",
            "description",
            "quantity",
            "unit_value",
            "line_value",
            "country_of_origin",
            "hs_code",
            "shipper",
            "exporter_of_record",
            "serials",
            "export_classification",
            "warnings",
        ]
        read_only_fields = ["line_number", "export_classification"]

    def validate_hs_code(self, value):
        return normalise_hs_code(value)

    def get_warnings(self, obj) -> list[str]:
        return line_warnings(obj, len(obj.serials.all()))


class PackageItemSerializer(serializers.Serializer):
    line = serializers.IntegerField(
        min_value=1, max_value=NUMBER_MAX, help_text="Line number on this shipment."
    )

    def to_representation(self, instance):
        if isinstance(instance, dict):
            return super().to_representation(instance)
        return {"line": instance.line.line_number, "quantity": instance.quantity}

    quantity = serializers.IntegerField(min_value=1, max_value=LINE_QUANTITY_MAX)


class PackageSerializer(serializers.ModelSerializer):
    package_type = serializers.ChoiceField(choices=PackageType.choices)
    items = PackageItemSerializer(many=True)
    serials = SerialsField()
    dangerous_goods = serializers.SerializerMethodField()
    volume_m3 = FittingDecimalField(max_digits=10, decimal_places=3)

    class Meta:
        model = Package
        fields = [
            "id",
            "number",
            "package_type",
            "length_cm",
            "width_cm",
            "height_cm",
            "volume_m3",
            "gross_kg",
            "net_kg",
            "items",
            "serials",
            "dangerous_goods",
            "tilt_indicator",
            "shock_indicator",
            "keep_dry",
            "marks",
        ]
        read_only_fields = ["number"]

    def get_dangerous_goods(self, obj) -> list[str]:
        return package_dangerous_goods(obj)


class LegSerializer(serializers.ModelSerializer):
    origin = ScopedPrimaryKeyRelatedField(queryset=Site.objects.all())
    destination = ScopedPrimaryKeyRelatedField(queryset=Site.objects.all())
    lines = LineNumbersField(required=False, help_text="Line numbers this leg carries (inbound legs).")

    class Meta:
        model = Leg
        fields = [
            "id",
            "sequence",
            "role",
            "origin",
            "destination",
            "mode",
            "carrier",
            "transport_document",
            "container_numbers",
            "lines",
            "planned_departure",
            "planned_arrival",
            "actual_departure",
            "actual_arrival",
        ]
        read_only_fields = ["actual_departure", "actual_arrival"]
        extra_kwargs = {"sequence": {"required": False}}
        validators: list = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Sites the user may see, like LineSerializer's parts. (Set per serializer, not by the view
        # on whatever get_serializer returns: for a list that is a ListSerializer, without fields.)
        request = self.context.get("request")
        if request is not None:
            visible = Site.objects.visible_to(request.user)
            self.fields["origin"].queryset = visible
            self.fields["destination"].queryset = visible


class EventSerializer(serializers.ModelSerializer):
    code = serializers.ChoiceField(choices=EventCode.choices)
    leg = serializers.IntegerField(
        required=False,
        allow_null=True,
        source="leg_id",
        help_text="Leg id, when the event belongs to one leg.",
    )
    posted_by = serializers.CharField(source="posted_by.username", read_only=True)
    organisation = serializers.CharField(
        source="organisation.legal_name", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = TrackingEvent
        fields = [
            "id",
            "code",
            "occurred_at",
            "location",
            "remarks",
            "eta",
            "leg",
            "posted_by",
            "organisation",
            "recorded_at",
            "status_before",
            "status_after",
            "status_note",
        ]
        read_only_fields = ["recorded_at", "status_before", "status_after", "status_note"]

    def to_representation(self, instance):
        data = super().to_representation(instance)
        request = self.context.get("request")
        if request is not None and instance.posted_by_id:
            # A partner reads "Rackpass staff", not the operator's people (apps.core.disclosure).
            data["posted_by"] = person_label(instance.posted_by, request.user, own=data["posted_by"])
        return data


class TransitionSerializer(serializers.Serializer):
    to = serializers.CharField(max_length=20, help_text="Target status, or 'release' to lift a hold.")
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=500, validators=[TextValidator("line")]
    )
    hold_kind = serializers.ChoiceField(
        choices=[("compliance", "compliance"), ("customs", "customs")], required=False, allow_blank=True
    )


class ShipmentMovedSerializer(ShipmentSerializer):
    """The shipment after a status change, with what to fix before its documents can be made."""

    warnings = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="On a submission for review: serialised lines without a serial number for every "
        "unit, named by line number (the documents will need them; review goes ahead).",
    )

    class Meta(ShipmentSerializer.Meta):
        fields = [*ShipmentSerializer.Meta.fields, "warnings"]


class AmendSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=500,
        validators=[TextValidator("line")],
        help_text="Why the approved shipment goes back to draft; given on every document voided.",
    )


class FreightRateSerializer(serializers.ModelSerializer):
    class Meta:
        model = FreightRate
        fields = ["id", *FreightRate.EDITABLE_FIELDS]


class ExchangeRateSerializer(serializers.ModelSerializer):
    class Meta:
        model = ExchangeRate
        fields = ["id", "base", "quote", "rate", "valid_on", "source"]


class OrganisationBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    legal_name = serializers.CharField()


class RecordProviderSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="organisation.pk")
    legal_name = serializers.CharField(source="organisation.legal_name")
    country = serializers.CharField(source="organisation.country")
    services = serializers.ListField(
        child=serializers.ChoiceField(choices=RecordService.choices),
        help_text="What it covers in the country: `ior` importer of record, `eor` exporter of record.",
    )


class RecordPartyAssessmentSerializer(serializers.Serializer):
    """One record role: whether a provider is needed, why, who is named and who could be."""

    country = serializers.CharField(
        source="need.country", help_text="Destination (importer) or origin (exporter) country."
    )
    needed = serializers.BooleanField(
        source="need.needed",
        help_text="True when the consignee (importer) or shipper (exporter) cannot act as the party of "
        "record, so one must be named before review.",
    )
    reasons = serializers.ListField(child=serializers.CharField(), source="need.reasons")
    assessed_party = OrganisationBriefSerializer(
        source="assessed", allow_null=True, help_text="The consignee or shipper assessed, if named."
    )
    named = OrganisationBriefSerializer(
        allow_null=True,
        help_text="The importer / exporter of record acting (the line's own, else the shipment's), if any.",
    )
    named_problem = serializers.CharField(
        allow_null=True,
        help_text="Why the one named cannot act in the country (it neither covers it as a provider nor "
        "has an entity there with the registrations required); null when it can or none is named.",
    )
    lines = serializers.ListField(
        child=serializers.IntegerField(),
        source="need.lines",
        help_text="Exporter: the line numbers exported from this country by this shipper (empty when "
        "the shipment has one origin and one shipper, so the need covers every line).",
    )
    providers = RecordProviderSerializer(
        many=True, help_text="Providers covering the country that you may name, by legal name."
    )


class RecordPartiesSerializer(serializers.Serializer):
    importer = RecordPartyAssessmentSerializer(help_text="Importer of record at the destination.")
    exporter = RecordPartyAssessmentSerializer(
        help_text="Exporter of record at the shipment's origin (the first of `exporters`)."
    )
    exporters = RecordPartyAssessmentSerializer(
        many=True,
        help_text="One per origin country and shipper of the lines: a consolidation's goods leave "
        "several countries, each exported by its own supplier or exporter of record.",
    )
