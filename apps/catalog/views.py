from django.contrib import messages
from django.views.generic import CreateView, DetailView, TemplateView, UpdateView

from apps.core.scoping import CHANGE
from apps.core.views import AuditTrailMixin, FilteredListMixin, ScopedQuerysetMixin, ServiceFormMixin

from .filters import PartFilter
from .forms import PartForm
from .hooks import part_columns, with_part_columns
from .models import Part
from .services import _owner_for, part_create, part_update


class PartListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "catalog.view"
    template_name = "catalog/part_list.html"
    partial_template_name = "catalog/_part_table.html"
    filterset_class = PartFilter
    export_name = "parts"
    base_export_columns = (
        ("Part number", lambda p: p.part_number),
        ("Manufacturer", lambda p: p.manufacturer.name),
        ("Name", lambda p: p.name),
        ("Category", lambda p: p.get_category_display()),
        ("HS code", lambda p: p.hs_code),
        ("Country of origin", lambda p: p.country_of_origin),
        ("Unit value", lambda p: p.unit_value),
        ("Currency", lambda p: p.currency),
        ("Weight (kg)", lambda p: p.unit_weight_kg if p.unit_weight_kg is not None else ""),
        ("Power (W)", lambda p: p.power_draw_w if p.power_draw_w is not None else ""),
        ("Serialised", lambda p: "yes" if p.is_serialised else "no"),
        ("Lithium batteries", lambda p: "yes" if p.contains_lithium_batteries else "no"),
    )

    def get_queryset(self):
        # Columns other apps add (the compliance app's ECCN), read in the same query.
        return with_part_columns(Part.objects.with_related().visible_to(self.request.user))

    @property
    def export_columns(self):
        extra = tuple(
            (column.header, lambda p, a=column.attribute: getattr(p, a, None) or "")
            for column in part_columns()
        )
        return self.base_export_columns + extra

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        columns = part_columns()
        context["part_columns"] = columns
        for part in context["object_list"]:
            part.extra_cells = [getattr(part, c.attribute, None) or c.empty for c in columns]
        return context


class PartDetailView(ScopedQuerysetMixin, AuditTrailMixin, DetailView):
    capability = "catalog.view"
    model = Part
    template_name = "catalog/part_detail.html"

    def get_queryset(self):
        return super().get_queryset().with_related().prefetch_related("tariff_codes")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        user = self.request.user
        context["can_edit"] = (
            user.can("catalog.edit")
            and Part.objects.visible_to(user, "change").filter(pk=self.object.pk).exists()
        )
        return context


class PartCreateView(ScopedQuerysetMixin, ServiceFormMixin, CreateView):
    capability = "catalog.edit"
    model = Part
    form_class = PartForm
    template_name = "catalog/part_form.html"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"owner": _owner_for(self.request.user), "user": self.request.user}

    def save_with_service(self, form):
        fields = {name: form.cleaned_data[name] for name in form.Meta.fields}
        part = part_create(
            actor=self.request.user, fields=fields, tariff_codes=form.cleaned_data["tariff_codes"]
        )
        messages.success(self.request, f"Part {part} added to the catalogue.")
        return part


class PartUpdateView(ScopedQuerysetMixin, ServiceFormMixin, UpdateView):
    scope_action = CHANGE  # editing needs change rights, not just visibility
    capability = "catalog.edit"
    model = Part
    form_class = PartForm
    template_name = "catalog/part_form.html"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def save_with_service(self, form):
        fields = {name: form.cleaned_data[name] for name in form.changed_data if name in form.Meta.fields}
        tariff_codes = form.cleaned_data["tariff_codes"] if "tariff_codes" in form.changed_data else None
        part = part_update(
            part=self.object, fields=fields, tariff_codes=tariff_codes, actor=self.request.user
        )
        messages.success(self.request, f"Part {part} saved.")
        return part
