"""Receiving against an advance notice and packing, by the API: the same services as the browser
pages (`apps/warehouse/views/receipts.py`), with the same capabilities.

- `/api/v1/stock/notice-receipts/`: the receipts of inbound shipments the user sees, each with its
  discrepancies; POST receives a shipment (or one leg) against its notice. Not `stock/receipts/`:
  that is the plain "receive goods into a location" action, which knows no notice.
- `/api/v1/stock/discrepancies/`: the discrepancies, open ones by `?open=true`; `{id}/resolve/`
  closes one with a note (and, for a missing unit that turned up or a damaged one that passed
  inspection, receives or releases it).
- `/api/v1/stock/packs/`: the picked units waiting to be packed (`?shipment=<reference>`: into
  that outbound shipment); POST packs some of them into a new package of the shipment.

Each write is one POST run by `_StockActionViewSet`: the body is checked, the service runs and the
answer is serialised in one transaction, so a refusal (400 naming the body's field) leaves nothing
written, and `Idempotency-Key` makes a retry safe."""

from __future__ import annotations

import django_filters
from django.db.models import Exists, F, OuterRef, Prefetch
from rest_framework import mixins, viewsets
from rest_framework.decorators import action

from apps.catalog.models import UnitStatus
from apps.core.api import AuditHistoryMixin
from apps.core.scoping import CHANGE, VIEW
from apps.shipments.models import LineSerial, Package, Shipment

from ..models import Discrepancy, DiscrepancyKind, Receipt, ReceiptStatus, UnitPlacement
from ..services.packing import units_pack
from ..services.receipts import discrepancy_resolve, receipt_record
from . import schema
from .serializers.receipts import (
    DiscrepancyDetailSerializer,
    DiscrepancyResolveSerializer,
    NoticeReceiptRecordSerializer,
    NoticeReceiptSerializer,
    PackableUnitSerializer,
    PackedSerializer,
    PackSerializer,
)
from .stock import _StockActionViewSet

DISCREPANCY_RELATED = ("part", "line", "resolved_by__organisation")


def _receipts():
    """Receipts as the answer shows them: a fixed number of queries for any number of rows."""
    return Receipt.objects.select_related(
        "shipment", "leg", "location__site", "received_by__organisation"
    ).prefetch_related(
        Prefetch(
            "discrepancies",
            queryset=Discrepancy.objects.select_related(*DISCREPANCY_RELATED).order_by(
                "kind", "serial", "id"
            ),
        )
    )


# --- receipts against a notice ----------------------------------------------------------------------


def _shipment_filter(field_name: str):
    # By reference, among the shipments the user sees (`ScopedFilterBackend`): another
    # organisation's reference is "not a valid choice", as one that does not exist, never "0 rows".
    return django_filters.ModelChoiceFilter(
        queryset=Shipment.objects.all(),
        to_field_name="reference",
        field_name=field_name,
        label="Shipment reference",
    )


class NoticeReceiptFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=ReceiptStatus.choices)
    shipment = _shipment_filter("shipment")

    class Meta:
        model = Receipt
        fields = ["status", "shipment"]


@schema.notice_receipt_docs
class NoticeReceiptViewSet(
    AuditHistoryMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, _StockActionViewSet
):
    """Receipts against an advance notice, open ones first; POST receives a shipment or a leg."""

    queryset = Receipt.objects.all()
    filterset_class = NoticeReceiptFilter
    search_fields = ["reference", "shipment__reference"]
    ordering_fields = ["received_at", "reference"]
    ordering = ["-status", "-received_at", "-id"]  # open first
    default_field = "scanned"
    # Fields the services name, as the body calls them.
    renames = {
        "serials": "scanned",
        "unit": "scanned",
        "status": "scanned",
        "part": "scanned",
        "owner": "scanned",
        "quantity": "counted",
    }
    capabilities = {"read": "stock.view", "write": "stock.operate"}

    def get_queryset(self):
        return _receipts().visible_to(self.request.user, VIEW)

    def get_serializer_class(self):
        return NoticeReceiptRecordSerializer if self.action == "create" else NoticeReceiptSerializer

    def perform(self, data) -> dict:
        receipt = receipt_record(
            shipment=data["shipment"],
            leg=data.get("leg"),
            location=data["location"],
            scanned=data["scanned"],
            damaged=data["damaged"],
            counted={row["line"].pk: row["counted"] for row in data["counted"]},
            customs_reference=data["customs_reference"],
            actor=self.request.user,
        )
        return NoticeReceiptSerializer(
            _receipts().get(pk=receipt.pk), context=self.get_serializer_context()
        ).data


# --- discrepancies ------------------------------------------------------------------------------------


class DiscrepancyFilter(django_filters.FilterSet):
    open = django_filters.BooleanFilter(method="filter_open", label="Open (not resolved yet)")
    kind = django_filters.ChoiceFilter(choices=DiscrepancyKind.choices)
    shipment = _shipment_filter("receipt__shipment")
    receipt = django_filters.NumberFilter(field_name="receipt", label="Receipt id")

    class Meta:
        model = Discrepancy
        fields = ["open", "kind", "shipment", "receipt"]

    def filter_open(self, queryset, name, value):
        if value is None:
            return queryset
        return queryset.filter(resolved_at__isnull=value)


@schema.discrepancy_docs
class DiscrepancyViewSet(
    AuditHistoryMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Discrepancies of receipts, open ones first; `resolve/` closes one with a note."""

    queryset = Discrepancy.objects.all()
    serializer_class = DiscrepancyDetailSerializer
    filterset_class = DiscrepancyFilter
    search_fields = ["serial", "receipt__reference", "receipt__shipment__reference"]
    ordering_fields = ["created_at", "kind", "resolved_at"]
    # The stock actions' runner (body checked, service and answer in one transaction, refusals
    # naming the body's field, `Idempotency-Key`), without their `create`: only a receipt makes a
    # discrepancy, so the list answers POST with 405.
    _act = _StockActionViewSet._act
    _refusal = _StockActionViewSet._refusal
    refusal_field = _StockActionViewSet.refusal_field
    default_field = "resolution"
    # The unit's own refusals (receiving a found unit, releasing one) belong to the option chosen.
    renames = {"serials": "found", "location": "found", "customs_reference": "found", "status": "release"}
    capabilities = {"read": "stock.view", "write": "stock.operate", "resolve": "stock.operate"}

    def get_queryset(self):
        # Resolving changes the receipt: chosen among what the user may change, not only see.
        scope = VIEW if self.request.method in ("GET", "HEAD", "OPTIONS") else CHANGE
        return (
            Discrepancy.objects.select_related(*DISCREPANCY_RELATED, "receipt__shipment")
            .visible_to(self.request.user, scope)
            # Open ones (no resolution date) first, on SQLite as on PostgreSQL.
            .order_by(F("resolved_at").desc(nulls_first=True), "-created_at", "-id")
        )

    def get_serializer_class(self):
        return DiscrepancyResolveSerializer if self.action == "resolve" else DiscrepancyDetailSerializer

    def perform(self, data) -> dict:
        discrepancy = discrepancy_resolve(
            discrepancy=self._discrepancy,
            actor=self.request.user,
            resolution=data["resolution"],
            found=data["found"],
            release=data["release"],
        )
        fresh = self.get_queryset().get(pk=discrepancy.pk)
        return DiscrepancyDetailSerializer(fresh, context=self.get_serializer_context()).data

    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        """Close the discrepancy with a note; `found` / `release` as its kind allows."""
        # Found (or 404) before the body is read: another organisation's discrepancy is unknown.
        self._discrepancy = self.get_object()
        return self._act(request, self.perform)


# --- packing ------------------------------------------------------------------------------------------


def _packable():
    """`packing.packable` for every outbound shipment at once, as a queryset to filter and page:
    picked units allocated to a line and not in a package of that line's shipment yet."""
    packed = LineSerial.objects.filter(
        unit_id=OuterRef("unit_id"), line__shipment_id=OuterRef("line__shipment_id"), package__isnull=False
    )
    return (
        UnitPlacement.objects.filter(line__isnull=False, unit__status=UnitStatus.PICKED)
        .exclude(Exists(packed))
        .select_related("unit", "line__part", "location")
        .order_by("line__shipment_id", "line__line_number", "unit__serial")
    )


class PackableFilter(django_filters.FilterSet):
    shipment = _shipment_filter("line__shipment")

    class Meta:
        model = UnitPlacement
        fields = ["shipment"]


@schema.pack_docs
class PackViewSet(mixins.ListModelMixin, _StockActionViewSet):
    """GET: the picked units waiting to be packed (`?shipment=` those of one outbound shipment);
    POST: pack some of them into a new package of the shipment (their serials go on its lines and
    in the package)."""

    queryset = UnitPlacement.objects.all()
    filterset_class = PackableFilter
    ordering_fields = ["unit__serial", "line__line_number"]
    default_field = "units"
    renames = {"items": "units", "serials": "units", "line": "units", "unit": "units", "status": "units"}
    # The pack page's capability, for reading the list too: it is the floor's work list.
    capabilities = {"read": "stock.operate", "write": "stock.operate"}

    def get_queryset(self):
        return _packable().visible_to(self.request.user, VIEW)

    def get_serializer_class(self):
        return PackSerializer if self.action == "create" else PackableUnitSerializer

    def perform(self, data) -> dict:
        fields = {name: data[name] for name in PackSerializer.Meta.fields[2:] if name in data}
        package = units_pack(
            shipment=data["shipment"], units=data["units"], fields=fields, actor=self.request.user
        )
        fresh = (
            Package.objects.select_related("shipment")
            .prefetch_related("items__line__part", "serials__unit")
            .get(pk=package.pk)
        )
        return PackedSerializer(fresh, context=self.get_serializer_context()).data
