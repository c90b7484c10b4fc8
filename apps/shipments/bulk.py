"""Shipments' own bulk action on the list: cancel the selected drafts (see `hooks.bulk_action`)."""

from __future__ import annotations

from django.db import transaction

from apps.accounts.models import User

from . import services
from .hooks import BulkAction, BulkResult
from .models import Shipment, ShipmentStatus


def shipments_cancel_drafts(*, shipments: list[Shipment], actor: User, reason: str) -> BulkResult:
    """Cancel each selected shipment that is a draft, through `shipment_transition` (its guards, its
    hooks — documents supersedes the drafts — and its audit). Anything past draft is left alone and
    named: cancelling a booked shipment is a decision for its own page, not a tick in a list."""
    done: list[str] = []
    refused: list[tuple[str, str]] = []
    for shipment in sorted(shipments, key=lambda s: s.pk):  # locks in key order: no deadlock
        try:
            with transaction.atomic():
                # The status under the row lock: a shipment booked since the list was drawn stays booked.
                status = ShipmentStatus(
                    Shipment.objects.select_for_update().values_list("status", flat=True).get(pk=shipment.pk)
                )
                if status != ShipmentStatus.DRAFT:
                    refused.append((shipment.reference, f"it is {status.label.lower()}"))
                    continue
                services.shipment_transition(
                    shipment=shipment, target=ShipmentStatus.CANCELLED, actor=actor, reason=reason
                )
        except services.TransitionRefused as exc:
            refused.append((shipment.reference, " ".join(str(r) for r in exc.reasons)))
            continue
        done.append(shipment.reference)
    return BulkResult(done=done, refused=refused)


CANCEL_DRAFTS = BulkAction(
    name="cancel_drafts",
    label="Cancel selected drafts",
    capability="shipments.cancel",
    run=shipments_cancel_drafts,
    done=("draft cancelled", "drafts cancelled"),
    not_done="not cancelled",
    needs_reason=True,
    danger=True,
)
