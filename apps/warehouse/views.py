"""Browser pages of the warehouse (issue 13): stock on hand (units and lots, with value and days
in stock), where a unit is and its history, locations, the movement ledger, and the flow forms —
receive, move / put away, count, allocate, pick, ship. The forms read; the services decide."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, DecimalField, ExpressionWrapper, F, Q, Sum
from django.db.models.functions import Lower
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.views import View
from django.views.generic import FormView, TemplateView

from apps.catalog.models import CustomsStatus, Unit, UnitStatus
from apps.core import exports
from apps.core.access import CapabilityRequiredMixin
from apps.core.dashboard import Tile
from apps.core.disclosure import recorded_person_label
from apps.core.scoping import CHANGE, VIEW
from apps.core.views import FilteredListMixin, ScopedQuerysetMixin, add_service_errors
from apps.shipments.models import LineSerial, Shipment, ShipmentStatus

from . import services
from .engines import unit_flow
from .engines.unit_flow import Action, Status
from .filters import LocationFilter, LotFilter, MovementFilter, StockFilter
from .forms import (
    MAX_SERIALS,
    AllocateForm,
    CountForm,
    LocationForm,
    LotAdjustForm,
    MoveForm,
    PickForm,
    ReceiveForm,
    ShipForm,
    UnitStatusForm,
)
from .models import WAREHOUSE_KINDS, AllocationStatus, Location, Lot, LotAllocation, Movement, UnitPlacement
from .paging import KeysFirstPaginator
from .receipts import RECEIVABLE
from .selectors import lots_at, visible_units

LOT_VALUE = ExpressionWrapper(
    F("part__unit_value") * F("quantity"), output_field=DecimalField(max_digits=24, decimal_places=2)
)


def _days(since) -> int:
    return max((timezone.localdate() - timezone.localdate(since)).days, 0)


LOCATION_CODE = ("location__zone", "location__aisle", "location__rack", "location__bin")


def _location_code(*parts: str) -> str:
    """`Location.code` of its zone, aisle, rack and bin as read by `values_list`."""
    return "-".join(part for part in parts if part)


def _where(location: Location | None) -> str:
    return f"{location.site.name} {location.code}" if location is not None else ""


def _value_by_currency(rows) -> list[tuple[str, Decimal]]:
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for currency, value in rows:
        totals[currency] += value or Decimal(0)
    return sorted(totals.items())


# --- stock lists ------------------------------------------------------------------------------


class StockListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    """Serialised units on hand, one row each: where, status, customs, value and days in stock."""

    capability = "stock.view"
    template_name = "warehouse/stock_list.html"
    partial_template_name = "warehouse/_stock_table.html"
    filterset_class = StockFilter
    paginator_class = KeysFirstPaginator  # 100,000 units: sort the keys, not the joined rows
    export_name = "stock-units"
    # Read straight from the database (a million units in seconds: docs/benchmarks.md, exports).
    export_columns = (
        ("Serial", exports.read("unit__serial")),
        ("Part", exports.read("unit__part__part_number")),
        ("Description", exports.read("unit__part__name")),
        ("Warehouse", exports.read("location__site__name")),
        ("Location", exports.read(*LOCATION_CODE, shape=_location_code)),
        ("Status", exports.read("unit__status", shape=dict(UnitStatus.choices).get)),
        ("Customs status", exports.read("unit__customs_status", shape=dict(CustomsStatus.choices).get)),
        ("Customs reference", exports.read("customs_reference")),
        ("Owner", exports.read("unit__owner__legal_name")),
        (
            "Allocated to",
            exports.read(
                "line__shipment__reference",
                "line__line_number",
                shape=lambda reference, number: f"{reference} line {number}" if reference else "",
            ),
        ),
        ("Value", exports.read("unit__part__unit_value")),
        ("Currency", exports.read("unit__part__currency")),
        ("In stock since", exports.read("created_at", shape=exports.LocalDate())),
        ("Days in stock", exports.read("created_at", shape=exports.DaysSince())),
    )

    def get_queryset(self):
        return (
            UnitPlacement.objects.visible_to(self.request.user)
            .select_related("unit__part", "unit__owner", "location__site", "line__shipment")
            .order_by("location__site__name", "location__zone", "location__aisle", "location__rack",
                      "location__bin", "unit__serial", "pk")
        )  # fmt: skip

    def decorate_page(self, objects):
        for placement in objects:
            placement.days_in_stock = _days(placement.created_at)
        return objects

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        filterset = context["filterset"]
        qs = filterset.qs if filterset.is_bound and filterset.is_valid() else filterset.queryset
        if context["filter_errors"]:
            qs = qs.none()
        rows = qs.order_by().values_list("unit__part__currency").annotate(v=Sum("unit__part__unit_value"))
        context["value_on_hand"] = _value_by_currency(rows)
        return context


class LotListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    """Non-serialised goods on hand: a row per lot (part, location, owner, customs standing)."""

    capability = "stock.view"
    template_name = "warehouse/lot_list.html"
    partial_template_name = "warehouse/_lot_table.html"
    filterset_class = LotFilter
    export_name = "stock-lots"
    export_columns = (
        ("Part", lambda lot: lot.part.part_number),
        ("Description", lambda lot: lot.part.name),
        ("Warehouse", lambda lot: lot.location.site.name),
        ("Location", lambda lot: lot.location.code),
        ("On hand", lambda lot: lot.quantity),
        ("Allocated", lambda lot: lot.allocated),
        ("Free", lambda lot: lot.free),
        ("Customs status", lambda lot: lot.get_customs_status_display()),
        ("Customs reference", lambda lot: lot.customs_reference),
        ("Owner", lambda lot: lot.owner.legal_name),
        ("Unit value", lambda lot: lot.part.unit_value),
        ("Value", lambda lot: lot.part.unit_value * lot.quantity),
        ("Currency", lambda lot: lot.part.currency),
        ("First received", lambda lot: timezone.localdate(lot.created_at)),
        ("Days in stock", lambda lot: _days(lot.created_at)),
    )

    def get_queryset(self):
        return (
            Lot.objects.visible_to(self.request.user)
            .filter(quantity__gt=0)
            .select_related("part", "owner", "location__site")
            .order_by("location__site__name", "location__zone", "location__aisle", "location__rack",
                      "location__bin", "part__part_number", "pk")
        )  # fmt: skip

    def decorate_page(self, objects):
        for lot in objects:
            lot.days_in_stock = _days(lot.created_at)
            lot.value = lot.part.unit_value * lot.quantity
        return objects

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        filterset = context["filterset"]
        qs = filterset.qs if filterset.is_bound and filterset.is_valid() else filterset.queryset
        if context["filter_errors"]:
            qs = qs.none()
        rows = qs.order_by().values_list("part__currency").annotate(v=Sum(LOT_VALUE))
        context["value_on_hand"] = _value_by_currency(rows)
        context["pieces"] = qs.order_by().aggregate(n=Sum("quantity"))["n"] or 0
        return context


class LotAdjustView(CapabilityRequiredMixin, FormView):
    """Correct one lot's on-hand outside a count (found or damaged pieces), with a reason:
    `services.lot_adjust`, which refuses a result below zero or below what is allocated."""

    capability = "stock.operate"
    form_class = LotAdjustForm
    template_name = "warehouse/lot_adjust.html"

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self._lot: Lot | None = None

    @property
    def lot(self) -> Lot:
        # After the capability check; the operator's staff keep the stock: a partner changes no
        # lot (`Lot.org_scope_q`), so another organisation's is not found.
        if self._lot is None:
            self._lot = get_object_or_404(
                Lot.objects.visible_to(self.request.user, CHANGE).select_related(
                    "part", "owner", "location__site"
                ),
                pk=self.kwargs["pk"],
            )
        return self._lot

    def get_context_data(self, **kwargs):
        return super().get_context_data(lot=self.lot, **kwargs)

    def form_valid(self, form):
        delta = form.cleaned_data["delta"]
        try:
            with transaction.atomic():
                lot = services.lot_adjust(
                    lot=self.lot, delta=delta, actor=self.request.user, reason=form.cleaned_data["reason"]
                )
        except ValidationError as exc:
            # The service names the resulting on-hand `quantity`: the form's field is the change.
            _on_form(form, exc, {"quantity": "delta"})
            self.lot.refresh_from_db()  # the page shows the figures the refusal speaks of
            return self.form_invalid(form)
        messages.success(
            self.request,
            f"{lot.part.part_number} at {lot.location}: {delta:+d}, {lot.quantity} on hand now "
            f"({lot.allocated} allocated).",
        )
        return HttpResponseRedirect(reverse("warehouse:location-detail", args=[lot.location_id]) + "#lots")


class UnitFindView(CapabilityRequiredMixin, View):
    """The serial search box: straight to the unit's page when one unit has that serial."""

    capability = "stock.view"

    def get(self, request):
        serial = request.GET.get("serial", "").strip()[:80]
        if not serial:
            messages.error(request, "Type or scan a serial number to find its unit.")
            return HttpResponseRedirect(reverse("warehouse:stock-list"))
        units = list(
            visible_units(request.user)
            .annotate(serial_key=Lower("serial"))
            .filter(serial_key=serial.lower())
            .select_related("part", "manufacturer", "owner")
            .order_by("manufacturer__name", "pk")[:20]
        )
        if len(units) == 1:
            return HttpResponseRedirect(reverse("warehouse:unit-detail", args=[units[0].pk]))
        if not units:
            messages.error(request, f"No unit with serial {serial} that you may see.")
            return HttpResponseRedirect(reverse("warehouse:stock-list"))
        return render(request, "warehouse/unit_find.html", {"serial": serial, "units": units})


class UnitDetailView(CapabilityRequiredMixin, View):
    """Where a unit is, what it is allocated to, and its full history in the ledger."""

    capability = "stock.view"

    def get(self, request, pk):
        unit = get_object_or_404(
            visible_units(request.user).select_related(
                "part", "manufacturer", "owner", "placement__location__site", "placement__line__shipment"
            ),
            pk=pk,
        )
        placement = getattr(unit, "placement", None)
        history = (
            Movement.objects.visible_to(request.user)
            .filter(unit=unit)
            .select_related(
                "from_location__site", "to_location__site", "shipment", "line", "actor__organisation"
            )
            .order_by("occurred_at", "id")
        )
        current = Status(unit.status)
        context = {
            "unit": unit,
            "placement": placement,
            "days_in_stock": _days(placement.created_at) if placement else None,
            "history": history,
            # The buttons the status engine allows for a unit in stock (the page checks again).
            "can_quarantine": placement is not None and unit_flow.can_move(current, Status.QUARANTINED),
            "can_release": placement is not None and current == Status.QUARANTINED,
        }
        return render(request, "warehouse/unit_detail.html", context)


def units_kept_by(user):
    """The units in a warehouse whose stock `user` may change: the operator's staff keep the
    warehouses; a partner changes none (`UnitPlacement.org_scope_q`), so another organisation's
    unit is not found."""
    return Unit.objects.filter(pk__in=UnitPlacement.objects.visible_to(user, CHANGE).values("unit"))


class UnitStatusView(CapabilityRequiredMixin, FormView):
    """Quarantine a unit in stock, or release it from quarantine, with a reason — outside receipts
    and counts. `services.unit_transition` alone changes the status: a move the engine does not
    allow is refused with its reason, on the form, and nothing is written."""

    capability = "stock.operate"
    form_class = UnitStatusForm
    template_name = "warehouse/unit_status.html"

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self._unit: Unit | None = None

    @property
    def unit(self) -> Unit:
        # Looked up after the capability check (dispatch): who lacks it gets 403, not 404.
        if self._unit is None:
            self._unit = get_object_or_404(
                units_kept_by(self.request.user).select_related(
                    "part", "owner", "placement__location__site", "placement__line__shipment"
                ),
                pk=self.kwargs["pk"],
            )
        return self._unit

    def get_initial(self):
        target = self.request.GET.get("target", "")
        if not target:
            target = Status.AVAILABLE if self.unit.status == UnitStatus.QUARANTINED else Status.QUARANTINED
        return {"target": target}

    def get_context_data(self, **kwargs):
        return super().get_context_data(unit=self.unit, placement=self.unit.placement, **kwargs)

    def form_valid(self, form):
        unit, target = self.unit, form.cleaned_data["target"]
        try:
            with transaction.atomic():
                unit = services.unit_transition(
                    unit=unit,
                    target=target,
                    # This page quarantines, or releases from quarantine: nothing else.
                    action=Action.QUARANTINE if target == Status.QUARANTINED else Action.RELEASE,
                    actor=self.request.user,
                    reason=form.cleaned_data["reason"],
                )
        except ValidationError as exc:
            # The engine names the unit's `status`: here that is the move chosen.
            _on_form(form, exc, {"status": "target"})
            return self.form_invalid(form)
        done = "released from quarantine" if target == Status.AVAILABLE else "quarantined"
        status = unit.get_status_display().lower()
        messages.success(self.request, f"Serial {unit.serial} {done}: it is {status}.")
        return HttpResponseRedirect(reverse("warehouse:unit-detail", args=[unit.pk]))


# --- locations --------------------------------------------------------------------------------


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


# --- the flow forms ---------------------------------------------------------------------------

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


# --- the ledger -------------------------------------------------------------------------------


class MovementListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "stock.view"
    template_name = "warehouse/movement_list.html"
    partial_template_name = "warehouse/_movement_table.html"
    filterset_class = MovementFilter
    export_name = "stock-movements"
    base_export_columns = (
        ("When", lambda m: m.occurred_at),
        ("Kind", lambda m: m.get_kind_display()),
        ("Part", lambda m: m.part.part_number),
        ("Serial", lambda m: m.unit.serial if m.unit_id else ""),
        ("Quantity", lambda m: m.quantity),
        ("From", lambda m: _where(m.from_location)),
        ("To", lambda m: _where(m.to_location)),
        ("Status before", lambda m: m.status_before),
        ("Status after", lambda m: m.status_after),
        ("Customs status", lambda m: m.get_customs_status_display() if m.customs_status else ""),
        ("Customs reference", lambda m: m.customs_reference),
        ("Shipment", lambda m: m.shipment.reference if m.shipment_id else ""),
        ("Owner", lambda m: m.owner.legal_name),
    )

    @property
    def export_columns(self):
        # Who moved the goods is named as the page and the API name them (apps.core.disclosure).
        viewer = self.request.user
        return (
            *self.base_export_columns,
            ("Who", lambda m: recorded_person_label(m.actor, m.actor_label, viewer)),
            ("Reason", lambda m: m.reason),
        )

    def get_queryset(self):
        return (
            Movement.objects.visible_to(self.request.user)
            .select_related(
                "part", "unit", "owner", "from_location__site", "to_location__site", "shipment",
                "actor__organisation",
            )
            .order_by("-occurred_at", "-id")
        )  # fmt: skip


# --- the dashboard ----------------------------------------------------------------------------


def stock_tiles(user) -> list[Tile]:
    """Units in stock, in bond and quarantined (of those the user sees)."""
    if not user.can("stock.view"):
        return []
    url = reverse("warehouse:stock-list")
    counts = UnitPlacement.objects.visible_to(user).aggregate(
        total=Count("pk"),
        in_bond=Count("pk", filter=Q(unit__customs_status=CustomsStatus.IN_BOND)),
        quarantined=Count("pk", filter=Q(unit__status=UnitStatus.QUARANTINED)),
    )
    return [
        Tile(counts["total"], "units in stock", url),
        Tile(counts["in_bond"], "in bond", f"{url}?customs_status={CustomsStatus.IN_BOND}"),
        Tile(counts["quarantined"], "quarantined", f"{url}?status={UnitStatus.QUARANTINED}"),
    ]


# --- links from the shipment page ---------------------------------------------------------------


def _at_warehouse(*sites) -> bool:
    return any(site is not None and site.kind in WAREHOUSE_KINDS for site in sites)


def shipment_page_actions(shipment: Shipment, user) -> list[tuple[str, str]]:
    """`shipments.hooks.register_page_action`: the warehouse pages for this shipment.

    Inbound (it, or one of its legs, ends at a warehouse with locations) and receivable: "Receive
    at warehouse", to whom may receive. Outbound (it, or a leg, leaves from a warehouse): "Allocate"
    while stock may be set aside for it, "Pick" while something allocated waits to be picked,
    "Pack" while picked units wait to be packed. The shipment comes with its page's lines and legs
    (their sites): a user holding no stock capability costs no query."""
    links: list[tuple[str, str]] = []
    legs = list(shipment.legs.all())
    operate, allocate = user.can("stock.operate"), user.can("stock.allocate")
    status = shipment.status
    if operate and status in RECEIVABLE:
        ends = [shipment.destination, *(leg.destination for leg in legs)]
        sites = [site.pk for site in ends if _at_warehouse(site)]
        if sites and Location.objects.filter(site_id__in=sites, is_active=True).exists():
            url = reverse("warehouse:receive-shipment", args=[shipment.reference])
            links.append(("Receive at warehouse", url))
    if not _at_warehouse(shipment.origin, *(leg.origin for leg in legs)):
        return links
    query = f"?shipment={shipment.reference}"
    # Under way, only a consolidation whose next leg has not left its hub yet takes stock.
    gathering = status != ShipmentStatus.IN_TRANSIT or any(
        leg.actual_departure is None and _at_warehouse(leg.origin) for leg in legs
    )
    if allocate and status in services.ALLOCATABLE and gathering and list(shipment.lines.all()):
        links.append(("Allocate stock", reverse("warehouse:allocate") + query))
    if operate and status in services.ALLOCATABLE | services.SHIPPABLE:
        waiting = (
            UnitPlacement.objects.filter(line__shipment=shipment, unit__status=UnitStatus.ALLOCATED).exists()
            or LotAllocation.objects.filter(
                line__shipment=shipment, status=AllocationStatus.ALLOCATED
            ).exists()
        )
        if waiting:
            links.append(("Pick", reverse("warehouse:pick") + query))
        packed = LineSerial.objects.filter(line__shipment=shipment, package__isnull=False).values("unit")
        to_pack = (
            UnitPlacement.objects.filter(line__shipment=shipment, unit__status=UnitStatus.PICKED)
            .exclude(unit__in=packed)
            .exists()
        )
        if to_pack:
            links.append(("Pack", reverse("warehouse:pack", args=[shipment.reference])))
    return links
