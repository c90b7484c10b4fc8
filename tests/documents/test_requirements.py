"""Issue 10: the documents page and API say why each document is or is not required; an issued
type offers a void, never a new version; the Destination Control Statement is for US exports;
documents voided before VOID copies were stored get theirs from a backfill command."""

import io

import pytest
from django.core.management import call_command

from apps.documents import builder, services
from apps.documents.models import Document
from tests.documents.test_issue10 import _pdf_text, _us_export
from tests.documents.test_issued_versions import text_of


def test_the_api_lists_what_is_not_required_and_why(approved, coordinator, api_as):
    response = api_as(coordinator).get(f"/api/v1/shipments/{approved.reference}/documents/")
    assert response.status_code == 200
    body = response.json()
    required = {row["doc_type"] for row in body["required"]}
    not_required = {row["doc_type"]: row["why"] for row in body["not_required"]}
    assert "commercial_invoice" in required and "sli" not in required
    assert set(required) | set(not_required) == set(
        doc_type for doc_type, _required, _why in builder.document_requirements(approved)
    )
    assert "Taiwan" in not_required["sli"] and "AES" in not_required["eei_summary"]
    assert not_required["certificate_of_origin"].startswith("Customs in India")


def test_the_page_says_why_not_and_offers_no_new_version_over_an_issued_one(
    approved, coordinator, browser_as
):
    issued = services.document_issue(
        document=services.document_generate(
            shipment=approved, doc_type="commercial_invoice", actor=coordinator
        ),
        actor=coordinator,
    )
    page = browser_as(coordinator).get(f"/shipments/{approved.reference}/documents/").content.decode()
    invoice = page.split('id="doc-commercial_invoice"', 1)[1].split("</section>", 1)[0]
    assert "Generate a new version" not in invoice and "Generate it" not in invoice
    assert "Void it (saying why) to make a new version" in invoice
    assert f'action="/documents/{issued.pk}/void/"' in invoice
    # Not required: each type listed with its reason.
    not_required = page.split('id="not-required"', 1)[1].split("</section>", 1)[0]
    assert "Shipper&#x27;s letter of instruction" in not_required
    assert "Exported from Taiwan, not the US" in not_required
    # Voided: a new version can be generated again.
    services.document_void(document=issued, actor=coordinator, reason="Wrong buyer order reference")
    page = browser_as(coordinator).get(f"/shipments/{approved.reference}/documents/").content.decode()
    invoice = page.split('id="doc-commercial_invoice"', 1)[1].split("</section>", 1)[0]
    assert "Generate a new version" in invoice


def test_the_destination_control_statement_is_for_us_exports_only(
    approved, coordinator, indian_customer, dgx, country_data, screening_list
):
    # Taiwan → India: a re-export of a foreign-made item; 15 CFR 758.6 asks the DCS of US exports.
    taiwan = builder.build_context(approved, "commercial_invoice", number="CI-X", version=1, watermark="")
    assert any(line.eccn.startswith("4A090") for line in taiwan.lines)
    assert taiwan.destination_control_statement == ""
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert "controlled by the U.S. government" not in _pdf_text(document)
    # The same goods exported from the US carry it.
    us = _us_export(coordinator, indian_customer, [(dgx, 1)])
    assert builder.build_context(
        us, "commercial_invoice", number="CI-Y", version=1, watermark=""
    ).destination_control_statement.startswith("These items are controlled by the U.S. government")


def test_backfill_gives_old_voided_documents_their_void_copy(approved, coordinator, api_as):
    issued = services.document_issue(
        document=services.document_generate(
            shipment=approved, doc_type="commercial_invoice", actor=coordinator
        ),
        actor=coordinator,
    )
    voided = services.document_void(document=issued, actor=coordinator, reason="Wrong unit price")
    # As voided before VOID copies were stored (documents/0002): no copy, so the download refuses.
    Document.objects.filter(pk=voided.pk).update(void_pdf="", void_sha256="")
    api = api_as(coordinator)
    assert api.get(f"/api/v1/documents/{voided.pk}/download/").status_code == 409
    out = io.StringIO()
    call_command("documents_backfill_void_copies", stdout=out)
    assert f"{voided}: VOID copy stored" in out.getvalue()
    voided.refresh_from_db()
    assert voided.void_sha256 and voided.void_pdf
    response = api.get(f"/api/v1/documents/{voided.pk}/download/")
    assert response.status_code == 200
    text = text_of(b"".join(response.streaming_content) if response.streaming else response.content)
    assert "VOID" in text and voided.number in text
    # Run again: nothing left to do; the copy is not replaced.
    before = voided.void_sha256
    out = io.StringIO()
    call_command("documents_backfill_void_copies", stdout=out)
    assert "0 VOID copies stored" in out.getvalue()
    voided.refresh_from_db()
    assert voided.void_sha256 == before


def test_backfill_names_a_voided_document_whose_issued_file_is_gone(approved, coordinator):
    issued = services.document_issue(
        document=services.document_generate(
            shipment=approved, doc_type="commercial_invoice", actor=coordinator
        ),
        actor=coordinator,
    )
    voided = services.document_void(document=issued, actor=coordinator, reason="Wrong unit price")
    Document.objects.filter(pk=voided.pk).update(void_pdf="", void_sha256="")
    voided.pdf.storage.delete(voided.pdf.name)
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exit_info:
        call_command("documents_backfill_void_copies", stdout=out, stderr=err)
    assert exit_info.value.code == 1
    assert f"{voided}" in err.getvalue() and "missing" in err.getvalue()
    voided.refresh_from_db()
    assert not voided.void_sha256


@pytest.mark.parametrize(
    "doc_type",
    ["commercial_invoice", "certificate_of_origin", "sli", "ior_authorisation", "eor_authorisation"],
)
def test_a_part_number_already_in_the_description_is_printed_once(doc_type):
    from apps.documents.renderer import render_pdf
    from tests.documents.test_layout import make_context

    context = make_context(doc_type, lines=2)
    assert all(line.part_number in line.description for line in context.lines)
    text = text_of(render_pdf(context)[0])
    for line in context.lines:
        assert text.count(line.part_number) == 1, (doc_type, line.part_number)


def test_shipping_marks_are_summarised_in_runs():
    from apps.documents.context import summarise_marks

    assert summarise_marks([]) == ()
    assert summarise_marks([(1, ""), (2, "")]) == ("N/M (the packages carry no marks)",)
    numbered = [(n, f"BENCH/{n}") for n in range(1, 251)]
    assert summarise_marks(numbered) == ("packages 1–250: BENCH/1 to BENCH/250",)
    mixed = [(1, "CHN-AIC/POD2/1"), (2, "CHN-AIC/POD2/2"), (3, ""), (4, ""), (5, "FRAGILE"), (6, "FRAGILE"),
             (7, "CHN-AIC/POD2/9")]  # fmt: skip
    assert summarise_marks(mixed) == (
        "packages 1–2: CHN-AIC/POD2/1 to CHN-AIC/POD2/2",
        "packages 3–4: N/M",
        "packages 5–6: FRAGILE",
        "package 7: CHN-AIC/POD2/9",
    )
