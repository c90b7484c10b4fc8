"""What the documents say must be true: the end-user statement names the exporter's own person,
the invoice invents no payment terms, a certificate of origin is not issued before the invoice it
cites, and a long EEI summary stays readable."""

import io

import pytest
from django.core.exceptions import ValidationError
from pypdf import PdfReader

from apps.compliance import services as compliance
from apps.documents import services
from apps.documents.signatures import signatory_of
from tests.shipments.conftest import pack_all


def text_of(data: bytes) -> str:
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages).split())


@pytest.fixture
def approved(submitted, indian_customer, dgx, coordinator):
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 1)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    pack_all(shipment)
    return shipment


def generated(shipment, doc_type, actor):
    document = services.document_generate(shipment=shipment, doc_type=doc_type, actor=actor)
    return document, text_of(services.document_read(document))


# --- the end-user statement -----------------------------------------------------------------------


def test_the_end_user_statement_names_the_exporters_signatory_not_the_operators_coordinator(
    approved, coordinator, supplier
):
    _document, text = generated(approved, "end_user_statement", coordinator)
    signatory = signatory_of(supplier)
    assert f"Requested by {supplier.legal_name} ({signatory.name}, {signatory.job_title})" in text
    assert coordinator.get_full_name() not in text  # the operator's coordinator is nobody of the exporter's


def test_the_exporter_is_named_with_the_generating_user_only_when_they_work_for_it(
    coordinator, operator, supplier
):
    from apps.documents.builder.contents import _requested_by

    # The operator is the exporter: its own user generating the statement asks for it.
    assert _requested_by(operator, coordinator) == (
        f"{operator.legal_name} ({coordinator.get_full_name()}, {coordinator.get_role_display()})"
    )
    signatory = signatory_of(supplier)
    assert _requested_by(supplier, coordinator) == (
        f"{supplier.legal_name} ({signatory.name}, {signatory.job_title})"
    )


# --- the commercial invoice's payment terms -------------------------------------------------------


def test_the_invoice_invents_no_payment_terms(approved, coordinator):
    assert approved.payment_terms == ""
    _document, text = generated(approved, "commercial_invoice", coordinator)
    assert "As agreed" not in text
    assert "Payment terms Not stated" in text


def test_the_invoice_prints_the_payment_terms_entered(approved, coordinator):
    type(approved).objects.filter(pk=approved.pk).update(payment_terms="30 days net from invoice date")
    _document, text = generated(approved, "commercial_invoice", coordinator)
    assert "Payment terms 30 days net from invoice date" in text


# --- the certificate of origin cites an issued invoice --------------------------------------------


@pytest.fixture
def saudi(submitted, saudi_customer, saudi_licence, dgx, coordinator):
    shipment = submitted(saudi_customer, "SA", "Riyadh", [(dgx, 1)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    pack_all(shipment)
    return shipment


def test_a_certificate_of_origin_is_refused_until_the_invoice_it_cites_is_issued(saudi, coordinator):
    invoice, _text = generated(saudi, "commercial_invoice", coordinator)
    certificate, text = generated(saudi, "certificate_of_origin", coordinator)
    assert invoice.number in text
    with pytest.raises(ValidationError) as refused:
        services.document_issue(document=certificate, actor=coordinator)
    message = " ".join(refused.value.messages)
    assert f"cites commercial invoice {invoice.number}, which is not issued" in message
    certificate.refresh_from_db()
    assert certificate.status == "draft"
    services.document_issue(document=invoice, actor=coordinator)
    assert services.document_issue(document=certificate, actor=coordinator).status == "issued"


def test_a_voided_invoice_does_not_count_as_issued(saudi, coordinator):
    invoice, _text = generated(saudi, "commercial_invoice", coordinator)
    services.document_issue(document=invoice, actor=coordinator)
    services.document_void(document=invoice, actor=coordinator, reason="Wrong buyer's order")
    certificate, _text = generated(saudi, "certificate_of_origin", coordinator)
    with pytest.raises(ValidationError, match=invoice.number):
        services.document_issue(document=certificate, actor=coordinator)


# --- a long EEI summary ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "numbers, expected",
    [
        ((), ""),
        ((7,), "7"),
        ((1, 2, 3, 5, 7, 8, 1000), "1–3, 5, 7–8, 1,000"),
        (range(1, 1001), "1–1,000"),
        ((3, 1, 2, 2), "1–3"),  # in any order, each once
    ],
)
def test_line_numbers_read_as_ranges(numbers, expected):
    from apps.documents.engines.eei import number_ranges

    assert number_ranges(numbers) == expected


def _eei_pages(rows: list[list[int]]) -> tuple[int, str]:
    from dataclasses import replace

    from apps.documents.engines.eei import number_ranges
    from tests.documents.test_layout import make_context, render

    context = make_context("eei_summary", lines=3)
    lines = [
        {
            **context.eei["lines"][0],
            "schedule_b": f"8471.50.01{n}0",
            "lines": numbers,
            "line_ranges": number_ranges(numbers),
        }
        for n, numbers in enumerate(rows)
    ]
    document = render(replace(context, eei={**context.eei, "lines": lines}))
    text = " ".join(box_text for page in document.pages for box_text in _texts(page._page_box))
    return len(document.pages), text


def _texts(box):
    if getattr(box, "text", None):
        yield box.text
    for child in getattr(box, "children", ()) or ():
        yield from _texts(child)


def test_a_1000_line_eei_with_three_aes_lines_takes_no_more_pages_than_three_lines_do():
    pages, text = _eei_pages([list(range(1, 401)), list(range(401, 801)), list(range(801, 1001))])
    assert pages == _eei_pages([[1], [2], [3]])[0]
    assert "1–400" in text and "401–800" in text and "801–1,000" in text


def test_interleaved_line_numbers_wrap_across_the_page_width():
    """Lines of three Schedule B numbers in turn (1, 4, 7 … / 2, 5, 8 … / 3, 6, 9 …): no range to
    shorten, so each AES line lists its 334 numbers across the table, not down a 1 cm column."""
    pages, _text = _eei_pages([list(range(start, 1001, 3)) for start in (1, 2, 3)])
    assert pages <= _eei_pages([[1], [2], [3]])[0] + 1


# --- the invoice's totals at a page end -----------------------------------------------------------


def _above_the_content(page) -> list[str]:
    """Boxes of the page's content drawn above its content area: over the running header."""
    top = page._page_box.margin_top
    found = []

    def walk(box):
        for child in getattr(box, "children", None) or ():
            if type(child).__name__.startswith("Margin"):
                continue  # the running header and footer themselves
            if child.position_y < top - 0.5 and child.margin_height() > 0:
                element = getattr(child, "element", None)
                found.append(f"{type(child).__name__} {element.get('class') if element is not None else ''}")
            walk(child)

    walk(page._page_box)
    return found


@pytest.mark.parametrize("lines", [1, 2, 3])
def test_the_invoice_totals_never_print_over_the_running_header(lines):
    """The demo's invoice: four parties and lines whose units come from two countries, so the
    weights and totals fall at the end of page 1 for one line."""
    from dataclasses import replace
    from decimal import Decimal

    from apps.documents.context import DocOrigin
    from tests.documents.test_layout import make_context, render

    context = make_context("commercial_invoice", lines=lines)
    split = tuple(
        replace(
            line,
            origins=tuple(
                DocOrigin(
                    label=f"{line.number}.{n}",
                    country=country,
                    quantity=2,
                    value=Decimal("2400.00"),
                    serials=(f"SN{line.number}{n}0", f"SN{line.number}{n}1"),
                )  # fmt: skip
                for n, country in ((1, "TW"), (2, "MX"))
            ),
        )
        for line in context.lines
    )
    context = replace(
        context,
        lines=split,
        importer_of_record=None,
        exporter_of_record=None,
        notify_party=None,
        forwarder=None,
    )
    document = render(context)
    assert {n: found for n, page in enumerate(document.pages, 1) if (found := _above_the_content(page))} == {}
