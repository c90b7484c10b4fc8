"""Freight pages: a shipment's freight options panel (with a Book button per option), and the
operator's freight and exchange rates."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views import View
from django.views.generic import CreateView, TemplateView, UpdateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import VIEW
from apps.core.views import FilteredListMixin, ServiceFormMixin

from .. import services
from ..disclosure import freight_plan_for
from ..engines.freight import NoRateError
from ..filters import FreightRateFilter
from ..forms import ExchangeRateForm, FreightRateForm
from ..models import ExchangeRate, FreightRate, HubHandlingRate, LegRole, Shipment
from ..presenters import freight_plan_data
from ..services.freight_booking import BOOKABLE_STATUSES, FreightBookingConflict, freight_option_book
from .detail import get_shipment


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
        legs = list(shipment.legs.select_related("origin", "destination").order_by("sequence"))
        can_book = (
            request.user.can("shipments.book")
            and shipment.status in BOOKABLE_STATUSES
            and not any(leg.role == LegRole.INBOUND for leg in legs)
        )
        booked = (plan or {}).get("booked_option")
        context = {
            "shipment": shipment,
            "plan": plan,
            "error": error,
            "can_book": can_book,
            "legs": legs,
            # The leg booking the option the panel marks: its dates are the shipment's.
            "booked_leg": legs[0] if booked and legs else None,
        }
        return render(request, "shipments/_freight_panel.html", context)


class FreightBookView(CapabilityRequiredMixin, View):
    """A freight option's Book button (and, with legs planned, its confirmed Replace): the option's
    main carriage is added through `services.freight_booking`, as the API does."""

    capability = "shipments.book"

    def post(self, request, reference):
        shipment = get_shipment(request, reference, VIEW)
        try:
            booking = freight_option_book(
                shipment=shipment,
                option_id=request.POST.get("option", ""),
                replace=request.POST.get("replace") == "1",
            )
        except FreightBookingConflict as exc:
            messages.error(request, exc.message)
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        else:
            leg = booking.legs[0]
            if booking.created:
                messages.success(
                    request,
                    f"Booked {booking.option.summary()}: leg {leg.sequence}, "
                    f"departs {leg.planned_departure}, arrives {leg.planned_arrival}.",
                )
            else:
                messages.info(request, f"Leg {leg.sequence} books {booking.option.summary()} already.")
        return HttpResponseRedirect(shipment.get_absolute_url() + "#freight")


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
