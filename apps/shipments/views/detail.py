"""The shipment page: what it shows (lines, route, timeline, parties, readiness, the status
buttons the user may press) and the bases of the small views its forms post to, which re-render
the page on errors."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views import View

from apps.core.access import CapabilityRequiredMixin
from apps.core.disclosure import events_for
from apps.core.models import AuditEvent, TaskRecord
from apps.core.scoping import CHANGE, VIEW
from apps.core.views import add_service_errors

from .. import hooks, readiness, selectors, services
from ..engines import workflow
from ..engines.incoterms import rule as incoterm_rule
from ..forms import EventForm, LegForm, LineForm, PackageForm
from ..models import Leg, LegRole, Shipment, ShipmentStatus
from ..presenters import LINES_SHOWN, lines_carried, quick_line_choices


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


def get_shipment(request, reference: str, action: str = VIEW) -> Shipment:
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
    shipment = get_shipment(request, reference)
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


class ShipmentPostView(CapabilityRequiredMixin, View):
    """A form of the shipment page. Saved, the page comes back at the form's section (and, where
    one adds several in a row, with the form open again); refused, the first field in error has
    the focus, so the browser shows it rather than the top of the page."""

    capability = "shipments.edit"
    form_class = None
    form_name = ""
    section = ""  # the page's section id the form belongs to
    keep_open = False  # packages: open the form again for the next one

    def post(self, request, reference):
        self.shipment = get_shipment(request, reference, CHANGE)
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


class RemoveView(CapabilityRequiredMixin, View):
    """Remove one of a shipment's lines, packages or legs (the page asked first) with `removal`,
    which calls the kind's service and says what was done; a refusal is shown as it is said."""

    capability = "shipments.edit"
    queryset: QuerySet
    removal: Callable[[Any], str]
    anchor = ""

    def post(self, request, reference, pk):
        shipment = get_shipment(request, reference, CHANGE)
        obj = get_object_or_404(self.queryset, pk=pk, shipment=shipment)
        try:
            messages.success(request, type(self).removal(obj))
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        return HttpResponseRedirect(shipment.get_absolute_url() + self.anchor)
