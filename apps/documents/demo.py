"""The documents' part of the demo: the shipments demo books only with the required documents
issued (registered in apps.py, as booking asks in real use)."""

from __future__ import annotations

from apps.accounts.models import User
from apps.shipments.models import Shipment

from .services import documents_issue_required


def issue_required(shipment: Shipment, moved_by: User) -> Shipment:
    """Before the demo books `shipment`: issue its required documents as the one who books it."""
    documents_issue_required(shipment=shipment, actor=moved_by)
    return shipment
