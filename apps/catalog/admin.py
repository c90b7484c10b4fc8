from django.contrib import admin
from django.db import models

from apps.core.admin import AuditTrailAdminMixin
from apps.core.forms import BoundedJSONField

from . import services
from .models import Manufacturer, Part, PartTariffCode, Unit


class PartTariffCodeInline(admin.TabularInline):
    model = PartTariffCode
    extra = 1
    fields = ("country", "code", "unit_of_quantity")


@admin.register(Manufacturer)
class ManufacturerAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = ("name", "country", "website")
    search_fields = ("name",)


@admin.register(Part)
class PartAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = (
        "part_number",
        "manufacturer",
        "name",
        "category",
        "unit_value",
        "currency",
        "hs_code",
        "country_of_origin",
        "owner",
    )
    list_filter = (
        "category",
        "manufacturer",
        "is_serialised",
        "contains_lithium_batteries",
        "country_of_origin",
    )
    list_select_related = ("manufacturer", "owner")
    search_fields = ("part_number", "name", "manufacturer__name", "hs_code")
    autocomplete_fields = ("accelerator",)
    formfield_overrides = {models.JSONField: {"form_class": BoundedJSONField}}
    raw_id_fields = ("owner",)
    inlines = (PartTariffCodeInline,)

    def save_model(self, request, obj, form, change):
        if not change:
            return super().save_model(request, obj, form, change)
        # Through the service: compliance answers rest on a part's figures, category and origin.
        fields = {name: form.cleaned_data[name] for name in form.changed_data if name in form.cleaned_data}
        form.instance = services.part_update(part=obj, fields=fields, actor=request.user)


@admin.register(Unit)
class UnitAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Units are made by the services that meet a serial (a shipment line, a receipt): read here,
    changed there, so the one-box-one-place rule cannot be walked past in the admin."""

    list_display = ("serial", "part", "owner", "status", "customs_status")
    list_filter = ("status", "customs_status", "manufacturer")
    search_fields = ("serial", "part__part_number")
    list_select_related = ("part__manufacturer", "owner")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
