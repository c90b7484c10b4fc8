from django.contrib import admin

from apps.core.admin import AuditTrailAdminMixin

from . import services
from .models import (
    ComplianceApproval,
    ComplianceCheck,
    CountryDataVersion,
    ImportRequirement,
    Licence,
    PartCertification,
    PartClassification,
    PartyBlock,
    ScreeningList,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written by services (checks, classifications, list editions): shown, never edited here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(CountryDataVersion)
class CountryDataVersionAdmin(ReadOnlyAdmin):
    list_display = ("as_of", "source", "is_active", "loaded_by", "created_at")
    exclude = ("groups", "chart")


@admin.register(PartClassification)
class PartClassificationAdmin(ReadOnlyAdmin):
    list_display = ("part", "eccn", "source", "is_current", "rule_version", "created_at", "created_by")
    list_filter = ("source", "is_current", "eccn")
    search_fields = ("part__part_number", "eccn")
    list_select_related = ("part__manufacturer", "created_by")


@admin.register(ComplianceCheck)
class ComplianceCheckAdmin(ReadOnlyAdmin):
    list_display = ("shipment", "result", "summary", "finished_at")
    list_filter = ("result",)
    search_fields = ("shipment__reference",)


@admin.register(ScreeningList)
class ScreeningListAdmin(ReadOnlyAdmin):
    list_display = ("name", "version", "published", "entry_count", "is_active", "imported_at")


@admin.register(PartyBlock)
class PartyBlockAdmin(ReadOnlyAdmin):
    list_display = ("organisation", "list_kind", "reason", "created_at", "lifted_at")


@admin.register(ComplianceApproval)
class ComplianceApprovalAdmin(ReadOnlyAdmin):
    """Four-eyes decisions: read here, decided only by two compliance officers on the compliance
    pages or the API (approving here would skip the second officer)."""

    list_display = ("kind", "status", "requested_by", "requested_at", "decided_by", "decided_at")
    list_filter = ("kind", "status")
    list_select_related = ("requested_by", "decided_by")


@admin.register(Licence)
class LicenceAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = (
        "number",
        "eccns",
        "destination_countries",
        "licensee",
        "consignee",
        "permitted_quantity",
        "permitted_value",
        "expires_on",
    )
    search_fields = ("number", "eccns")
    list_select_related = ("licensee", "consignee")

    def save_model(self, request, obj, form, change):
        # Through the service, so shipments waiting for this licence are checked again.
        services.licence_save(licence=obj, fields={}, actor=request.user)

    def has_delete_permission(self, request, obj=None):
        # A licence is ended (revoked, surrendered: `licence_expire`, with a reason), never deleted:
        # its drawdowns and the answers that rested on it stay explainable.
        return False


class ThroughServiceAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Saved and deleted through the compliance services (one at a time, bulk deletes included):
    a check reads these records, so each change marks the answers resting on them stale."""

    save_service = delete_service = None

    def save_model(self, request, obj, form, change):
        type(self).save_service(obj, actor=request.user)

    def delete_model(self, request, obj):
        type(self).delete_service(obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)


@admin.register(ImportRequirement)
class ImportRequirementAdmin(ThroughServiceAdmin):
    list_display = ("country", "kind", "scheme", "name", "hs_prefixes", "categories")
    list_filter = ("country", "kind")

    @staticmethod
    def save_service(obj, *, actor):
        services.import_requirement_save(requirement=obj, actor=actor)

    @staticmethod
    def delete_service(obj, *, actor):
        services.import_requirement_delete(requirement=obj, actor=actor)


@admin.register(PartCertification)
class PartCertificationAdmin(ThroughServiceAdmin):
    list_display = ("part", "scheme", "country", "number", "valid_until")
    list_filter = ("scheme", "country")
    raw_id_fields = ("part",)

    @staticmethod
    def save_service(obj, *, actor):
        services.part_certification_save(certification=obj, actor=actor)

    @staticmethod
    def delete_service(obj, *, actor):
        services.part_certification_delete(certification=obj, actor=actor)
