"""The warehouse flows, each on a page of its own: receive, move / put away, allocate, pick, ship.
The forms read; the services decide, and a refusal lands on the field it names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from django.views.generic import FormView

from apps.catalog.models import UnitStatus
from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import VIEW
from apps.core.views import add_service_errors
from apps.shipments.models import Shipment

from .. import services
from ..forms import MAX_SERIALS, AllocateForm, MoveForm, PickForm, ReceiveForm, ShipForm
from ..models import UnitPlacement

# A service names the unit(s) it refuses `unit`, `units` or `status`; the forms take `serials`.
_UNIT_FIELDS = {"unit": "serials", "units": "serials", "status": "serials", "customs_status": "serials"}


def _on_form(form, exc: ValidationError, renames: dict[str, str]) -> None:
    if hasattr(exc, "error_dict"):
        merged: dict[str, list] = defaultdict(list)
        for field, errors in exc.error_dict.items():
            merged[renames.get(field, field)] += errors
        exc = ValidationError(dict(merged))
    add_service_errors(form, exc)


class _FlowView(CapabilityRequiredMixin, FormView):
    """One warehouse flow on a page of its own: the form, then the service in one transaction;
    a refusal is shown on the field it names and nothing is written."""

    template_name = "warehouse/flow_form.html"
    # Each flow defines `run(data) -> (message, next URL)`, calling its service; a flow without
    # one is refused when its class is defined, not when someone submits the form.
    run: Callable[..., tuple[str, str]]
    title = ""
    intro = ""
    submit = "Save"
    renames: dict[str, str] = _UNIT_FIELDS

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not callable(getattr(cls, "run", None)):
            raise TypeError(f"{cls.__name__} must define run(data) -> (message, url)")

    # A flow that may be opened for one shipment (`?shipment=SHP-…`, the shipment page's links):
    # its line and allocation pickers then offer only that shipment's.
    for_a_shipment = False

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self._shipment: Shipment | None = None

    @property
    def shipment(self) -> Shipment | None:
        reference = self.request.GET.get("shipment", "").strip()[:50]
        if not (self.for_a_shipment and reference):
            return None
        if self._shipment is None:
            visible = Shipment.objects.visible_to(self.request.user, VIEW)
            self._shipment = visible.filter(reference=reference).first()
            if self._shipment is None:
                raise Http404(f"No shipment {reference} that you may see.")
        return self._shipment

    def get_form_kwargs(self):
        kwargs = super().get_form_kwargs() | {"user": self.request.user}
        if self.shipment is not None:
            kwargs["shipment"] = self.shipment
        return kwargs

    def get_initial(self):
        # `?location=…`, `?line=…` and the like from the buttons of other pages.
        return {k: v for k, v in self.request.GET.items() if k in self.form_class.base_fields}

    def get_context_data(self, **kwargs):
        shipment = self.shipment
        title = f"{self.title} — {shipment.reference}" if shipment is not None else self.title
        back = shipment.get_absolute_url() if shipment is not None else reverse("warehouse:stock-list")
        return super().get_context_data(
            title=title, intro=self.intro, submit=self.submit, back_url=back, **kwargs
        )

    def form_valid(self, form):
        try:
            with transaction.atomic():
                message, url = self.run(form.cleaned_data)
        except ValidationError as exc:
            _on_form(form, exc, self.renames)
            return self.form_invalid(form)
        messages.success(self.request, message)
        return HttpResponseRedirect(url)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class ReceiveView(_FlowView):
    capability = "stock.operate"
    form_class = ReceiveForm
    title = "Receive stock"
    intro = (
        "Serialised units by their scanned serials, or a quantity of a non-serialised part, into a "
        "location. A bonded warehouse takes goods in bond, under the customs reference."
    )
    submit = "Receive"

    def run(self, data):
        common = {
            "location": data["location"],
            "part": data["part"],
            "owner": data["owner"],
            "actor": self.request.user,
            "customs_reference": data["customs_reference"],
            "reason": data["reason"],
        }
        location_url = reverse("warehouse:location-detail", args=[data["location"].pk])
        if data["part"].is_serialised:
            units = services.units_receive(serials=data["serials"], **common)
            return (
                f"{_plural(len(units), 'unit')} of {data['part'].part_number} received at "
                f"{data['location']}.",
                location_url,
            )
        lot = services.lot_receive(quantity=data["quantity"], **common)
        return (
            f"{data['quantity']} × {data['part'].part_number} received at {data['location']} "
            f"({lot.quantity} there now).",
            location_url,
        )


class MoveView(_FlowView):
    capability = "stock.operate"
    form_class = MoveForm
    title = "Move or put away"
    intro = "Within one warehouse. A received unit's first move is its put-away: it becomes available."
    submit = "Move"

    def run(self, data):
        to, user, reason = data["to_location"], self.request.user, data["reason"]
        url = reverse("warehouse:location-detail", args=[to.pk])
        if data.get("units"):
            for unit in sorted(data["units"], key=lambda u: u.pk):
                services.unit_move(unit=unit, to_location=to, actor=user, reason=reason)
            return f"{_plural(len(data['units']), 'unit')} moved to {to}.", url
        services.lot_move(
            lot=data["lot"], quantity=data["quantity"], to_location=to, actor=user, reason=reason
        )
        return f"{data['quantity']} × {data['lot'].part.part_number} moved to {to}.", url


class AllocateView(_FlowView):
    capability = "stock.allocate"
    for_a_shipment = True
    form_class = AllocateForm
    title = "Allocate stock to a shipment line"
    intro = "Available units or free lot pieces, in a warehouse the shipment leaves from."
    submit = "Allocate"

    def run(self, data):
        line, user, reason = data["line"], self.request.user, data["reason"]
        url = line.shipment.get_absolute_url()
        what = f"{line.shipment.reference} line {line.line_number}"
        if data.get("units"):
            units = services.units_allocate(line=line, units=data["units"], actor=user, reason=reason)
            return f"{_plural(len(units), 'unit')} allocated to {what}.", url
        services.lot_allocate(
            line=line, lot=data["lot"], quantity=data["quantity"], actor=user, reason=reason
        )
        return f"{data['quantity']} × {data['lot'].part.part_number} allocated to {what}.", url


class PickView(_FlowView):
    capability = "stock.operate"
    form_class = PickForm
    title = "Pick"
    intro = "Allocated stock taken off the shelf for its shipment line."
    submit = "Pick"
    for_a_shipment = True

    def get_initial(self):
        """Opened for a shipment: the serials allocated to it and not picked yet, as a pick list."""
        initial = super().get_initial()
        if self.shipment is not None and "serials" not in initial:
            serials = (
                UnitPlacement.objects.visible_to(self.request.user)
                .filter(line__shipment=self.shipment, unit__status=UnitStatus.ALLOCATED)
                .order_by("line__line_number", "unit__serial")
                .values_list("unit__serial", flat=True)[:MAX_SERIALS]
            )
            initial["serials"] = "\n".join(serials)
        return initial

    def run(self, data):
        user, reason = self.request.user, data["reason"]
        url = reverse("warehouse:stock-list")
        if data.get("units"):
            units = services.units_pick(units=data["units"], actor=user, reason=reason)
            return f"{_plural(len(units), 'unit')} picked.", url
        allocation = services.lot_allocation_pick(allocation=data["allocation"], actor=user, reason=reason)
        return f"{allocation.quantity} × {allocation.lot.part.part_number} picked.", url


class ShipView(_FlowView):
    capability = "stock.operate"
    form_class = ShipForm
    title = "Ship a line"
    intro = "Everything picked for the line leaves the warehouse; the shipment must be approved."
    submit = "Ship"

    def run(self, data):
        line = data["line"]
        shipped = services.line_ship(line=line, actor=self.request.user, reason=data["reason"])
        pieces = len(shipped.units) + sum(a.quantity for a in shipped.allocations)
        return (
            f"{_plural(pieces, 'piece')} of {line.shipment.reference} line {line.line_number} shipped.",
            line.shipment.get_absolute_url(),
        )
