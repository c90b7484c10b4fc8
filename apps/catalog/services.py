"""Writes to the catalogue. Views and serializers parse input; these functions decide and save."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.core.hscodes import normalise_hs_code

from . import hooks
from .models import Manufacturer, Part, PartTariffCode


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
def part_create(
    *, actor: User, fields: dict[str, Any], tariff_codes: Iterable[dict[str, str]] | None = None
) -> Part:
    """Add a part to the catalogue of the actor's organisation. Raises ValidationError naming fields."""
    part = Part(owner=_owner_for(actor), **fields)
    part.full_clean()
    part.save()
    if tariff_codes is not None:
        part_tariff_codes_set(part=part, tariff_codes=tariff_codes)
    return part


@transaction.atomic
def part_update(
    *,
    part: Part,
    fields: dict[str, Any],
    tariff_codes: Iterable[dict[str, str]] | None = None,
    actor: User | None = None,
) -> Part:
    """Change a part; with `tariff_codes`, its national tariff codes become exactly those given.
    Higher apps hear which facts changed (`hooks.on_part_change`: compliance re-checks the open
    shipments carrying it)."""
    part = Part.objects.select_for_update().get(pk=part.pk)
    before = {name: getattr(part, name) for name in fields}
    for name, value in fields.items():
        setattr(part, name, value)
    part.full_clean()
    part.save()
    hooks.part_changed(part, {name for name, value in before.items() if getattr(part, name) != value}, actor)
    if tariff_codes is not None:
        part_tariff_codes_set(part=part, tariff_codes=tariff_codes)
    elif "hs_code" in fields:
        # A changed HS code must still be what every national code extends.
        for tariff_code in part.tariff_codes.all():
            try:
                tariff_code.full_clean()
            except ValidationError as exc:
                raise ValidationError(
                    {
                        "hs_code": f"{tariff_code.country} tariff code {tariff_code.code}: "
                        + " ".join(exc.message_dict.get("code", exc.messages))
                    }
                ) from exc
    return part


@transaction.atomic
def part_tariff_codes_set(*, part: Part, tariff_codes: Iterable[dict[str, str]]) -> list[PartTariffCode]:
    """Make the part's national tariff codes exactly these ({country, code, unit_of_quantity?}).

    Raises ValidationError on `tariff_codes`, naming the entry, and saves none of them."""
    wanted: dict[str, PartTariffCode] = {}
    errors: list[str] = []
    existing = {t.country: t for t in part.tariff_codes.select_for_update()}
    for entry in tariff_codes:
        country = (entry.get("country") or "").strip().upper()
        if country in wanted:
            errors.append(f"{country}: one tariff code per country.")
            continue
        tariff_code = existing.get(country) or PartTariffCode(part=part, country=country)
        tariff_code.code = normalise_hs_code(entry.get("code") or "")
        tariff_code.unit_of_quantity = entry.get("unit_of_quantity") or tariff_code.unit_of_quantity or "NO"
        try:
            tariff_code.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            errors.extend(
                f"{country or '?'} {tariff_code.code}: {message}"
                for messages in exc.message_dict.values()
                for message in messages
            )
            continue
        wanted[country] = tariff_code
    if errors:
        raise ValidationError({"tariff_codes": errors})
    part.tariff_codes.exclude(country__in=list(wanted)).delete()
    for tariff_code in wanted.values():
        tariff_code.save()
    return sorted(wanted.values(), key=lambda t: t.country)


@transaction.atomic
def part_delete(*, part: Part) -> None:
    """Delete a part no shipment or bill of materials refers to (PROTECT foreign keys enforce it)."""
    part.delete()
