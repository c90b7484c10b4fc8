"""The shipments list's "Generate required documents" bulk action (registered in `apps.ready`)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import User
from apps.shipments.hooks import BulkAction, BulkResult
from apps.shipments.models import Shipment, ShipmentStatus

from . import builder, services
from .models import DocumentType


def _label(doc_type: str) -> str:
    label = str(DocumentType(doc_type).label)
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def _sentence(message: str) -> str:
    """A builder problem inside the summary sentence: "The shipment has no lines." → "the shipment
    has no lines"."""
    message = message.strip().rstrip(".")
    return message[:1].lower() + message[1:] if message[1:2].islower() else message


def documents_generate_required(*, shipments: list[Shipment], actor: User, reason: str = "") -> BulkResult:
    """Queue, per selected shipment, what its page's "Generate all required" queues: each required
    document not issued yet, as one background task (`document_generate_start`). A document whose
    data is missing is left out and named with what is missing, as the page would refuse it; a
    shipment with nothing to generate, or cancelled, is named with why."""
    done: list[str] = []
    refused: list[tuple[str, str]] = []
    for shipment in sorted(shipments, key=lambda s: s.pk):
        if shipment.status == ShipmentStatus.CANCELLED:
            refused.append((shipment.reference, "not generated, it is cancelled"))
            continue
        # Everything the documents read, once per shipment (a fixed number of queries).
        loaded = builder.load_shipment(shipment)
        missing = [doc_type for doc_type, _why, _latest in services.missing_documents(loaded)]
        if not missing:
            refused.append((shipment.reference, "nothing to generate, every required document is issued"))
            continue
        ready: list[str] = []
        blocked: dict[str, list[str]] = {}  # the first missing datum → the documents it holds up
        for doc_type in missing:
            problems = builder.document_problems(loaded, doc_type)
            if problems:
                blocked.setdefault(_sentence(problems[0].message), []).append(_label(doc_type))
            else:
                ready.append(doc_type)
        # "not generated, <why>" when nothing could be; "<documents> not generated, <why>" when some
        # could and are queued.
        why = "; ".join(
            f"{' and '.join(labels) + ' ' if ready else ''}not generated, {problem}"
            for problem, labels in blocked.items()
        )
        if not ready:
            refused.append((shipment.reference, why))
            continue
        try:
            with transaction.atomic():
                services.document_generate_start(shipment=shipment, doc_types=ready, actor=actor)
        except ValidationError as exc:
            refused.append((shipment.reference, " ".join(exc.messages)))
            continue
        done.append(shipment.reference)
        if blocked:
            refused.append((shipment.reference, f"{why} (the others are queued)"))
    return BulkResult(done=done, refused=refused)


GENERATE_REQUIRED = BulkAction(
    name="generate_documents",
    label="Generate required documents",
    capability="documents.generate",
    run=documents_generate_required,
    done=("shipment's documents queued", "shipments' documents queued"),
    not_done="",  # each reason says what was not generated
)
