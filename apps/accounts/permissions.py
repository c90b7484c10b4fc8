"""Role checks for the API and the browser, both reading `roles.CAPABILITIES`."""

from rest_framework import permissions


class RolePermission(permissions.BasePermission):
    """Views declare `capabilities = {"read": "...", "write": "..."}` (or per action name).

    A view that declares nothing is refused: forgetting to say who may use it must not open it.
    """

    message = "Your role does not allow this."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        capabilities = getattr(view, "capabilities", None)
        if capabilities is None:
            return False
        action = getattr(view, "action", None)
        capability = capabilities.get(action) if action else None
        if capability is None:
            capability = capabilities["read" if request.method in permissions.SAFE_METHODS else "write"]
        return user.can(capability)
