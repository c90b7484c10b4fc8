"""Browser pages for shipments, sites and freight rates."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, QuerySet
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views import View
from django.views.generic import CreateView, TemplateView, UpdateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.disclosure import events_for
from apps.core.models import AuditEvent, TaskRecord
from apps.core.scoping import CHANGE, VIEW
from apps.core.tasks_outbox import owed_messages
from apps.core.views import (
    FilteredListMixin,
    ScopedQuerysetMixin,
    ServiceFormMixin,
    add_service_errors,
    safe_next,
)

from . import hooks, readiness, selectors, services
from .disclosure import freight_plan_for
from .engines import workflow
from .engines.freight import NoRateError
from .engines.incoterms import rule as incoterm_rule
from .filters import FreightRateFilter, ShipmentFilter, SiteFilter
from .forms import (
    AmendForm,
    EventForm,
    ExchangeRateForm,
    FreightRateForm,
    LegForm,
    LineForm,
    PackageForm,
    ShipmentForm,
    SiteForm,
    TransitionForm,
)
from .models import (
    ExchangeRate,
    FreightRate,
    HubHandlingRate,
    Leg,
    LegRole,
    Package,
    Shipment,
    ShipmentLine,
    ShipmentStatus,
    Site,
)
from .models.shipments import attach_line_counts
from .presenters import LINES_SHOWN, freight_plan_data, lines_carried, quick_line_choices


class ShipmentListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "shipments.view"
    template_name = "shipments/shipment_list.html"
    partial_template_name = "shipments/_shipment_table.html"
    filterset_class = ShipmentFilter

    export_name = "shipments"
    export_columns = (
        ("Reference", lambda s: s.reference),
        ("Status", lambda s: s.get_status_display()),
        ("Origin", lambda s: f"{s.origin.name}, {s.origin.city}, {s.origin.country}"),
        ("Destination", lambda s: f"{s.destination.name}, {s.destination.city}, {s.destination.country}"),
        ("Mode", lambda s: s.get_mode_display()),
        ("Incoterm", lambda s: f"{s.incoterm} {s.incoterm_place}".strip()),
        ("Lines", lambda s: s.export_line_count),
        # Dates as dates: ISO 8601 in the CSV, date cells in the XLSX.
        ("Ready", lambda s: s.ready_date),
        ("Required by", lambda s: s.required_by),
        ("ETA", lambda s: s.eta),
        ("Owner", lambda s: s.owner.legal_name),
    )

    def get_queryset(self):
        return Shipment.objects.for_list().visible_to(self.request.user).order_by("-created_at", "-id")

    def export_queryset(self, queryset):
        return queryset.annotate(export_line_count=Count("lines"))

    def decorate_page(self, objects):
        return attach_line_counts(objects)

    def get_context_data(self, **kwargs):
        # The bulk actions this user may run (none: no checkboxes, no buttons).
        actions = hooks.bulk_actions_for(self.request.user)
        return super().get_context_data(
            bulk_actions=actions, bulk_needs_reason=any(a.needs_reason for a in actions), **kwargs
        )


class ShipmentBulkView(CapabilityRequiredMixin, View):
    """Run one registered bulk action (`hooks.bulk_action`) on the shipments ticked in the list.

    Each id is looked up among the shipments the user may change: another organisation's id (or
    one that does not exist) is never acted on, and only counted in the message, never named. The
    action reports each shipment it would not act on with why; the others proceed; one message
    sums it up. The request is one transaction (AtomicWriteMiddleware), each shipment's work a
    savepoint inside it."""

    capability = "shipments.view"
    MAX_SELECTED = 200  # more than a page (50) holds; a bound on one request's work
    MAX_REASON = 500  # as the form's field says

    def post(self, request):
        back = safe_next(request, reverse("shipments:shipment-list"))
        action = hooks.get_bulk_action(request.POST.get("action", ""))
        if action is None:
            messages.error(request, "Choose one of the actions under the list.")
            return HttpResponseRedirect(back)
        if not request.user.can(action.capability):
            raise PermissionDenied(f"Your role may not {action.label.lower()}.")
        # Ids only (ASCII digits that fit a primary key); anything else is ignored, never a 500.
        chosen = {
            value
            for value in request.POST.getlist("shipment")
            if value.isascii() and value.isdigit() and len(value) <= 18
        }
        if not chosen:
            messages.error(request, "Tick at least one shipment first.")
            return HttpResponseRedirect(back)
        if len(chosen) > self.MAX_SELECTED:
            messages.error(request, f"Choose at most {self.MAX_SELECTED} shipments at a time.")
            return HttpResponseRedirect(back)
        reason = request.POST.get("reason", "").strip()
        if action.needs_reason and not reason:
            messages.error(request, f"Say why ({action.label.lower()}): the reason is recorded.")
            return HttpResponseRedirect(back)
        if len(reason) > self.MAX_REASON:
            messages.error(request, f"Keep the reason under {self.MAX_REASON} characters.")
            return HttpResponseRedirect(back)
        shipments = list(
            Shipment.objects.visible_to(request.user, CHANGE)
            .filter(pk__in=[int(value) for value in chosen])
            .order_by("pk")
        )
        result = action.run(shipments=shipments, actor=request.user, reason=reason)
        summary = hooks.bulk_summary(action, result)
        unknown = len(chosen) - len(shipments)
        if unknown:
            summary += (
                f" {unknown} of the selected shipment{'s were' if unknown > 1 else ' was'} not found"
                " among those you may change; nothing was done to "
                f"{'them' if unknown > 1 else 'it'}."
            )
        level = messages.SUCCESS if not result.refused and not unknown else messages.WARNING
        if not result.done:
            level = messages.ERROR
        messages.add_message(request, level, summary)
        return HttpResponseRedirect(back)


class ShipmentCreateView(CapabilityRequiredMixin, ServiceFormMixin, CreateView):
    capability = "shipments.edit"
    model = Shipment
    form_class = ShipmentForm
    template_name = "shipments/shipment_form.html"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def save_with_service(self, form):
        fields = {name: form.cleaned_data[name] for name in ShipmentForm.Meta.fields}
        with transaction.atomic():
            shipment = services.shipment_create(actor=self.request.user, fields=fields)
            _set_parties(shipment, form.parties(), self.request.user, current={})
        messages.success(self.request, f"Shipment {shipment} created as a draft.")
        return shipment


def _set_parties(shipment: Shipment, parties: dict, actor, *, current: dict) -> None:
    """Name the parties that changed; the service's refusal lands on the role's form field."""
    for role, organisation in parties.items():
        if current.get(role) != (organisation.pk if organisation else None):
            try:
                services.party_set(shipment=shipment, role=role, organisation=organisation, actor=actor)
            except ValidationError as exc:
                raise ValidationError({f"party_{role}": exc.messages}) from exc


class ShipmentUpdateView(ScopedQuerysetMixin, ServiceFormMixin, UpdateView):
    capability = "shipments.edit"
    scope_action = CHANGE
    model = Shipment
    form_class = ShipmentForm
    template_name = "shipments/shipment_form.html"
    slug_field = slug_url_kwarg = "reference"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def save_with_service(self, form):
        fields = {
            name: form.cleaned_data[name] for name in form.changed_data if name in ShipmentForm.Meta.fields
        }
        with transaction.atomic():
            shipment = (
                services.shipment_update(shipment=self.object, fields=fields) if fields else self.object
            )
            current = {p.role: p.organisation_id for p in shipment.parties.all()}
            _set_parties(shipment, form.parties(), self.request.user, current=current)
        messages.success(self.request, f"Shipment {shipment} saved.")
        return shipment


def _actions_for(user, shipment: Shipment) -> list[dict]:
    """The status buttons this user may press now (the service still checks everything)."""
    current = workflow.Status(shipment.status)
    held_from = workflow.Status(shipment.held_from) if shipment.held_from else None
    actions = []
    for target in workflow.ORDER + [workflow.Status.ON_HOLD, workflow.Status.CANCELLED]:
        if target == workflow.Status.CANCELLED and workflow.cancel_problems(current, held_from=held_from):
            continue  # held after departure: goods on their way are not cancelled
        if not workflow.can_move(current, target) or not user.can(
            services.transition_capability(current, target)
        ):
            continue
        if workflow.is_amendment(current, target):
            # Voids issued documents: a page that says so and asks why, not a one-click button.
            link = reverse("shipments:shipment-amend", args=[shipment.reference])
            actions.append({"to": target.value, "label": "Amend (back to draft)…", "link": link})
            continue
        actions.append(
            {
                "to": target.value,
                "label": _ACTION_LABELS.get(target, workflow.LABELS[target]),
                "needs_reason": target in (workflow.Status.ON_HOLD, workflow.Status.CANCELLED),
                "is_hold": target == workflow.Status.ON_HOLD,
            }
        )
    if current == workflow.Status.ON_HOLD:
        capability = (
            "shipments.release_compliance_hold"
            if shipment.hold_kind == "compliance"
            else "shipments.release_customs_hold"
        )
        # A hold another app decides (compliance: four eyes) is released on that app's page.
        if user.can(capability) and not hooks.release_problems(shipment, user):
            actions.insert(
                0,
                {
                    "to": "release",
                    "label": f"Release hold (back to {shipment.get_held_from_display()})",
                    "needs_reason": False,
                    "is_hold": False,
                },
            )
    return actions


_ACTION_LABELS = {
    workflow.Status.COMPLIANCE_REVIEW: "Submit for compliance review",
    workflow.Status.DRAFT: "Back to draft",
    workflow.Status.APPROVED: "Approve",
    workflow.Status.BOOKED: "Book",
    workflow.Status.IN_TRANSIT: "Mark in transit",
    workflow.Status.AT_CUSTOMS: "Mark at customs",
    workflow.Status.CLEARED: "Mark cleared",
    workflow.Status.DELIVERED: "Mark delivered",
    workflow.Status.ON_HOLD: "Put on hold",
    workflow.Status.CANCELLED: "Cancel shipment",
}


class ShipmentDetailView(CapabilityRequiredMixin, View):
    """The shipment page; its forms post to the small views below, which re-render it on errors."""

    capability = "shipments.view"

    def get(self, request, reference):
        return render_shipment(request, reference)


def _get_shipment(request, reference: str, action: str = VIEW) -> Shipment:
    return get_object_or_404(
        selectors.shipment_detail_queryset().visible_to(request.user, action), reference=reference
    )


def _reopened(request) -> str:
    """The form to show open again after a save (?open=package_form), if it is one of the page's."""
    name = request.GET.get("open", "")
    return name if name in ("line_form", "package_form", "leg_form", "event_form") else ""


def _task_of(request, shipment: Shipment) -> str:
    task_id = request.GET.get("task", "")
    if task_id and TaskRecord.objects.filter(task_id=task_id, object_repr=shipment.reference).exists():
        return task_id
    return ""


def render_shipment(request, reference: str, status: int = 200, **forms_override):
    shipment = _get_shipment(request, reference)
    user = request.user
    can_change = Shipment.objects.visible_to(user, CHANGE).filter(pk=shipment.pk).exists()
    record_assessments = selectors.record_party_assessments(shipment, for_user=user)
    show_all = request.GET.get("lines") == "all"
    lines, line_totals = selectors.detail_lines(shipment, limit=None if show_all else LINES_SHOWN)
    legs = sorted(shipment.legs.all(), key=lambda leg: (_ROUTE_ORDER.get(leg.role, 9), leg.sequence))
    legs_by_id = {leg.pk: leg for leg in legs}
    carried = selectors.leg_line_numbers(shipment) if legs else {}
    for leg in legs:  # runs of line numbers, not a name per line: a leg may carry thousands
        leg.lines_carried = lines_carried(carried.get(leg.pk, []))
    events = sorted(shipment.events.all(), key=lambda e: (e.occurred_at, e.id))
    for event in events:  # the loaded legs, with their sites: no query per event
        event.route_leg = legs_by_id.get(event.leg_id)
    context = {
        "shipment": shipment,
        # The first LINES_SHOWN lines, and a link to all of them (totals count every line).
        "lines": lines,
        "lines_total": line_totals["count"],
        "packages": list(shipment.packages.all()),
        "legs": legs,
        "route": _route(legs),
        "eta_source": _eta_source(shipment, legs, events),
        "events": events,
        "parties": list(shipment.parties.all()),
        "incoterm": incoterm_rule(shipment.incoterm),
        "record_assessments": record_assessments,
        # A check started by this user's last action (?task=…, set by the review transition).
        "task_id": _task_of(request, shipment),
        # A consolidation's lines may each have their own exporter: show who.
        "multi_shipper": any(leg.role == LegRole.INBOUND for leg in legs) or line_totals["own_parties"] > 0,
        "is_late": selectors.is_late(shipment),
        "totals": {"value": line_totals["value"], "units": line_totals["units"]},
        "can_change": can_change and user.can("shipments.edit"),
        "can_post_events": can_change and user.can("shipments.track") and shipment.status != "cancelled",
        "actions": _actions_for(user, shipment) if can_change else [],
        "audit_events": events_for(user, AuditEvent.objects.for_object(shipment)),
        "missing_documents": hooks.missing_documents(shipment),
        # What the documents will need, told before review rather than at generation.
        **_readiness(shipment),
        # Links to higher apps' pages for this shipment (the warehouse: receive, allocate, pick, pack).
        "page_actions": hooks.page_actions(shipment, user),
        "line_form": forms_override.get("line_form") or LineForm(user=user),
        "package_form": forms_override.get("package_form") or PackageForm(shipment=shipment),
        "leg_form": quick_line_choices(
            forms_override.get("leg_form") or LegForm(user=user, shipment=shipment)
        ),
        "event_form": forms_override.get("event_form") or EventForm(shipment=shipment),
        "transition_errors": forms_override.get("transition_errors"),
        "open_form": forms_override.get("open_form", "") or _reopened(request),
    }
    return render(request, "shipments/shipment_detail.html", context, status=status)


def _readiness(shipment: Shipment) -> dict:
    """Until it is booked: the terms that refuse review (`readiness_problems`) and the serialised
    lines short of serial numbers (`readiness_warnings`). The lines are the page's prefetched ones."""
    open_statuses = (ShipmentStatus.DRAFT, ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.APPROVED)
    if shipment.status not in open_statuses:
        return {"readiness_problems": [], "readiness_warnings": []}
    goods = sum((line.line_value for line in shipment.lines.all()), Decimal("0"))
    return {
        "readiness_problems": readiness.review_problems(shipment, goods_value=goods),
        "readiness_warnings": readiness.review_warnings(shipment),
    }


# Legs are listed in the order goods move: inbound to the hub, the main carriage, then onward.
_ROUTE_ORDER = {LegRole.INBOUND: 0, LegRole.MAIN: 1, LegRole.ONWARD: 2}


def _route(legs: list[Leg]) -> list[str]:
    """The route as places in order; the inbound legs' origins meet at the hub ("A + B → hub → …")."""
    inbound = [leg for leg in legs if leg.role == LegRole.INBOUND]
    steps: list[str] = []
    if inbound:
        steps += [" + ".join(str(leg.origin) for leg in inbound), str(inbound[0].destination)]
    for leg in legs:
        if leg.role == LegRole.INBOUND:
            continue
        if not steps or steps[-1] != str(leg.origin):
            steps.append(str(leg.origin))
        steps.append(str(leg.destination))
    return steps


def _eta_source(shipment: Shipment, legs: list[Leg], events: list) -> str:
    """Where the ETA comes from, in words (selectors.shipment_refresh_eta decides it)."""
    if any(e.code == "delivered" for e in events):
        return "delivered"
    if any(e.eta and (e.route_leg is None or e.route_leg.role != LegRole.INBOUND) for e in events):
        return "reported"
    onward = [leg for leg in legs if leg.role != LegRole.INBOUND and leg.planned_arrival]
    reaching = [leg for leg in onward if leg.destination_id == shipment.destination_id]
    last = max(reaching or onward, key=lambda leg: leg.sequence, default=None)
    return f"planned arrival of leg {last.sequence}, {last.get_role_display().lower()}" if last else ""


class _ShipmentPostView(CapabilityRequiredMixin, View):
    """A form of the shipment page. Saved, the page comes back at the form's section (and, where
    one adds several in a row, with the form open again); refused, the first field in error has
    the focus, so the browser shows it rather than the top of the page (issue 12)."""

    capability = "shipments.edit"
    form_class = None
    form_name = ""
    section = ""  # the page's section id the form belongs to
    keep_open = False  # packages: open the form again for the next one

    def post(self, request, reference):
        self.shipment = _get_shipment(request, reference, CHANGE)
        form = self.form_class(request.POST, **self.form_kwargs())
        if form.is_valid():
            try:
                message = self.save(form)
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, message)
                again = f"?open={self.form_name}" if self.keep_open else ""
                section = f"#{self.section}" if self.section else ""
                return HttpResponseRedirect(f"{self.shipment.get_absolute_url()}{again}{section}")
        first = next((name for name in form.errors if name in form.fields), None)
        if first:
            form.fields[first].widget.attrs["autofocus"] = True
        return render_shipment(
            request, reference, status=400, open_form=self.form_name, **{self.form_name: form}
        )

    def form_kwargs(self) -> dict:
        return {}


class LineAddView(_ShipmentPostView):
    form_class = LineForm
    form_name = "line_form"
    section = "lines"

    def form_kwargs(self):
        return {"user": self.request.user}

    def save(self, form):
        data = form.cleaned_data
        fields = {
            k: data[k]
            for k in ("unit_value", "hs_code", "country_of_origin", "shipper", "exporter_of_record")
            if data.get(k) not in (None, "")
        }
        line = services.line_add(
            shipment=self.shipment,
            part=data["part"],
            quantity=data["quantity"],
            fields=fields,
            serials=data["serials"] or None,
            actor=self.request.user,
        )
        for warning in readiness.line_warnings(line, line.serials.count()):
            messages.warning(self.request, warning)
        return f"Line {line.line_number} added: {line.quantity} × {line.part}."


def _remove_line(line: ShipmentLine) -> str:
    services.line_remove(line=line)
    return f"Line {line.line_number} removed."


def _remove_package(package: Package) -> str:
    services.package_remove(package=package)
    return f"Package {package.number} removed; its units are unpacked."


def _remove_leg(leg: Leg) -> str:
    services.leg_remove(leg=leg)
    return f"Leg {leg.sequence} removed."


class _RemoveView(CapabilityRequiredMixin, View):
    """Remove one of a shipment's lines, packages or legs (the page asked first) with `removal`,
    which calls the kind's service and says what was done; a refusal is shown as it is said."""

    capability = "shipments.edit"
    queryset: QuerySet
    removal: Callable[[Any], str]
    anchor = ""

    def post(self, request, reference, pk):
        shipment = _get_shipment(request, reference, CHANGE)
        obj = get_object_or_404(self.queryset, pk=pk, shipment=shipment)
        try:
            messages.success(request, type(self).removal(obj))
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        return HttpResponseRedirect(shipment.get_absolute_url() + self.anchor)


class LineRemoveView(_RemoveView):
    queryset = ShipmentLine.objects.all()
    removal = _remove_line


class PackageRemoveView(_RemoveView):
    """Unpack one package: its units and serials go back to unpacked."""

    queryset = Package.objects.select_related("shipment")
    removal = _remove_package
    anchor = "#packages"


class LegRemoveView(_RemoveView):
    queryset = Leg.objects.all()
    removal = _remove_leg
    anchor = "#legs"


class PackageAddView(_ShipmentPostView):
    form_class = PackageForm
    form_name = "package_form"
    section = "packages"
    keep_open = True

    def form_kwargs(self):
        return {"shipment": self.shipment}

    def save(self, form):
        data = form.cleaned_data
        contents, serials = data["contents"], data["serials"]
        fields = {name: data[name] for name in PackageForm.Meta.fields if name in data}
        lines = {line.line_number: line for line in self.shipment.lines.all()}
        missing = [str(n) for n, _ in contents if n not in lines]
        if missing:
            raise ValidationError({"contents": f"No line {', '.join(missing)} on {self.shipment}."})
        package = services.package_add(
            shipment=self.shipment, fields=fields, items=[(lines[n], q) for n, q in contents], serials=serials
        )
        return f"{package} added."


class LegEditView(CapabilityRequiredMixin, View):
    """Change a planned leg on a page of its own (the route is checked again, as when adding)."""

    capability = "shipments.edit"

    def _leg(self, request, reference, pk):
        shipment = _get_shipment(request, reference, CHANGE)
        legs = Leg.objects.select_related("origin", "destination")
        return shipment, get_object_or_404(legs, pk=pk, shipment=shipment)

    def get(self, request, reference, pk, form=None, status=200):
        shipment, leg = self._leg(request, reference, pk)
        form = form or LegForm(instance=leg, user=request.user, shipment=shipment)
        return render(
            request,
            "shipments/leg_form.html",
            {"shipment": shipment, "leg": leg, "form": quick_line_choices(form)},
            status=status,
        )

    def post(self, request, reference, pk):
        shipment, leg = self._leg(request, reference, pk)
        form = LegForm(request.POST, instance=leg, user=request.user, shipment=shipment)
        if form.is_valid():
            fields = {k: v for k, v in form.cleaned_data.items() if k != "lines"}
            try:
                leg = services.leg_update(leg=leg, fields=fields, lines=list(form.cleaned_data["lines"]))
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, f"{leg} saved.")
                return HttpResponseRedirect(shipment.get_absolute_url() + "#legs")
        return self.get(request, reference, pk, form=form, status=400)


class LegAddView(_ShipmentPostView):
    form_class = LegForm
    form_name = "leg_form"
    section = "legs"

    def form_kwargs(self):
        return {"user": self.request.user, "shipment": self.shipment}

    def save(self, form):
        fields = dict(form.cleaned_data)
        lines = list(fields.pop("lines"))
        leg = services.leg_add(shipment=self.shipment, fields=fields, lines=lines)
        carried = f", carrying line {', '.join(str(line.line_number) for line in lines)}" if lines else ""
        return f"{leg} added{carried}."


class EventAddView(_ShipmentPostView):
    capability = "shipments.track"
    form_class = EventForm
    form_name = "event_form"
    section = "timeline"

    def form_kwargs(self):
        return {"shipment": self.shipment}

    def save(self, form):
        data = form.cleaned_data
        try:
            event = services.event_record(
                shipment=self.shipment,
                actor=self.request.user,
                code=data["code"],
                occurred_at=data["occurred_at"],
                location=data["location"],
                remarks=data["remarks"],
                leg=data["leg"],
                eta=data["eta"],
            )
        except services.TransitionRefused as exc:
            # Refused whole (e.g. the compliance answer is not current): the form says why.
            raise ValidationError([exc.message, *exc.reasons]) from exc
        moved = (
            f"; status now {selectors.status_now(self.shipment).label.lower()}" if event.status_after else ""
        )
        return f"Event “{event.get_code_display()}” recorded{moved}."


class TransitionView(CapabilityRequiredMixin, View):
    capability = "shipments.view"

    def post(self, request, reference):
        shipment = _get_shipment(request, reference, CHANGE)
        form = TransitionForm(request.POST)
        if not form.is_valid():
            raise Http404
        started = timezone.now()
        try:
            shipment = services.shipment_transition(
                shipment=shipment,
                target=form.cleaned_data["to"],
                actor=request.user,
                reason=form.cleaned_data["reason"],
                hold_kind=form.cleaned_data["hold_kind"],
            )
        except services.TransitionForbidden as exc:
            raise PermissionDenied(exc.message) from exc  # the styled 403 page, as any page's
        except services.TransitionRefused as exc:
            return render_shipment(
                request,
                reference,
                status=409,
                transition_errors={"message": exc.message, "reasons": exc.reasons},
            )

        def after_commit():
            # The status once the request's transaction committed and the work it queued on commit
            # ran (an eager compliance check approves or holds the shipment then): one truth.
            messages.success(request, f"{shipment} is now {selectors.status_now(shipment).label.lower()}.")
            # After the commit, when the tasks the change queued were handed to the broker (the
            # outbox sends them in an earlier on-commit callback): say which could not be.
            for message in owed_messages(shipment.reference):
                messages.warning(request, message)

        transaction.on_commit(after_commit)
        url = shipment.get_absolute_url()
        if form.cleaned_data["to"] == ShipmentStatus.COMPLIANCE_REVIEW:
            # Review goes ahead; what the documents will still need is said now, not at generation.
            for warning in readiness.review_warnings(shipment):
                messages.warning(request, warning)
            # Entering review started the compliance check: the page shows its progress.
            task = (
                TaskRecord.objects.filter(
                    object_repr=shipment.reference, kind="compliance check", created_at__gte=started
                )
                .order_by("-created_at", "-pk")
                .values_list("task_id", flat=True)
                .first()
            )
            if task:
                url += f"?task={task}"
        return HttpResponseRedirect(url)


class AmendView(CapabilityRequiredMixin, View):
    """Amend an approved shipment that is not booked: a confirmation page saying what will be voided
    and asking why, then `services.shipment_amend`."""

    capability = "shipments.amend"

    def get(self, request, reference):
        return self._page(request, _get_shipment(request, reference, CHANGE), AmendForm())

    def post(self, request, reference):
        shipment = _get_shipment(request, reference, CHANGE)
        form = AmendForm(request.POST)
        if not form.is_valid():
            return self._page(request, shipment, form, status=400)
        try:
            shipment = services.shipment_amend(
                shipment=shipment, actor=request.user, reason=form.cleaned_data["reason"]
            )
        except services.TransitionForbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except services.TransitionRefused as exc:
            errors = {"message": exc.message, "reasons": exc.reasons}
            return self._page(request, shipment, form, status=409, errors=errors)
        messages.success(
            request,
            f"{shipment} is a draft again: correct it, then submit it for compliance review (the check "
            "runs again).",
        )
        return HttpResponseRedirect(shipment.get_absolute_url())

    def _page(self, request, shipment, form, *, status=200, errors=None):
        problems = workflow.amend_problems(
            workflow.Status(shipment.status),
            held_from=workflow.Status(shipment.held_from) if shipment.held_from else None,
        )
        context = {
            "shipment": shipment,
            "form": form,
            "problems": problems,
            "effects": hooks.amend_effects(shipment) if not problems else [],
            "errors": errors,
        }
        return render(request, "shipments/shipment_amend.html", context, status=status)


class FreightPanelView(CapabilityRequiredMixin, View):
    """The freight options panel, loaded by htmx so a lane without rates never breaks the page."""

    capability = "shipments.view"

    def get(self, request, reference):
        shipment = get_object_or_404(
            Shipment.objects.select_related("origin", "destination").visible_to(request.user),
            reference=reference,
        )
        try:
            plan, error = freight_plan_for(freight_plan_data(shipment), shipment, request.user), None
        except NoRateError as exc:
            plan, error = None, str(exc)
        except ValueError as exc:  # a package that fits no container, mixed currencies …
            plan, error = None, str(exc)
        return render(
            request, "shipments/_freight_panel.html", {"shipment": shipment, "plan": plan, "error": error}
        )


class SiteListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "sites.view"
    template_name = "shipments/site_list.html"
    partial_template_name = "shipments/_site_table.html"
    filterset_class = SiteFilter
    export_name = "sites"
    export_columns = (
        ("Name", lambda site: site.name),
        ("Kind", lambda site: site.get_kind_display()),
        ("Bonded", lambda site: site.is_bonded),
        ("Address", lambda site: site.address_line1),
        ("City", lambda site: site.city),
        ("Postal code", lambda site: site.postal_code),
        ("Country", lambda site: site.country),
        ("IATA code", lambda site: site.iata_code),
        ("UN/LOCODE", lambda site: site.unlocode),
        ("Owner", lambda site: site.owner.legal_name),
    )

    def get_queryset(self):
        return (
            Site.objects.visible_to(self.request.user)
            .select_related("owner")
            .order_by("country", "city", "name")
        )


class SiteCreateView(CapabilityRequiredMixin, ServiceFormMixin, CreateView):
    capability = "sites.edit"
    model = Site
    form_class = SiteForm
    template_name = "shipments/site_form.html"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def get_form(self, form_class=None):
        form = super().get_form(form_class)
        form.instance.owner = services._owner_for(self.request.user)
        return form

    def save_with_service(self, form):
        site = services.site_create(actor=self.request.user, fields=form.cleaned_data)
        messages.success(self.request, f"Site {site} added.")
        return site


class FreightRateFormMixin(CapabilityRequiredMixin, ServiceFormMixin):
    """Add or change a lane's rate in the browser, as the API does (`services.freight_rate_save`)."""

    capability = "freight.edit"
    model = FreightRate
    form_class = FreightRateForm
    template_name = "shipments/rate_form.html"

    def save_with_service(self, form):
        rate = services.freight_rate_save(rate=form.instance, fields=form.cleaned_data)
        messages.success(self.request, f"Rate {rate} saved.")
        return rate

    def get_success_url(self):
        return reverse("shipments:rate-list")


class FreightRateCreateView(FreightRateFormMixin, CreateView):
    pass


class FreightRateUpdateView(FreightRateFormMixin, UpdateView):
    pass


class ExchangeRateFormMixin(FreightRateFormMixin):
    model = ExchangeRate
    form_class = ExchangeRateForm

    def save_with_service(self, form):
        rate = services.exchange_rate_save(rate=form.instance, fields=form.cleaned_data)
        messages.success(self.request, f"Exchange rate {rate} saved.")
        return rate

    def get_success_url(self):
        return reverse("shipments:rate-list") + "#exchange-rates"


class ExchangeRateCreateView(ExchangeRateFormMixin, CreateView):
    pass


class ExchangeRateUpdateView(ExchangeRateFormMixin, UpdateView):
    pass


class FreightRateListView(CapabilityRequiredMixin, FilteredListMixin, TemplateView):
    capability = "freight.rates.view"
    template_name = "shipments/rate_list.html"
    partial_template_name = "shipments/_rate_table.html"
    filterset_class = FreightRateFilter
    export_name = "freight-rates"
    export_columns = (
        ("Origin country", lambda r: r.origin_country),
        ("Destination country", lambda r: r.destination_country),
        ("Mode", lambda r: r.get_mode_display()),
        ("Service", lambda r: r.service),
        ("Carrier", lambda r: r.carrier),
        ("Currency", lambda r: r.currency),
        ("Per chargeable kg", lambda r: r.price_per_kg),
        ("Per 20' container", lambda r: r.price_20gp),
        ("Per 40' container", lambda r: r.price_40gp),
        ("Per 40' high cube", lambda r: r.price_40hc),
        ("LCL per m³", lambda r: r.price_per_cbm),
        ("LCL per 1,000 kg", lambda r: r.price_per_tonne),
        ("Minimum charge", lambda r: r.minimum_charge),
        ("Transit days", lambda r: r.transit_days),
        ("Valid from", lambda r: r.valid_from),
        ("Valid to", lambda r: r.valid_to),
    )

    def get_queryset(self):
        # The operator's rate table: no organisation owns a rate (staff roles only, by capability).
        return FreightRate.objects.order_by(
            "origin_country", "destination_country", "mode", "valid_from", "pk"
        )

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        # What consolidation hubs charge to handle the goods passing through (priced into routes).
        context["handling_rates"] = HubHandlingRate.objects.select_related("site").order_by(
            "site__name", "-valid_from"
        )
        context["can_edit_rates"] = self.request.user.can("freight.edit")
        # The dated exchange rates landed costs convert with (the latest 50).
        context["exchange_rates"] = ExchangeRate.objects.order_by("-valid_on", "base", "quote")[:50]
        return context
