"""Creating a draft shipment (its reference and parties) and changing its terms, route and dates."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.accounts.models import Organisation, User
from apps.core.sequences import next_reference

from .. import hooks, selectors
from ..models import Shipment
from .base import owner_for, require_draft, validated_save
from .parties import party_set


@transaction.atomic
def shipment_create(
    *, actor: User, fields: dict[str, Any], parties: dict[str, Organisation] | None = None
) -> Shipment:
    """Create a draft shipment with a new reference (SHP-YYYY-NNNNNN) and its parties."""
    shipment = Shipment(owner=owner_for(actor), created_by=actor if actor.pk else None, **fields)
    shipment.reference = "pending"
    shipment.full_clean(exclude=["reference"])
    shipment.reference = next_reference("SHP")
    shipment.save()
    for role, organisation in (parties or {}).items():
        if organisation is not None:
            party_set(shipment=shipment, role=role, organisation=organisation, actor=actor)
    selectors.shipment_refresh_eta(shipment)
    return shipment


@transaction.atomic
def shipment_update(*, shipment: Shipment, fields: dict[str, Any]) -> Shipment:
    shipment = Shipment.objects.select_for_update().get(pk=shipment.pk)
    changes_terms = set(fields) - {"instructions", "required_by"}
    if changes_terms:
        require_draft(shipment, "terms, route and dates change")
    before = {name: getattr(shipment, name) for name in changes_terms}
    validated_save(shipment, **fields)
    if changed := sorted(name for name, value in before.items() if getattr(shipment, name) != value):
        labels = ", ".join(str(Shipment._meta.get_field(name).verbose_name) for name in changed)
        hooks.changed(shipment, f"The shipment's {labels} changed.")
    selectors.shipment_refresh_eta(shipment)
    return shipment
