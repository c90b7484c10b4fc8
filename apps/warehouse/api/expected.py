"""`GET /api/v1/stock/expected/?site=<id>`: what a warehouse expects (inbound legs and shipments
due overdue, today, this week, or with no date yet) and what it received in the last week, among
the shipments the caller may see (`selectors.expected_arrivals`). Another organisation's site, or
one without locations the caller sees, is a 404."""

from __future__ import annotations

from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.response import Response

from apps.core.api_docs import example
from apps.shipments.models import Shipment

from ..selectors import expected_arrivals, warehouse_sites
from .schema.stock import STOCK
from .serializers.expected import ExpectedArrivalSerializer

ARRIVAL = {
    "bucket": "today",
    "shipment": "SHP-2026-000118",
    "shipment_status": "in_transit",
    "leg": 1,
    "leg_id": 311,
    "origin": "QCT Guishan Factory",
    "eta": "2026-12-06",
    "units": 8,
    "packages": 2,
    "weight_kg": "8.00",
    "receipt": None,
}


class ExpectedViewSet(viewsets.GenericViewSet):
    """What a warehouse expects to arrive, and what arrived there in the last week."""

    queryset = Shipment.objects.none()
    serializer_class = ExpectedArrivalSerializer
    pagination_class = None
    capabilities = {"read": "stock.view", "write": "stock.operate"}

    @extend_schema(
        tags=[STOCK],
        summary="What a warehouse expects",
        parameters=[OpenApiParameter("site", int, required=True, description="The warehouse site's id.")],
        responses={
            200: ExpectedArrivalSerializer(many=True),
            404: OpenApiResponse(description="No such warehouse site among those you may see."),
        },
        examples=[example("An arrival due today", ARRIVAL)],
    )
    def list(self, request, *args, **kwargs):
        wanted = request.query_params.get("site", "").strip()
        # An id past a 64-bit key is no site at all; asked of the database it would be an error.
        if not wanted.isdigit() or len(wanted) > 18:
            raise serializers.ValidationError({"site": "Give the warehouse site's id: ?site=<id>."})
        site = warehouse_sites(request.user).filter(pk=int(wanted)).first()
        if site is None:
            raise Http404("No such warehouse that you may see.")
        arrivals = expected_arrivals(request.user, site, timezone.localdate())
        return Response(ExpectedArrivalSerializer(arrivals, many=True).data)
