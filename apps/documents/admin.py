from django.contrib import admin

from .models import Document


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    """Read-only: documents are generated, issued and voided through the app, never edited or deleted."""

    list_display = (
        "number",
        "version",
        "doc_type",
        "shipment",
        "status",
        "page_count",
        "created_at",
        "issued_at",
    )
    list_filter = ("doc_type", "status")
    search_fields = ("number", "shipment__reference")
    exclude = ("data",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
