"""The design page's shipment-plan and own-or-rent panels, as htmx partials, and the
action that makes the plan's proposals into draft shipments.

Both panels are registered with the design page (`views.panels.register_design_panel`) as a
placeholder that loads the panel from here, so a lane without rates or a missing exchange rate
never breaks the page. `plan_urlpatterns` is included by `urls.py`.

The design is read with `visible_to` (the action: `visible_to(user, CHANGE)`): another
organisation's design is a 404 here as everywhere.
"""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, path, reverse
from django.utils.safestring import SafeString
from django.views import View

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import CHANGE, VIEW

from ..charts.own_or_rent import own_or_rent_chart
from ..models import BillOfMaterials, ClusterDesign
from ..services import own_or_rent, shipment_plan
from .panels import DesignPanel, register_design_panel

PLAN_TEMPLATE = "clusters/panels/shipment_plan.html"
OWN_OR_RENT_TEMPLATE = "clusters/panels/own_or_rent.html"


def _design(request, pk: int, action: str = VIEW) -> ClusterDesign:
    return get_object_or_404(
        ClusterDesign.objects.visible_to(request.user, action).select_related("site", "customer"), pk=pk
    )


def _design_url(design: ClusterDesign, anchor: str) -> str:
    try:
        return reverse("clusters:design-detail", args=[design.pk]) + anchor
    except NoReverseMatch:
        return reverse("clusters:shipment-plan-panel", args=[design.pk])


def _messages(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [f"{field.replace('_', ' ')}: {m}" for field, ms in error.message_dict.items() for m in ms]
    return list(error.messages)


def _refused_status(request) -> int:
    """400 for refused input; 200 to htmx, which does not swap a 4xx response in (its default
    response handling), so that the panel comes back showing the errors by their fields."""
    return 200 if request.headers.get("HX-Request") else 400


def plan_context(request, design: ClusterDesign, **extra) -> dict:
    """The shipment-plan panel: the proposals of the newest BOM, or why there are none."""
    bom = BillOfMaterials.objects.filter(design=design).order_by("-version").first()
    context = {
        "design": design,
        "bom": bom,
        "plan": None,
        "errors": [],
        "made": [],
        "blocked": {},
        # The freight engine's working quotes the operator's rate card (apps/shipments/disclosure.py).
        "rate_card": request.user.is_operator_staff,
        "can_create": request.user.can("shipments.edit")
        and request.user.can("clusters.plan")
        and ClusterDesign.objects.visible_to(request.user, CHANGE).filter(pk=design.pk).exists(),
        **extra,
    }
    if bom is not None and not context["errors"]:
        try:
            plan = shipment_plan.plan_for(bom)
        except ValidationError as error:
            context["errors"] = _messages(error)
        else:
            context["plan"] = plan
            context["made"] = list(shipment_plan.drafts_made(bom, reader=request.user))
            if context["can_create"]:
                # A proposal that cannot become a shipment yet (no site in its origin country …)
                # is shown unticked, with why.
                _, blocked = shipment_plan.origin_sites(plan.proposals, request.user)
                context["blocked"] = {key: " ".join(found) for key, found in blocked.items()}
            # A proposal made already is shown with its drafts; asking again makes none, and says so.
            made_by_key = shipment_plan.drafts_by_proposal(bom, reader=request.user)
            context["rows"] = [
                (p, context["blocked"].get(p.key, ""), made_by_key.get(p.key, [])) for p in plan.proposals
            ]
    return context


class ShipmentPlanPanelView(CapabilityRequiredMixin, View):
    """Proposed shipments by origin and mode, priced on the rate table, each saying why."""

    capability = "clusters.view"
    model = ClusterDesign  # the design named by `pk` (the isolation sweep reads it)

    def get(self, request, pk):
        design = _design(request, pk)
        return render(request, PLAN_TEMPLATE, plan_context(request, design))


class ShipmentPlanCreateView(CapabilityRequiredMixin, View):
    """Make the ticked proposals into draft shipments (all or nothing)."""

    capability = "shipments.edit"
    model = ClusterDesign  # the design named by `pk` (the isolation sweep reads it)

    def post(self, request, pk):
        if not request.user.can("clusters.plan"):
            raise PermissionDenied
        design = _design(request, pk, CHANGE)
        bom = BillOfMaterials.objects.filter(design=design).order_by("-version").first()
        if bom is None:
            errors = ["The design has no bill of materials yet: size it and make one."]
            context = plan_context(request, design, errors=errors)
            return render(request, PLAN_TEMPLATE, context, status=_refused_status(request))
        chosen = [key for key in request.POST.getlist("proposals") if key]
        if not chosen:
            context = plan_context(request, design)
            context["errors"] = ["proposals: tick at least one proposal to make into a draft shipment."]
            return render(request, PLAN_TEMPLATE, context, status=_refused_status(request))
        try:
            result = shipment_plan.shipments_create_from_plan(
                bom=bom, actor=request.user, proposals=chosen, again=request.POST.get("again") == "on"
            )
        except ValidationError as error:
            context = plan_context(request, design)
            context["errors"] = _messages(error)
            return render(request, PLAN_TEMPLATE, context, status=_refused_status(request))
        already = already_text(bom, result.already)
        if not request.headers.get("HX-Request"):
            if result.made:
                references = ", ".join(s.reference for s in result.made)
                messages.success(request, f"Draft shipments made: {references}.")
            if already:
                messages.info(request, already)
            return HttpResponseRedirect(_design_url(design, "#shipment-plan"))
        context = plan_context(request, design, created=result.made, already=already)
        return render(request, PLAN_TEMPLATE, context)


def already_text(bom: BillOfMaterials, already: dict[str, list[str]]) -> str:
    """What asking again found made, in words ("" when nothing was)."""
    if not already:
        return ""
    found = "; ".join(f"{key} ({', '.join(refs)})" for key, refs in already.items())
    return f"Already made from version {bom.version}'s plan, not made again: {found}."


class OwnOrRentForm(forms.Form):
    gpu_hour_price = forms.DecimalField(
        label="Rent price per GPU-hour",
        max_digits=12,
        decimal_places=4,
        help_text="In the hardware's currency.",
    )
    support_rate = forms.DecimalField(
        label="Support a year (% of hardware)",
        max_digits=6,
        decimal_places=2,
        initial=own_or_rent.DEFAULT_SUPPORT_RATE,
        required=False,
    )
    months = forms.IntegerField(label="Months", initial=own_or_rent.DEFAULT_MONTHS, required=False)
    utilisation = forms.DecimalField(
        label="Utilisation (%)",
        max_digits=6,
        decimal_places=2,
        initial=own_or_rent.DEFAULT_UTILISATION,
        required=False,
        help_text="The share of the owned GPU-hours you would rent.",
    )
    input_tax_credit = forms.BooleanField(
        label="Claim the import VAT/GST back as input-tax credit",
        required=False,
        help_text="Where the buyer is registered for it: then the import tax is paid and credited back, "
        "a timing cost, not a sunk cost.",
    )
    credit_month = forms.IntegerField(
        label="Credited in month",
        initial=own_or_rent.DEFAULT_CREDIT_MONTH,
        required=False,
        min_value=0,
        max_value=600,
        help_text="1: set against the next month's output tax.",
    )

    def clean_gpu_hour_price(self) -> Decimal:
        value = self.cleaned_data["gpu_hour_price"]
        if value is not None and value <= 0:
            raise ValidationError("The price per GPU-hour must be greater than 0.")
        return value

    def clean_months(self) -> int:
        value = self.cleaned_data.get("months")
        if value is None:
            return own_or_rent.DEFAULT_MONTHS
        if value <= 0:
            raise ValidationError("The number of months must be greater than 0.")
        if value > 600:
            raise ValidationError("At most 600 months (50 years).")
        return value

    def clean_support_rate(self) -> Decimal:
        value = self.cleaned_data.get("support_rate")
        if value is None:
            return own_or_rent.DEFAULT_SUPPORT_RATE
        if not 0 <= value <= 100:
            raise ValidationError("The yearly support rate is a percentage from 0 to 100.")
        return value

    def clean_utilisation(self) -> Decimal:
        value = self.cleaned_data.get("utilisation")
        if value is None:
            return own_or_rent.DEFAULT_UTILISATION
        if not 0 < value <= 100:
            raise ValidationError("Utilisation is a percentage above 0, at most 100.")
        return value


def own_or_rent_context(request, design: ClusterDesign, data=None) -> tuple[dict, int]:
    """The panel's form and, once a price is given, the answer and its chart; the HTTP status.
    The input-tax credit is offered ticked where the buyer can claim it, and not offered where it
    cannot (the panel says why)."""
    claimable, reason, rule = own_or_rent.input_tax_claimable(design)
    form = (
        OwnOrRentForm(data, prefix="oor")
        if data
        else OwnOrRentForm(prefix="oor", initial={"input_tax_credit": claimable})
    )
    form.fields["input_tax_credit"].label = f"Claim the {rule.tax} back as input-tax credit"
    if not claimable:
        del form.fields["input_tax_credit"], form.fields["credit_month"]
    context = {
        "design": design,
        "form": form,
        "answer": None,
        "chart": None,
        "errors": [],
        "input_tax": {"claimable": claimable, "reason": reason, "rule": rule},
    }
    status = 200
    if data and form.is_valid():
        fields = dict(form.cleaned_data)
        fields.setdefault("input_tax_credit", False)
        try:
            answer = own_or_rent.own_or_rent_for(design, **fields)
        except ValidationError as error:
            context["errors"] = _messages(error)
            status = 400
        else:
            context["answer"] = answer
            context["chart"] = SafeString(own_or_rent_chart(answer.result))
    elif data:
        status = 400
    return context, status


class OwnOrRentPanelView(CapabilityRequiredMixin, View):
    """Own against rent, month by month: the form, and the chart once a price is given."""

    capability = "clusters.view"
    model = ClusterDesign  # the design named by `pk` (the isolation sweep reads it)

    def get(self, request, pk):
        design = _design(request, pk)
        data = request.GET if any(key.startswith("oor-") for key in request.GET) else None
        context, status = own_or_rent_context(request, design, data)
        if status == 400:
            status = _refused_status(request)
        return render(request, OWN_OR_RENT_TEMPLATE, context, status=status)


def _lazy(request, design) -> dict | None:
    """The design page draws a placeholder that loads the panel (never None: the panel itself
    says when there is no bill of materials)."""
    return {"lazy": True}


register_design_panel(
    DesignPanel(key="shipment-plan", title="Shipment plan", template=PLAN_TEMPLATE, context=_lazy, order=30)
)
register_design_panel(
    DesignPanel(
        key="own-or-rent", title="Own or rent", template=OWN_OR_RENT_TEMPLATE, context=_lazy, order=50
    )
)

plan_urlpatterns = [
    path("<int:pk>/shipment-plan/", ShipmentPlanPanelView.as_view(), name="shipment-plan-panel"),
    path("<int:pk>/shipment-plan/drafts/", ShipmentPlanCreateView.as_view(), name="shipment-plan-create"),
    path("<int:pk>/own-or-rent/", OwnOrRentPanelView.as_view(), name="own-or-rent-panel"),
]
