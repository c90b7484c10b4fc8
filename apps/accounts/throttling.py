"""Rate limits per API token (a partner with three integrations has three budgets)."""

from rest_framework.throttling import SimpleRateThrottle

from .models import ApiToken


class TokenRateThrottle(SimpleRateThrottle):
    scope = "token"

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiToken):
            ident = f"token-{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:
            ident = f"anon-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
