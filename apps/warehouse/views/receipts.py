"""Pages of receiving against an advance notice: the receipts (open ones first), receiving one
inbound shipment, a receipt with its discrepancies and their resolution, and packing picked units
into an outbound shipment's package."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.views import View
from django.views.generic import DetailView, FormView, TemplateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import VIEW
from apps.core.views import FilteredListMixin, ScopedQuerysetMixin, add_service_errors
from apps.shipments.models import Shipment

from ..filters import ReceiptFilter
from ..forms import PackForm, ReceiptForm, ResolveForm
from ..models import Discrepancy, Location, Receipt
from ..services.packing import packable, units_pack
from ..services.receipts import RECEIVABLE, discrepancy_resolve, receipt_record


class ReceiptListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "stock.view"
    template_name = "warehouse/receipt_list.html"
    filterset_class = ReceiptFilter
    export_name = "receipts"
    export_columns = (
        ("Receipt", lambda r: r.reference),
        ("Shipment", lambda r: r.shipment.reference),
        ("Received at", lambda r: str(r.location)),
        ("When", lambda r: r.received_at),
        ("Expected units", lambda r: r.expected_units),
        ("Received units", lambda r: r.received_units),
        ("Status", lambda r: r.get_status_display()),
    )

    def get_queryset(self):
        return (
            Receipt.objects.select_related("shipment", "location__site")
            .visible_to(self.request.user, VIEW)
            .order_by("status", "-received_at", "-pk")  # open first
        )

    def get(self, request, *args, **kwargs):
        # "Receive a shipment": the reference typed or scanned from its paperwork.
        if reference := request.GET.get("receive", "").strip().upper():
            return redirect("warehouse:receive-shipment", reference=reference)
        return super().get(request, *args, **kwargs)


def _receivable(request, reference: str) -> Shipment:
    shipment = Shipment.objects.visible_to(request.user, VIEW).filter(reference=reference).first()
    if shipment is None:
        raise Http404(f"No shipment {reference} that you may see.")
    return shipment


class ShipmentReceiveView(CapabilityRequiredMixin, FormView):
    capability = "stock.operate"
    template_name = "warehouse/receive.html"
    form_class = ReceiptForm

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            self.shipment = _receivable(request, kwargs["reference"])
        return super().dispatch(request, *args, **kwargs)

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"shipment": self.shipment, "user": self.request.user}

    def get_initial(self):
        """From "Expected": the leg that arrives and the warehouse's receiving dock, chosen."""
        initial = super().get_initial()
        if (leg := self.request.GET.get("leg", "")).isdigit():
            initial["leg"] = int(leg)
        if (site := self.request.GET.get("site", "")).isdigit():
            dock = (
                Location.objects.filter(site_id=int(site), is_active=True)
                .order_by("aisle", "zone", "rack", "bin")  # a dock has no aisle: first
                .values_list("pk", flat=True)
                .first()
            )
            if dock:
                initial["location"] = dock
        return initial

    def get_context_data(self, **kwargs):
        lines = list(
            self.shipment.lines.select_related("part")
            .prefetch_related("serials__unit")
            .order_by("line_number")
        )
        packages = list(self.shipment.packages.annotate(serial_count=Count("serials")).order_by("number"))
        return super().get_context_data(
            shipment=self.shipment,
            lines=lines,
            packages=packages,
            expected_serials=sum(len(line.serials.all()) for line in lines),
            receivable=self.shipment.status in RECEIVABLE,
            **kwargs,
        )

    def form_valid(self, form):
        data = form.cleaned_data
        try:
            receipt = receipt_record(
                shipment=self.shipment,
                location=data["location"],
                leg=data["leg"],
                scanned=data["scanned"],
                damaged=data["damaged"],
                counted=form.counted(),
                customs_reference=data["customs_reference"],
                actor=self.request.user,
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
            return self.form_invalid(form)
        open_ = receipt.discrepancies.count()
        messages.success(
            self.request,
            f"{receipt.reference}: {receipt.received_units} of {receipt.expected_units} units received"
            + (f"; {open_} discrepanc{'ies' if open_ > 1 else 'y'} to resolve." if open_ else "."),
        )
        return HttpResponseRedirect(receipt.get_absolute_url())


class ReceiptDetailView(ScopedQuerysetMixin, DetailView):
    capability = "stock.view"
    model = Receipt
    template_name = "warehouse/receipt_detail.html"
    slug_field, slug_url_kwarg = "reference", "receipt"

    def get_queryset(self):
        return (
            super()
            .get_queryset()
            .select_related("shipment", "leg", "location__site", "received_by__organisation")
        )

    def get_context_data(self, **kwargs):
        discrepancies = list(
            self.object.discrepancies.select_related(
                "part", "unit", "line", "resolved_by__organisation"
            ).order_by("resolved_at", "kind", "serial")
        )
        can_resolve = self.request.user.can("stock.operate")
        bound = getattr(self, "bound_form", None)
        for item in discrepancies:
            item.form = None
            if item.is_open and can_resolve:
                refused = bound is not None and bound.prefix == f"d{item.pk}"
                item.form = bound if refused else ResolveForm(discrepancy=item)
        return super().get_context_data(discrepancies=discrepancies, can_resolve=can_resolve, **kwargs)


class ResolveView(CapabilityRequiredMixin, View):
    capability = "stock.operate"

    def post(self, request, receipt, pk):
        reference = receipt
        receipt = get_object_or_404(Receipt.objects.visible_to(request.user, VIEW), reference=reference)
        discrepancy = get_object_or_404(Discrepancy, pk=pk, receipt=receipt)
        form = ResolveForm(request.POST, discrepancy=discrepancy)
        if form.is_valid():
            try:
                discrepancy_resolve(
                    discrepancy=discrepancy,
                    actor=request.user,
                    resolution=form.cleaned_data["resolution"],
                    found=form.cleaned_data.get("found", False),
                    release=form.cleaned_data.get("release", False),
                )
            except ValidationError as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, f"{discrepancy} resolved.")
                return HttpResponseRedirect(
                    reverse("warehouse:receipt-detail", args=[reference]) + "#discrepancies"
                )
        view = ReceiptDetailView()
        view.setup(request, receipt=reference)
        view.bound_form = form
        view.object = view.get_object()
        return view.render_to_response(view.get_context_data(), status=400)


class PackView(CapabilityRequiredMixin, FormView):
    """Pack picked units into a package of an outbound shipment (`services.packing`)."""

    capability = "stock.operate"
    template_name = "warehouse/pack.html"
    form_class = PackForm

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            self.shipment = _receivable(request, kwargs["reference"])
        return super().dispatch(request, *args, **kwargs)

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"placements": packable(self.shipment)}

    def get_context_data(self, **kwargs):
        return super().get_context_data(shipment=self.shipment, **kwargs)

    def form_valid(self, form):
        fields = {name: form.cleaned_data[name] for name in PackForm.Meta.fields}
        try:
            package = units_pack(
                shipment=self.shipment, units=form.chosen_units(), fields=fields, actor=self.request.user
            )
        except ValidationError as exc:
            add_service_errors(form, exc)
            return self.form_invalid(form)
        messages.success(self.request, f"{package} packed: {package.serials.count()} units.")
        return HttpResponseRedirect(reverse("warehouse:pack", args=[self.shipment.reference]))


receipt_urlpatterns = [
    path("pack/<str:reference>/", PackView.as_view(), name="pack"),
    path("receipts/", ReceiptListView.as_view(), name="receipt-list"),
    path("receive/<str:reference>/", ShipmentReceiveView.as_view(), name="receive-shipment"),
    path("receipts/<str:receipt>/", ReceiptDetailView.as_view(), name="receipt-detail"),
    path(
        "receipts/<str:receipt>/discrepancies/<int:pk>/resolve/",
        ResolveView.as_view(),
        name="discrepancy-resolve",
    ),
]
