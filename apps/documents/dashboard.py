"""The coordinator's documents work on the dashboard (apps/core/dashboard.py): approved shipments
waiting for documents, and those ready to book.

An approved shipment is booked once its required documents are issued. Which documents are
required is worked out per shipment from its route, parties and classifications
(`builder.document_requirements`), too much to count for every shipment in a fixed number of
queries; the tiles use what every shipment needs and what is under way instead:

- *waiting for documents*: approved, and its commercial invoice or packing list (required of every
  shipment) is not issued, or a draft of any document waits to be issued;
- *ready to book*: approved, both issued and no draft waiting.

Booking itself still checks every required document (`services.booking_problems`), so a shipment
counted ready whose end-user statement was never generated is refused with that reason.
Each condition is registered for the shipments list's `needs=` filter, which the tiles link to.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q
from django.urls import reverse

from apps.core.dashboard import Tile
from apps.shipments import hooks as shipment_hooks
from apps.shipments.models import Shipment, ShipmentStatus
from apps.shipments.selectors import need_counts

from .models import Document, DocumentStatus, DocumentType

# Required of every shipment, whatever its route (builder/requirements.py).
ALWAYS_REQUIRED = (DocumentType.COMMERCIAL_INVOICE, DocumentType.PACKING_LIST)


def _documents_in_hand_q() -> Q:
    documents = Document.objects.filter(shipment=OuterRef("pk"))
    issued = Q()
    for doc_type in ALWAYS_REQUIRED:
        issued &= Q(Exists(documents.filter(doc_type=doc_type, status=DocumentStatus.ISSUED)))
    return issued & ~Q(Exists(documents.filter(status=DocumentStatus.DRAFT)))


def awaiting_documents_q(user=None) -> Q:
    return Q(status=ShipmentStatus.APPROVED) & ~_documents_in_hand_q()


def ready_to_book_q(user=None) -> Q:
    return Q(status=ShipmentStatus.APPROVED) & _documents_in_hand_q()


shipment_hooks.need_condition("awaiting_documents", awaiting_documents_q)
shipment_hooks.need_condition("ready_to_book", ready_to_book_q)


def coordinator_tiles(user) -> list[Tile]:
    """For who books shipments (coordinators, administrators)."""
    if not user.can("shipments.book"):
        return []
    url = reverse("shipments:shipment-list")
    counts = need_counts(
        Shipment.objects.visible_to(user),
        {"awaiting": awaiting_documents_q(user), "ready": ready_to_book_q(user)},
    )
    return [
        Tile(counts["awaiting"], "waiting for documents", f"{url}?needs=awaiting_documents"),
        Tile(counts["ready"], "ready to book", f"{url}?needs=ready_to_book"),
    ]
