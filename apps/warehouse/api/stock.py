"""Warehouse API: `/api/v1/units/…` (every serialised unit, where it is and its ledger) and
`/api/v1/stock/…` (locations, lots, the movement ledger, on-hand, and the floor's actions).

Reads go through `visible_to`: a partner sees the stock it owns or that is held for it, and another
organisation's unit, location, lot or movement is not found (404). Each action is one POST: its
body is checked, then the services run in one transaction with the answer serialised inside it, so
a refusal (400 naming the field) leaves nothing written. `Idempotency-Key` makes a retry safe.

Receiving against a notice, discrepancies and packing are in `receipts.py`, serial imports in
`imports.py`; the OpenAPI tags and examples in `schema/`."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.catalog.models import Unit
from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin
from apps.core.filters import scope_filter_choices
from apps.core.idempotency import idempotent
from apps.core.scoping import VIEW

from .. import services
from ..engines.unit_flow import Action, Status
from ..filters import LocationFilter, LotFilter
from ..models import Location, Lot, LotAllocation, Movement, UnitPlacement
from ..paging import KeysFirstPagination
from ..selectors import visible_units
from . import schema
from .filters import LedgerFilter, OnHandFilter, UnitFilter
from .onhand import on_hand_rows
from .serializers.stock import (
    AdjustmentSerializer,
    AllocationSerializer,
    CountResultSerializer,
    CountSerializer,
    DispatchSerializer,
    LocationSerializer,
    LotAllocationSerializer,
    LotSerializer,
    MovementSerializer,
    MoveSerializer,
    OnHandSerializer,
    ReceiptSerializer,
    StockChangeSerializer,
    UnitsAndAllocationsSerializer,
    UnitSerializer,
)

UNIT_RELATED = ("part", "placement__location__site", "placement__line__shipment")
LOT_RELATED = ("part", "location__site")
MOVEMENT_RELATED = (
    "part",
    "unit",
    "from_location__site",
    "to_location__site",
    "shipment",
    "actor__organisation",
)


@schema.unit_docs
class UnitViewSet(viewsets.ReadOnlyModelViewSet):
    """Serialised units (one row per box), with where each is; `history` is its ledger."""

    queryset = Unit.objects.select_related(*UNIT_RELATED)
    serializer_class = UnitSerializer
    filterset_class = UnitFilter
    pagination_class = KeysFirstPagination  # 100,000 units: sort the keys, not the joined rows
    search_fields = ["serial"]
    ordering_fields = ["serial", "status", "customs_status", "part__part_number"]
    ordering = ["serial", "id"]
    capabilities = {"read": "stock.view", "write": "stock.operate"}

    def get_queryset(self):
        return visible_units(self.request.user, self.queryset)

    @action(detail=True, methods=["get"])
    def history(self, request, pk=None):
        """The unit's rows of the movement ledger, newest first."""
        unit = self.get_object()
        rows = (
            Movement.objects.visible_to(request.user, VIEW)
            .filter(unit=unit)
            .select_related(*MOVEMENT_RELATED)
            .order_by("-occurred_at", "-id")
        )
        page = self.paginate_queryset(rows)
        data = MovementSerializer(page, many=True, context=self.get_serializer_context()).data
        return self.get_paginated_response(data)


@schema.location_docs
class LocationViewSet(
    AuditHistoryMixin, OrgScopedViewSetMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet
):
    """Locations (zone, aisle, rack, bin) of the warehouses; kept by operator staff."""

    queryset = Location.objects.select_related("site")
    serializer_class = LocationSerializer
    filterset_class = LocationFilter
    ordering_fields = ["zone", "aisle", "rack", "bin", "site__name"]
    capabilities = {"read": "stock.view", "write": "stock.manage"}

    def perform_create(self, serializer):
        serializer.instance = services.location_create(**serializer.validated_data)


@schema.lot_docs
class LotViewSet(OrgScopedViewSetMixin, viewsets.ReadOnlyModelViewSet):
    """Lots of non-serialised goods: on hand, allocated and free, per location, owner and customs standing."""

    queryset = Lot.objects.select_related(*LOT_RELATED)
    serializer_class = LotSerializer
    filterset_class = LotFilter
    ordering_fields = ["quantity", "allocated", "created_at", "part__part_number"]
    capabilities = {"read": "stock.view", "write": "stock.operate"}


@schema.movement_docs
class MovementViewSet(OrgScopedViewSetMixin, viewsets.ReadOnlyModelViewSet):
    """The append-only movement ledger, newest first."""

    queryset = Movement.objects.select_related(*MOVEMENT_RELATED)
    serializer_class = MovementSerializer
    filterset_class = LedgerFilter
    ordering_fields = ["occurred_at", "kind", "quantity"]
    ordering = ["-occurred_at", "-id"]
    capabilities = {"read": "stock.view", "write": "stock.operate"}


# --- on hand ---------------------------------------------------------------------------------------


@schema.on_hand_docs
class OnHandViewSet(viewsets.GenericViewSet):
    """Stock on hand by part × warehouse × location × status × customs status, with its value
    and age. Two queries whatever the number of units: the count and the page of one UNION of
    unit placements and lots grouped in the database."""

    queryset = UnitPlacement.objects.none()
    serializer_class = OnHandSerializer
    filterset_class = OnHandFilter
    capabilities = {"read": "stock.view", "write": "stock.operate"}

    def list(self, request, *args, **kwargs):
        filterset = OnHandFilter(request.query_params, queryset=UnitPlacement.objects.none(), request=request)
        scope_filter_choices(filterset, request.user)
        if not filterset.is_valid():
            raise serializers.ValidationError(filterset.errors)
        rows = on_hand_rows(
            placements=filterset.filter_queryset(UnitPlacement.objects.visible_to(request.user, VIEW)),
            lots=filterset.filter_queryset(Lot.objects.visible_to(request.user, VIEW)),
            status=filterset.form.cleaned_data.get("status") or "",
        )
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(OnHandSerializer(page, many=True).data)


# --- actions -----------------------------------------------------------------------------------------


def _units(pks) -> list:
    """Units as the answer shows them (one query), in primary-key order."""
    return list(Unit.objects.select_related(*UNIT_RELATED).filter(pk__in=list(pks)).order_by("pk"))


def _lot(pk):
    return Lot.objects.select_related(*LOT_RELATED).get(pk=pk) if pk else None


def _allocations(pks) -> list:
    return list(
        LotAllocation.objects.select_related("lot__part", "lot__location", "line__shipment")
        .filter(pk__in=list(pks))
        .order_by("pk")
    )


def _changed(*, units=(), lot=None, allocations=()) -> dict:
    return StockChangeSerializer(
        {
            "units": _units(u.pk for u in units),
            "lot": _lot(getattr(lot, "pk", None)),
            "allocations": _allocations(a.pk for a in allocations),
        }
    ).data


class _StockActionViewSet(viewsets.GenericViewSet):
    """A POST-only action on stock. Subclasses say which body (`serializer_class`), which field a
    refusal names when the service's field is not one of the body's (`default_field`), and do the
    work in `perform(data)`, returning the answer."""

    default_field = "non_field_errors"
    # Fields the services name, as the body calls them.
    renames = {"unit": "units", "allocation": "allocations", "quantities": "lots"}

    perform: Callable[..., dict]  # each action's work: `perform(validated body) -> answer`

    def __init_subclass__(cls, **kwargs):
        # A POST action without its work is refused when the class is defined, not on a request.
        super().__init_subclass__(**kwargs)
        if not callable(getattr(cls, "perform", None)):
            raise TypeError(f"{cls.__name__} must define perform(data) -> answer")

    def create(self, request, *args, **kwargs):
        return self._act(request, self.perform)

    def refusal_field(self, data) -> str:
        """The body's field a refusal names when the service names none of the body's fields."""
        return self.default_field

    def _act(self, request, perform) -> Response:
        def handler():
            serializer = self.get_serializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            try:
                with transaction.atomic():
                    # The answer is serialised inside the transaction: if it fails, nothing stays.
                    return Response(perform(serializer.validated_data), status=status.HTTP_201_CREATED)
            except DjangoValidationError as exc:
                raise self._refusal(exc, serializer) from exc

        return idempotent(request, handler)

    def _refusal(self, exc: DjangoValidationError, serializer) -> serializers.ValidationError:
        """The service's refusal, naming the body's fields (`status` of a unit → `units` …)."""
        fallback = self.refusal_field(serializer.validated_data)
        messages = exc.message_dict if hasattr(exc, "error_dict") else {fallback: exc.messages}
        detail: dict[str, list[str]] = {}
        for key, texts in messages.items():
            if key in serializer.fields:
                name = key
            elif self.renames.get(key) in serializer.fields:
                name = self.renames[key]
            else:
                name = fallback
            detail.setdefault(name, []).extend(texts)
        return serializers.ValidationError(detail)


@schema.receipt_docs
class ReceiptViewSet(_StockActionViewSet):
    """Receive goods into a location."""

    serializer_class = ReceiptSerializer
    capabilities = {"read": "stock.operate", "write": "stock.operate"}

    def refusal_field(self, data) -> str:
        return "serials" if "serials" in data else "quantity"

    def perform(self, data) -> dict:
        common = {
            "location": data["location"],
            "part": data["part"],
            "owner": data["owner"],
            "actor": self.request.user,
            "customs_reference": data.get("customs_reference", ""),
            "reason": data.get("reason", ""),
        }
        if "serials" in data:
            return _changed(units=services.units_receive(serials=data["serials"], **common))
        return _changed(lot=services.lot_receive(quantity=data["quantity"], **common))


@schema.move_docs
class MoveViewSet(_StockActionViewSet):
    """Move (or put away) units or lot pieces within a warehouse."""

    serializer_class = MoveSerializer
    default_field = "units"
    capabilities = {"read": "stock.operate", "write": "stock.operate"}

    def perform(self, data) -> dict:
        actor, reason, target = self.request.user, data.get("reason", ""), data["to_location"]
        if data.get("units"):
            moved = [
                services.unit_move(unit=unit, to_location=target, actor=actor, reason=reason)
                for unit in sorted(data["units"], key=lambda u: u.pk)
            ]
            return _changed(units=moved)
        lot = services.lot_move(
            lot=data["lot"], quantity=data["quantity"], to_location=target, actor=actor, reason=reason
        )
        return _changed(lot=lot)


@schema.adjustment_docs
class AdjustmentViewSet(_StockActionViewSet):
    """Correct a lot's quantity on hand."""

    serializer_class = AdjustmentSerializer
    default_field = "delta"
    renames = {"quantity": "delta"}
    capabilities = {"read": "stock.operate", "write": "stock.operate"}

    def perform(self, data) -> dict:
        lot = services.lot_adjust(
            lot=data["lot"], delta=data["delta"], actor=self.request.user, reason=data["reason"]
        )
        return _changed(lot=lot)


@schema.count_docs
class CountViewSet(_StockActionViewSet):
    """Book a cycle count of a location."""

    serializer_class = CountSerializer
    default_field = "serials"
    capabilities = {"read": "stock.operate", "write": "stock.operate"}

    def perform(self, data) -> dict:
        result = services.location_count(
            location=data["location"],
            serials=data["serials"],
            quantities={row["lot"].pk: row["counted"] for row in data["lots"]},
            actor=self.request.user,
            reason=data.get("reason", ""),
        )
        lots = {
            lot.pk: lot for lot in Lot.objects.select_related(*LOT_RELATED).filter(location=data["location"])
        }
        answer = {
            "agrees": result.agrees,
            "corrected": [
                {"lot": lots[lot.pk], "before": before, "counted": counted}
                for lot, before, counted in result.corrected
            ],
            "missing": _units(u.pk for u in result.missing),
            "found": _units(u.pk for u in result.found),
        }
        return CountResultSerializer(answer).data


@schema.allocation_docs
class AllocationViewSet(mixins.ListModelMixin, _StockActionViewSet):
    """Lot allocations to outbound shipment lines (serialised units show theirs on the unit); POST
    allocates units or a lot quantity to a line, `release/` gives stock back."""

    queryset = LotAllocation.objects.select_related("lot__part", "lot__location", "line__shipment")
    serializer_class = AllocationSerializer
    filterset_fields = ["status"]
    ordering_fields = ["created_at", "quantity"]
    ordering = ["-id"]
    capabilities = {"read": "stock.view", "write": "stock.allocate", "release": "stock.allocate"}

    def get_queryset(self):
        return self.queryset.visible_to(self.request.user, VIEW)

    def get_serializer_class(self):
        if self.action == "list":
            return LotAllocationSerializer
        if self.action == "release":
            return UnitsAndAllocationsSerializer
        return AllocationSerializer

    def refusal_field(self, data) -> str:
        return "quantity" if "lot" in data else "units"

    def perform(self, data) -> dict:
        actor, reason, line = self.request.user, data.get("reason", ""), data["line"]
        if data.get("units"):
            return _changed(
                units=services.units_allocate(line=line, units=data["units"], actor=actor, reason=reason)
            )
        allocation = services.lot_allocate(
            line=line, lot=data["lot"], quantity=data["quantity"], actor=actor, reason=reason
        )
        return _changed(lot=allocation.lot, allocations=[allocation])

    @action(detail=False, methods=["post"])
    def release(self, request, *args, **kwargs):
        """Give allocated units (back to available) and lot allocations back to stock."""
        return self._act(request, self._release)

    def _release(self, data) -> dict:
        actor, reason = self.request.user, data.get("reason", "")
        # The one service that changes a unit's status does it, as a give-back: allocated →
        # available is a release in the ledger; any other status is refused with its reason.
        units = [
            services.unit_transition(
                unit=unit, target=Status.AVAILABLE, action=Action.GIVE_BACK, actor=actor, reason=reason
            )
            for unit in sorted(data.get("units", []), key=lambda u: u.pk)
        ]
        allocations = [
            services.lot_allocation_release(allocation=a, actor=actor, reason=reason)
            for a in sorted(data.get("allocations", []), key=lambda a: a.pk)
        ]
        return _changed(units=units, allocations=allocations)


@schema.pick_docs
class PickViewSet(_StockActionViewSet):
    """Pick allocated units and lot allocations."""

    serializer_class = UnitsAndAllocationsSerializer
    default_field = "units"
    capabilities = {"read": "stock.operate", "write": "stock.operate"}

    def perform(self, data) -> dict:
        actor, reason = self.request.user, data.get("reason", "")
        units = services.units_pick(units=data.get("units", []), actor=actor, reason=reason)
        allocations = [
            services.lot_allocation_pick(allocation=a, actor=actor, reason=reason)
            for a in sorted(data.get("allocations", []), key=lambda a: a.pk)
        ]
        return _changed(units=units, allocations=allocations)


@schema.dispatch_docs
class DispatchViewSet(_StockActionViewSet):
    """Ship a line's picked stock out of the warehouse."""

    serializer_class = DispatchSerializer
    default_field = "line"
    capabilities = {"read": "stock.operate", "write": "stock.operate"}

    def perform(self, data) -> dict:
        shipped = services.line_ship(
            line=data["line"], actor=self.request.user, reason=data.get("reason", "")
        )
        return _changed(units=shipped.units, allocations=shipped.allocations)
