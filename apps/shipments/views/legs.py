"""The shipment page's legs: adding one, changing one on a page of its own, removing one."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.views import View

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import CHANGE
from apps.core.views import add_service_errors

from .. import services
from ..forms import LegForm
from ..models import Leg
from ..presenters import quick_line_choices
from .detail import RemoveView, ShipmentPostView, get_shipment


def _remove_leg(leg: Leg) -> str:
    services.leg_remove(leg=leg)
    return f"Leg {leg.sequence} removed."


class LegRemoveView(RemoveView):
    queryset = Leg.objects.all()
    removal = _remove_leg
    anchor = "#legs"


class LegEditView(CapabilityRequiredMixin, View):
    """Change a planned leg on a page of its own (the route is checked again, as when adding)."""

    capability = "shipments.edit"

    def _leg(self, request, reference, pk):
        shipment = get_shipment(request, reference, CHANGE)
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


class LegAddView(ShipmentPostView):
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
