"""Naming the organisations that act on a shipment (shipper, consignee, importer and exporter of
record …): who may name whom, and the change notice every naming gives."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import Connection, Organisation, OrganisationKind, User

from .. import hooks
from ..models import PartyRole, Shipment, ShipmentParty
from .base import require_draft, validated_save


@transaction.atomic
def party_set(
    *, shipment: Shipment, role: str, organisation: Organisation | None, actor: User | None
) -> ShipmentParty | None:
    """Name (or, with None, remove) the organisation acting in `role` on the shipment.

    Who may name whom: operator staff name any active organisation; a partner names
    parties only on its own shipments, and only its own organisation or one the operator has
    connected it with (`Organisation.objects.nameable_by`). On a partner's shipment every party is
    the owner or connected with it, whoever names it. `actor` None is the system (demo data,
    commands), acting for the operator."""
    if role not in PartyRole.values:
        raise ValidationError(
            {"role": f"Unknown party role {role!r}; use one of {', '.join(PartyRole.values)}."}
        )
    require_draft(shipment, "parties change")
    existing = ShipmentParty.objects.filter(shipment=shipment, role=role).first()
    if existing is not None and organisation is not None and existing.organisation_id == organisation.pk:
        return existing  # unchanged: a party kept as it was is never refused
    check_party(shipment, PartyRole(role), organisation, actor)
    role_label = PartyRole(role).label
    if organisation is None:
        if existing:
            existing.delete()
            hooks.changed(shipment, f"The {role_label.lower()} ({existing.organisation}) was removed.", actor)
        return None
    if existing is None:
        party = validated_save(ShipmentParty(shipment=shipment, role=role, organisation=organisation))
        hooks.changed(shipment, f"{organisation} was named as {role_label.lower()}.", actor)
        return party
    was = existing.organisation
    party = validated_save(existing, organisation=organisation)
    hooks.changed(shipment, f"The {role_label.lower()} changed from {was} to {organisation}.", actor)
    return party


def check_party(
    shipment: Shipment, role: PartyRole, organisation: Organisation | None, actor: User | None
) -> None:
    role_name = role.label.lower()
    if actor is not None and not actor.is_operator_staff:
        if actor.organisation_id != shipment.owner_id:
            raise ValidationError(
                {
                    "organisation": f"Only {shipment.owner} and Rackpass name the parties of "
                    f"{shipment.reference} (here the {role_name})."
                }
            )
        nameable = Organisation.objects.nameable_by(actor)
        if organisation is not None and not nameable.filter(pk=organisation.pk).exists():
            raise ValidationError(
                {
                    "organisation": f"The {role_name} must be your organisation or one Rackpass has "
                    "connected it with."
                }
            )
    if organisation is None:
        return
    if not organisation.is_active:
        raise ValidationError(
            {"organisation": f"{organisation} is deactivated; it cannot be the {role_name}."}
        )
    owner = shipment.owner
    unconnected = (
        owner.kind != OrganisationKind.OPERATOR
        and organisation.pk != owner.pk
        and not Connection.objects.between(owner, organisation).exists()
    )
    if unconnected:
        raise ValidationError(
            {
                "organisation": f"{organisation} cannot be the {role_name} of {shipment.reference}: "
                f"connect {owner} with it first (organisation page, Connections)."
            }
        )
