"""Browser pages of the stock: on hand (units and lots, with value and days in stock), a lot's
adjustment, where a unit is and its history, quarantine, the movement ledger, the dashboard's
tiles and the warehouse links on a shipment's page. The forms read; the services decide.
Locations are in `locations.py`, the flow forms (receive, move, allocate, pick, ship) in `flow.py`."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, DecimalField, ExpressionWrapper, F, Q, Sum
from django.db.models.functions import Lower
from django.http import HttpResponseRedirect
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
from apps.core.scoping import CHANGE
from apps.core.views import FilteredListMixin, ScopedQuerysetMixin
from apps.shipments.models import LineSerial, Shipment, ShipmentStatus

from .. import services
from ..engines import unit_flow
from ..engines.unit_flow import Action, Status
from ..filters import LotFilter, MovementFilter, StockFilter
from ..forms import LotAdjustForm, UnitStatusForm
from ..models import WAREHOUSE_KINDS, AllocationStatus, Location, Lot, LotAllocation, Movement, UnitPlacement
from ..paging import KeysFirstPaginator
from ..selectors import visible_units
from .flow import _on_form

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
    if operate and status in services.RECEIVABLE:
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
