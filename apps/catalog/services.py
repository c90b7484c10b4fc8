"""Writes to the catalogue. Views and serializers parse input; these functions decide and save."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.accounts.models import Organisation, OrganisationKind, User

from .models import Manufacturer, Part


def _owner_for(actor: User) -> Organisation:
    if actor.organisation_id:
        return actor.organisation
    # A superuser created on the command line has no organisation: they act for the operator.
    return Organisation.objects.get(kind=OrganisationKind.OPERATOR)


@transaction.atomic
def manufacturer_get_or_create(*, name: str, country: str = "") -> Manufacturer:
    name = name.strip()
    manufacturer = Manufacturer.objects.filter(name__iexact=name).first()
    if manufacturer is None:
        manufacturer = Manufacturer(name=name, country=country)
        manufacturer.full_clean()
        manufacturer.save()
    return manufacturer


@transaction.atomic
def part_create(*, actor: User, fields: dict[str, Any]) -> Part:
    """Add a part to the catalogue of the actor's organisation. Raises ValidationError naming fields."""
    part = Part(owner=_owner_for(actor), **fields)
    part.full_clean()
    part.save()
    return part


@transaction.atomic
def part_update(*, part: Part, fields: dict[str, Any]) -> Part:
    part = Part.objects.select_for_update().get(pk=part.pk)
    for name, value in fields.items():
        setattr(part, name, value)
    part.full_clean()
    part.save()
    return part


@transaction.atomic
def part_delete(*, part: Part) -> None:
    """Delete a part no shipment or bill of materials refers to (PROTECT foreign keys enforce it)."""
    part.delete()
