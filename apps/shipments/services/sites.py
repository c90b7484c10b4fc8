"""Sites (warehouses, airports, seaports, customer sites) and the rates freight is priced with:
lane freight rates and dated exchange rates."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.accounts.models import User

from ..models import ExchangeRate, FreightRate, Site
from .base import owner_for, validated_save


@transaction.atomic
def site_create(*, actor: User, fields: dict[str, Any]) -> Site:
    return validated_save(Site(owner=owner_for(actor)), **fields)


@transaction.atomic
def site_update(*, site: Site, fields: dict[str, Any]) -> Site:
    return validated_save(Site.objects.select_for_update().get(pk=site.pk), **fields)


@transaction.atomic
def freight_rate_save(*, rate: FreightRate, fields: dict[str, Any]) -> FreightRate:
    """Create or change a lane's rate; the model checks prices fit the mode and dates are in order."""
    return validated_save(rate, **fields)


@transaction.atomic
def exchange_rate_save(*, rate: ExchangeRate, fields: dict[str, Any]) -> ExchangeRate:
    """Create or change a dated exchange rate; the model checks two currencies and a positive rate."""
    return validated_save(rate, **fields)
