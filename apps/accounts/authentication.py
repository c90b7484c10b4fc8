"""`Authorization: Token <key>` (or `Bearer <key>`) for partners' API clients."""

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from .models import ApiToken
from .services import api_token_touch
from .throttling import FailedTokenThrottle


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("token", "bearer")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower().decode() not in self.keywords:
            return None
        # An address that keeps failing is refused before the lookup, and every failure counts.
        failures = FailedTokenThrottle()
        if failures.refuses(request):
            raise exceptions.Throttled(failures.wait())
        try:
            return self._authenticate_token(header)
        except exceptions.AuthenticationFailed:
            failures.record_failure()
            raise

    def _authenticate_token(self, header: list[bytes]):
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Token <key>'.")
        try:
            key = header[1].decode()
        except UnicodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token.") from exc
        token = (
            ApiToken.objects.select_related("user__organisation")
            .filter(digest=ApiToken.hash_key(key))
            .first()
        )
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("This token has been revoked.")
        if token.expires_at is not None and token.expires_at <= timezone.now():
            raise exceptions.AuthenticationFailed("This token has expired.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("The token's user is inactive.")
        if not token.user.can_sign_in:
            raise exceptions.AuthenticationFailed("The token's organisation is deactivated.")
        api_token_touch(token=token)
        return token.user, token

    def authenticate_header(self, request):
        return "Token"


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>`: create keys on the API tokens page.",
        }
