"""Read-only admin pages: warehouse stock changes only through the services (and the ledger is
append-only), so the admin shows and never edits."""

from django.contrib import admin

from apps.core.admin import AuditTrailAdminMixin

from .models import Location, Lot, LotAllocation, Movement, UnitPlacement


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Location)
class LocationAdmin(AuditTrailAdminMixin, ReadOnlyAdmin):
    list_display = ("site", "zone", "aisle", "rack", "bin", "is_active")
    list_filter = ("site", "is_active")
    search_fields = ("site__name", "zone", "aisle", "rack", "bin")
    list_select_related = ("site",)


@admin.register(Lot)
class LotAdmin(ReadOnlyAdmin):
    list_display = (
        "part",
        "location",
        "owner",
        "customs_status",
        "customs_reference",
        "quantity",
        "allocated",
    )
    list_filter = ("customs_status", "location__site")
    search_fields = ("part__part_number", "customs_reference", "owner__legal_name")
    list_select_related = ("part", "location__site", "owner")


@admin.register(LotAllocation)
class LotAllocationAdmin(ReadOnlyAdmin):
    list_display = ("lot", "line", "quantity", "status")
    list_filter = ("status",)
    list_select_related = ("lot__part", "lot__location__site", "line")


@admin.register(UnitPlacement)
class UnitPlacementAdmin(ReadOnlyAdmin):
    list_display = ("unit", "location", "customs_reference", "line")
    search_fields = ("unit__serial", "customs_reference")
    list_select_related = ("unit__part", "location__site", "line")


@admin.register(Movement)
class MovementAdmin(ReadOnlyAdmin):
    """The movement ledger: readable by admins, changeable by nobody."""

    list_display = (
        "occurred_at",
        "kind",
        "part",
        "unit",
        "quantity",
        "from_location",
        "to_location",
        "actor_label",
        "customs_reference",
        "reason",
    )
    list_filter = ("kind", "customs_status")
    search_fields = ("unit__serial", "part__part_number", "customs_reference", "reason", "actor_label")
    date_hierarchy = "occurred_at"
    list_select_related = ("part", "unit__part", "from_location__site", "to_location__site")
