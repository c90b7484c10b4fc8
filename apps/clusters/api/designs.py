"""`/api/v1/clusters/`: cluster designs, and under each design its sizing runs
(`…/sizing-runs/`, a POST starts one in the background: 202 with the task to poll) and its bill of
materials (`…/bom/`: the current version with its lines, the versions, a line's quantity, issuing,
CSV).

Everything under a design is reached through the design, read with `visible_to(user)` (writes:
`visible_to(user, CHANGE)`, the owner only): another organisation's design is not found (404), and
so is every run, version and line of it."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from django.db import transaction
from django.db.models import Prefetch
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin
from apps.core.exports import csv_cell
from apps.core.scoping import VIEW

from .. import services
from ..engines import design_templates
from ..models import BillOfMaterials, BomLine, ClusterDesign, SizingRun
from . import designs_schema as schema
from .serializers import (
    BillOfMaterialsBriefSerializer,
    BillOfMaterialsSerializer,
    BomFromRunSerializer,
    BomLineSerializer,
    BomLineUpdateSerializer,
    ClusterDesignSerializer,
    CompareQuerySerializer,
    DesignCopySerializer,
    DesignTemplateSerializer,
    RunComparisonSerializer,
    SizingRunListSerializer,
    SizingRunSerializer,
)

DESIGN_RELATED = ("owner", "customer", "site", "system")
LINES = Prefetch("lines", queryset=BomLine.objects.select_related("part__manufacturer").order_by("id"))


@schema.design_docs
class ClusterDesignViewSet(AuditHistoryMixin, OrgScopedViewSetMixin, viewsets.ModelViewSet):
    """Cluster designs: the planner's inputs. Partners see their organisation's designs and those
    it is the customer of; they change only their own."""

    queryset = ClusterDesign.objects.select_related(*DESIGN_RELATED)
    serializer_class = ClusterDesignSerializer
    filterset_fields = ["cooling", "compute_fabric", "site", "customer"]
    search_fields = ["name"]
    ordering_fields = ["name", "gpus", "created_at", "updated_at"]
    ordering = ["name", "id"]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    capabilities = {"read": "clusters.view", "write": "clusters.plan"}

    def perform_create(self, serializer):
        user = self.request.user
        serializer.instance = services.design_create(
            owner=user.organisation, fields=dict(serializer.validated_data), actor=user
        )

    def perform_update(self, serializer):
        serializer.instance = services.design_update(
            design=serializer.instance, fields=dict(serializer.validated_data), actor=self.request.user
        )

    def perform_destroy(self, instance):
        services.design_delete(design=instance, actor=self.request.user)

    # --- starting points: templates and copies ----------------------------------------------------

    @action(detail=False, methods=["get"], url_path="design-templates", pagination_class=None)
    def design_templates(self, request):
        """The templates a new design may start from, with the parts the user sees."""
        rows = []
        for template in design_templates.TEMPLATES:
            values, missing = services.design_template_values(template.key, request.user)
            rows.append(
                {
                    "key": template.key,
                    "name": template.name,
                    "summary": template.summary,
                    "values": {name: str(v) if isinstance(v, Decimal) else v for name, v in values.items()},
                    "missing_parts": missing,
                }
            )
        return Response(DesignTemplateSerializer(rows, many=True).data)

    @action(detail=True, methods=["post"], url_path="copy")
    def copy(self, request, pk=None):
        """A new design of the user's organisation with the inputs of one it may read, checked as a
        new design is (a part, site or customer it may not name is refused, named)."""
        source = get_object_or_404(ClusterDesign.objects.visible_to(request.user, VIEW), pk=pk)
        body = DesignCopySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = services.design_copy_values(source) | dict(body.validated_data)
        serializer = ClusterDesignSerializer(data=data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        design = services.design_create(
            owner=request.user.organisation, fields=dict(serializer.validated_data), actor=request.user
        )
        design = ClusterDesign.objects.select_related(*DESIGN_RELATED).get(pk=design.pk)
        return Response(
            ClusterDesignSerializer(design, context=self.get_serializer_context()).data,
            status=status.HTTP_201_CREATED,
        )

    # --- sizing runs ---------------------------------------------------------------------------

    def _runs(self, design):
        return SizingRun.objects.filter(design=design).select_related("started_by__organisation")

    @action(detail=True, methods=["get", "post"], url_path="sizing-runs")
    def sizing_runs(self, request, pk=None):
        """GET: the design's runs, newest first. POST: size the design now, in the background."""
        design = self.get_object()
        if request.method == "POST":
            run = services.sizing_run_start(design=design, actor=request.user)
            run = self._runs(design).get(pk=run.pk)
            body = {
                "run": SizingRunListSerializer(run, context=self.get_serializer_context()).data,
                "task_id": run.task_id,
                "status_url": f"/api/v1/tasks/{run.task_id}/",
            }
            return Response(body, status=status.HTTP_202_ACCEPTED)
        page = self.paginate_queryset(self._runs(design).order_by("-number"))
        data = SizingRunListSerializer(page, many=True, context=self.get_serializer_context()).data
        return self.get_paginated_response(data)

    @action(detail=True, methods=["get"], url_path=r"sizing-runs/(?P<run_pk>[0-9]+)")
    def sizing_run(self, request, pk=None, run_pk=None):
        """One run: the inputs as they were and the result, or the inputs it refused."""
        run = get_object_or_404(self._runs(self.get_object()), pk=run_pk)
        return Response(SizingRunSerializer(run, context=self.get_serializer_context()).data)

    @action(detail=True, methods=["get"], url_path="sizing-runs/compare")
    def sizing_runs_compare(self, request, pk=None):
        """Two runs side by side: switches per tier, kW, racks and the BOM's cost, and the change."""
        design = self.get_object()
        query = CompareQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        runs = {
            run.number: run for run in self._runs(design).filter(number__in=query.validated_data.values())
        }
        missing = {k: f"No run {v} of this design." for k, v in query.validated_data.items() if v not in runs}
        if missing:
            raise ValidationError(missing)
        answer = services.runs_compare(runs[query.validated_data["a"]], runs[query.validated_data["b"]])
        return Response(RunComparisonSerializer(answer).data)

    # --- bills of materials --------------------------------------------------------------------

    def _boms(self, design):
        return BillOfMaterials.objects.filter(design=design).select_related("run")

    @action(detail=True, methods=["get", "post"], url_path="bom")
    def bom(self, request, pk=None):
        """GET: the current (newest) version with its lines. POST: a new version from a run."""
        design = self.get_object()
        context = self.get_serializer_context()
        if request.method == "POST":
            body = BomFromRunSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            run = SizingRun.objects.filter(design=design, number=body.validated_data["run"]).first()
            if run is None:
                raise ValidationError({"run": f"No run {body.validated_data['run']} of this design."})
            made = services.bom_from_run(run=run, actor=request.user)
            bom = self._boms(design).prefetch_related(LINES).get(pk=made.pk)
            return Response(
                BillOfMaterialsSerializer(bom, context=context).data, status=status.HTTP_201_CREATED
            )
        bom = self._boms(design).prefetch_related(LINES).order_by("-version").first()
        if bom is None:
            raise Http404("This design has no bill of materials yet: make one from a sizing run.")
        return Response(BillOfMaterialsSerializer(bom, context=context).data)

    @action(detail=True, methods=["get"], url_path="bom/versions")
    def bom_versions(self, request, pk=None):
        """Every version, newest first (without lines)."""
        page = self.paginate_queryset(self._boms(self.get_object()).order_by("-version"))
        data = BillOfMaterialsBriefSerializer(page, many=True, context=self.get_serializer_context()).data
        return self.get_paginated_response(data)

    @action(detail=True, methods=["get"], url_path=r"bom/versions/(?P<bom_pk>[0-9]+)")
    def bom_version(self, request, pk=None, bom_pk=None):
        """One version with its lines."""
        bom = get_object_or_404(self._boms(self.get_object()).prefetch_related(LINES), pk=bom_pk)
        return Response(BillOfMaterialsSerializer(bom, context=self.get_serializer_context()).data)

    @action(detail=True, methods=["post"], url_path=r"bom/versions/(?P<bom_pk>[0-9]+)/issue")
    def bom_issue(self, request, pk=None, bom_pk=None):
        """Issue a draft version: its lines are fixed from then on."""
        bom = get_object_or_404(self._boms(self.get_object()), pk=bom_pk)
        services.bom_issue(bom=bom, actor=request.user)
        bom = self._boms(bom.design).prefetch_related(LINES).get(pk=bom.pk)
        return Response(BillOfMaterialsSerializer(bom, context=self.get_serializer_context()).data)

    @action(detail=True, methods=["get"], url_path=r"bom/versions/(?P<bom_pk>[0-9]+)/csv")
    def bom_csv(self, request, pk=None, bom_pk=None):
        """A version's lines as CSV."""
        design = self.get_object()
        bom = get_object_or_404(self._boms(design), pk=bom_pk)
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        for row in services.bom_csv_rows(bom):
            writer.writerow([csv_cell(value) for value in row])
        response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="cluster-{design.pk}-bom-v{bom.version}.csv"'
        return response

    @action(detail=True, methods=["patch"], url_path=r"bom/lines/(?P<line_pk>[0-9]+)")
    def bom_line(self, request, pk=None, line_pk=None):
        """Change a draft line's quantity, with a note saying why (audited), and any line's lead time."""
        design = self.get_object()
        line = get_object_or_404(BomLine.objects.filter(bom__design=design), pk=line_pk)
        body = BomLineUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        with transaction.atomic():  # both or neither
            if "quantity" in data:
                line = services.bom_line_update(
                    line=line, quantity=data["quantity"], note=data.get("note", ""), actor=request.user
                )
            if "lead_time_days" in data:
                line = services.bom_line_lead_time_set(
                    line=line, lead_time_days=data["lead_time_days"], actor=request.user
                )
        line = BomLine.objects.select_related("part__manufacturer").get(pk=line.pk)
        return Response(BomLineSerializer(line, context=self.get_serializer_context()).data)
