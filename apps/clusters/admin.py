"""Admin pages. Designs are edited here like elsewhere (full_clean runs through the model form);
runs and bills of materials change only through the services, so the admin shows them read-only."""

from django.contrib import admin

from apps.core.admin import AuditTrailAdminMixin

from .models import BillOfMaterials, BomLine, ClusterDesign, SizingRun


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ClusterDesign)
class ClusterDesignAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = ("name", "owner", "customer", "site", "system", "gpus", "cooling", "updated_at")
    list_filter = ("cooling", "compute_fabric")
    search_fields = ("name", "customer__legal_name", "site__name")
    list_select_related = ("owner", "customer", "site", "system__manufacturer")
    raw_id_fields = (
        "owner", "customer", "site", "created_by", "system", "compute_switch", "compute_node_optic",
        "compute_switch_optic", "compute_cable", "storage_appliance", "storage_switch", "storage_cable",
        "inband_switch", "oob_switch", "rack", "pdu", "cdu",
    )  # fmt: skip


@admin.register(SizingRun)
class SizingRunAdmin(AuditTrailAdminMixin, ReadOnlyAdmin):
    list_display = ("design", "number", "status", "engine_version", "started_by", "finished_at")
    list_filter = ("status",)
    search_fields = ("design__name", "task_id")
    list_select_related = ("design", "started_by")


class BomLineInline(admin.TabularInline):
    model = BomLine
    extra = 0
    fields = ("role", "part", "quantity", "engine_quantity", "figure", "note")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(BillOfMaterials)
class BillOfMaterialsAdmin(AuditTrailAdminMixin, ReadOnlyAdmin):
    list_display = ("design", "version", "status", "run", "issued_at")
    list_filter = ("status",)
    search_fields = ("design__name",)
    list_select_related = ("design", "run__design")
    inlines = [BomLineInline]
