from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.api import FittingDecimalField, ScopedPrimaryKeyRelatedField
from apps.core.hscodes import normalise_hs_code

from ..models import Manufacturer, Part, PartTariffCode


class ManufacturerField(serializers.RelatedField):
    """A manufacturer by name (case-insensitive), e.g. "NVIDIA"."""

    default_error_messages = {"does_not_exist": "No manufacturer named {value!r}; add it first."}

    def get_queryset(self):
        return Manufacturer.objects.all()

    def to_internal_value(self, data):
        manufacturer = Manufacturer.objects.filter(name__iexact=str(data).strip()).first()
        if manufacturer is None:
            self.fail("does_not_exist", value=data)
        return manufacturer

    def to_representation(self, value):
        return value.name


@extend_schema_field(serializers.CharField())
class _ManufacturerSchemaField(ManufacturerField):
    pass


class ManufacturerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Manufacturer
        fields = ["id", "name", "country", "website"]


class PartTariffCodeSerializer(serializers.ModelSerializer):
    """A national tariff code of the part: checked against the part's HS code when saved."""

    code = serializers.CharField(
        max_length=20,
        help_text="The part's HS code and the country's extension, e.g. 8471.50.0150 (dots and spaces "
        "are ignored): 10 digits for the US, 8 for India.",
    )

    class Meta:
        model = PartTariffCode
        fields = ["country", "code", "unit_of_quantity"]
        extra_kwargs = {"unit_of_quantity": {"required": False}}

    def validate_code(self, value: str) -> str:
        return normalise_hs_code(value)


class PartSerializer(serializers.ModelSerializer):
    manufacturer = _ManufacturerSchemaField()
    tariff_codes = PartTariffCodeSerializer(
        many=True,
        required=False,
        help_text="National tariff codes (one per country): the US Schedule B / HTS number (10 digits) the "
        "EEI declares, India's ITC-HS code (8 digits). Given on a write, they replace the part's codes.",
    )
    owner = serializers.PrimaryKeyRelatedField(read_only=True)
    accelerator = ScopedPrimaryKeyRelatedField(
        queryset=Part.objects.filter(category="accelerator"), required=False, allow_null=True
    )
    computed_tpp = FittingDecimalField(max_digits=14, decimal_places=2)
    performance_density = FittingDecimalField(max_digits=12, decimal_places=2)
    url = serializers.HyperlinkedIdentityField(view_name="api:part-detail")

    class Meta:
        model = Part
        fields = [
            "id", "url", "owner", *Part.EDITABLE_FIELDS, "tariff_codes", "computed_tpp",
            "performance_density", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = ["created_at", "updated_at"]
        # Uniqueness is checked by the model (case-insensitive, reported on part_number).
        validators: list = []

    def validate_hs_code(self, value: str) -> str:
        return normalise_hs_code(value)
