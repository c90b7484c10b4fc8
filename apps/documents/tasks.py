"""Document generation in the background."""

from celery import shared_task
from django.core.exceptions import ValidationError
from django.db import OperationalError

from apps.accounts.models import User
from apps.shipments.models import Shipment

from . import services
from .models import DocumentType


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
            # Said before each render starts, the first included: the page shows what is being
            # rendered while the bar waits for the first document to finish.
            self.update_state(state="PROGRESS", meta=rendering_step(doc_type, n, len(doc_types)))
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
        "summary": generation_summary(len(done), [DocumentType(t).label for t in refused]),
    }


def _in_a_sentence(label: str) -> str:
    """A label inside a sentence: "the shipper's letter of instruction"; an acronym ("EEI …") keeps
    its case."""
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def rendering_step(doc_type: str, n: int, total: int) -> dict:
    """The progress of the n-th of `total` documents as it starts rendering."""
    label = _in_a_sentence(DocumentType(doc_type).label)
    return {"percent": int(100 * (n - 1) / total), "step": f"Rendering the {label} ({n} of {total})"}


def generation_summary(generated: int, refused: list[str]) -> str:
    said = f"{generated} document{'' if generated == 1 else 's'} generated"
    if refused:
        said += "; not generated: " + ", ".join(_in_a_sentence(label) for label in refused)
    return said
