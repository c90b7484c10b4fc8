"""The design page's compliance-summary and coverage panels (htmx partials), and the action that
makes a summary in the background.

Both panels are registered with the design page (`views.panels.register_design_panel`) as a
placeholder that loads the panel from here: the page costs no query for them, and a summary or a
coverage that cannot be read never breaks it. `summary_urlpatterns` is included by `urls.py`.

The design is read with `visible_to(user)`: another organisation's design is a 404 here too."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, path, reverse
from django.views import View

from apps.core.access import CapabilityRequiredMixin
from apps.core.disclosure import person_label
from apps.core.models import TaskRecord
from apps.core.tasks_outbox import task_progress

from ..models import BillOfMaterials, ClusterDesign
from ..services import compliance_summary as summaries
from ..services.coverage import cluster_coverage
from .panels import DesignPanel, register_design_panel

SUMMARY_TEMPLATE = "clusters/panels/compliance_summary.html"
COVERAGE_TEMPLATE = "clusters/panels/coverage.html"


def _design(request, pk) -> ClusterDesign:
    return get_object_or_404(
        ClusterDesign.objects.visible_to(request.user).select_related("site", "customer"), pk=pk
    )


def _design_url(design: ClusterDesign) -> str:
    try:
        return reverse("clusters:design-detail", args=[design.pk])
    except NoReverseMatch:  # the design page not there: the panel itself
        return reverse("clusters:compliance-summary-panel", args=[design.pk])


def summary_context(request, design: ClusterDesign, *, task_id: str = "", error: str = "") -> dict:
    """What the compliance-summary panel shows."""
    summary = summaries.latest_summary(design)
    running = summary is not None and summary.status in ("queued", "running")
    stopped = ""
    if running and not task_id:
        # A task that ended (or stalled) without finishing its summary must not show a progress
        # box: its end reloads the panel, which would show the box again, and so on for ever.
        record = TaskRecord.objects.filter(task_id=summary.task_id).first()
        state = task_progress(record)["state"] if record else "FAILURE"
        if state in ("SUCCESS", "FAILURE", "STALLED"):
            running, stopped = False, "The summary stopped before it finished: make it again."
    return {
        "design": design,
        "summary": summary,
        "result": summaries.result_for(summary, request.user) if summary else None,
        "is_current": summaries.summary_is_current(summary) if summary and summary.result else False,
        "requested_by": person_label(summary.requested_by, request.user) if summary else "",
        "task_id": task_id or (summary.task_id if running else ""),
        "has_bom": design.boms.exists(),
        "can_run": request.user.can("compliance.run"),
        "error": error or stopped,
    }


class ComplianceSummaryPanelView(CapabilityRequiredMixin, View):
    """The latest compliance summary of the design's bill of materials."""

    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk):
        design = _design(request, pk)
        return render(request, SUMMARY_TEMPLATE, summary_context(request, design))


class ComplianceSummaryRunView(CapabilityRequiredMixin, View):
    """Make a summary of the newest bill of materials, in the background: the panel comes back
    with the task's progress box (htmx), or the design page does."""

    capability = "compliance.run"
    model = ClusterDesign

    def post(self, request, pk):
        design = _design(request, pk)
        try:
            summary = summaries.compliance_summary_start(design=design, actor=request.user)
        except ValidationError as exc:
            message = " ".join(m for messages in exc.message_dict.values() for m in messages)
            return render(
                request, SUMMARY_TEMPLATE, summary_context(request, design, error=message), status=400
            )
        if not request.headers.get("HX-Request"):
            return HttpResponseRedirect(_design_url(design) + "#compliance-summary")
        return render(request, SUMMARY_TEMPLATE, summary_context(request, design, task_id=summary.task_id))


class CoveragePanelView(CapabilityRequiredMixin, View):
    """Per line: on order, in stock, shipped, delivered, and what the cluster still waits for."""

    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk):
        design = _design(request, pk)
        bom, error = None, ""
        raw = request.GET.get("bom_version", "").strip()
        if raw:
            bom = (
                BillOfMaterials.objects.filter(design=design, version=int(raw)).first()
                if raw.isdigit()
                else None
            )
            if bom is None:
                error = f"Bill of materials version “{raw[:20]}”: {design} has no such version."
        coverage = None if error else cluster_coverage(design, bom, reader=request.user)
        return render(
            request,
            COVERAGE_TEMPLATE,
            {
                "design": design,
                "coverage": coverage,
                "totals": coverage.totals if coverage else None,
                "shipments": coverage.shipments if coverage else [],
                "hidden_shipments": coverage.hidden_shipments if coverage else 0,
                "error": error,
            },
            status=400 if error else 200,
        )


def _lazy(request, design) -> dict:
    return {"lazy": True}


register_design_panel(
    DesignPanel(
        key="compliance-summary",
        title="Compliance summary",
        template=SUMMARY_TEMPLATE,
        context=_lazy,
        order=20,
    )
)
register_design_panel(
    DesignPanel(key="coverage", title="Coverage", template=COVERAGE_TEMPLATE, context=_lazy, order=40)
)

summary_urlpatterns = [
    path(
        "<int:pk>/compliance-summary/",
        ComplianceSummaryPanelView.as_view(),
        name="compliance-summary-panel",
    ),
    path(
        "<int:pk>/compliance-summary/run/",
        ComplianceSummaryRunView.as_view(),
        name="compliance-summary-run",
    ),
    path("<int:pk>/coverage/", CoveragePanelView.as_view(), name="coverage-panel"),
]
