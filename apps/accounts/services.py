"""Writes for organisations, users and API tokens. Each validates fully and saves atomically."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from . import hooks
from .models import ApiToken, Connection, Contact, Organisation, Registration, User


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
def organisation_update(
    *, organisation: Organisation, fields: dict[str, Any], actor: User | None = None
) -> Organisation:
    organisation = Organisation.objects.select_for_update().get(pk=organisation.pk)
    before = {name: getattr(organisation, name) for name in fields}
    organisation = _apply(organisation, fields)
    # Higher apps re-read what rests on the organisation's facts (compliance: its screening).
    changed = {n for n, v in before.items() if getattr(organisation, n) != v}
    hooks.organisation_changed(organisation, changed, actor)
    return organisation


@transaction.atomic
def registration_create(
    *, organisation: Organisation, fields: dict[str, Any], actor: User | None = None
) -> Registration:
    registration = _apply(Registration(organisation=organisation), fields)
    hooks.organisation_changed(organisation, {"registrations"}, actor)
    return registration


@transaction.atomic
def contact_create(*, organisation: Organisation, fields: dict[str, Any]) -> Contact:
    """Add a person to an organisation; `is_signatory` makes them sign its trade documents
    (they then need a job title)."""
    return _one_primary(_apply(Contact(organisation=organisation), fields))


@transaction.atomic
def contact_update(*, contact: Contact, fields: dict[str, Any]) -> Contact:
    """Change a contact (e.g. name them an authorised signatory); it stays with its organisation."""
    contact = Contact.objects.select_for_update().get(pk=contact.pk)
    fields = {name: value for name, value in fields.items() if name != "organisation"}
    return _one_primary(_apply(contact, fields))


def _one_primary(contact: Contact) -> Contact:
    if contact.is_primary:
        # One primary contact per organisation; the newest wins.
        for other in contact.organisation.contacts.filter(is_primary=True).exclude(pk=contact.pk):
            other.is_primary = False
            other.save(update_fields=["is_primary", "updated_at"])
    return contact


@transaction.atomic
def connection_create(
    *, actor: User | None, organisation: Organisation, other: Organisation, note: str = ""
) -> Connection:
    """Record that two organisations work together, so each may name the other as a party.

    Operator staff with `connections.manage` only (`actor` None: a management command). The
    operator is never connected: it works with every organisation already."""
    _require_connection_keeper(actor)
    if Connection.objects.between(organisation, other).exists():
        raise ValidationError({"organisation": f"{organisation} and {other} are connected already."})
    connection = Connection(
        organisation_a=organisation,
        organisation_b=other,
        note=note.strip(),
        created_by=actor if actor is not None and actor.pk else None,
    )
    try:
        connection.full_clean()  # orders the pair; refuses an organisation with itself, the operator
    except ValidationError as exc:
        raise ValidationError({"organisation": exc.messages}) from exc
    connection.save()
    return connection


@transaction.atomic
def connection_remove(*, connection: Connection, actor: User | None) -> None:
    """End a connection: from now on neither names the other, and each stops reaching the other's
    shipments as a party (`Shipment.org_scope_q`). The audit log keeps the record."""
    _require_connection_keeper(actor)
    connection.delete()


def _require_connection_keeper(actor: User | None) -> None:
    if actor is not None and not (actor.is_operator_staff and actor.can("connections.manage")):
        raise ValidationError(
            {"organisation": "Only the operator's coordinators and administrators connect organisations."}
        )


@transaction.atomic
def api_token_create(*, user: User, name: str, expires_at: dt.datetime | None = None) -> tuple[ApiToken, str]:
    """Create a token for `user`; returns the token and its key, which is never retrievable again.

    An expiry must lie ahead: a token created already expired could never be used."""
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationError(
            {"expires_at": "The expiry must be in the future; leave it empty for no expiry."}
        )
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
