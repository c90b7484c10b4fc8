"""Document generation in the background."""

from celery import shared_task
from django.core.exceptions import ValidationError
from django.db import OperationalError

from apps.accounts.models import User
from apps.shipments.models import Shipment

from . import services


@shared_task(
    bind=True,
    name="documents.generate",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
    # A document renders in about a second; see the visibility timeout in settings.
    time_limit=5 * 60,
    soft_time_limit=4 * 60 + 30,
)
def generate_documents(self, shipment_id: int, doc_types: list[str], actor_id: int | None = None) -> dict:
    """Render each requested document. A retry after a crash adds a version at worst, never a half file:
    each version is written in its own transaction with its bytes and hash."""
    shipment = Shipment.objects.get(pk=shipment_id)
    actor = User.objects.filter(pk=actor_id).first() if actor_id else None
    done, refused = [], {}
    for n, doc_type in enumerate(doc_types, start=1):
        if self.request.id:
            self.update_state(
                state="PROGRESS",
                meta={
                    "percent": int(100 * (n - 1) / len(doc_types)),
                    "step": f"Rendering {doc_type.replace('_', ' ')}",
                },
            )
        try:
            document = services.document_generate(
                shipment=shipment, doc_type=doc_type, actor=actor, task_id=self.request.id or ""
            )
            done.append({"id": document.pk, "number": str(document), "pages": document.page_count})
        except ValidationError as exc:
            refused[doc_type] = exc.messages
    return {
        "percent": 100,
        "documents": done,
        "refused": refused,
        "summary": f"{len(done)} generated" + (f", {len(refused)} refused" if refused else ""),
    }
