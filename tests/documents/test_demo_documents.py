"""Issue 10: every demo shipment's documents match its compliance check — the issued ones as
they were issued, and every other required one when it is generated now."""

from django.core.management import call_command

from apps.accounts.models import User
from apps.compliance.models import CheckLineResult
from apps.compliance.services import latest_check
from apps.documents import builder, services
from apps.documents.builder.shipment import line_compliance
from apps.documents.models import Document, DocumentStatus
from apps.shipments.models import Shipment

# What a line's licence reads as on a document, from the check's result for the line.
LINE_FIELDS = ("eccn", "licence")


def _expected(shipment) -> dict[int, tuple[str, str]]:
    """line number → (ECCN, licence text) the latest compliance check decided."""
    compliance = line_compliance(shipment)
    return {
        line.line_number: (compliance[line.pk][0], compliance[line.pk][2])
        for line in shipment.lines.all()
        if line.pk in compliance
    }


def _on_document(document) -> dict[int, tuple[str, str]]:
    return {line["number"]: (line["eccn"], line["licence"]) for line in document.data["lines"]}


def test_demo_documents_match_their_compliance_checks(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo")
    coordinator = User.objects.get(username="coordinator")
    checked = [s for s in Shipment.objects.order_by("pk") if latest_check(s) is not None]
    assert checked
    compared = 0
    for shipment in checked:
        check = latest_check(shipment)
        assert CheckLineResult.objects.filter(compliance_check=check).count() == shipment.lines.count()
        expected = _expected(shipment)
        passed = not builder.watermark_for(shipment)
        for document in Document.objects.filter(shipment=shipment, status=DocumentStatus.ISSUED):
            if "lines" in document.data and document.data["lines"]:
                assert _on_document(document) == expected, f"{shipment.reference}: issued {document}"
                compared += 1
            assert not document.watermark
        for doc_type, _why, _latest in services.missing_documents(shipment):
            problems = builder.document_problems(shipment, doc_type)
            if problems:
                # Only a shipment whose check has not passed may lack what a document needs.
                assert not passed, f"{shipment.reference} {doc_type}: {[p.message for p in problems]}"
                continue
            document = services.document_generate(shipment=shipment, doc_type=doc_type, actor=coordinator)
            assert _on_document(document) == expected, f"{shipment.reference}: regenerated {document}"
            assert (document.watermark == "") == passed, f"{shipment.reference}: {document} watermark"
            compared += 1
    assert compared >= 12
