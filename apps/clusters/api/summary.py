"""`/api/v1/clusters/{id}/compliance-summary/` and `/api/v1/clusters/{id}/coverage/`.

The design is found with `visible_to(user)`: another organisation's design (and so its summaries
and coverage) is not found (404). Reading needs `clusters.view`; starting a summary needs
`compliance.run`, the capability that starts a shipment's compliance check. What a partner reads
of a summary follows `apps.compliance.disclosure` (`compliance_summary.result_for`)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.disclosure import person_label
from apps.core.rest import allowed_query_params, refuse_unknown_query_params

from ..models import BillOfMaterials, ClusterDesign, ComplianceSummary
from ..services import compliance_summary as summaries
from ..services.coverage import cluster_coverage
from . import summary_schema as schema

TAG = "Clusters"
BOM_VERSION = OpenApiParameter(
    "bom_version", int, description="A version of the design's bill of materials; default: the newest."
)


class ComplianceSummarySerializer(serializers.ModelSerializer):
    bom_version = serializers.IntegerField(source="bom.version", read_only=True)
    requested_by = serializers.SerializerMethodField()
    is_current = serializers.SerializerMethodField(
        help_text="Of the design's newest bill of materials, with its lines as they are now."
    )
    status_url = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField(
        help_text="Lines (ECCN, classification, determination with its rules, value), `eccn_totals`, "
        "`outcome_totals` (values per currency, as strings), `customer` (restricted-party standing), "
        "`attention` and `headline`. Null until the summary has run."
    )

    class Meta:
        model = ComplianceSummary
        fields = [
            "id", "bom", "bom_version", "status", "task_id", "status_url", "requested_by", "created_at",
            "started_at", "finished_at", "error", "is_current", "result",
        ]  # fmt: skip
        read_only_fields = fields

    def get_requested_by(self, summary) -> str:
        return person_label(summary.requested_by, self.context["request"].user)

    def get_is_current(self, summary) -> bool:
        return summaries.summary_is_current(summary)

    def get_status_url(self, summary) -> str:
        return f"/api/v1/tasks/{summary.task_id}/" if summary.task_id else ""

    def get_result(self, summary) -> dict | None:
        return summaries.result_for(summary, self.context["request"].user)


class SummaryStartSerializer(serializers.Serializer):
    bom_version = serializers.IntegerField(
        required=False, min_value=1, help_text="Default: the design's newest bill of materials."
    )


class SummaryStartedSerializer(serializers.Serializer):
    summary = ComplianceSummarySerializer()
    task_id = serializers.CharField()
    status_url = serializers.CharField()


class CoverageQuerySerializer(serializers.Serializer):
    bom_version = serializers.IntegerField(required=False, min_value=1)


class LineCoverageSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    role = serializers.CharField()
    role_label = serializers.CharField()
    part = serializers.IntegerField()
    part_number = serializers.CharField()
    part_name = serializers.CharField()
    quantity = serializers.IntegerField()
    on_order = serializers.IntegerField(
        help_text="On the cluster's shipments to the site that have not left."
    )
    in_stock = serializers.IntegerField(
        help_text="In a warehouse: allocated to those shipments, or the customer's own free stock; "
        "of the stock you may see (your own on-hand)."
    )
    shipped = serializers.IntegerField(help_text="On shipments that have left and not arrived.")
    delivered = serializers.IntegerField()
    outstanding = serializers.IntegerField(help_text="On no shipment of the cluster and in no warehouse.")
    surplus = serializers.IntegerField()
    shares_part = serializers.BooleanField(help_text="Another line names the same part: counts are shared.")


class LinkedShipmentSerializer(serializers.Serializer):
    shipment = serializers.IntegerField()
    reference = serializers.CharField()
    status = serializers.CharField()
    status_label = serializers.CharField()
    stage = serializers.CharField(help_text="on_order, shipped, delivered or cancelled.")
    counted = serializers.BooleanField(help_text="False for a shipment to another destination than the site.")
    destination = serializers.CharField()


class CoverageTotalsSerializer(serializers.Serializer):
    quantity = serializers.IntegerField()
    on_order = serializers.IntegerField()
    in_stock = serializers.IntegerField()
    shipped = serializers.IntegerField()
    delivered = serializers.IntegerField()
    outstanding = serializers.IntegerField()
    lines_waiting = serializers.IntegerField()
    lines_uncovered = serializers.IntegerField()


class CoverageSerializer(serializers.Serializer):
    design = serializers.IntegerField()
    bom = serializers.IntegerField(allow_null=True)
    bom_version = serializers.IntegerField(allow_null=True)
    site = serializers.IntegerField()
    customer = serializers.IntegerField()
    lines = LineCoverageSerializer(many=True)
    totals = CoverageTotalsSerializer()
    shipments = LinkedShipmentSerializer(
        many=True, help_text="The linked shipments you may see: the only ones counted."
    )
    hidden_shipments = serializers.IntegerField(
        help_text="Linked shipments you are no party to: neither counted above nor listed."
    )
    installed_note = serializers.CharField()


def _design(request, pk) -> ClusterDesign:
    return get_object_or_404(
        ClusterDesign.objects.visible_to(request.user).select_related("site", "customer"), pk=pk
    )


def _bom(design: ClusterDesign, version: int | None) -> BillOfMaterials | None:
    if version is None:
        return None
    bom = BillOfMaterials.objects.filter(design=design, version=version).first()
    if bom is None:
        raise ValidationError({"bom_version": [f"{design} has no bill of materials version {version}."]})
    return bom


class ComplianceSummaryView(APIView):
    """A cluster's compliance summary: what its bill of materials needs licensed before anything
    ships to the site's country, for the customer as end user."""

    queryset = ClusterDesign.objects.all()
    capabilities = {"read": "clusters.view", "write": "compliance.run"}

    @extend_schema(
        tags=[TAG],
        summary="Read a cluster's latest compliance summary",
        responses={200: ComplianceSummarySerializer},
        examples=schema.SUMMARY_EXAMPLES,
    )
    def get(self, request, pk):
        design = _design(request, pk)
        refuse_unknown_query_params(request, allowed_query_params(request, None))
        summary = summaries.latest_summary(design)
        if summary is None:
            raise Http404(f"No compliance summary of {design} yet: POST to make one.")
        return Response(ComplianceSummarySerializer(summary, context={"request": request}).data)

    @extend_schema(
        tags=[TAG],
        summary="Make a cluster's compliance summary (in the background)",
        request=SummaryStartSerializer,
        responses={202: SummaryStartedSerializer},
        examples=schema.SUMMARY_START_EXAMPLES,
    )
    def post(self, request, pk):
        design = _design(request, pk)
        body = SummaryStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        bom = _bom(design, body.validated_data.get("bom_version"))
        summary = summaries.compliance_summary_start(design=design, bom=bom, actor=request.user)
        # Read again: eager (CELERY_TASK_ALWAYS_EAGER, no request transaction) it has run by now.
        summary = ComplianceSummary.objects.select_related("bom", "requested_by").get(pk=summary.pk)
        data = ComplianceSummarySerializer(summary, context={"request": request}).data
        return Response(
            {"summary": data, "task_id": summary.task_id, "status_url": data["status_url"]},
            status=status.HTTP_202_ACCEPTED,
        )


class CoverageView(APIView):
    """Per line of a cluster's bill of materials: on order, in stock, shipped, delivered, and what
    it still waits for. (Installation is not recorded yet: no installed column.)"""

    queryset = ClusterDesign.objects.all()
    capabilities = {"read": "clusters.view", "write": "clusters.view"}

    @extend_schema(
        tags=[TAG],
        summary="Read a cluster's coverage",
        parameters=[BOM_VERSION],
        responses={200: CoverageSerializer},
        examples=schema.COVERAGE_EXAMPLES,
    )
    def get(self, request, pk):
        design = _design(request, pk)
        refuse_unknown_query_params(request, allowed_query_params(request, None) | {"bom_version": None})
        query = CoverageQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        bom = _bom(design, query.validated_data.get("bom_version"))
        coverage = cluster_coverage(design, bom, reader=request.user)
        return Response(CoverageSerializer(coverage.as_dict()).data)
