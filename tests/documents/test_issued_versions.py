"""Issue 10: bundles hold issued versions, voided documents serve their VOID copy, partners see
issued documents only, unissued renderings are marked DRAFT, missing files answer 409."""

import io
import os
import zipfile

import pytest
from django.core.exceptions import ValidationError
from pypdf import PdfReader

from apps.core.models import AuditEvent
from apps.documents import services
from apps.documents.models import Document


def text_of(data: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages).split())


def _issued(shipment, doc_type, actor):
    document = services.document_generate(shipment=shipment, doc_type=doc_type, actor=actor)
    return services.document_issue(document=document, actor=actor)


def test_bundles_hold_the_issued_version_and_name_the_missing(approved, coordinator, api_as):
    issued = _issued(approved, "commercial_invoice", coordinator)
    # Generating over an issued document is refused: a new version comes after a void.
    with pytest.raises(ValidationError, match="void it"):
        services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert Document.objects.filter(doc_type="commercial_invoice").count() == 1
    api = api_as(coordinator)
    zipped = api.get(f"/api/v1/shipments/{approved.reference}/documents/bundle/?as=zip")
    assert zipped.status_code == 200
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as archive:
        pdfs = [n for n in archive.namelist() if n.endswith(".pdf")]
        assert pdfs == [f"{issued.number}-v1.pdf"]
        assert archive.read(pdfs[0]) == services.document_read(issued)
        missing = archive.read("MISSING.txt").decode()
    assert "End-user statement" in missing and "Commercial invoice" not in missing
    assert "end_user_statement" in zipped["X-Missing-Documents"]
    merged = api.get(f"/api/v1/shipments/{approved.reference}/documents/bundle/?as=pdf")
    text = text_of(merged.content)
    assert issued.number in text and "DRAFT" not in text
    assert "end_user_statement" in merged["X-Missing-Documents"]
    # Voided, then regenerated: the unissued version 2 is not in the bundle; the invoice is missing.
    services.document_void(document=issued, actor=coordinator, reason="Wrong unit price")
    again = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert again.version == 2
    zipped = api.get(f"/api/v1/shipments/{approved.reference}/documents/bundle/?as=zip")
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as archive:
        assert [n for n in archive.namelist() if n.endswith(".pdf")] == []
        assert "Commercial invoice" in archive.read("MISSING.txt").decode()
    services.document_issue(document=again, actor=coordinator)
    merged = api.get(f"/api/v1/shipments/{approved.reference}/documents/bundle/?as=pdf")
    text = text_of(merged.content)
    assert f"{again.number}" in text and "DRAFT" not in text and "VOID" not in text


def test_generate_all_required_skips_issued_types(
    approved, coordinator, api_as, django_capture_on_commit_callbacks
):
    issued = _issued(approved, "commercial_invoice", coordinator)
    api = api_as(coordinator)
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(f"/api/v1/shipments/{approved.reference}/documents/", {}, format="json")
    assert started.status_code == 202
    assert Document.objects.filter(doc_type="commercial_invoice").count() == 1
    issued.refresh_from_db()
    assert issued.status == "issued"
    assert Document.objects.filter(doc_type="end_user_statement").exists()


def test_a_voided_document_downloads_as_its_void_copy(approved, coordinator, api_as, supplier_user):
    issued = _issued(approved, "commercial_invoice", coordinator)
    original_text = text_of(services.document_read(issued))
    # Today's data changes after issue: the VOID copy still shows what was issued.
    approved.incoterm_place = "Bengaluru"
    type(approved).objects.filter(pk=approved.pk).update(incoterm_place="Bengaluru")
    voided = services.document_void(document=issued, actor=coordinator, reason="Wrong unit price")
    assert len(voided.void_sha256) == 64
    for client in (api_as(coordinator), api_as(supplier_user)):
        response = client.get(f"/api/v1/documents/{issued.pk}/download/")
        assert response.status_code == 200
        assert response["Content-Disposition"].endswith('-VOID.pdf"')
        text = text_of(response.content)
        assert "VOID" in text and "Bengaluru" not in text and "Chennai" in text
        assert issued.number in text and original_text.split()[0] in text
    # The VOID copy's pages are the issued pages, with the mark stamped on.
    assert len(PdfReader(io.BytesIO(response.content)).pages) == issued.page_count
    # Its bytes are hash-checked like the original's.
    with open(Document.objects.get(pk=issued.pk).void_pdf.path, "ab") as handle:
        handle.write(b"% appended")
    refused = api_as(coordinator).get(f"/api/v1/documents/{issued.pk}/download/")
    assert refused.status_code == 409 and "SHA-256" in refused.json()["detail"]


def test_partners_see_issued_and_void_only_and_drafts_are_marked(
    approved, coordinator, api_as, supplier_user
):
    draft = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert draft.watermark == ""  # the compliance check passed: the bytes to issue are unmarked
    partner = api_as(supplier_user)
    assert partner.get(f"/api/v1/documents/{draft.pk}/download/").status_code == 404
    assert partner.get("/api/v1/documents/").json()["count"] == 0
    # Staff download an unissued version only with the DRAFT mark.
    response = api_as(coordinator).get(f"/api/v1/documents/{draft.pk}/download/")
    assert response.status_code == 200 and response["Content-Disposition"].endswith('-DRAFT.pdf"')
    assert "DRAFT" in text_of(response.content) and draft.number in text_of(response.content)
    issued = services.document_issue(document=draft, actor=coordinator)
    assert "DRAFT" not in text_of(services.document_read(issued))
    response = partner.get(f"/api/v1/documents/{issued.pk}/download/")
    assert response.status_code == 200 and "DRAFT" not in text_of(response.content)
    assert partner.get("/api/v1/documents/").json()["count"] == 1


def test_a_missing_file_answers_409_audited_and_names_the_document(approved, coordinator, api_as):
    invoice = _issued(approved, "commercial_invoice", coordinator)
    statement = _issued(approved, "end_user_statement", coordinator)
    os.remove(statement.pdf.path)
    api = api_as(coordinator)
    response = api.get(f"/api/v1/documents/{statement.pk}/download/")
    assert response.status_code == 409 and str(statement) in response.json()["detail"]
    assert "missing" in response.json()["detail"]
    assert AuditEvent.objects.filter(object_id=str(statement.pk), action="integrity").exists()
    bundle = api.get(f"/api/v1/shipments/{approved.reference}/documents/bundle/?as=pdf")
    assert bundle.status_code == 409 and str(statement) in bundle.json()["detail"]
    assert str(invoice) not in bundle.json()["detail"]
    assert api.get(f"/api/v1/documents/{invoice.pk}/download/").status_code == 200


def test_a_bundle_with_nothing_issued_says_so_and_holds_no_draft(approved, coordinator):
    draft = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    text = text_of(services.bundle_pdf(approved))
    assert "no document is issued yet" in text and "Commercial invoice" in text
    assert draft.number not in text
    with zipfile.ZipFile(io.BytesIO(services.bundle_zip(approved))) as archive:
        assert archive.namelist() == ["MISSING.txt"]


def test_issue_and_void_of_a_missing_file_answer_409(approved, coordinator, api_as):
    draft = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    os.remove(draft.pdf.path)
    api = api_as(coordinator)
    assert api.post(f"/api/v1/documents/{draft.pk}/issue/").status_code == 409
    voided = api.post(f"/api/v1/documents/{draft.pk}/void/", {"reason": "Lost file"}, format="json")
    assert voided.status_code == 409 and "missing" in voided.json()["detail"]
