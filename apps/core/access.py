"""Browser views that need a capability (`apps.accounts.roles.CAPABILITIES`, read through
`user.can`). Kept in core, below every app, since every app's views use it; the API's
`accounts.permissions.RolePermission` reads the same table."""

from django.contrib.auth.mixins import AccessMixin


class CapabilityRequiredMixin(AccessMixin):
    """Browser views: `capability = "catalog.edit"`; anonymous users go to the login page."""

    capability: str = ""

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        if not request.user.can(self.capability):
            self.raise_exception = True
            return self.handle_no_permission()
        return super().dispatch(request, *args, **kwargs)
