"""What every shipments service shares: whose a new record is, the draft-only rule, and saving
a record only once it validates."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from apps.accounts.models import Organisation, OrganisationKind, User

from ..models import Shipment, ShipmentStatus


def owner_for(actor: User) -> Organisation:
    if actor.organisation_id:
        return actor.organisation
    return Organisation.objects.get(kind=OrganisationKind.OPERATOR)


def require_draft(shipment: Shipment, what: str) -> None:
    if shipment.status != ShipmentStatus.DRAFT:
        raise ValidationError(
            {
                "shipment": f"{shipment.reference} is {shipment.get_status_display().lower()}; "
                f"{what} only in draft."
            }
        )


def validated_save(instance, **fields):
    for name, value in fields.items():
        setattr(instance, name, value)
    instance.full_clean()
    instance.save()
    return instance
