"""Cluster designs, sizing runs and bills of materials as the API shows and takes them.

Every id a planner gives (customer, site, parts) is chosen among what the user may see
(`ScopedPrimaryKeyRelatedField`); the business checks are the model's and the services'."""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from apps.accounts.models import Organisation
from apps.catalog.models import Part
from apps.core.api import ScopedPrimaryKeyRelatedField
from apps.shipments.models import Site

from ..models import PART_FIELDS, BillOfMaterials, BomLine, ClusterDesign, SizingRun


def _nameable(queryset, user):
    return queryset.nameable_by(user)


class ClusterDesignSerializer(serializers.ModelSerializer):
    owner = serializers.PrimaryKeyRelatedField(read_only=True)
    customer = ScopedPrimaryKeyRelatedField(
        queryset=Organisation.objects.all(),
        chooser=_nameable,
        help_text="Whose cluster it is: your organisation or one the operator connected it with.",
    )
    site = ScopedPrimaryKeyRelatedField(queryset=Site.objects.all(), help_text="A data centre you see.")
    gpus_per_server = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="From the system part."
    )

    class Meta:
        model = ClusterDesign
        fields = ["id", "owner", *ClusterDesign.INPUT_FIELDS, "gpus_per_server", "created_at", "updated_at"]
        read_only_fields = ["created_at", "updated_at"]
        validators: list = []

    def get_fields(self):
        fields = super().get_fields()
        # Every part is a catalogue part the user sees (the master catalogue and its own).
        for name in PART_FIELDS:
            old = fields[name]
            fields[name] = ScopedPrimaryKeyRelatedField(
                queryset=Part.objects.all(),
                allow_null=old.allow_null,
                required=old.required,
                help_text=old.help_text,
            )
        return fields


class SizingRunListSerializer(serializers.ModelSerializer):
    started_by = serializers.SerializerMethodField()

    class Meta:
        model = SizingRun
        fields = [
            "id", "number", "status", "task_id", "engine_version", "errors", "started_by", "started_at",
            "finished_at", "created_at",
        ]  # fmt: skip

    def get_started_by(self, run) -> str:
        from apps.core.disclosure import person_label

        request = self.context.get("request")
        return person_label(run.started_by, getattr(request, "user", None)) if run.started_by_id else ""


class SizingRunSerializer(SizingRunListSerializer):
    """A run with the inputs the engine got and its result (figures with their formulas, the
    bill-of-materials items, warnings, rack types, power by component, switches per tier)."""

    class Meta(SizingRunListSerializer.Meta):
        fields = [*SizingRunListSerializer.Meta.fields, "inputs", "result"]


class SizingRunStartedSerializer(serializers.Serializer):
    run = SizingRunListSerializer()
    task_id = serializers.CharField()
    status_url = serializers.CharField()


class CompareQuerySerializer(serializers.Serializer):
    # Bounded as the column is: a larger number is a 400 naming the field, not a database overflow.
    a = serializers.IntegerField(min_value=1, max_value=2_147_483_647, help_text="The first run's number.")
    b = serializers.IntegerField(min_value=1, max_value=2_147_483_647, help_text="The second run's number.")


class DeltaSerializer(serializers.Serializer):
    a = serializers.FloatField()
    b = serializers.FloatField()
    change = serializers.FloatField()


class CostDeltaSerializer(serializers.Serializer):
    a = serializers.DecimalField(max_digits=20, decimal_places=2)
    b = serializers.DecimalField(max_digits=20, decimal_places=2)
    change = serializers.DecimalField(max_digits=20, decimal_places=2)


class EngineVersionsSerializer(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()


class RunComparisonSerializer(serializers.Serializer):
    a = serializers.IntegerField(help_text="Run number.")
    b = serializers.IntegerField(help_text="Run number.")
    engine_versions = EngineVersionsSerializer()
    switches_by_tier = serializers.DictField(child=DeltaSerializer())
    power_by_component_kw = serializers.DictField(child=DeltaSerializer())
    it_kw = DeltaSerializer()
    racks = DeltaSerializer()
    bom_cost = serializers.DictField(child=CostDeltaSerializer(), help_text="By currency.")


class BomLineSerializer(serializers.ModelSerializer):
    part_number = serializers.CharField(source="part.part_number", read_only=True)
    part_name = serializers.CharField(source="part.name", read_only=True)
    manufacturer = serializers.CharField(source="part.manufacturer.name", read_only=True)
    unit_value = serializers.DecimalField(
        source="part.unit_value", max_digits=16, decimal_places=2, read_only=True
    )
    currency = serializers.CharField(source="part.currency", read_only=True)

    class Meta:
        model = BomLine
        fields = [
            "id", "role", "part", "manufacturer", "part_number", "part_name", "quantity", "engine_quantity",
            "unit_value", "currency", "figure", "note", "lead_time_days",
        ]  # fmt: skip
        read_only_fields = fields


class DesignCopySerializer(serializers.Serializer):
    name = serializers.CharField(
        max_length=200, required=False, help_text="The copy's name; default \"Copy of\" the design's."
    )


class DesignTemplateSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="Names the template (the page's `?template=`).")
    name = serializers.CharField()
    summary = serializers.CharField()
    values = serializers.DictField(
        help_text="The design inputs it fills in, parts by the id of the catalogue part you see; "
        "never a customer or a site."
    )
    missing_parts = serializers.ListField(
        child=serializers.CharField(), help_text="Part numbers it names that your catalogue lacks."
    )


class BomLineUpdateSerializer(serializers.Serializer):
    quantity = serializers.IntegerField(
        min_value=0, max_value=100_000_000, required=False, help_text="A draft line's quantity."
    )
    note = serializers.CharField(
        max_length=500, required=False, allow_blank=True, help_text="Why it differs from the sizing."
    )
    lead_time_days = serializers.IntegerField(
        min_value=0,
        max_value=730,
        required=False,
        allow_null=True,
        help_text="Days from order until the supplier has the goods ready (null: ready now); "
        "any version's line takes it.",
    )

    def validate(self, data):
        if "quantity" not in data and "lead_time_days" not in data:
            raise serializers.ValidationError(
                {"quantity": "Give the quantity, the lead time (lead_time_days) or both."}
            )
        return data


class BillOfMaterialsSerializer(serializers.ModelSerializer):
    run = serializers.IntegerField(source="run.number", read_only=True, help_text="The run's number.")
    lines = BomLineSerializer(many=True, read_only=True)
    totals = serializers.SerializerMethodField(help_text="Value of the lines per currency.")

    class Meta:
        model = BillOfMaterials
        fields = ["id", "version", "status", "run", "issued_at", "created_at", "lines", "totals"]
        read_only_fields = fields

    def get_totals(self, bom) -> dict[str, str]:
        totals: dict[str, Decimal] = {}
        for line in bom.lines.all():
            totals[line.part.currency] = totals.get(line.part.currency, Decimal("0")) + (
                line.part.unit_value * line.quantity
            )
        return {currency: str(value) for currency, value in sorted(totals.items())}


class BillOfMaterialsBriefSerializer(BillOfMaterialsSerializer):
    class Meta(BillOfMaterialsSerializer.Meta):
        fields = ["id", "version", "status", "run", "issued_at", "created_at"]
        read_only_fields = fields


class BomFromRunSerializer(serializers.Serializer):
    run = serializers.IntegerField(min_value=1, help_text="The number of a succeeded run of this design.")
