"""What the header's search (apps/core/global_search.py) finds of trade documents: a document by
its number, among the documents of shipments the user sees; a partner finds issued and void ones
only, as on the documents page (`services.visible_documents`). One query; a number's latest
version stands for it."""

from __future__ import annotations

from django.urls import reverse

from apps.core import global_search as search
from apps.core.scoping import VIEW

from .models import Document
from .services import visible_documents


def documents(user, query: search.SearchQuery, limit: int) -> list[search.Hit]:
    rows = search.ranked(
        visible_documents(Document.objects.visible_to(user, VIEW), user).select_related("shipment"),
        query,
        ["number"],
        identifiers=["number"],
        tiebreak=["number", "-version"],
    )[: limit + 1]
    hits = [
        search.hit(
            "documents",
            document,
            title=f"{document.number} v{document.version}",
            url=reverse("documents:shipment", args=[document.shipment.reference])
            + f"#doc-{document.doc_type}",
            detail=f"{document.get_doc_type_display()} · {document.get_status_display()} · "
            f"{document.shipment.reference}",
            matched="number",
        )
        for document in rows
    ]
    return search.best_per(hits)


search.register("documents", "Documents", documents, order=50)
