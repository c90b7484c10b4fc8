from rest_framework import viewsets

from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin

from ..filters import PartFilter
from ..models import Manufacturer, Part
from ..services import part_create, part_delete, part_update
from . import schema
from .serializers import ManufacturerSerializer, PartSerializer


@schema.part_docs
class PartViewSet(AuditHistoryMixin, OrgScopedViewSetMixin, viewsets.ModelViewSet):
    """The parts catalogue.

    Partners see the master catalogue and their own parts; they change only their own.
    """

    # The serializer shows owner and accelerator as ids: only the manufacturer needs a join.
    queryset = Part.objects.select_related("manufacturer").prefetch_related("tariff_codes")
    serializer_class = PartSerializer
    filterset_class = PartFilter
    search_fields = ["part_number", "name", "manufacturer__name"]
    ordering_fields = [
        "part_number",
        "name",
        "category",
        "unit_value",
        "unit_weight_kg",
        "power_draw_w",
        "updated_at",
    ]
    ordering = ["manufacturer__name", "part_number"]
    capabilities = {"read": "catalog.view", "write": "catalog.edit"}

    def perform_create(self, serializer):
        fields = dict(serializer.validated_data)
        tariff_codes = fields.pop("tariff_codes", None)
        serializer.instance = part_create(actor=self.request.user, fields=fields, tariff_codes=tariff_codes)

    def perform_update(self, serializer):
        fields = dict(serializer.validated_data)
        tariff_codes = fields.pop("tariff_codes", None)
        serializer.instance = part_update(
            part=serializer.instance, fields=fields, tariff_codes=tariff_codes, actor=self.request.user
        )

    def perform_destroy(self, instance):
        part_delete(part=instance)


@schema.manufacturer_docs
class ManufacturerViewSet(AuditHistoryMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Manufacturer.objects.all()
    serializer_class = ManufacturerSerializer
    search_fields = ["name"]
    ordering_fields = ["name"]
    filterset_fields = ["country"]
    capabilities = {"read": "catalog.view", "write": "catalog.edit"}
