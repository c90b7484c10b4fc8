"""Bill of materials pages: a version's lines by role with the engine's quantity and the
one settled on, quantities edited on a draft (audited, with why), issuing, versions, CSV and PDF.

Everything is reached through its design (`views.designs.get_design`): another organisation's design is
a 404, and so is every version and line under it."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views import View

from apps.core.access import CapabilityRequiredMixin
from apps.core.disclosure import events_for
from apps.core.exports import csv_cell
from apps.core.models import AuditEvent
from apps.core.scoping import CHANGE

from .. import services
from ..forms import BomLineForm, LeadTimeForm
from ..models import BillOfMaterials, BomLine, BomRole, BomStatus, ClusterDesign, RunStatus
from .designs import can_plan, get_design

# Lines grouped as a planner orders them: (heading, roles).
ROLE_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Systems", (BomRole.SYSTEM,)),
    (
        "Compute fabric",
        (
            BomRole.COMPUTE_LEAF,
            BomRole.COMPUTE_SPINE,
            BomRole.COMPUTE_CORE,
            BomRole.COMPUTE_NODE_OPTIC,
            BomRole.COMPUTE_SWITCH_OPTIC,
            BomRole.COMPUTE_CABLE,
        ),
    ),  # fmt: skip
    (
        "Storage",
        (
            BomRole.STORAGE_APPLIANCE,
            BomRole.STORAGE_LEAF,
            BomRole.STORAGE_SPINE,
            BomRole.STORAGE_NODE_OPTIC,
            BomRole.STORAGE_SWITCH_OPTIC,
            BomRole.STORAGE_CABLE,
        ),
    ),  # fmt: skip
    (
        "Management networks",
        (BomRole.INBAND_SWITCH, BomRole.INBAND_CABLE, BomRole.OOB_SWITCH, BomRole.OOB_CABLE),
    ),
    ("Racks, power and cooling", (BomRole.RACK, BomRole.PDU, BomRole.CDU)),
)
_ROLE_ORDER = {str(role): index for index, (_, roles) in enumerate(ROLE_GROUPS) for role in roles}


def bom_url(design: ClusterDesign, bom: BillOfMaterials) -> str:
    return reverse("clusters:bom-version", args=[design.pk, bom.pk])


def _lines(bom: BillOfMaterials) -> list[BomLine]:
    return list(bom.lines.select_related("part__manufacturer").order_by("id"))


def grouped_lines(lines: list[BomLine]) -> list[dict[str, Any]]:
    """The lines under their group's heading (systems, compute fabric …); roles the engine adds
    later land in a last group of their own."""
    groups: dict[int, list[BomLine]] = defaultdict(list)
    for line in lines:
        groups[_ROLE_ORDER.get(line.role, len(ROLE_GROUPS))].append(line)
    headings = [heading for heading, _ in ROLE_GROUPS] + ["Other"]
    return [
        {
            "heading": headings[index],
            "lines": sorted(groups[index], key=lambda x: (_ROLE_ORDER.get(x.role, 99), x.pk)),
        }
        for index in sorted(groups)
    ]


def totals(lines: list[BomLine]) -> list[tuple[str, Decimal]]:
    """The version's value at the catalogue's unit values, per currency."""
    found: dict[str, Decimal] = defaultdict(Decimal)
    for line in lines:
        found[line.part.currency] += line.part.unit_value * line.quantity
    return sorted(found.items())


def render_bom(request, design: ClusterDesign, bom: BillOfMaterials | None, *, status: int = 200,
               bound: dict[int, BomLineForm | LeadTimeForm] | None = None):  # fmt: skip
    """The page of one version (or of none yet), with a form per line of a draft the user may
    edit, and a lead-time form per line of any version the user plans."""
    user = request.user
    planner = bom is not None and can_plan(user, design)
    editable = planner and bom.status == BomStatus.DRAFT
    lines = _lines(bom) if bom is not None else []
    for line in lines:
        line.line_value = line.part.unit_value * line.quantity
        line.changed = line.quantity != line.engine_quantity
        posted = (bound or {}).get(line.pk)
        if editable:
            line.form = posted if isinstance(posted, BomLineForm) else BomLineForm(line=line)
        if planner:
            line.lead_form = posted if isinstance(posted, LeadTimeForm) else LeadTimeForm(line=line)
    # What a posted line form was refused, named by part and role above the lines (an issued
    # version shows no forms to carry the errors).
    refused = [
        f"{line.part.part_number} ({line.get_role_display()}), {_field_name(form, field)}: {message}"
        for line in lines
        if (form := (bound or {}).get(line.pk)) is not None
        for field, messages in form.errors.items()
        for message in messages
    ]
    latest_run = design.runs.filter(status=RunStatus.SUCCEEDED).order_by("-number").first()
    context = {
        "design": design,
        "bom": bom,
        "groups": grouped_lines(lines),
        "line_count": len(lines),
        "totals": totals(lines),
        "editable": editable,
        "planner": planner,
        "refused": refused,
        "can_plan": can_plan(user, design),
        "versions": list(design.boms.select_related("run").order_by("-version")),
        "latest_run": latest_run,
        "audit_events": events_for(user, AuditEvent.objects.for_object(bom)) if bom is not None else [],
        "line_events": _line_events(user, lines) if bom is not None else [],
    }
    return render(request, "clusters/bom.html", context, status=status)


def _field_name(form: BomLineForm, field: str) -> str:
    return str(form.fields[field].label or field).lower() if field in form.fields else "the line"


def _line_events(user, lines: list[BomLine]) -> list[AuditEvent]:
    """The quantity changes of the version's lines (the audit trail of each line, together)."""
    from django.contrib.contenttypes.models import ContentType

    if not lines:
        return []
    events = AuditEvent.objects.filter(
        content_type=ContentType.objects.get_for_model(BomLine),
        object_id__in=[str(line.pk) for line in lines],
        action="update",
    )
    by_id = {str(line.pk): line for line in lines}
    shown = events_for(user, events, limit=50)
    for event in shown:
        event.line = by_id.get(str(event.object_id))
    return shown


class BomView(CapabilityRequiredMixin, View):
    """The design's newest version, or the one named (`bom_pk`)."""

    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk, bom_pk=None):
        design = get_design(request, pk)
        if bom_pk is None:
            bom = design.boms.select_related("run").order_by("-version").first()
        else:
            bom = get_object_or_404(design.boms.select_related("run"), pk=bom_pk)
        return render_bom(request, design, bom)


class BomCreateView(CapabilityRequiredMixin, View):
    """A new draft version from a finished run."""

    capability = "clusters.plan"
    model = ClusterDesign

    def post(self, request, pk, run_pk):
        design = get_design(request, pk, CHANGE)
        run = get_object_or_404(design.runs, pk=run_pk)
        try:
            bom = services.bom_from_run(run=run, actor=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return HttpResponseRedirect(reverse("clusters:run-detail", args=[design.pk, run.pk]))
        messages.success(request, f"Bill of materials version {bom.version} made from run {run.number}.")
        return HttpResponseRedirect(bom_url(design, bom))


class BomLineEditView(CapabilityRequiredMixin, View):
    """Change a draft line's quantity, saying why: `services.bom_line_update` (audited)."""

    capability = "clusters.plan"
    model = ClusterDesign

    def post(self, request, pk, line_pk):
        design = get_design(request, pk, CHANGE)
        line = get_object_or_404(BomLine.objects.filter(bom__design=design).select_related("bom"), pk=line_pk)
        form = BomLineForm(request.POST, line=line)
        if form.is_valid():
            try:
                services.bom_line_update(
                    line=line,
                    quantity=form.cleaned_data["quantity"],
                    note=form.cleaned_data["note"],
                    actor=request.user,
                )
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, errors)
            else:
                quantity = form.cleaned_data["quantity"]
                messages.success(
                    request, f"{line.part.part_number} ({line.get_role_display()}): {quantity:,}."
                )
                return HttpResponseRedirect(bom_url(design, line.bom) + f"#line-{line.pk}")
        return render_bom(request, design, line.bom, status=400, bound={line.pk: form})


class BomLineLeadTimeView(CapabilityRequiredMixin, View):
    """Set a line's lead time (any version: it is planning data): `services.bom_line_lead_time_set`."""

    capability = "clusters.plan"
    model = ClusterDesign

    def post(self, request, pk, line_pk):
        design = get_design(request, pk, CHANGE)
        line = get_object_or_404(BomLine.objects.filter(bom__design=design).select_related("bom"), pk=line_pk)
        form = LeadTimeForm(request.POST, line=line)
        if form.is_valid():
            try:
                services.bom_line_lead_time_set(
                    line=line, lead_time_days=form.cleaned_data["lead_time_days"], actor=request.user
                )
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, errors)
            else:
                days = form.cleaned_data["lead_time_days"]
                said = "ready now" if days is None else f"lead time {days} days"
                messages.success(request, f"{line.part.part_number} ({line.get_role_display()}): {said}.")
                return HttpResponseRedirect(bom_url(design, line.bom) + f"#line-{line.pk}")
        return render_bom(request, design, line.bom, status=400, bound={line.pk: form})


class BomIssueView(CapabilityRequiredMixin, View):
    capability = "clusters.plan"
    model = ClusterDesign

    def post(self, request, pk, bom_pk):
        design = get_design(request, pk, CHANGE)
        bom = get_object_or_404(design.boms, pk=bom_pk)
        try:
            services.bom_issue(bom=bom, actor=request.user)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            messages.success(request, f"Version {bom.version} issued: its quantities are fixed.")
        return HttpResponseRedirect(bom_url(design, bom))


def _filename(design: ClusterDesign, bom: BillOfMaterials, extension: str) -> str:
    return f"cluster-{design.pk}-bom-v{bom.version}.{extension}"


class BomCsvView(CapabilityRequiredMixin, View):
    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk, bom_pk):
        design = get_design(request, pk)
        bom = get_object_or_404(design.boms, pk=bom_pk)
        buffer = io.StringIO()
        buffer.write("\ufeff")  # spreadsheets then read the accents, as the lists' exports
        writer = csv.writer(buffer)
        for row in services.bom_csv_rows(bom):
            writer.writerow([csv_cell(value) for value in row])
        response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{_filename(design, bom, "csv")}"'
        return response


class BomPdfView(CapabilityRequiredMixin, View):
    """The version as a PDF, rendered as the documents app renders its PDFs (WeasyPrint, fetching
    nothing but the project's static files)."""

    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk, bom_pk):
        from apps.documents.renderer import STYLESHEET, render_one_piece

        design = get_design(request, pk)
        bom = get_object_or_404(design.boms.select_related("run"), pk=bom_pk)
        lines = _lines(bom)
        for line in lines:
            line.line_value = line.part.unit_value * line.quantity
        html = render_to_string(
            "clusters/pdf/bom.html",
            {
                "design": design,
                "bom": bom,
                "groups": grouped_lines(lines),
                "totals": totals(lines),
                "printed": timezone.now(),
                "stylesheet_url": STYLESHEET.as_uri(),
            },
        )
        pdf, _pages = render_one_piece(html)
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="{_filename(design, bom, "pdf")}"'
        return response
