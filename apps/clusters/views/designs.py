"""Browser pages of cluster designs: the designs list, the design form, the design page
with its runs, charts and what-if table, a sizing run's figures with their formulas, and two runs
side by side. The bill of materials pages are in `boms.py`.

Every design is read through `visible_to` (its owner and its customer see it; only the owner, or
the operator's staff, change it): another organisation's design, and every run and version under
it, is a 404. The pages show; the services (`apps/clusters/services/`) decide and write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.text import capfirst
from django.views import View
from django.views.generic import CreateView, TemplateView, UpdateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.dashboard import Tile
from apps.core.disclosure import events_for, person_label
from apps.core.models import AuditEvent, TaskRecord
from apps.core.scoping import CHANGE, VIEW
from apps.core.views import FilteredListMixin, ScopedQuerysetMixin, ServiceFormMixin

from .. import services
from ..charts import sizing as charts
from ..engines import design_templates, sizing
from ..engines import types as engine
from ..filters import DesignFilter
from ..forms import (
    FIELDSET_OF,
    CompareForm,
    DesignForm,
    TemplateChoiceForm,
    copy_initial,
    template_initial,
)
from ..models import ClusterDesign, RunStatus, SizingRun
from .panels import design_panels

# The parts a design names, read with it in one query (the page shows them, the what-if sizes).
DESIGN_PARTS = (
    "system", "compute_switch", "compute_node_optic", "compute_switch_optic", "compute_cable",
    "storage_appliance", "storage_switch", "storage_cable", "inband_switch", "oob_switch", "rack", "pdu",
    "cdu",
)  # fmt: skip

# The result's sections in the order a planner reads them, with their headings.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("systems", "Systems"),
    ("racks", "Racks"),
    ("compute_fabric", "Compute fabric"),
    ("storage", "Storage"),
    ("storage_fabric", "Storage fabric"),
    ("management", "Management networks"),
    ("power", "Power"),
    ("cooling", "Cooling"),
    ("checkpoint", "Checkpointing"),
)

# The what-if ladder: 256 → 131,072 GPUs (rounded up to whole systems); the select picks the top.
WHAT_IF_LADDER = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
WHAT_IF_DEFAULT_TOP = WHAT_IF_LADDER.index(16384)


def design_url(design: ClusterDesign) -> str:
    return reverse("clusters:design-detail", args=[design.pk])


def get_design(request, pk: int, action: str = VIEW, *, parts: bool = False) -> ClusterDesign:
    """The design `pk` if the user may see it (or change it: `action=CHANGE`), else a 404."""
    queryset = ClusterDesign.objects.visible_to(request.user, action).select_related(
        "owner", "customer", "site"
    )
    if parts:
        queryset = queryset.select_related(*DESIGN_PARTS)
    return get_object_or_404(queryset, pk=pk)


def can_plan(user, design: ClusterDesign) -> bool:
    """The user holds clusters.plan and may change this design (its owner, or operator staff)."""
    if not user.can("clusters.plan"):
        return False
    return user.is_operator_staff or design.owner_id == user.organisation_id


def field_label(name: str) -> str:
    """A design field's name as the form shows it (`storage_write_gbs_per_node` → "Write per node
    (GB/s)"); "The design" for errors of no one field."""
    if name in ("non_field_errors", "__all__", ""):
        return "The design"
    try:
        return capfirst(str(ClusterDesign._meta.get_field(name).verbose_name))
    except Exception:  # noqa: BLE001 — a name the engine made up: show it in words
        return capfirst(name.replace("_", " "))


def named_inputs(errors: dict[str, Any], design: ClusterDesign) -> list[dict[str, str]]:
    """{design field: message} as rows naming the field, each linking to it on the form."""
    edit = reverse("clusters:design-update", args=[design.pk])
    rows = []
    for name, message in errors.items():
        text = " ".join(message) if isinstance(message, list | tuple) else str(message)
        anchor = (
            f"#id_{name}" if name in ClusterDesign.INPUT_FIELDS else f"#fs-{FIELDSET_OF.get(name, 'system')}"
        )
        rows.append({"field": name, "label": field_label(name), "message": text, "url": edit + anchor})
    return rows


# --- presenting a result ------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureRow:
    key: str
    label: str
    value: str
    unit: str
    formula: str
    inputs: str


def _value(figure: engine.Figure) -> tuple[str, str]:
    if figure.unit == "yes/no":
        return ("yes" if figure.value else "no"), ""
    return charts.number(figure.value), figure.unit


def figure_sections(result: engine.SizingResult) -> list[dict[str, Any]]:
    """Every figure under its section's heading, in the engine's order within a section."""
    grouped: dict[str, list[FigureRow]] = {}
    for figure in result.figures:
        value, unit = _value(figure)
        inputs = ", ".join(
            f"{name.replace('_', ' ')} = {charts.number(v) if isinstance(v, int | float) else v}"
            for name, v in figure.inputs.items()
        )
        grouped.setdefault(figure.section, []).append(
            FigureRow(figure.key, figure.label, value, unit, figure.formula, inputs)
        )
    known = [key for key, _ in SECTIONS]
    headings = dict(SECTIONS)
    order = known + sorted(section for section in grouped if section not in headings)
    return [
        {"key": key, "heading": headings.get(key, capfirst(key.replace("_", " "))), "figures": grouped[key]}
        for key in order
        if key in grouped
    ]


def _figure(result: engine.SizingResult, key: str):
    try:
        return result.value(key)
    except KeyError:
        return None


def headline(result: engine.SizingResult) -> list[dict[str, str]]:
    """The few figures a planner asks first, as tiles."""
    rows = [
        ("GPUs", _figure(result, "systems.gpus"), ""),
        ("systems", _figure(result, "systems.systems"), ""),
        ("racks", _figure(result, "racks.total"), ""),
        ("switches", sum(result.switches_by_tier.values()), ""),
        ("IT load", _figure(result, "power.it_mw"), "MW"),
        ("facility load", _figure(result, "power.facility_mw"), "MW"),
        ("CDUs", _figure(result, "cooling.cdus"), ""),
    ]
    return [
        {"label": label, "value": charts.number(value), "unit": unit}
        for label, value, unit in rows
        if value is not None
    ]


def rack_units_of(run: SizingRun) -> int | None:
    """The usable rack units the run was sized with (its stored inputs)."""
    try:
        return int(run.inputs["racks"]["rack"]["rack_units"])
    except (KeyError, TypeError, ValueError):
        return None


def result_charts(run: SizingRun, result: engine.SizingResult) -> dict[str, Any]:
    """The run's pictures as SVG: power by component, switches per tier, a rack elevation per
    rack type."""
    power = [
        charts.Bar(capfirst(name), round(kw, 3)) for name, kw in result.power_by_component_kw.items() if kw
    ]
    switches = [charts.Bar(capfirst(tier), count) for tier, count in result.switches_by_tier.items() if count]
    total_kw = sum(result.power_by_component_kw.values())
    units = rack_units_of(run)
    racks = []
    for rack in result.racks:
        slots = [charts.Slot(s.label, s.rack_units, s.count) for s in rack.slots]
        used = sum(s.rack_units * s.count for s in rack.slots)
        racks.append(
            SafeString(
                charts.rack_elevation(
                    slots,
                    rack_units=units or max(used, 42),
                    count=rack.count,
                    kind=rack.kind,
                    it_kw=rack.it_kw,
                )
            )
        )
    return {
        "power_svg": SafeString(
            charts.bar_chart(
                power,
                title=f"IT power by component: {charts.number(round(total_kw, 1))} kW in all",
                unit="kW",
            )
        ),
        "switches_svg": SafeString(
            charts.bar_chart(
                switches,
                title=f"Switches per tier: {sum(result.switches_by_tier.values()):,} in all",
                unit="switches",
                unit_one="switch",
            )
        ),
        "rack_svgs": racks,
        # In-row CDU cabinets stand in the rows but are not racks of the bill of materials.
        "rack_count": sum(rack.count for rack in result.racks if rack.kind != "cooling"),
    }


def warning_rows(result: engine.SizingResult, design: ClusterDesign) -> list[dict[str, str]]:
    edit = reverse("clusters:design-update", args=[design.pk])
    rows = []
    for warning in result.warnings:
        field = services.design_field_for(warning.input) if warning.input else ""
        known = field in ClusterDesign.INPUT_FIELDS
        rows.append(
            {
                "code": warning.code,
                "message": capfirst(warning.message),
                "field": field_label(field) if known else "",
                "url": f"{edit}#id_{field}" if known else "",
            }
        )
    return rows


def run_context(run: SizingRun, design: ClusterDesign) -> dict[str, Any]:
    """What a page shows of a finished run: headline, warnings, charts (or the refused inputs)."""
    if run.status == RunStatus.FAILED:
        return {"run": run, "refused": named_inputs(run.errors, design)}
    if run.status != RunStatus.SUCCEEDED or not run.result:
        return {"run": run}
    result = engine.SizingResult.from_dict(run.result)
    return {
        "run": run,
        "result": result,
        "headline": headline(result),
        "warnings": warning_rows(result, design),
        **result_charts(run, result),
    }


# --- what if ----------------------------------------------------------------------------------


def what_if_counts(gpus_per_system: int, top: int, design_gpus: int) -> list[int]:
    """The ladder up to its `top`-th rung in whole systems, with the design's own size."""
    per = max(gpus_per_system, 1)
    counts = {-(-n // per) * per for n in WHAT_IF_LADDER[: top + 1]}
    counts.add(design_gpus)
    return sorted(counts)


def what_if_context(design: ClusterDesign, top: int) -> dict[str, Any]:
    """The design sized at 256 → the chosen top GPU count, as it is now (the engine in closed form:
    milliseconds a size)."""
    context: dict[str, Any] = {
        "design": design,
        "top": top,
        "top_gpus": WHAT_IF_LADDER[top],
        "ladder": WHAT_IF_LADDER,
    }
    try:
        inputs = services.design_inputs(design)
    except ValidationError as exc:
        context["refused"] = named_inputs(exc.message_dict, design)
        return context
    rows = sizing.what_if(inputs, what_if_counts(inputs.system.gpus, top, design.gpus))
    for row in rows:
        row["this_design"] = row["gpus"] == design.gpus
        if "error" in row:
            row["error_text"] = "; ".join(
                f"{field_label(services.design_field_for(path))}: {message}"
                for path, message in row["error"].items()
            )
    sized = [row for row in rows if "error" not in row]
    context["rows"] = rows
    context["first_gpus"], context["last_gpus"] = rows[0]["gpus"], rows[-1]["gpus"]
    context["chart"] = SafeString(
        charts.bar_chart(
            [charts.Bar(f"{row['gpus']:,} GPUs", round(row["facility_mw"], 3)) for row in sized],
            title=f"Facility power from {rows[0]['gpus']:,} to {rows[-1]['gpus']:,} GPUs",
            unit="MW",
        )
    )
    return context


def _top(request) -> tuple[int, str]:
    """The what-if select's rung (`?upto=`), or the default; a value that cannot be read is named."""
    raw = request.GET.get("upto", "")
    if raw == "":
        return WHAT_IF_DEFAULT_TOP, ""
    if len(raw) <= 2 and raw.isascii() and raw.isdigit() and int(raw) < len(WHAT_IF_LADDER):
        return int(raw), ""
    return WHAT_IF_DEFAULT_TOP, (
        f"Sizes up to ({raw[:20]!r}): choose a whole number from 0 to {len(WHAT_IF_LADDER) - 1}."
    )


class WhatIfView(CapabilityRequiredMixin, View):
    """The what-if table for its select (htmx): sizes from 256 GPUs up to the chosen one."""

    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk):
        design = get_design(request, pk, parts=True)
        top, problem = _top(request)
        context = what_if_context(design, top)
        context["problem"] = problem
        return render(request, "clusters/_what_if_table.html", context, status=400 if problem else 200)


# --- designs ------------------------------------------------------------------------------------


class DesignListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "clusters.view"
    template_name = "clusters/design_list.html"
    partial_template_name = "clusters/_design_table.html"
    filterset_class = DesignFilter
    export_name = "cluster-designs"
    export_columns = (
        ("Name", lambda d: d.name),
        ("Customer", lambda d: d.customer.legal_name),
        ("Site", lambda d: d.site.name),
        ("Country", lambda d: d.site.country),
        ("System", lambda d: d.system.part_number),
        ("GPUs", lambda d: d.gpus),
        ("Compute fabric", lambda d: d.get_compute_fabric_display()),
        ("Bandwidth per GPU (Gb/s)", lambda d: d.compute_bandwidth_gbps),
        ("Cooling", lambda d: d.get_cooling_display()),
        ("PUE", lambda d: d.pue),
        ("Runs", lambda d: d.run_count),
        ("Owner", lambda d: d.owner.legal_name),
        ("Updated", lambda d: d.updated_at),
    )

    def get_queryset(self):
        return (
            ClusterDesign.objects.visible_to(self.request.user)
            .select_related("owner", "customer", "site", "system")
            .annotate(run_count=Count("runs", distinct=True))
            .order_by("name", "id")
        )


class DesignFormMixin(CapabilityRequiredMixin, ServiceFormMixin):
    capability = "clusters.plan"
    model = ClusterDesign
    form_class = DesignForm
    template_name = "clusters/design_form.html"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def get_success_url(self):
        return design_url(self.object)


class DesignCreateView(DesignFormMixin, CreateView):
    """A new design: from an empty form, a template (`?template=`) or a copy of a design the user
    sees (`?copy=`). The customer is never assumed (not even the planner's own organisation): a
    template leaves it empty, a copy keeps the copied design's."""

    def get_initial(self):
        request = self.request
        self.copied = None
        self.template_form = TemplateChoiceForm(request.GET if "template" in request.GET else None)
        if "copy" in request.GET:
            raw = request.GET["copy"]
            if not (raw.isascii() and raw.isdigit() and len(raw) < 12):
                raise Http404("No such design.")
            self.copied = get_design(request, int(raw))
            return copy_initial(self.copied)
        if self.template_form.is_bound and self.template_form.is_valid():
            key = self.template_form.cleaned_data["template"]
            if key:
                return template_initial(key, request.user)
        return {}

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        if self.template_form.is_bound and not self.template_form.is_valid():
            response.status_code = 400  # a template named that does not exist: named on its field
        return response

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["template_form"] = getattr(self, "template_form", None) or TemplateChoiceForm()
        context["templates"] = design_templates.TEMPLATES
        context["copied"] = getattr(self, "copied", None)
        return context

    def save_with_service(self, form):
        design = services.design_create(
            owner=self.request.user.organisation, fields=form.inputs(), actor=self.request.user
        )
        messages.success(self.request, f"Cluster design {design} created: size it to see what it needs.")
        return design


class DesignUpdateView(DesignFormMixin, UpdateView):
    def get_object(self, queryset=None):
        return get_design(self.request, self.kwargs["pk"], CHANGE, parts=True)

    def save_with_service(self, form):
        design = services.design_update(design=self.object, fields=form.inputs(), actor=self.request.user)
        messages.success(self.request, f"{design} saved. Its runs keep the inputs they were sized with.")
        return design


class DesignDetailView(CapabilityRequiredMixin, View):
    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk):
        design = get_design(request, pk, parts=True)
        user = request.user
        runs = list(design.runs.select_related("started_by__organisation").order_by("-number")[:20])
        for run in runs:
            run.started_by_label = person_label(run.started_by, user) if run.started_by_id else ""
        latest = next((run for run in runs if run.status == RunStatus.SUCCEEDED), None)
        boms = list(design.boms.select_related("run").order_by("-version"))
        top, problem = _top(request)
        context = {
            "design": design,
            "runs": runs,
            "run_total": design.runs.count() if len(runs) == 20 else len(runs),
            "boms": boms,
            "run_bom_ids": {bom.run_id for bom in boms},
            "can_plan": can_plan(user, design),
            "task": _task_box(request, design, runs),
            "latest": run_context(latest, design) if latest else None,
            "what_if": what_if_context(design, top) | {"problem": problem},
            "panels": design_panels(request, design),
            "audit_events": events_for(user, AuditEvent.objects.for_object(design)),
            "compare_url": _compare_url(design, runs),
        }
        return render(request, "clusters/design_detail.html", context)


def _compare_url(design: ClusterDesign, runs: list[SizingRun]) -> str:
    done = [run.number for run in runs if run.status == RunStatus.SUCCEEDED]
    if len(done) < 2:
        return ""
    return reverse("clusters:run-compare", args=[design.pk]) + f"?a={done[1]}&b={done[0]}"


def _task_box(request, design: ClusterDesign, runs: list[SizingRun]) -> dict[str, str] | None:
    """The progress box of the run just started (`?task=`) or of one still queued or running, when
    the user may read its task (its own organisation's, or any for the operator's staff)."""
    wanted = request.GET.get("task", "")
    run = next((r for r in runs if wanted and r.task_id == wanted), None)
    if run is None:
        run = next((r for r in runs if r.status in (RunStatus.QUEUED, RunStatus.RUNNING) and r.task_id), None)
    if run is None:
        return None
    record = TaskRecord.objects.filter(task_id=run.task_id).only("organisation_id").first()
    user = request.user
    if record is None or not (user.is_operator_staff or record.organisation_id == user.organisation_id):
        return None
    return {
        "task_id": run.task_id,
        "label": f"Sizing run {run.number} of {design}…",
        "refresh": "runs,latest",
    }


# --- sizing runs ----------------------------------------------------------------------------------


class RunStartView(CapabilityRequiredMixin, View):
    """Size the design in the background; the design page follows the task and refreshes."""

    capability = "clusters.plan"
    model = ClusterDesign

    def post(self, request, pk):
        design = get_design(request, pk, CHANGE)
        run = services.sizing_run_start(design=design, actor=request.user)
        messages.success(request, f"Sizing run {run.number} of {design} started.")
        return HttpResponseRedirect(f"{design_url(design)}?task={run.task_id}#runs")


class RunDetailView(CapabilityRequiredMixin, View):
    """Every figure of a run by section, with its formula; its warnings; or the inputs it refused."""

    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk, run_pk):
        design = get_design(request, pk)
        run = get_object_or_404(design.runs.select_related("started_by__organisation"), pk=run_pk)
        context = run_context(run, design)
        if "result" in context:
            context["sections"] = figure_sections(context["result"])
        previous = (
            design.runs.filter(status=RunStatus.SUCCEEDED, number__lt=run.number).order_by("-number").first()
            if run.status == RunStatus.SUCCEEDED
            else None
        )
        context.update(
            design=design,
            crumb=f"Run {run.number}",
            started_by_label=person_label(run.started_by, request.user) if run.started_by_id else "",
            can_plan=can_plan(request.user, design),
            boms=list(run.boms.order_by("-version")),
            previous=previous,
            task=_task_box(request, design, [run]),
            audit_events=events_for(request.user, AuditEvent.objects.for_object(run)),
        )
        return render(request, "clusters/run_detail.html", context)


class RunCompareView(CapabilityRequiredMixin, View):
    """Two runs of the design side by side: what changed in switches, kW, racks and cost."""

    capability = "clusters.view"
    model = ClusterDesign

    def get(self, request, pk):
        design = get_design(request, pk)
        bound = "a" in request.GET or "b" in request.GET
        form = CompareForm(request.GET if bound else None, design=design)
        choices = [number for number, _ in form.fields["a"].choices]
        context: dict[str, Any] = {"design": design, "form": form, "enough": len(choices) >= 2}
        status = 200
        if bound and not form.is_valid():
            status = 400
        elif context["enough"]:
            a, b = (form.cleaned_data["a"], form.cleaned_data["b"]) if bound else (choices[1], choices[0])
            if not bound:
                form = CompareForm(initial={"a": a, "b": b}, design=design)
                context["form"] = form
            runs = {run.number: run for run in design.runs.filter(number__in=[a, b])}
            try:
                comparison = services.runs_compare(runs[a], runs[b])
            except ValidationError as exc:  # a run marked finished without a stored result
                form.add_error(None, exc.messages)
                return render(request, "clusters/run_compare.html", context, status=400)
            context["comparison"] = comparison_rows(comparison)
            context["run_a"], context["run_b"] = runs[a], runs[b]
        return render(request, "clusters/run_compare.html", context, status=status)


def _change(delta: dict[str, Any]) -> dict[str, Any]:
    change = delta["change"]
    number = float(change) if not isinstance(change, int | float) else change
    return {
        "a": delta["a"],
        "b": delta["b"],
        "change": change,
        "sign": "up" if number > 0 else "down" if number < 0 else "same",
    }


def comparison_rows(comparison: dict[str, Any]) -> dict[str, Any]:
    """`services.runs_compare` as table rows, each with its change's direction (numbers shown as
    people read them)."""

    def show(delta: dict[str, Any], unit: str = "") -> dict[str, Any]:
        row = _change(delta)
        for side in ("a", "b", "change"):
            value = row[side]
            text = charts.number(float(value)) if not isinstance(value, int | float) else charts.number(value)
            if side == "change" and row["sign"] == "up":
                text = "+" + text
            row[f"{side}_text"] = f"{text} {unit}".strip()
        return row

    return {
        "switches": [
            {"label": capfirst(tier), **show(delta)}
            for tier, delta in comparison["switches_by_tier"].items()
            if delta["a"] or delta["b"]
        ],
        "power": [
            {"label": capfirst(name), **show(delta, "kW")}
            for name, delta in comparison["power_by_component_kw"].items()
        ],
        "it_kw": show(comparison["it_kw"], "kW"),
        "racks": show(comparison["racks"]),
        "cost": [
            {"label": currency, **show(delta, currency)} for currency, delta in comparison["bom_cost"].items()
        ],
        "engine_versions": comparison["engine_versions"],
    }


# --- dashboard ----------------------------------------------------------------------------------


def design_tiles(user) -> list[Tile]:
    """The dashboard's cluster designs tile (apps.core.dashboard), for who may see designs."""
    if not user.can("clusters.view"):
        return []
    count = ClusterDesign.objects.visible_to(user, VIEW).count()
    return [Tile(count=count, label="cluster designs", url=reverse("clusters:design-list"))]
