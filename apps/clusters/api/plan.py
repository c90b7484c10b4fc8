"""`/api/v1/clusters/{id}/shipment-plan/` and `/api/v1/clusters/{id}/own-or-rent/`.

- shipment-plan, GET: the proposed shipments of the design's current bill of materials (or
  `?bom=<version>`), each with its lines, legs, freight cost (null when no rate prices it) and
  why. POST: make them (or the `proposals` named) into draft shipments: 201 with the shipments;
  refused (400 naming `again`) when drafts were made from that version already, unless
  `again` is true. Needs `clusters.plan` and `shipments.edit`.
- own-or-rent, GET `?gpu_hour_price=&support_rate=&months=&utilisation=`: cumulative own and rent
  costs a month, the break-even month and how each figure was reached.

The design is read with `visible_to(user)` (POST: `visible_to(user, CHANGE)`): another
organisation's design is not found (404).
"""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.rest import allowed_query_params, refuse_unknown_query_params
from apps.core.scoping import CHANGE, VIEW
from apps.shipments.models import PartyRole, ShipmentParty

from ..models import BillOfMaterials, ClusterDesign
from ..services import own_or_rent, shipment_plan
from . import plan_schema as schema

TAG = "Clusters"
OWN_OR_RENT_PARAMS = {
    "gpu_hour_price": None,
    "support_rate": None,
    "months": None,
    "utilisation": None,
    "input_tax_credit": None,
    "credit_month": None,
}


def design_for(request, pk: int, action: str = VIEW) -> ClusterDesign:
    return get_object_or_404(
        ClusterDesign.objects.visible_to(request.user, action).select_related("site", "customer"), pk=pk
    )


def bom_for(design: ClusterDesign, version: int | None) -> BillOfMaterials:
    boms = BillOfMaterials.objects.filter(design=design).select_related("design__site", "design__customer")
    bom = boms.filter(version=version).first() if version else boms.order_by("-version").first()
    if bom is None:
        if version:
            raise DjangoValidationError({"bom": f"No version {version} of this design's bill of materials."})
        raise DjangoValidationError({"bom": "The design has no bill of materials yet: size it and make one."})
    return bom


class PlanQuerySerializer(serializers.Serializer):
    bom = serializers.IntegerField(
        required=False, min_value=1, help_text="A bill-of-materials version; default the newest."
    )


class PlanCreateSerializer(serializers.Serializer):
    bom = serializers.IntegerField(
        required=False, min_value=1, help_text="A bill-of-materials version; default the newest."
    )
    proposals = serializers.ListField(
        child=serializers.CharField(max_length=80),
        required=False,
        max_length=100,
        help_text="The proposal keys to make (default: every proposal).",
    )
    again = serializers.BooleanField(
        default=False, help_text="Make drafts even though drafts were made from this version already."
    )


class OwnOrRentQuerySerializer(serializers.Serializer):
    gpu_hour_price = serializers.DecimalField(
        max_digits=12, decimal_places=4, help_text="Rent price per GPU-hour, in the hardware's currency."
    )
    support_rate = serializers.DecimalField(
        max_digits=6,
        decimal_places=2,
        required=False,
        default=own_or_rent.DEFAULT_SUPPORT_RATE,
        help_text="Yearly support, percent of the hardware's landed cost (10 is 10 %).",
    )
    months = serializers.IntegerField(required=False, default=own_or_rent.DEFAULT_MONTHS)
    utilisation = serializers.DecimalField(
        max_digits=6,
        decimal_places=2,
        required=False,
        default=own_or_rent.DEFAULT_UTILISATION,
        help_text="Percent of the owned GPU-hours that would be rented (100: all of them).",
    )
    input_tax_credit = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Claim the import VAT/GST (India: IGST) back as input-tax credit: a timing cost, not a "
        "sunk cost. Default: claimed where the buyer (the design's customer) holds the country's VAT/GST "
        "registration (India: a GSTIN); asking for it where it does not is refused.",
    )
    credit_month = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=600,
        help_text="The month the credit comes back (default 1: the next month's return).",
    )

    def validate_gpu_hour_price(self, value: Decimal) -> Decimal:
        if value <= 0:
            raise serializers.ValidationError("The price per GPU-hour must be greater than 0.")
        return value

    def validate_months(self, value: int) -> int:
        if value <= 0:
            raise serializers.ValidationError("The number of months must be greater than 0.")
        if value > 600:
            raise serializers.ValidationError("At most 600 months (50 years).")
        return value

    def validate_support_rate(self, value: Decimal) -> Decimal:
        if not 0 <= value <= 100:
            raise serializers.ValidationError("The yearly support rate is a percentage from 0 to 100.")
        return value

    def validate_utilisation(self, value: Decimal) -> Decimal:
        if not 0 < value <= 100:
            raise serializers.ValidationError("Utilisation is a percentage above 0, at most 100.")
        return value


# --- the answers (schema only: the views answer `shipment_plan.plan_as_dict` and
# `own_or_rent.answer_as_dict` as they are, and these describe them for the API docs) ---------------


def _decimal(help_text: str = "", **kwargs) -> serializers.DecimalField:
    """A decimal as a string, at the precision it was worked to (no fixed number of digits)."""
    return serializers.DecimalField(max_digits=None, decimal_places=None, help_text=help_text, **kwargs)


def _per_currency(help_text: str) -> serializers.DictField:
    return serializers.DictField(child=_decimal(), help_text=f"{help_text}, by currency code.")


def _texts(help_text: str = "", **kwargs) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(), help_text=help_text, **kwargs)


class PlannedLineSerializer(serializers.Serializer):
    bom_line = serializers.IntegerField(help_text="The bill-of-materials line's id.")
    description = serializers.CharField()
    quantity = serializers.IntegerField()
    value = _decimal("Quantity × the part's unit value.")
    currency = serializers.CharField()
    gross_kg = _decimal()
    country_of_origin = serializers.CharField()
    supplier = serializers.CharField()
    why = serializers.CharField(help_text="Why this mode: weight, value, category, the required date.")
    ready_date = serializers.DateField(
        allow_null=True, help_text="When its supplier has it ready: the plan's date + the line's lead time."
    )


class PlannedLegSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="inbound (origin → hub), main (hub → site) or direct.")
    origin_country = serializers.CharField()
    destination_country = serializers.CharField()
    supplier = serializers.CharField(help_text="Empty on the main carriage from the hub.")
    mode = serializers.CharField(help_text="air or ocean.")
    cost = _decimal("Null when no rate prices the leg.", allow_null=True)
    currency = serializers.CharField()
    service = serializers.CharField()
    departure = serializers.DateField(allow_null=True)
    arrival = serializers.DateField(allow_null=True)
    bom_lines = serializers.ListField(child=serializers.IntegerField(), help_text="The lines it carries.")


class ProposalSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="Names the proposal in a POST's `proposals`.")
    kind = serializers.CharField(help_text="direct, or consolidated through the hub.")
    mode = serializers.CharField(help_text="air or ocean.")
    origin_countries = _texts()
    suppliers = _texts()
    destination_country = serializers.CharField()
    hub = serializers.CharField(help_text="The consolidation hub's name; empty when direct.")
    lines = PlannedLineSerializer(many=True)
    legs = PlannedLegSerializer(many=True)
    goods_value = _per_currency("The goods' value")
    gross_kg = _decimal()
    cost = _decimal("Freight and hub handling; null when no rate prices a leg.", allow_null=True)
    currency = serializers.CharField()
    arrival = serializers.DateField(allow_null=True)
    ready_date = serializers.DateField(allow_null=True, help_text="When the last of its goods is ready.")
    on_time = serializers.BooleanField(allow_null=True, help_text="Arrives by the required date.")
    priced = serializers.BooleanField()
    reasons = _texts("Why these goods travel together, this way.")
    missing = _texts("What the rate table lacks to price it.")
    breakdown = _texts(
        "The freight engine's working, quoting the operator's rate card: operator staff only.",
        required=False,
    )


class ShipmentPlanSerializer(serializers.Serializer):
    design = serializers.IntegerField()
    bom_version = serializers.IntegerField()
    proposals = ProposalSerializer(many=True)
    ready_date = serializers.DateField(
        help_text="The plan's date (today); each line is ready after its lead time from it."
    )
    required_by = serializers.DateField(allow_null=True, help_text="The design's required-on-site date.")
    freight_by_currency = _per_currency("The priced proposals' freight")
    unpriced = _texts("The keys of the proposals no rate prices.")
    reasons = _texts()


class LandedCostSerializer(serializers.Serializer):
    goods = _decimal()
    freight = _decimal()
    insurance = _decimal()
    duty = _decimal()
    levies = _decimal()
    vat = _decimal()
    brokerage = _decimal()
    handling = _decimal()
    total = _decimal()
    complete = serializers.BooleanField(help_text="False when a figure could not be worked out.")
    explanation = _texts()


class CostPointSerializer(serializers.Serializer):
    month = serializers.IntegerField()
    own = _decimal("Cumulative cost of owning by the end of the month.")
    rent = _decimal("Cumulative cost of renting by the end of the month.")


class OwnOrRentSerializer(serializers.Serializer):
    bom_version = serializers.IntegerField()
    currency = serializers.CharField(help_text="The hardware's currency: every figure is in it.")
    months = serializers.IntegerField()
    hardware_landed = _decimal("The hardware at landed cost, paid in month 0.")
    landed_cost = LandedCostSerializer()
    it_kw = _decimal()
    power_per_month = _decimal()
    support_per_month = _decimal()
    own_running_per_month = _decimal()
    gpu_hours_per_month = _decimal()
    rent_per_month = _decimal()
    break_even_month = serializers.IntegerField(allow_null=True)
    break_even_beyond = serializers.IntegerField(
        allow_null=True, help_text="When it breaks even past `months`; null if never or within them."
    )
    verdict = serializers.CharField()
    explanation = _texts()
    notes = _texts("What was left out or converted, and why.")
    input_tax_credit = inline_serializer(
        "ClusterInputTaxCredit",
        {
            "tax": serializers.CharField(help_text="What the country calls its import VAT/GST (IGST)."),
            "amount": _decimal("Credited back (0.00 when not claimed)."),
            "claimable": serializers.BooleanField(),
            "claimed": serializers.BooleanField(),
            "month": serializers.IntegerField(allow_null=True),
            "reason": serializers.CharField(),
            "rule": serializers.CharField(),
            "source": serializers.CharField(help_text="Where the rule is written."),
        },
        allow_null=True,
    )
    points = CostPointSerializer(many=True, help_text="Months 0 to `months`.")


CreatedShipments = inline_serializer(
    "ClusterDraftShipments",
    {
        "shipments": inline_serializer(
            "ClusterDraftShipment",
            {
                "reference": serializers.CharField(),
                "url": serializers.CharField(),
                "mode": serializers.CharField(),
                "lines": serializers.IntegerField(),
                "legs": serializers.IntegerField(),
                "shipper": serializers.CharField(allow_null=True),
            },
            many=True,
        ),
        "already": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()),
            help_text="Proposals made from this version before, with their drafts: not made again.",
        ),
    },
)


class ShipmentPlanView(APIView):
    """The shipment plan of a cluster's bill of materials, and its proposals made into drafts."""

    capabilities = {"read": "clusters.view", "write": "shipments.edit"}
    model = ClusterDesign  # the design named by `pk` (the isolation sweep reads it)

    @extend_schema(
        operation_id="clusters_shipment_plan_retrieve",
        tags=[TAG],
        summary="Read a cluster's shipment plan",
        description="Proposed shipments by origin (supplier, country of origin) and mode, each with its "
        "lines, legs, freight cost on the rate table (null with `missing` when no rate prices it) and "
        "`reasons`. Money as strings.",
        parameters=[PlanQuerySerializer],
        responses=ShipmentPlanSerializer,
        examples=schema.PLAN_EXAMPLES,
    )
    def get(self, request, pk: int):
        design = design_for(request, pk)
        refuse_unknown_query_params(request, allowed_query_params(request, None) | {"bom": None})
        query = PlanQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        bom = bom_for(design, query.validated_data.get("bom"))
        plan = shipment_plan.plan_for(bom)
        # The rate card behind the prices is the operator's (apps/shipments/disclosure.py).
        return Response(shipment_plan.plan_as_dict(plan, bom, rate_card=request.user.is_operator_staff))

    @extend_schema(
        operation_id="clusters_shipment_plan_create",
        tags=[TAG],
        summary="Make a cluster's proposed shipments into draft shipments",
        request=PlanCreateSerializer,
        responses={201: CreatedShipments, 200: CreatedShipments},
        examples=schema.PLAN_CREATE_EXAMPLES,
    )
    def post(self, request, pk: int):
        # Making shipments is a shipments write (`capabilities`) of a cluster the user plans.
        if not request.user.can("clusters.plan"):
            raise PermissionDenied("Your role does not allow this.")
        design = design_for(request, pk, CHANGE)
        body = PlanCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bom = bom_for(design, body.validated_data.get("bom"))
        result = shipment_plan.shipments_create_from_plan(
            bom=bom,
            actor=request.user,
            proposals=body.validated_data.get("proposals"),
            again=body.validated_data["again"],
        )
        shippers = dict(
            ShipmentParty.objects.filter(shipment__in=result.made, role=PartyRole.SHIPPER).values_list(
                "shipment_id", "organisation__legal_name"
            )
        )
        rows = [
            {
                "reference": s.reference,
                "url": s.get_absolute_url(),
                "mode": s.mode,
                "lines": s.lines.count(),
                "legs": s.legs.count(),
                "shipper": shippers.get(s.pk),
            }
            for s in result.made
        ]
        # Asking again is idempotent: nothing new is 200, with the drafts made before.
        answer_status = status.HTTP_201_CREATED if result.made else status.HTTP_200_OK
        return Response({"shipments": rows, "already": result.already}, status=answer_status)


class OwnOrRentView(APIView):
    """Own (landed hardware, power, support) against rent (the same GPU-hours), month by month."""

    capabilities = {"read": "clusters.view", "write": "clusters.plan"}
    model = ClusterDesign  # the design named by `pk` (the isolation sweep reads it)

    @extend_schema(
        operation_id="clusters_own_or_rent_retrieve",
        tags=[TAG],
        summary="Compare owning a cluster with renting the same GPU-hours",
        description="Cumulative own (landed hardware, power, support) and rent costs for months 0 to "
        "`months`, the break-even month (or null, with `break_even_beyond` or the verdict saying why) "
        "and how each figure was reached. Money as strings, in the hardware's currency.",
        parameters=[OwnOrRentQuerySerializer],
        responses=OwnOrRentSerializer,
        examples=schema.OWN_OR_RENT_EXAMPLES,
    )
    def get(self, request, pk: int):
        design = design_for(request, pk)
        refuse_unknown_query_params(request, allowed_query_params(request, None) | OWN_OR_RENT_PARAMS)
        query = OwnOrRentQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        answer = own_or_rent.own_or_rent_for(design, **query.validated_data)
        return Response(own_or_rent.answer_as_dict(answer))
