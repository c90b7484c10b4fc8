"""Writes for organisations, users and API tokens. Each validates fully and saves atomically."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone

from .models import ApiToken, Contact, Organisation, Registration, User


def _apply(instance, fields: dict[str, Any]):
    for name, value in fields.items():
        setattr(instance, name, value)
    instance.full_clean()
    instance.save()
    return instance


@transaction.atomic
def organisation_create(*, fields: dict[str, Any]) -> Organisation:
    return _apply(Organisation(), fields)


@transaction.atomic
def organisation_update(*, organisation: Organisation, fields: dict[str, Any]) -> Organisation:
    organisation = Organisation.objects.select_for_update().get(pk=organisation.pk)
    return _apply(organisation, fields)


@transaction.atomic
def registration_create(*, organisation: Organisation, fields: dict[str, Any]) -> Registration:
    return _apply(Registration(organisation=organisation), fields)


@transaction.atomic
def contact_create(*, organisation: Organisation, fields: dict[str, Any]) -> Contact:
    contact = _apply(Contact(organisation=organisation), fields)
    if contact.is_primary:
        # One primary contact per organisation; the newest wins.
        for other in organisation.contacts.filter(is_primary=True).exclude(pk=contact.pk):
            other.is_primary = False
            other.save(update_fields=["is_primary", "updated_at"])
    return contact


@transaction.atomic
def api_token_create(*, user: User, name: str, expires_at: dt.datetime | None = None) -> tuple[ApiToken, str]:
    """Create a token for `user`; returns the token and its key, which is never retrievable again."""
    key = ApiToken.generate_key()
    token = ApiToken(
        user=user,
        name=name.strip(),
        key_prefix=key[: len(ApiToken.PREFIX) + 6],
        digest=ApiToken.hash_key(key),
        expires_at=expires_at,
    )
    token.full_clean()
    token.save()
    return token, key


@transaction.atomic
def api_token_revoke(*, token: ApiToken) -> ApiToken:
    token = ApiToken.objects.select_for_update().get(pk=token.pk)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def api_token_touch(*, token: ApiToken) -> None:
    """Remember when a token was last used, writing at most once a minute per token."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > dt.timedelta(minutes=1):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
