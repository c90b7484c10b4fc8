from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin
from apps.core.idempotency import idempotent
from apps.core.scoping import CHANGE, VIEW

from .. import readiness, selectors, services
from ..disclosure import freight_plan_for
from ..engines.freight import CannotCarryError, MissingFiguresError, NoRateError, RateTableConflict
from ..engines.landed_cost import CurrencyMismatch
from ..filters import ExchangeRateFilter, FreightRateFilter, ShipmentFilter, SiteFilter
from ..models import ExchangeRate, FreightRate, Leg, Package, Shipment, ShipmentLine, Site
from ..models.shipments import attach_line_counts
from ..presenters import freight_plan_data
from . import schema
from .booking import FreightBookingMixin
from .lines_bulk import BulkLinesMixin
from .serializers import (
    AmendSerializer,
    EventSerializer,
    ExchangeRateSerializer,
    FreightRateSerializer,
    LegSerializer,
    LineSerializer,
    PackageSerializer,
    RecordPartiesSerializer,
    ShipmentMovedSerializer,
    ShipmentSerializer,
    ShipmentWriteSerializer,
    SiteSerializer,
    TransitionSerializer,
)

REF = OpenApiParameter("shipment_reference", str, OpenApiParameter.PATH, description="e.g. SHP-2026-000123")


def _refused(exc: services.TransitionRefused, *, request, shipment: Shipment) -> Response:
    body = {"detail": exc.message, "reasons": exc.reasons}
    if exc.missing_record_party:
        # Where to read the assessment and the providers that could be named.
        body["record_parties"] = request.build_absolute_uri(
            reverse("api:shipment-record-parties", kwargs={"reference": shipment.reference})
        )
    forbidden = isinstance(exc, services.TransitionForbidden)
    return Response(body, status=status.HTTP_403_FORBIDDEN if forbidden else status.HTTP_409_CONFLICT)


@schema.site_docs
class SiteViewSet(AuditHistoryMixin, OrgScopedViewSetMixin, viewsets.ModelViewSet):
    """Factories, warehouses, ports, airports and data centres."""

    queryset = Site.objects.select_related("owner")
    serializer_class = SiteSerializer
    filterset_class = SiteFilter
    ordering_fields = ["name", "country", "city", "kind"]
    capabilities = {"read": "sites.view", "write": "sites.edit"}

    def perform_create(self, serializer):
        serializer.instance = services.site_create(actor=self.request.user, fields=serializer.validated_data)

    def perform_update(self, serializer):
        serializer.instance = services.site_update(site=serializer.instance, fields=serializer.validated_data)


@schema.shipment_docs
class ShipmentViewSet(
    FreightBookingMixin,
    BulkLinesMixin,
    AuditHistoryMixin,
    OrgScopedViewSetMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.ReadOnlyModelViewSet,
):
    """Shipments. Partners see the shipments their organisation created or is a party to."""

    queryset = Shipment.objects.all()
    serializer_class = ShipmentSerializer
    lookup_field = "reference"
    filterset_class = ShipmentFilter
    ordering_fields = ["reference", "required_by", "ready_date", "eta", "status", "created_at"]
    ordering = ["-created_at", "-id"]
    capabilities = {
        "read": "shipments.view",
        "write": "shipments.edit",
        "transition": "shipments.view",
        "amend": "shipments.view",
        "events": "shipments.view",
        "freight_options": "shipments.view",
        # Found through the reader's scope first (404), then the role is checked (403): booking.py.
        "book_freight_option": "shipments.view",
        "bulk_lines": "shipments.edit",
        "record_parties": "shipments.view",
    }

    def get_base_queryset(self):
        return Shipment.objects.for_list().with_parties()

    def get_queryset(self):
        # Posting an event or asking for a transition needs visibility; the service checks the rest.
        if self.action in ("events", "transition", "amend", "freight_options"):
            return self.get_base_queryset().visible_to(self.request.user, VIEW)
        return super().get_queryset()

    def get_object(self):
        return attach_line_counts([super().get_object()])[0]

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        return attach_line_counts(list(page)) if page is not None else None

    def get_serializer_class(self):
        if self.action in ("create", "update", "partial_update"):
            return ShipmentWriteSerializer
        return ShipmentSerializer

    @extend_schema(request=ShipmentWriteSerializer, responses={201: ShipmentSerializer})
    def create(self, request, *args, **kwargs):
        serializer = ShipmentWriteSerializer(data=request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        parties = data.pop("parties", {})
        shipment = services.shipment_create(actor=request.user, fields=data, parties=parties)
        return Response(self._read(shipment), status=status.HTTP_201_CREATED)

    @extend_schema(request=ShipmentWriteSerializer, responses=ShipmentSerializer)
    def update(self, request, *args, **kwargs):
        shipment = self.get_object()
        partial = kwargs.pop("partial", False)
        serializer = ShipmentWriteSerializer(
            shipment, data=request.data, partial=partial, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        parties = data.pop("parties", None)
        with transaction.atomic():
            if data:
                shipment = services.shipment_update(shipment=shipment, fields=data)
            for role, organisation in (parties or {}).items():
                try:
                    services.party_set(
                        shipment=shipment, role=role, organisation=organisation, actor=request.user
                    )
                except ValidationError as exc:
                    raise serializers.ValidationError({"parties": {role: exc.messages}}) from exc
        return Response(self._read(shipment))

    @extend_schema(request=ShipmentWriteSerializer, responses=ShipmentSerializer)
    def partial_update(self, request, *args, **kwargs):
        # Declared here too: the schema of PATCH is the shipment as read, like PUT's.
        return super().partial_update(request, *args, **kwargs)

    def _read(self, shipment):
        fresh = attach_line_counts([self.get_base_queryset().get(pk=shipment.pk)])[0]
        return ShipmentSerializer(fresh, context=self.get_serializer_context()).data

    @extend_schema(request=TransitionSerializer, responses={200: ShipmentMovedSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def transition(self, request, reference=None):
        """Move the shipment along its status flow (`to`: a status, or `release`). 409 when refused."""
        shipment = self.get_object()
        if not Shipment.objects.visible_to(request.user, CHANGE).filter(pk=shipment.pk).exists():
            return Response(
                {"detail": "Your organisation may read this shipment but not change it."},
                status=status.HTTP_403_FORBIDDEN,
            )
        serializer = TransitionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            shipment = services.shipment_transition(
                shipment=shipment,
                target=serializer.validated_data["to"],
                actor=request.user,
                reason=serializer.validated_data.get("reason", ""),
                hold_kind=serializer.validated_data.get("hold_kind", ""),
            )
        except services.TransitionRefused as exc:
            return _refused(exc, request=request, shipment=shipment)
        submitted = serializer.validated_data["to"] == "compliance_review"
        return Response(
            {**self._read(shipment), "warnings": readiness.review_warnings(shipment) if submitted else []}
        )

    @extend_schema(request=AmendSerializer, responses={200: ShipmentSerializer, 403: None, 409: None})
    @action(detail=True, methods=["post"])
    def amend(self, request, reference=None):
        """Send an approved shipment that is not booked back to draft to correct it (`reason`
        required): its issued documents are voided with the reason and its compliance answer is
        stale, so it is checked again when resubmitted. 409 when it cannot be amended (booked or
        later, or not approved), with why; 403 for a role without `shipments.amend`."""
        shipment = self.get_object()
        if not Shipment.objects.visible_to(request.user, CHANGE).filter(pk=shipment.pk).exists():
            return Response(
                {"detail": "Your organisation may read this shipment but not change it."},
                status=status.HTTP_403_FORBIDDEN,
            )
        serializer = AmendSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            shipment = services.shipment_amend(
                shipment=shipment, actor=request.user, reason=serializer.validated_data["reason"]
            )
        except services.TransitionRefused as exc:
            return _refused(exc, request=request, shipment=shipment)
        return Response(self._read(shipment))

    @extend_schema(
        methods=["post"],
        request=EventSerializer,
        responses={201: EventSerializer},
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="A repeated key returns the first result and creates nothing.",
            )
        ],
    )
    @extend_schema(methods=["get"], responses=EventSerializer(many=True))
    @action(detail=True, methods=["get", "post"])
    def events(self, request, reference=None):
        """The tracking timeline (sorted by event time); forwarders and brokers post milestones here."""
        shipment = self.get_object()
        if request.method == "GET":
            events = shipment.events.select_related("posted_by__organisation", "organisation").order_by(
                "occurred_at", "id"
            )
            page = self.paginate_queryset(events)
            return self.get_paginated_response(
                EventSerializer(page, many=True, context=self.get_serializer_context()).data
            )
        if (
            not request.user.can("shipments.track")
            or not Shipment.objects.visible_to(request.user, CHANGE).filter(pk=shipment.pk).exists()
        ):
            return Response(
                {"detail": "Your organisation may not post events on this shipment."},
                status=status.HTTP_403_FORBIDDEN,
            )

        def handler():
            serializer = EventSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            leg = None
            if data.get("leg_id"):
                leg = Leg.objects.filter(pk=data["leg_id"], shipment=shipment).first()
                if leg is None:
                    raise ValidationError(
                        {"leg": f"Leg {data['leg_id']} is not a leg of {shipment.reference}."}
                    )
            try:
                event = services.event_record(
                    shipment=shipment,
                    actor=request.user,
                    code=data["code"],
                    occurred_at=data["occurred_at"],
                    location=data.get("location", ""),
                    remarks=data.get("remarks", ""),
                    leg=leg,
                    eta=data.get("eta"),
                )
            except services.TransitionRefused as exc:
                return _refused(exc, request=request, shipment=shipment)
            return Response(
                EventSerializer(event, context=self.get_serializer_context()).data,
                status=status.HTTP_201_CREATED,
            )

        return idempotent(request, handler)

    @extend_schema(responses=RecordPartiesSerializer)
    @action(detail=True, methods=["get"], url_path="record-parties")
    def record_parties(self, request, reference=None):
        """Whether an importer / exporter of record is needed and why, who is named, and the
        providers covering the country that you may name (the 409 of a review links here)."""
        shipment = get_object_or_404(
            selectors.record_party_queryset().visible_to(request.user, VIEW), reference=reference
        )
        assessments = selectors.record_party_assessments(shipment, for_user=request.user)
        exporters = [a for a in assessments if a.need.role == "exporter"]
        return Response(
            RecordPartiesSerializer(
                {"importer": assessments[0], "exporter": exporters[0], "exporters": exporters}
            ).data
        )

    @extend_schema(
        responses={
            200: inline_serializer(
                "FreightPlan",
                {
                    "recommendation": serializers.JSONField(),
                    "options": serializers.JSONField(
                        help_text="Each option with its `id` (mode|carrier|service|lane), the name "
                        "`POST …/freight-options/book/` books it by."
                    ),
                    "landed_cost": serializers.JSONField(),
                    "booked_option": serializers.CharField(
                        required=False,
                        allow_null=True,
                        help_text="The `id` of the option the shipment's legs book already, if any.",
                    ),
                    "booked": serializers.JSONField(
                        required=False, help_text="What was booked, once booked."
                    ),
                    "route": serializers.JSONField(
                        required=False,
                        help_text="A consolidation (inbound legs to a hub) priced leg by leg: each leg's "
                        "options and chosen option, hub handling and the total.",
                    ),
                    "message": serializers.CharField(required=False),
                    "landed_cost_note": serializers.CharField(
                        required=False, help_text="Why a partner reads no landed cost (docs/security.md)."
                    ),
                },
            ),
            **schema.FREIGHT_OPTIONS_REFUSALS,
        }
    )
    @action(detail=True, methods=["get"], url_path="freight-options")
    def freight_options(self, request, reference=None):
        """Options per mode from the lane's rate table, a recommendation and a landed-cost estimate."""
        shipment = self.get_object()
        try:
            return Response(freight_plan_for(freight_plan_data(shipment), shipment, request.user))
        except NoRateError as exc:
            return Response({"lane": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        except CurrencyMismatch as exc:
            # The landed cost cannot be added up in one currency: refuse rather than mix currencies.
            return Response(
                {
                    "currency": [str(exc)],
                    "from_currency": exc.from_currency,
                    "to_currency": exc.to_currency,
                },
                status=status.HTTP_422_UNPROCESSABLE_ENTITY,
            )
        except RateTableConflict as exc:
            # Rates in several currencies (or lanes) cannot be compared: the rate table must change.
            return Response({"rates": [str(exc)]}, status=status.HTTP_409_CONFLICT)
        except MissingFiguresError as exc:
            return Response(
                {"lines": list(exc.lines), "detail": str(exc)}, status=status.HTTP_422_UNPROCESSABLE_ENTITY
            )
        except CannotCarryError as exc:
            # No rate, aircraft or container carries the load: say why for each.
            return Response({"load": [str(exc)]}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)


class _ShipmentChildViewSet(AuditHistoryMixin, OrgScopedViewSetMixin, viewsets.ModelViewSet):
    """Lines, packages and legs live under `/shipments/{reference}/…/`, scoped through the shipment."""

    capabilities = {"read": "shipments.view", "write": "shipments.edit"}
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # Resolve the shipment before reading the body: another organisation's shipment is a 404,
        # never a validation error that would confirm it exists.
        if not getattr(self, "swagger_fake_view", False):
            self.get_shipment()

    def get_shipment(self) -> Shipment:
        if not hasattr(self, "_shipment"):
            action = VIEW if self.request.method in ("GET", "HEAD", "OPTIONS") else CHANGE
            self._shipment = get_object_or_404(
                Shipment.objects.visible_to(self.request.user, action),
                reference=self.kwargs["shipment_reference"],
            )
        return self._shipment

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset.none()
        return self.queryset.filter(shipment=self.get_shipment())

    def _lines_by_number(self, numbers, field):
        lines = {line.line_number: line for line in self.get_shipment().lines.all()}
        missing = [n for n in numbers if n not in lines]
        if missing:
            raise ValidationError(
                {field: f"No line {', '.join(map(str, missing))} on {self.get_shipment()}."}
            )
        return [lines[n] for n in numbers]


@extend_schema(parameters=[REF])
@schema.line_docs
class LineViewSet(_ShipmentChildViewSet):
    queryset = ShipmentLine.objects.select_related("part").prefetch_related("serials__unit")
    serializer_class = LineSerializer
    ordering_fields = ["line_number", "quantity", "unit_value"]
    ordering = ["line_number"]
    filterset_fields = ["part", "hs_code", "country_of_origin"]

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        part, quantity, serials = data.pop("part"), data.pop("quantity"), data.pop("serials", None)
        serializer.instance = services.line_add(
            shipment=self.get_shipment(),
            part=part,
            quantity=quantity,
            fields=data,
            serials=serials,
            actor=self.request.user,
        )

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        serials = data.pop("serials", None)
        data.pop("part", None)
        with transaction.atomic():
            line = services.line_update(line=serializer.instance, fields=data, actor=self.request.user)
            if serials is not None:
                services.serials_set(line=line, serials=serials)
        serializer.instance = line

    def perform_destroy(self, instance):
        services.line_remove(line=instance)


@extend_schema(parameters=[REF])
@schema.package_docs
class PackageViewSet(_ShipmentChildViewSet):
    queryset = Package.objects.prefetch_related("items__line__part", "serials__unit")
    serializer_class = PackageSerializer
    ordering_fields = ["number", "gross_kg"]
    ordering = ["number"]
    filterset_fields = ["package_type"]
    http_method_names = ["get", "post", "delete", "head", "options"]

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        items = data.pop("items")
        serials = data.pop("serials", None)
        lines = self._lines_by_number([i["line"] for i in items], "items")
        pairs = [(line, item["quantity"]) for line, item in zip(lines, items, strict=True)]
        serializer.instance = services.package_add(
            shipment=self.get_shipment(), fields=data, items=pairs, serials=serials
        )

    def perform_destroy(self, instance):
        services.package_remove(package=instance)


@extend_schema(parameters=[REF])
@schema.leg_docs
class LegViewSet(_ShipmentChildViewSet):
    queryset = Leg.objects.select_related("origin", "destination").prefetch_related("lines")
    serializer_class = LegSerializer
    ordering_fields = ["sequence"]
    ordering = ["sequence"]
    filterset_fields = ["role", "mode"]
    http_method_names = ["get", "post", "patch", "head", "options"]

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        numbers = data.pop("lines", [])
        lines = self._lines_by_number(numbers, "lines")
        serializer.instance = services.leg_add(shipment=self.get_shipment(), fields=data, lines=lines)

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        numbers = data.pop("lines", None)
        lines = self._lines_by_number(numbers, "lines") if numbers is not None else None
        serializer.instance = services.leg_update(leg=serializer.instance, fields=data, lines=lines)


@schema.freight_rate_docs
class FreightRateViewSet(AuditHistoryMixin, viewsets.ModelViewSet):
    """The rate table per lane: the operator's, read by its staff only, kept by coordinators."""

    queryset = FreightRate.objects.all()
    serializer_class = FreightRateSerializer
    filterset_class = FreightRateFilter
    ordering_fields = ["origin_country", "destination_country", "mode", "valid_from", "transit_days"]
    capabilities = {"read": "freight.rates.view", "write": "freight.edit"}

    def perform_create(self, serializer):
        serializer.instance = services.freight_rate_save(rate=FreightRate(), fields=serializer.validated_data)

    def perform_update(self, serializer):
        serializer.instance = services.freight_rate_save(
            rate=serializer.instance, fields=serializer.validated_data
        )


@schema.exchange_rate_docs
class ExchangeRateViewSet(AuditHistoryMixin, viewsets.ModelViewSet):
    """Dated exchange rates for landed costs: readable by every user, kept by operator staff
    (coordinators and administrators), like the freight rate table."""

    queryset = ExchangeRate.objects.all()
    serializer_class = ExchangeRateSerializer
    filterset_class = ExchangeRateFilter
    ordering_fields = ["base", "quote", "valid_on"]
    capabilities = {"read": "freight.view", "write": "freight.edit"}

    def perform_create(self, serializer):
        serializer.instance = services.exchange_rate_save(
            rate=ExchangeRate(), fields=serializer.validated_data
        )

    def perform_update(self, serializer):
        serializer.instance = services.exchange_rate_save(
            rate=serializer.instance, fields=serializer.validated_data
        )
