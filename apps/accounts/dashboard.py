"""Accounts' part of the dashboard (apps/core/dashboard.py): organisations and the user's API tokens."""

from django.template.defaultfilters import pluralize
from django.urls import reverse

from apps.core.dashboard import Tile

from .models import ApiToken, Organisation


def account_tiles(user) -> list[Tile]:
    organisations = Organisation.objects.visible_to(user).count()
    tokens = ApiToken.objects.active().filter(user=user).count()
    return [
        Tile(organisations, f"organisation{pluralize(organisations)}", reverse("accounts:organisation-list")),
        Tile(tokens, f"active API token{pluralize(tokens)}", reverse("accounts:token-list")),
    ]
