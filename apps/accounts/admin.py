from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from apps.core.admin import AuditTrailAdminMixin

from . import hooks, services
from .models import ApiToken, Connection, Contact, Organisation, Registration, ServiceCoverage, User


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0


class CoverageInline(admin.TabularInline):
    model = ServiceCoverage
    extra = 0


class ContactInline(admin.TabularInline):
    model = Contact
    extra = 0


@admin.register(Organisation)
class OrganisationAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    list_display = ("legal_name", "kind", "city", "country", "is_active")
    list_filter = ("kind", "country", "is_active")
    search_fields = ("legal_name", "trading_name", "city")
    inlines = [RegistrationInline, CoverageInline, ContactInline]
    # The four-eyes policy is changed by two compliance officers (a request and its approval),
    # never by one administrator here.
    readonly_fields = (
        "compliance_four_eyes",
        "four_eyes_changed_by",
        "four_eyes_approved_by",
        "four_eyes_changed_at",
    )

    def save_model(self, request, obj, form, change):
        if not change:
            return super().save_model(request, obj, form, change)
        # Through the service: a party's names and country are what compliance screens and
        # decides on, and the service tells it which of them changed.
        fields = {name: form.cleaned_data[name] for name in form.changed_data if name in form.cleaned_data}
        services.organisation_update(organisation=obj, fields=fields, actor=request.user)

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is Registration and (
            formset.new_objects or formset.changed_objects or formset.deleted_objects
        ):
            hooks.organisation_changed(form.instance, {"registrations"}, request.user)


@admin.register(Connection)
class ConnectionAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Who works with whom: added or removed, never edited (the audit log keeps both)."""

    list_display = ("organisation_a", "organisation_b", "note", "created_by", "created_at")
    list_select_related = ("organisation_a", "organisation_b", "created_by")
    search_fields = ("organisation_a__legal_name", "organisation_b__legal_name", "note")
    fields = ("organisation_a", "organisation_b", "note")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("organisation_a", "organisation_b", "note", "created_by", "created_at", "audit_trail")

    def get_fields(self, request, obj=None):
        return self.fields if obj is None else self.get_readonly_fields(request, obj)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
            super().save_model(request, obj, form, change)

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)


@admin.register(User)
class UserAdmin(AuditTrailAdminMixin, BaseUserAdmin):
    list_display = ("username", "email", "organisation", "role", "is_active")
    list_filter = ("role", "organisation__kind", "is_active")
    list_select_related = ("organisation",)
    fieldsets = (*BaseUserAdmin.fieldsets, ("Rackpass", {"fields": ("organisation", "role", "audit_trail")}))
    add_fieldsets = (*BaseUserAdmin.add_fieldsets, ("Rackpass", {"fields": ("organisation", "role")}))


@admin.register(ApiToken)
class ApiTokenAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Tokens are created here with the key shown once; they are revoked, never edited."""

    list_display = ("name", "user", "key_prefix", "created_at", "last_used_at", "expires_at", "revoked_at")
    list_filter = ("revoked_at",)
    list_select_related = ("user__organisation",)
    search_fields = ("name", "user__username", "key_prefix")
    actions = ["revoke"]
    fields = ("user", "name", "expires_at")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return (
            "user",
            "name",
            "key_prefix",
            "created_at",
            "expires_at",
            "last_used_at",
            "revoked_at",
            "audit_trail",
        )

    def get_fields(self, request, obj=None):
        return self.fields if obj is None else self.get_readonly_fields(request, obj)

    def save_model(self, request, obj, form, change):
        if change:
            return
        token, key = services.api_token_create(
            user=form.cleaned_data["user"],
            name=form.cleaned_data["name"],
            expires_at=form.cleaned_data["expires_at"],
        )
        form.instance = token
        messages.warning(request, f"API key for {token.user}: {key} — copy it now, it is not shown again.")

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        for token in queryset:
            services.api_token_revoke(token=token)
        self.message_user(request, f"{queryset.count()} token(s) revoked.")
