"""The HTTP answer that hands over a document's PDF or a bundle of documents, for the pages and the
API alike."""

from django.http import HttpResponse


def pdf_response(data: bytes, filename: str, content_type: str = "application/pdf") -> HttpResponse:
    """`data` as an attachment named `filename` (a PDF unless `content_type` says otherwise)."""
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
