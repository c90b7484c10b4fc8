from django.contrib import admin

from apps.core.admin import AuditTrailAdminMixin

from .models import (
    DestinationTax,
    ExchangeRate,
    FreightRate,
    HubHandlingRate,
    Leg,
    Package,
    Shipment,
    ShipmentLine,
    ShipmentParty,
    Site,
    TariffRate,
)


@admin.register(Site)
class SiteAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = (
        "name",
        "kind",
        "city",
        "country",
        "iata_code",
        "unlocode",
        "is_bonded",
        "power_mw",
        "owner",
    )
    list_filter = ("kind", "country", "is_bonded", "cooling_liquid")
    search_fields = ("name", "city", "iata_code", "unlocode")


class PartyInline(admin.TabularInline):
    model = ShipmentParty
    extra = 0


class LineInline(admin.TabularInline):
    model = ShipmentLine
    extra = 0
    raw_id_fields = ("part",)
    readonly_fields = ("export_classification",)


class PackageInline(admin.TabularInline):
    model = Package
    extra = 0


class LegInline(admin.TabularInline):
    model = Leg
    extra = 0
    exclude = ("lines",)


@admin.register(Shipment)
class ShipmentAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Status is read-only here: it changes only through the status flow (the shipment page or API)."""

    list_display = ("reference", "status", "origin", "destination", "mode", "incoterm", "required_by", "eta")
    list_filter = ("status", "mode", "incoterm")
    search_fields = ("reference",)
    list_select_related = ("origin", "destination")
    readonly_fields = (
        "reference",
        "status",
        "held_from",
        "hold_kind",
        "hold_reason",
        "status_changed_at",
        "eta",
        "audit_trail",
    )
    inlines = [PartyInline, LineInline, PackageInline, LegInline]

    # Shown, never changed here: a shipment's parties, lines, terms and legs change through the
    # shipment pages and API, whose services check the status allows it, mark the compliance answer
    # stale and check it again. An edit here would walk past all of that.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(HubHandlingRate)
class HubHandlingRateAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = ("site", "price_per_kg", "minimum_charge", "currency", "valid_from", "valid_to")
    list_filter = ("site",)
    list_select_related = ("site",)


@admin.register(FreightRate)
class FreightRateAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = (
        "origin_country",
        "destination_country",
        "mode",
        "service",
        "carrier",
        "price_per_kg",
        "price_40hc",
        "price_per_cbm",
        "minimum_charge",
        "transit_days",
        "valid_from",
        "valid_to",
    )
    list_filter = ("mode", "origin_country", "destination_country")


@admin.register(TariffRate)
class TariffRateAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = ("destination_country", "hs_prefix", "duty_rate", "note")
    list_filter = ("destination_country",)


@admin.register(DestinationTax)
class DestinationTaxAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = (
        "country",
        "valuation_basis",
        "vat_name",
        "vat_rate",
        "levy_on_duty_rate",
        "brokerage_fee",
        "air_freight_cap_of_fob",
        "insurance_of_fob_when_unknown",
    )


@admin.register(ExchangeRate)
class ExchangeRateAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = ("base", "quote", "rate", "valid_on", "source")
    list_filter = ("base", "quote")
    date_hierarchy = "valid_on"
