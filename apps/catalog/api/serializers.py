from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.api import FittingDecimalField, ScopedPrimaryKeyRelatedField
from apps.core.hscodes import normalise_hs_code

from ..models import Manufacturer, Part


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


class PartSerializer(serializers.ModelSerializer):
    manufacturer = _ManufacturerSchemaField()
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
            "id", "url", "owner", *Part.EDITABLE_FIELDS, "computed_tpp", "performance_density", "created_at",
            "updated_at",
        ]  # fmt: skip
        read_only_fields = ["created_at", "updated_at"]
        # Uniqueness is checked by the model (case-insensitive, reported on part_number).
        validators: list = []

    def validate_hs_code(self, value: str) -> str:
        return normalise_hs_code(value)
