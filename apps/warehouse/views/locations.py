"""Pages of a warehouse's locations: the list (units and pieces each holds), a new location, one
location's stock, and its cycle count."""

from __future__ import annotations

import re

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Sum
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views import View
from django.views.generic import FormView, TemplateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.views import FilteredListMixin, ScopedQuerysetMixin, add_service_errors

from .. import services
from ..filters import LocationFilter
from ..forms import CountForm, LocationForm
from ..models import Location, Lot, UnitPlacement
from ..selectors import lots_at


class LocationListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "stock.view"
    template_name = "warehouse/location_list.html"
    partial_template_name = "warehouse/_location_table.html"
    filterset_class = LocationFilter
    export_name = "locations"
    export_columns = (
        ("Warehouse", lambda loc: loc.site.name),
        ("Location", lambda loc: loc.code),
        ("Zone", lambda loc: loc.zone),
        ("Aisle", lambda loc: loc.aisle),
        ("Rack", lambda loc: loc.rack),
        ("Bin", lambda loc: loc.bin),
        ("Active", lambda loc: loc.is_active),
    )

    def get_queryset(self):
        return (
            Location.objects.visible_to(self.request.user)
            .select_related("site")
            .order_by("site__name", "zone", "aisle", "rack", "bin", "pk")
        )

    def decorate_page(self, objects):
        """Units and pieces each location holds (of the stock the user sees): two queries."""
        user, ids = self.request.user, [loc.pk for loc in objects]
        units = dict(
            UnitPlacement.objects.visible_to(user)
            .filter(location__in=ids)
            .order_by()
            .values_list("location")
            .annotate(n=Count("pk"))
        )
        pieces = dict(
            Lot.objects.visible_to(user)
            .filter(location__in=ids)
            .order_by()
            .values_list("location")
            .annotate(n=Sum("quantity"))
        )
        for location in objects:
            location.units = units.get(location.pk, 0)
            location.pieces = pieces.get(location.pk) or 0
        return objects


class LocationCreateView(CapabilityRequiredMixin, FormView):
    capability = "stock.manage"
    form_class = LocationForm
    template_name = "warehouse/location_form.html"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def get_initial(self):
        return {"site": self.request.GET.get("site")}

    def form_valid(self, form):
        try:
            with transaction.atomic():
                location = services.location_create(**form.cleaned_data)
        except ValidationError as exc:
            add_service_errors(form, exc)
            return self.form_invalid(form)
        messages.success(self.request, f"Location {location} added.")
        return HttpResponseRedirect(reverse("warehouse:location-detail", args=[location.pk]))


class LocationDetailView(CapabilityRequiredMixin, View):
    """A location: the units and lots there (of those the user sees)."""

    capability = "stock.view"
    UNITS_SHOWN = 200

    def get(self, request, pk):
        location = get_object_or_404(Location.objects.visible_to(request.user).select_related("site"), pk=pk)
        units = (
            UnitPlacement.objects.visible_to(request.user)
            .filter(location=location)
            .select_related("unit__part", "unit__owner", "line__shipment")
            .order_by("unit__serial", "pk")
        )
        lots = (
            Lot.objects.visible_to(request.user)
            .filter(location=location, quantity__gt=0)
            .select_related("part", "owner")
            .order_by("part__part_number", "pk")
        )
        shown = list(units[: self.UNITS_SHOWN + 1])
        context = {
            "location": location,
            "units": shown[: self.UNITS_SHOWN],
            "more_units": len(shown) > self.UNITS_SHOWN,
            "lots": list(lots),
        }
        return render(request, "warehouse/location_detail.html", context)


class LocationCountView(CapabilityRequiredMixin, View):
    """The cycle count of a location: serials seen and a quantity per lot; differences are booked
    with the reason (missing units quarantined, units found elsewhere moved here)."""

    capability = "stock.operate"

    def _location(self, request, pk):
        return get_object_or_404(Location.objects.visible_to(request.user).select_related("site"), pk=pk)

    def get(self, request, pk, form=None, status=200):
        location = self._location(request, pk)
        form = form or CountForm(lots=lots_at(location.pk).order_by("part__part_number", "pk"))
        return render(
            request, "warehouse/count_form.html", {"location": location, "form": form}, status=status
        )

    def post(self, request, pk):
        location = self._location(request, pk)
        form = CountForm(request.POST, lots=lots_at(location.pk).order_by("part__part_number", "pk"))
        if form.is_valid():
            try:
                with transaction.atomic():
                    result = services.location_count(
                        location=location,
                        serials=form.cleaned_data["serials"],
                        quantities=form.quantities(),
                        actor=request.user,
                        reason=form.cleaned_data["reason"],
                    )
            except ValidationError as exc:
                _count_errors_on_lots(form, exc)
            else:
                messages.success(request, _count_summary(location, result))
                return HttpResponseRedirect(reverse("warehouse:location-detail", args=[location.pk]))
        return self.get(request, pk, form=form, status=200)


def _count_errors_on_lots(form: CountForm, exc: ValidationError) -> None:
    """The service names a lot's problem `quantities`, saying which lot: put it on that lot's
    field (the rest as the service said it)."""
    rest: dict[str, list[str]] = {}
    for field, messages_ in getattr(exc, "message_dict", {"__all__": exc.messages}).items():
        for message in messages_:
            match = re.search(r"\b[Ll]ot (\d+)\b", message) if field == "quantities" else None
            name = f"lot_{match.group(1)}" if match else None
            if name in form.fields:
                form.add_error(name, message)
            else:
                rest.setdefault(field, []).append(message)
    if rest:
        add_service_errors(form, ValidationError(rest))


def _count_summary(location: Location, result) -> str:
    if result.agrees:
        return f"Count of {location.code} booked: it agrees with the books."
    parts = []
    for lot, before, counted in result.corrected:
        parts.append(f"{lot.part.part_number} {before} → {counted}")
    if result.missing:
        parts.append(f"missing (quarantined): {', '.join(u.serial for u in result.missing[:10])}")
    if result.found:
        parts.append(f"found here: {', '.join(u.serial for u in result.found[:10])}")
    return f"Count of {location.code} booked with differences — {'; '.join(parts)}."
