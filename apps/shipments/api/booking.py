"""`POST /api/v1/shipments/{reference}/freight-options/book/`: book one of the shipment's freight
options (named by the `id` the freight options carry) as its main carriage, through the legs
service (`services.freight_booking`). A mixin of the shipment viewset, with its serializers and
schema: the shipment is found through the reader's scope first (another organisation's: 404),
then the role is checked (partners: 403)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from apps.core.idempotency import idempotent
from apps.core.jsonable import jsonable
from apps.core.scoping import VIEW

from ..models import Shipment
from ..services.freight_booking import FreightBookingConflict, freight_option_book
from .schema import SHIPMENTS
from .serializers import LegSerializer

BOOK_CAPABILITY = "shipments.book"


class FreightOptionBookSerializer(serializers.Serializer):
    option = serializers.CharField(
        max_length=400,
        help_text="The option's `id` from `GET …/freight-options/`: mode, carrier, service and lane, "
        "e.g. `air|Cathay Cargo|Air express|TW-IN`.",
    )
    replace = serializers.BooleanField(
        default=False,
        help_text="Confirm that the legs already planned are replaced by the option's main carriage. "
        "Without it a shipment with legs is refused (409, `legs`). Departed legs are never replaced.",
    )


class BookedOptionSerializer(serializers.Serializer):
    id = serializers.CharField()
    mode = serializers.CharField()
    service = serializers.CharField()
    carrier = serializers.CharField(allow_blank=True)
    departure = serializers.DateField()
    arrival = serializers.DateField()
    transit_days = serializers.IntegerField()


class FreightBookingSerializer(serializers.Serializer):
    created = serializers.BooleanField(
        help_text="False when the legs described the option already (a repeated post): nothing was added."
    )
    replaced = serializers.ListField(
        child=serializers.IntegerField(), help_text="Sequences of the legs the booking replaced."
    )
    option = BookedOptionSerializer()
    legs = LegSerializer(many=True)
    eta = serializers.DateField(allow_null=True, help_text="The shipment's ETA now: the option's arrival.")


BOOK_DOCS = extend_schema(
    summary="Book a freight option as the main carriage",
    tags=[SHIPMENTS],
    request=FreightOptionBookSerializer,
    responses={
        201: FreightBookingSerializer,
        200: OpenApiResponse(
            FreightBookingSerializer,
            description="The legs book this option already (a double click or a retry): nothing added.",
        ),
        400: OpenApiResponse(description="No `option` given, or the route rules refuse the leg (by field)."),
        403: OpenApiResponse(description="Only coordinators (and administrators) book freight."),
        404: OpenApiResponse(description="No such shipment among those you may see."),
        409: OpenApiResponse(
            description="Refused now: `shipment` past approval (or closed), `legs` planned already "
            "(send `replace: true` to replace them) or departed, `option` no longer offered (stale: "
            "read the options again) or a consolidation, planned leg by leg."
        ),
    },
    examples=[
        OpenApiExample(
            "Book the air option",
            value={"option": "air|Cathay Cargo|Air express|TW-IN"},
            request_only=True,
        ),
        OpenApiExample(
            "Stale option",
            value={"option": ["No freight option 'air|Cathay Cargo|Air express|TW-IN' is offered … now."]},
            response_only=True,
            status_codes=["409"],
        ),
    ],
)


class FreightBookingMixin:
    """The shipment viewset's `freight-options/book/` action."""

    @BOOK_DOCS
    @action(detail=True, methods=["post"], url_path="freight-options/book")
    def book_freight_option(self, request, reference=None):
        """Book a freight option: its main carriage (mode, the rate's carrier, departure and arrival,
        origin to destination) is added as leg, and the shipment's ETA becomes its arrival."""
        shipment = get_object_or_404(Shipment.objects.visible_to(request.user, VIEW), reference=reference)
        if not request.user.can(BOOK_CAPABILITY):
            raise PermissionDenied("Only coordinators book freight.")
        body = FreightOptionBookSerializer(data=request.data)
        body.is_valid(raise_exception=True)

        def handler():
            try:
                booking = freight_option_book(
                    shipment=shipment,
                    option_id=body.validated_data["option"],
                    replace=body.validated_data["replace"],
                )
            except FreightBookingConflict as exc:
                return Response(exc.as_dict(), status=status.HTTP_409_CONFLICT)
            shipment.refresh_from_db(fields=["eta"])
            option = jsonable(booking.option)
            data = {
                "created": booking.created,
                "replaced": booking.replaced,
                "option": {"id": booking.option_id, **option},
                "legs": booking.legs,
                "eta": shipment.eta,
            }
            answer = FreightBookingSerializer(data, context={"request": request}).data
            return Response(answer, status=status.HTTP_201_CREATED if booking.created else status.HTTP_200_OK)

        return idempotent(request, handler)
