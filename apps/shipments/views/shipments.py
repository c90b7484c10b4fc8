"""Shipment list (with its bulk actions), creating a shipment and editing its terms and parties."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.views import View
from django.views.generic import CreateView, TemplateView, UpdateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import CHANGE
from apps.core.views import FilteredListMixin, ScopedQuerysetMixin, ServiceFormMixin, safe_next

from .. import hooks, services
from ..filters import ShipmentFilter
from ..forms import ShipmentForm
from ..models import Shipment
from ..models.shipments import attach_line_counts


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
