"""From a shipment to the data of each document, and the list of what is missing when a document
cannot be made. No half-empty PDF is ever produced: `document_problems` comes first.

One module per subject: `shipment` (what the documents read of a shipment, loaded once), `lines`
(each line's packed weights and countries of origin), `us_export` (the EEI filing and the
Schedule B lines of the SLI and EEI summary), `requirements` (which documents a shipment needs,
and why), `problems` (what stops a document being made) and `contents` (one document's data).
Callers outside the package use the names below."""

from ..context import Problem
from .contents import build_context, watermark_for
from .lines import apportion
from .problems import document_problems
from .requirements import document_requirements, required_documents
from .shipment import load_shipment

__all__ = [
    "Problem",
    "apportion",
    "build_context",
    "document_problems",
    "document_requirements",
    "load_shipment",
    "required_documents",
    "watermark_for",
]
