from django.contrib import admin

from .models import AuditEvent


class AuditTrailAdminMixin:
    """Shows the object's audit trail, read-only, on its change page in the admin."""

    readonly_fields = ("audit_trail",)

    @admin.display(description="Audit trail")
    def audit_trail(self, obj):
        from django.utils.html import format_html_join

        if obj is None or obj.pk is None:
            return "—"
        events = AuditEvent.objects.for_object(obj)[:50]
        return (
            format_html_join(
                "\n",
                "<div>{} · {} · {} via {} · {}</div>",
                (
                    (
                        e.timestamp.strftime("%Y-%m-%d %H:%M:%S"),
                        e.get_action_display(),
                        e.actor_label or "—",
                        e.get_channel_display(),
                        e.changes,
                    )
                    for e in events
                ),
            )
            or "—"
        )


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Readable by admins, changeable by nobody."""

    list_display = ("timestamp", "actor_label", "channel", "action", "content_type", "object_repr")
    list_filter = ("channel", "action", "content_type")
    search_fields = ("object_repr", "actor_label", "message")
    date_hierarchy = "timestamp"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
