"""Every demo shipment's documents match its compliance check — the issued ones as
they were issued, and every other required one when it is generated now."""

from apps.accounts.models import User
from apps.compliance.models import CheckLineResult
from apps.compliance.services import latest_check
from apps.documents import builder, services
from apps.documents.builder.shipment import line_compliance
from apps.documents.models import Document, DocumentStatus
from apps.shipments.models import Shipment
from tests.documents.test_documents import compact, text_of

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


def test_demo_documents_match_their_compliance_checks(demo):
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


def test_the_singapore_consolidation_demo_states_each_units_origin(demo):
    """Demo B: servers shipped from Taiwan and switches from Mexico, consolidated at the Singapore
    hub and flown to Chennai together — its issued documents give every unit's origin."""
    shipment = Shipment.objects.get(instructions__startswith="[Demo B]")
    lines = {line.line_number: line for line in shipment.lines.all()}
    for line in lines.values():  # each unit carries the origin its inbound leg's line declared
        assert set(line.serials.values_list("unit__country_of_origin", flat=True)) == {line.country_of_origin}
    assert lines[2].country_of_origin == "MX"
    issued = Document.objects.filter(shipment=shipment, status=DocumentStatus.ISSUED)
    packing = issued.get(doc_type="packing_list")
    by_package = {p["number"]: p["serial_origins"] for p in packing.data["packages"]}
    assert by_package[5] == [["MX", [f"MT24QM{n:05d}" for n in range(1, 5)]]]
    assert by_package[1] == [[lines[1].country_of_origin, ["QTSM82100001"]]]
    text = compact(text_of(services.document_read(packing)))
    assert f"S/N, origin {lines[1].country_of_origin}: QTSM82100001" in text
    assert "S/N, origin MX: MT24QM00001" in text
    invoice = issued.get(doc_type="commercial_invoice")
    assert [(line["number"], line["country_of_origin"]) for line in invoice.data["lines"]] == [
        (1, lines[1].country_of_origin),
        (2, "MX"),
    ]
