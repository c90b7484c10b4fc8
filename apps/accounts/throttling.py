"""Rate limits per API token (a partner with three integrations has three budgets), failed token
authentications per client address, and the one rule for what a client's address is."""

from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from .models import ApiToken


def client_address(request: HttpRequest) -> str | None:
    """The client's address: REMOTE_ADDR, or with REST_FRAMEWORK["NUM_PROXIES"] = n the address the
    nearest of n trusted proxies saw (X-Forwarded-For). Sign-in lockouts (AXES_CLIENT_IP_CALLABLE)
    and the API throttles count against the same address."""
    return BaseThrottle().get_ident(request)


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


class FailedTokenThrottle(SimpleRateThrottle):
    """Failed token authentications per client address (`token_failure` rate).

    DRF throttles run after authentication, so a request with a bad token never reaches them;
    `ApiTokenAuthentication` asks this one first (`refuses`, a cache read, no database query) and
    records each failure (`record_failure`). Best effort across processes, as DRF's throttles are.
    """

    scope = "token_failure"
    shipped_rate = "30/minute"

    def get_rate(self):
        # Read at each request (not DRF's import-time copy), and never off because a settings
        # override left the scope out: a missing rate is the shipped one.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope, self.shipped_rate)

    def get_cache_key(self, request, view=None):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def refuses(self, request) -> bool:
        if self.rate is None:
            return False
        self.key = self.get_cache_key(request)
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def record_failure(self) -> None:
        if self.rate is None:
            return
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)
