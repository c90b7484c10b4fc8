from decimal import Decimal

from rest_framework import serializers

from apps.accounts.models import Organisation
from apps.catalog.models import Part
from apps.core.countries import COUNTRY_CHOICES
from apps.shipments.models import EndUseFlag

from ..models import (
    CheckLineResult,
    CheckPartyResult,
    ComplianceCheck,
    HoldReason,
    Licence,
    LicenceDrawdown,
    PartClassification,
    Screening,
    ScreeningHit,
    ScreeningList,
)


class ClassificationSerializer(serializers.ModelSerializer):
    part_number = serializers.CharField(source="part.part_number", read_only=True)
    created_by = serializers.CharField(source="created_by.username", default=None, read_only=True)

    class Meta:
        model = PartClassification
        fields = [
            "id",
            "part",
            "part_number",
            "eccn",
            "is_complete",
            "source",
            "reasoning",
            "figures_used",
            "missing",
            "rule_version",
            "override_reason",
            "is_current",
            "created_by",
            "created_at",
        ]


class OverrideSerializer(serializers.Serializer):
    part = serializers.PrimaryKeyRelatedField(queryset=Part.objects.all())
    eccn = serializers.CharField(max_length=20)
    reason = serializers.CharField()


class ClassifyRunSerializer(serializers.Serializer):
    part = serializers.PrimaryKeyRelatedField(queryset=Part.objects.all())


class DeterminationRequestSerializer(serializers.Serializer):
    eccn = serializers.CharField(max_length=20)
    destination = serializers.CharField(max_length=2, help_text="ISO 3166-1 alpha-2")
    end_user_name = serializers.CharField(required=False, allow_blank=True, default="")
    end_user_country = serializers.ChoiceField(choices=COUNTRY_CHOICES(), required=False)
    end_user_headquarters = serializers.ChoiceField(choices=COUNTRY_CHOICES(), required=False)
    entity_list = serializers.BooleanField(default=False)
    denied_persons = serializers.BooleanField(default=False)
    unverified_list = serializers.BooleanField(default=False)
    end_use_flags = serializers.ListField(
        child=serializers.ChoiceField(choices=EndUseFlag.choices), default=list
    )
    temporary = serializers.BooleanField(default=False)
    data_centre = serializers.BooleanField(default=True)
    tpp = serializers.DecimalField(max_digits=12, decimal_places=2, required=False)


class DrawdownSerializer(serializers.ModelSerializer):
    shipment = serializers.CharField(source="line.shipment.reference")
    line_number = serializers.IntegerField(source="line.line_number")

    class Meta:
        model = LicenceDrawdown
        fields = ["shipment", "line_number", "quantity", "value", "created_at"]


class LicenceSerializer(serializers.ModelSerializer):
    consignee = serializers.PrimaryKeyRelatedField(queryset=Organisation.objects.all())
    end_user = serializers.PrimaryKeyRelatedField(
        queryset=Organisation.objects.all(), allow_null=True, required=False
    )
    remaining_quantity = serializers.SerializerMethodField()
    remaining_value = serializers.SerializerMethodField()
    is_expired = serializers.BooleanField(read_only=True)

    class Meta:
        model = Licence
        fields = [
            "id",
            "number",
            "issuing_authority",
            "eccns",
            "destination_countries",
            "consignee",
            "end_user",
            "permitted_quantity",
            "permitted_value",
            "currency",
            "valid_from",
            "expires_on",
            "conditions",
            "remaining_quantity",
            "remaining_value",
            "is_expired",
        ]
        validators: list = []

    def _left(self, obj):
        return self.context.get("remaining", {}).get(obj.pk) or (obj.permitted_quantity, obj.permitted_value)

    def get_remaining_quantity(self, obj) -> int:
        return self._left(obj)[0]

    def get_remaining_value(self, obj) -> str:
        return f"{self._left(obj)[1]:.2f}"


class ScreeningListSerializer(serializers.ModelSerializer):
    class Meta:
        model = ScreeningList
        fields = [
            "id",
            "name",
            "source_format",
            "version",
            "published",
            "entry_count",
            "is_active",
            "imported_at",
        ]


class ScreeningListImportSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120, default="US Consolidated Screening List")
    source_format = serializers.ChoiceField(choices=["csl_json", "csl_csv", "opensanctions"])
    version = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    file = serializers.FileField()


class HitSerializer(serializers.ModelSerializer):
    entry_name = serializers.CharField(source="entry.name")
    entry_source = serializers.CharField(source="entry.source")
    entry_countries = serializers.ListField(source="entry.countries", child=serializers.CharField())
    entry_programs = serializers.ListField(source="entry.programs", child=serializers.CharField())
    license_requirement = serializers.CharField(source="entry.license_requirement")
    organisation = serializers.CharField(source="screening.organisation", default=None)

    class Meta:
        model = ScreeningHit
        fields = [
            "id",
            "organisation",
            "query_name",
            "matched_name",
            "score",
            "country_match",
            "reasons",
            "status",
            "entry_name",
            "entry_source",
            "entry_countries",
            "entry_programs",
            "license_requirement",
            "decision_reason",
            "decided_at",
            "created_at",
        ]


class ScreeningSerializer(serializers.ModelSerializer):
    hits = HitSerializer(many=True, read_only=True)
    note = serializers.SerializerMethodField()

    class Meta:
        model = Screening
        fields = [
            "id",
            "names",
            "country",
            "threshold",
            "list_versions",
            "hit_count",
            "open_hit_count",
            "trigger",
            "created_at",
            "hits",
            "note",
        ]

    def get_note(self, obj) -> str:
        from ..screening.matcher import OWNERSHIP_NOTE

        return OWNERSHIP_NOTE


class AdHocScreeningSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=300)
    aliases = serializers.ListField(child=serializers.CharField(max_length=300), default=list)
    country = serializers.ChoiceField(choices=COUNTRY_CHOICES(), required=False, allow_blank=True, default="")
    threshold = serializers.DecimalField(
        max_digits=4, decimal_places=3, required=False, min_value=Decimal("0.5"), max_value=Decimal("1")
    )


class DecisionSerializer(serializers.Serializer):
    reason = serializers.CharField()


class HoldReasonSerializer(serializers.ModelSerializer):
    resolved_by = serializers.CharField(source="resolved_by.username", default=None)

    class Meta:
        model = HoldReason
        fields = ["id", "kind", "text", "line", "resolved_by", "resolved_at", "resolution"]


class LineResultSerializer(serializers.ModelSerializer):
    line_number = serializers.IntegerField(source="line.line_number")
    licence = serializers.CharField(source="licence.number", default=None)

    class Meta:
        model = CheckLineResult
        fields = [
            "line_number",
            "eccn",
            "classification_source",
            "outcome",
            "licence_exception",
            "licence",
            "rules",
            "result",
            "reasons",
        ]


class PartyResultSerializer(serializers.ModelSerializer):
    organisation = serializers.CharField(source="organisation.legal_name")

    class Meta:
        model = CheckPartyResult
        fields = ["role", "organisation", "result", "reasons", "screening"]


class ComplianceCheckSerializer(serializers.ModelSerializer):
    shipment = serializers.CharField(source="shipment.reference")
    line_results = LineResultSerializer(many=True)
    party_results = PartyResultSerializer(many=True)
    hold_reasons = HoldReasonSerializer(many=True)

    class Meta:
        model = ComplianceCheck
        fields = [
            "id",
            "shipment",
            "shipment_version",
            "result",
            "summary",
            "rule_versions",
            "list_versions",
            "task_id",
            "started_at",
            "finished_at",
            "line_results",
            "party_results",
            "hold_reasons",
        ]


class ResolveSerializer(serializers.Serializer):
    resolution = serializers.CharField()
