"""Issue 10, layout: every document type, for a small shipment and for a 1,000-line one with long
part numbers, 4-digit line numbers and long names, is laid out without a text box overflowing
its cell, without a key-value table split across pages, and without a page holding only the
signature block. The checks read WeasyPrint's layout tree; no database is needed.

The 1,000-line documents take seconds each, so each is rendered once per test session, and they
are rendered and checked in forked processes, one per core (tests/documents/forked.py). Under
pytest-xdist the tests that read them (here and in test_parallel_render.py) run in one process,
the `large_documents` group (`make test` runs `--dist loadgroup`), instead of each process
rendering all of them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields, replace
from decimal import Decimal
from functools import partial

import pytest
import weasyprint
from django.template.loader import render_to_string
from weasyprint.formatting_structure import boxes

from apps.documents import renderer
from apps.documents.context import DocLine, DocPackage, DocumentContext, PartyBlock
from apps.documents.models import PREFIXES, DocumentType
from tests.documents.forked import forked_map

TOLERANCE = 0.5 * 4 / 3  # 0.5 pt, in CSS px (WeasyPrint lays out in px)

LONG_NAME = "Chennai Artificial Intelligence Compute Infrastructure Private Limited (SEZ Unit II)"
LONG_EMAIL = "procurement.operations.department@chennai-ai-compute-infrastructure.example.com"
LONG_SIGNATORY = "Maximiliana Alexandra Fitzgerald-Montgomery-Ravichandran, Logistics coordinator"
SIGNATURE_CLASSES = {"signatures", "signature", "sign-block", "co-sign"}
KEY_VALUE_CLASSES = {"kv", "refs", "totals"}


def _party(role: str, name: str, *, long: bool) -> PartyBlock:
    if not long:
        return PartyBlock(
            role=role,
            name=name,
            address_lines=("Plot 7, SIPCOT IT Park", "Chennai 603103"),
            country="IN",
            country_name="India",
            registrations=("IEC AAKCC5521M",),
            contact="A. Kumar, ops@example.com, +91 44 4000 0000",
        )
    return PartyBlock(
        role=role,
        name=f"{name} — {LONG_NAME}",
        address_lines=(
            "Plot 7-B, Survey No. 1234/5678, SIPCOT Information Technology Park, Old Mahabalipuram Road",
            "Kancheepuram District, Chennai, Tamil Nadu 603103",
        ),
        country="IN",
        country_name="India",
        registrations=("IEC AAKCC5521M", "GSTIN 33AAKCC5521M1Z2", "EIN 84-2711935", "PAN AAKCC5521M"),
        contact=f"Anantharamakrishnan Subramaniam, {LONG_EMAIL}, +91 44 4000 0000 ext. 12345",
    )


def _part_number(n: int, *, long: bool) -> str:
    # 40 characters with no space or hyphen to break at.
    return f"MCX755106AS{'HEAT' * 6}{n:05d}" if long else f"MCX7551{n:02d}"


def make_context(doc_type: str, *, lines: int = 3, long: bool = False, notes: int = 0) -> DocumentContext:
    """A document context of `doc_type`: `long` gives long part numbers, names and addresses."""
    doc_lines = []
    for n in range(1, lines + 1):
        part = _part_number(n, long=long)
        description = f"NVIDIA ConnectX-7 400G adapter, 2-port QSFP112, P/N {part}"
        if long and n % 2:
            description = (
                f"NVIDIA ConnectX-7 400GbE / NDR InfiniBand adapter, crypto enabled, secure boot, {part}"
            )
        doc_lines.append(
            DocLine(
                number=n,
                part_number=part,
                description=description,
                quantity=1000 + n if long else 4,
                unit="pcs",
                unit_value=Decimal("1234567.89") if long else Decimal("1200.00"),
                line_value=Decimal("1234567890.12") if long else Decimal("4800.00"),
                hs_code="8517.62.0090" if long else "851762",
                country_of_origin="TH",
                eccn="5A992.c",
                licence="ENC (740.17(b)(1))" if long else "NLR",
                net_kg=Decimal("12345.67") if long else Decimal("1.20"),
                gross_kg=None,
            )
        )
    per_package = 4
    packages = []
    for p in range(1, max(1, lines // per_package) + 1):
        contents = tuple(
            f"Line {line.number}: {line.quantity} × {line.description}"
            for line in doc_lines[(p - 1) * per_package : p * per_package]
        )
        packages.append(
            DocPackage(
                number=p,
                package_type="Wooden crate",
                length_cm=Decimal("120"),
                width_cm=Decimal("80"),
                height_cm=Decimal("100"),
                volume_m3=Decimal("0.960"),
                gross_kg=Decimal("1234.50") if long else Decimal("8.00"),
                net_kg=Decimal("1000.25") if long else Decimal("5.00"),
                contents=contents,
                serials=tuple(f"MT{p:04d}SERIAL{u:04d}XYZ" for u in range(16 if long else 2)),
                marks=f"CHN-AIC/POD2/BLOCK-C/ROW-14/RACK-{p:04d}/{'X' * 20}" if long and p % 2 else "",
                dangerous_goods=("UN3481 Lithium ion batteries contained in equipment, PI967 Section II",)
                if p == 1
                else (),
                handling=("Tilt indicator", "Keep dry"),
            )
        )
    seller = _party("Seller / exporter", "Quanta Cloud Technology Inc.", long=long)
    buyer = _party("Buyer / consignee", "Chennai AI Compute Pvt. Ltd.", long=long)
    schedule_b = 60 if long else 1
    values = dict(
        doc_type=doc_type,
        title=DocumentType(doc_type).label,
        number=f"{PREFIXES[DocumentType(doc_type)]}-2026-000123",
        version=12 if long else 1,
        issue_date=dt.date(2026, 12, 2),
        shipment_reference="SHP-2026-000456",
        watermark="DRAFT",
        seller=seller,
        buyer=buyer,
        ship_to=buyer,
        ultimate_consignee=buyer,
        importer_of_record=_party("Importer of record", "Meridian Customs Brokers", long=long),
        exporter_of_record=_party("Exporter of record", "US Export Services LLC", long=long),
        forwarder=_party("Freight forwarder", "Meridian Air & Ocean Freight Pte. Ltd.", long=long),
        notify_party=_party("Notify party", "Chennai AI Compute Pvt. Ltd. (Logistics)", long=long),
        incoterm="CIP",
        incoterm_place="Chennai International Airport (MAA)" if long else "MAA",
        incoterm_name="Carriage and Insurance Paid To",
        mode="Air",
        origin="QCT Guishan Factory, Taoyuan, Taiwan",
        destination="Chennai AI Compute Data Centre, Siruseri, Chennai, India",
        country_of_export="Taiwan",
        country_of_destination="India",
        currency="USD",
        reason_for_export="Sale",
        transport_documents=("176-12345675", "MAEU-123456789012") if long else ("176-12345675",),
        lines=tuple(doc_lines),
        packages=tuple(packages),
        goods_total=sum((line.line_value for line in doc_lines), Decimal("0")),
        freight=Decimal("12345.00"),
        insurance=Decimal("1234.00"),
        invoice_total=sum((line.line_value for line in doc_lines), Decimal("13579.00")),
        total_packages=len(packages),
        total_gross_kg=sum((p.gross_kg for p in packages), Decimal("0")),
        total_net_kg=sum((p.net_kg for p in packages), Decimal("0")),
        total_volume_m3=sum((p.volume_m3 for p in packages), Decimal("0")),
        destination_control_statement="These items are controlled by the U.S. Government and authorized "
        "for export only to the country of ultimate destination for use by the ultimate consignee or "
        "end-user(s) herein identified.",
        end_use="Training large language models in an AI compute cluster",
        eei={
            "filing_required": True,
            "reasons": ["Schedule B 851762 exceed USD 2,500 per number."],
            "usppi": f"{seller.name}, EIN 84-2711935",
            "ultimate_consignee": buyer.name,
            "lines": [
                {
                    "schedule_b": f"8517.62.{n:04d}",
                    "quantity": 123456,
                    "value": "1234567890.12",
                    "eccn": "5A992.c",
                    "licence_code": "C33 ENC",
                }
                for n in range(schedule_b)
            ],
            "itn_note": "Put the ITN on the air waybill before departure.",
        },
        signatory=LONG_SIGNATORY if long else "A. Coordinator, Logistics coordinator",
        signature=_signature(seller, long=long),
        countersignature=_signature(buyer, long=False),
        prepared_by=LONG_SIGNATORY if long else "A. Coordinator, Logistics coordinator",
        notes=tuple(f"Note {n}: handle with care." for n in range(notes)),
        incoterm_text="CIP Chennai International Airport (MAA), Incoterms 2020"
        if long
        else "CIP MAA, Incoterms 2020",
        duties_paid_by="buyer",
        ior_principal=buyer,
        invoice_number="CI-2026-000123",
        payment_terms="30 days net from invoice date",
        buyer_order_reference="PO-CHN-AIC-2026-0000012345-REV-07" if long else "PO-4711",
        instructions="Deliver to dock 3 between 08:00 and 16:00; call the site 24 hours ahead."
        if long
        else "",
        licences=("ENC (740.17(b)(1))",) if long else (),
    )
    # Only the fields this version of the context has (it grows as documents do).
    known = {f.name for f in fields(DocumentContext)}
    return DocumentContext(**{name: value for name, value in values.items() if name in known})


def _signature(party: PartyBlock, *, long: bool):
    """A signature block for `party`, when the context has them (else None, unused)."""
    from apps.documents import context

    block = getattr(context, "SignatureBlock", None)
    if block is None:
        return None
    name, title = LONG_SIGNATORY.split(", ") if long else ("A. Kumar", "Director, Trade Compliance")
    return block(party=party.name, name=name, title=title, capacity=f"Authorised signatory of {party.name}")


def render(context: DocumentContext) -> weasyprint.Document:
    return weasyprint.HTML(
        string=renderer.render_html(context),
        base_url=renderer.STATIC_DIR.as_uri() + "/",
        url_fetcher=renderer.StaticOnlyFetcher(),
    ).render()


# --- reading the layout tree -------------------------------------------------------------------


def _classes(box) -> set[str]:
    element = getattr(box, "element", None)
    if element is None or getattr(box, "element_tag", None) is None:
        return set()
    return set((element.get("class") or "").split())


def _children(box):
    if isinstance(box, boxes.ParentBox):
        yield from box.all_children()


def _is_container(box) -> bool:
    """Where text must stay inside: a table cell, or a block drawn with a frame."""
    return isinstance(box, boxes.TableCellBox) or bool(
        isinstance(box, boxes.BlockBox) and _classes(box) & {"party", "signature", "cell", "box", "dcs"}
    )


def overflows(page) -> list[str]:
    """Every text box on `page` whose right or left edge lies outside its container's content box."""
    found = []

    def walk(box, container):
        if isinstance(box, boxes.MarginBox) or "watermark" in _classes(box):
            return
        if _is_container(box):
            container = box
        if isinstance(box, boxes.TextBox) and container is not None and box.text.strip():
            left, right = container.content_box_x(), container.content_box_x() + container.width
            if box.position_x + box.width > right + TOLERANCE or box.position_x < left - TOLERANCE:
                found.append(
                    f"{box.text[:50]!r} spans {box.position_x:.1f}–{box.position_x + box.width:.1f}px, "
                    f"its {container.element_tag}.{'.'.join(sorted(_classes(container)))} "
                    f"{left:.1f}–{right:.1f}px"
                )
        for child in _children(box):
            walk(child, container)

    walk(page._page_box, None)
    return found


def _elements_with(page, classes: set[str]) -> set[int]:
    """ids of the elements with any of `classes` that have a box on `page`."""
    found = set()
    for box in page._page_box.descendants():
        if _classes(box) & classes:
            found.add(id(box.element))
    return found


def _text_before(page, classes: set[str]) -> list[str]:
    """The body text on `page` (not the running header/footer, not the watermark) that comes
    before the first element with one of `classes`."""
    found = []

    def walk(box) -> bool:
        """Collect text in `box` up to an element with `classes`; True once one is reached."""
        if _classes(box) & classes:
            return True
        if isinstance(box, boxes.MarginBox) or "watermark" in _classes(box):
            return False
        if isinstance(box, boxes.TextBox) and box.text.strip():
            found.append(box.text)
        return any(walk(child) for child in _children(box))

    walk(page._page_box)
    return found


def _signature_alone(page) -> bool:
    """The page holds a signature block and nothing before it: the block was pushed alone onto
    a page, away from what it signs."""
    return bool(_elements_with(page, SIGNATURE_CLASSES)) and not _text_before(page, SIGNATURE_CLASSES)


def layout_problems(document: weasyprint.Document) -> list[str]:
    problems = []
    for n, page in enumerate(document.pages, 1):
        problems += [f"page {n}: {problem}" for problem in overflows(page)]
    pages_of: dict[int, list[int]] = {}
    for n, page in enumerate(document.pages, 1):
        for element in _elements_with(page, KEY_VALUE_CLASSES):
            pages_of.setdefault(element, []).append(n)
    problems += [
        f"a key-value table is split over pages {pages}" for pages in pages_of.values() if len(pages) > 1
    ]
    # Whether one splits depends on where the page ends; that none may is in its style.
    unbreakable = {
        id(box.element)
        for page in document.pages
        for box in page._page_box.descendants()
        if _classes(box) & KEY_VALUE_CLASSES and box.style["break_inside"] == "avoid"
    }
    problems += [
        "a key-value table may be split across pages (break-inside is not avoid)"
        for element in pages_of
        if element not in unbreakable
    ]
    for n, page in enumerate(document.pages, 1):
        if _signature_alone(page):
            problems.append(f"page {n} holds only the signature block")
    return problems


# --- the tests ---------------------------------------------------------------------------------

DOC_TYPES = DocumentType.values


def _small_layout_problems(doc_type: str) -> list[str]:
    return layout_problems(render(make_context(doc_type)))


@pytest.fixture(scope="module")
def small_layout_problems() -> dict[str, list[str]]:
    """Every type rendered for a small shipment and checked, in parallel (one process per core)."""
    return dict(zip(DOC_TYPES, forked_map(_small_layout_problems, DOC_TYPES), strict=True))


@pytest.mark.parametrize("doc_type", DOC_TYPES)
def test_small_document_fits_its_cells(doc_type, small_layout_problems):
    assert small_layout_problems[doc_type] == []  # layout_problems(render(make_context(doc_type)))


@dataclass(frozen=True)
class LaidOut:
    """What the checks read of a rendered document, in the process that rendered it."""

    pages: int  # len(document.pages): as many as renderer.render_one_piece() gives for its HTML
    problems: list[str]  # layout_problems(document)[:10]


_LARGE: dict[str, LaidOut] = {}  # doc_type → its 1,000-line document, laid out once per session


def _lay_out_large(doc_type: str) -> LaidOut:
    document = render(make_context(doc_type, lines=1000, long=True))
    return LaidOut(pages=len(document.pages), problems=layout_problems(document)[:10])


def large_layouts(*doc_types: str) -> dict[str, LaidOut]:
    """Each of `doc_types` rendered once per session for a 1,000-line shipment with long values
    (seconds each; those not yet rendered in parallel, one process per core) and checked:
    shared with test_parallel_render.py (the one-piece page count of the invoice)."""
    missing = [doc_type for doc_type in dict.fromkeys(doc_types) if doc_type not in _LARGE]
    _LARGE.update(zip(missing, forked_map(_lay_out_large, missing), strict=True))
    return {doc_type: _LARGE[doc_type] for doc_type in doc_types}


@pytest.fixture(scope="module")
def large_documents() -> dict[str, LaidOut]:
    """Every type rendered once for a 1,000-line shipment, shared by the tests below."""
    return large_layouts(*DOC_TYPES)


LARGE_DOCUMENTS = pytest.mark.xdist_group("large_documents")  # one process renders them, once


@LARGE_DOCUMENTS
@pytest.mark.parametrize("doc_type", DOC_TYPES)
def test_1000_line_document_fits_its_cells(doc_type, large_documents):
    document = large_documents[doc_type]
    assert document.pages > 1
    assert document.problems == []  # layout_problems(document)[:10]


def _signature_page_has_company(doc_type: str, notes: int) -> list[str]:
    document = render(make_context(doc_type, lines=4, notes=notes))
    return [
        f"{notes} notes: page {n} holds only the signature block"
        for n, page in enumerate(document.pages, 1)
        if _signature_alone(page)
    ]


@pytest.mark.parametrize("doc_type", ["commercial_invoice", "packing_list", "end_user_statement"])
def test_the_signature_never_stands_alone_on_a_page(doc_type):
    """Notes (one line each) move the signature block down four lines at a time, across a page end:
    wherever the page ends, the signature keeps company."""
    problems = []
    # Without break-before: avoid, some of these fail for each type. Rendered in parallel.
    for found in forked_map(partial(_signature_page_has_company, doc_type), range(0, 40, 4)):
        problems += found
    assert problems == []


def test_long_signatory_names_keep_the_signature_blocks_aligned():
    """Two signature blocks side by side start at the same height and have equal widths, whatever
    the length of the names in them."""
    context = make_context("end_user_statement")
    long_party = _party("Ultimate consignee", "Chennai AI Compute Pvt. Ltd.", long=True)
    context = replace(context, ultimate_consignee=long_party)
    if hasattr(context, "signature"):
        context = replace(context, signature=_signature(long_party, long=True))
    document = render(context)
    signatures = [
        box
        for page in document.pages
        for box in page._page_box.descendants()
        if "signature" in _classes(box) and isinstance(box, boxes.BlockBox)
    ]
    assert len(signatures) == 2
    first, second = signatures
    assert abs(first.position_y - second.position_y) < TOLERANCE
    assert abs(first.width - second.width) < TOLERANCE
    lines = [[box for box in s.descendants() if _classes(box) & {"sigline", "line"}][0] for s in signatures]
    assert abs(lines[0].position_y - lines[1].position_y) < TOLERANCE


def _marks_text(context: DocumentContext) -> str:
    html = render_to_string(f"documents/pdf/{context.doc_type}.html", {"doc": context, "stylesheet_url": ""})
    start = html.index("Marks and numbers")
    return " ".join(html[start : html.index("</p>", start)].split())


@pytest.mark.parametrize("doc_type", ["commercial_invoice", "certificate_of_origin"])
def test_a_package_number_is_not_printed_as_its_mark(doc_type):
    unmarked = make_context(doc_type, lines=8)
    assert all(not p.marks for p in unmarked.packages)
    text = _marks_text(unmarked)
    assert "N/M" in text and ": 1" not in text and ": 2" not in text
    marked = replace(
        unmarked, packages=(replace(unmarked.packages[0], marks="CHN-AIC/POD2/1"), unmarked.packages[1])
    )
    text = _marks_text(marked)
    assert "CHN-AIC/POD2/1" in text and "N/M" in text  # the second package carries no marks
