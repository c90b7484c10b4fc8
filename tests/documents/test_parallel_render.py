"""Issue 10, speed: a large document is cut between rows of its big tables, the pieces are rendered
by forked processes in parallel and joined. Whatever the cut, every row is there exactly once and
in order, totals and signature once at the end, every page has the running header and reads
"Page i of N", and each piece passes the layout checks of test_layout.py. If a piece fails, the
document is rendered in one piece and no process is left behind; small documents never fork.

The large documents take seconds each: each is rendered once (in pieces) for the module, the
1,000-line invoice in one piece once per session (test_layout.py's, laid out there), and their
pages are read in parallel, one process per core (tests/documents/forked.py)."""

from __future__ import annotations

import io
import logging
import os
import re
import time
from functools import partial

import pytest
import tinyhtml5
from pypdf import PdfReader

from apps.documents import renderer
from tests.documents.forked import cores, forked_map
from tests.documents.test_layout import (
    LARGE_DOCUMENTS,
    _part_number,
    large_layouts,
    layout_problems,
    make_context,
)

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="parallel rendering needs os.fork"),
    LARGE_DOCUMENTS,  # in the process that lays out the 1,000-line invoice for test_layout.py
]


def _inspect(document) -> list[str]:
    """Run in the process of each piece, on its weasyprint.Document."""
    return layout_problems(document)[:10]


def _flat(text: str) -> str:
    """`text` without whitespace: long values wrap at any character in the table cells."""
    return re.sub(r"\s+", "", text)


def _extract_texts(reader: PdfReader, numbers: range) -> list[str]:
    return [reader.pages[n].extract_text() for n in numbers]


class Rendered:
    def __init__(self, doc_type: str, pieces: int = 2, one_piece_pages: int | None = None, **options):
        self.context = make_context(doc_type, **options)
        html = renderer.render_html(self.context)
        self.parallel = renderer.render_parallel(html, pieces, inspect=_inspect)
        assert self.parallel is not None
        self.one_piece_pages = one_piece_pages  # the page count of `html` rendered in one piece
        self.reader = PdfReader(io.BytesIO(self.parallel.pdf))
        # Every page's text, in order: a run of pages per core, read in parallel.
        count, runs = len(self.reader.pages), cores()
        numbers = [range(count * k // runs, count * (k + 1) // runs) for k in range(runs)]
        runs_texts = forked_map(partial(_extract_texts, self.reader), numbers)
        self.texts = [text for run in runs_texts for text in run]
        assert len(self.texts) == count
        self.flat = _flat("\n".join(self.texts))


@pytest.fixture(scope="module")
def invoice() -> Rendered:
    # test_layout.py renders this same invoice (make_context's, from the same HTML, base URL and
    # fetcher as renderer.render_one_piece) in one piece, once per session: its page count.
    one_piece = large_layouts("commercial_invoice")["commercial_invoice"]
    return Rendered("commercial_invoice", one_piece_pages=one_piece.pages, lines=1000, long=True)


@pytest.fixture(scope="module")
def packing_list() -> Rendered:
    """100 packages of 16 serial numbers each: the package table and Annex A, cut where the
    1,000-line list's 250 packages are (about 2/3 into the package table)."""
    return Rendered("packing_list", lines=400, long=True)


@pytest.fixture(scope="module")
def three_pieces() -> Rendered:
    """A middle piece holds neither the start nor the end of the document."""
    return Rendered("commercial_invoice", pieces=3, lines=90)


def assert_in_order_once(flat: str, values: list[str]) -> None:
    position = 0
    for value in values:
        assert flat.count(value) == 1, f"{value!r} appears {flat.count(value)} times"
        found = flat.index(value)
        assert found > position, f"{value!r} is out of order"
        position = found


def assert_once(flat: str, *values: str) -> None:
    for value in values:
        assert flat.count(_flat(value)) == 1, f"{value!r} appears {flat.count(_flat(value))} times"


def assert_pages_numbered(rendered: Rendered) -> None:
    pages = rendered.parallel.pages
    assert len(rendered.texts) == pages == sum(rendered.parallel.piece_pages)
    for n, text in enumerate(rendered.texts, 1):
        assert re.findall(r"Page \d+ of \d+", text) == [f"Page {n} of {pages}"], f"page {n}"


def assert_running_header(rendered: Rendered) -> None:
    doc = rendered.context
    for n, text in enumerate(rendered.texts, 1):
        assert doc.title in text, f"page {n}"
        assert f"No. {doc.number} · Version {doc.version}" in text, f"page {n}"
        assert f"Shipment {doc.shipment_reference}" in text, f"page {n}"


@pytest.mark.parametrize("fixture", ["invoice", "packing_list", "three_pieces"])
def test_the_pieces_are_joined_with_numbered_pages_and_the_running_header(fixture, request):
    rendered: Rendered = request.getfixturevalue(fixture)
    expected = 3 if fixture == "three_pieces" else 2
    assert len(rendered.parallel.piece_pages) == expected
    assert_pages_numbered(rendered)
    assert_running_header(rendered)
    # The title block is drawn once, on the first page (it is hidden in the other pieces).
    assert rendered.texts[0].startswith(rendered.context.title)
    assert_once(rendered.flat, f"Document no. {rendered.context.number}")
    if rendered.one_piece_pages is not None:
        # Each cut may leave one page partly filled: at most one more page per cut.
        assert rendered.one_piece_pages <= rendered.parallel.pages
        assert rendered.parallel.pages <= rendered.one_piece_pages + expected - 1


@pytest.mark.parametrize("fixture", ["invoice", "packing_list", "three_pieces"])
def test_each_piece_passes_the_layout_checks(fixture, request):
    rendered: Rendered = request.getfixturevalue(fixture)
    assert rendered.parallel.inspected == [[]] * len(rendered.parallel.piece_pages)


@pytest.mark.parametrize("fixture", ["invoice", "three_pieces"])
def test_every_invoice_line_once_in_order_then_totals_and_signature_once(fixture, request):
    rendered: Rendered = request.getfixturevalue(fixture)
    lines = rendered.context.lines
    long = fixture == "invoice"
    assert_in_order_once(rendered.flat, [_part_number(line.number, long=long) for line in lines])
    assert_once(
        rendered.flat, "Goods total", "Invoice total", "We certify that this invoice is true and correct"
    )
    last_line = rendered.flat.index(_part_number(lines[-1].number, long=long))
    assert rendered.flat.index(_flat("Invoice total")) > last_line
    assert rendered.flat.index(_flat("We certify that this invoice")) > last_line
    assert_once(rendered.flat.lower(), "authorised signature", "company stamp")


def test_every_package_and_serial_number_once_in_order(packing_list):
    doc = packing_list.context
    flat = packing_list.flat
    assert_in_order_once(flat, [_flat(f"see Annex A (package {p.number})") for p in doc.packages])
    assert_in_order_once(flat, [serial for p in doc.packages for serial in p.serials])
    assert_once(flat, "Annex A — serial numbers", f"Total · {doc.total_volume_m3:.3f} m³")
    assert_once(flat.lower(), "packed and checked by")
    # The package table ends (its total row, the signature) before Annex A starts.
    annex = flat.index(_flat("Annex A — serial numbers"))
    assert flat.index(_flat("Total ·")) < flat.lower().index("packedandcheckedby") < annex


def test_the_outline_is_the_one_piece_outline(packing_list):
    outline = packing_list.reader.outline
    assert outline[0].title == packing_list.context.title
    assert [item.title for item in outline[1]] == ["Shipment", "Packages", "Annex A — serial numbers"]
    assert packing_list.reader.metadata.title.startswith(packing_list.context.title)


# --- when not to cut, and failures -------------------------------------------------------------


def test_the_plan_cuts_only_between_rows_of_the_big_table():
    html = renderer.render_html(make_context("commercial_invoice", lines=90))
    root = tinyhtml5.parse(html, namespace_html_elements=False)
    plan = renderer.plan_pieces(root, 4)
    assert plan is not None and plan.pieces == 4
    lines = root.find(".//table[@class='lines fixed']/tbody")
    for bound in plan.bounds[1:-1]:
        assert plan.units[bound].tag == "tr" and plan.parent_of[plan.units[bound]] is lines
    assert plan.rows == 90
    small = renderer.render_html(make_context("commercial_invoice", lines=10))
    # No table body of SPLITTABLE_ROWS rows.
    assert renderer.plan_pieces(tinyhtml5.parse(small, namespace_html_elements=False), 2) is None
    # The rows of the big tables count, together: the packing list's 250 packages and its annex.
    html = renderer.render_html(make_context("packing_list", lines=1000, long=True))
    plan = renderer.plan_pieces(tinyhtml5.parse(html, namespace_html_elements=False), 2)
    assert plan.rows == 251 + 250
    assert renderer.page_number_boxes() == ("bottom-right",)
    assert 0 <= renderer.idle_cores() < (os.cpu_count() or 1)


def test_a_small_document_is_rendered_in_one_piece(settings, monkeypatch):
    settings.DOCUMENT_RENDER_PROCESSES = 2
    settings.DOCUMENT_PARALLEL_MIN_ROWS = 300

    def no_fork():
        raise AssertionError("a small document must not fork")

    monkeypatch.setattr(os, "fork", no_fork)
    pdf, pages = renderer.render_pdf(make_context("commercial_invoice", lines=40))
    assert pdf.startswith(b"%PDF") and pages == len(PdfReader(io.BytesIO(pdf)).pages)


@pytest.fixture
def forked(monkeypatch) -> list[int]:
    """The pids of the children forked during the test."""
    pids: list[int] = []
    real_fork = os.fork

    def fork():
        pid = real_fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    return pids


def assert_all_gone(pids: list[int]) -> None:
    assert pids
    for pid in pids:
        with pytest.raises(ChildProcessError):  # reaped: no zombie
            os.waitpid(pid, os.WNOHANG)
        with pytest.raises(ProcessLookupError):  # ended: no orphan
            os.kill(pid, 0)


def test_a_failing_piece_falls_back_to_one_piece(settings, monkeypatch, forked, caplog):
    settings.DOCUMENT_RENDER_PROCESSES = 2
    settings.DOCUMENT_PARALLEL_MIN_ROWS = 50
    parent = os.getpid()
    real_render_piece = renderer._render_piece

    def render_piece(*args, **kwargs):
        if os.getpid() != parent:
            raise RuntimeError("the child broke")
        return real_render_piece(*args, **kwargs)

    monkeypatch.setattr(renderer, "_render_piece", render_piece)
    monkeypatch.setattr(renderer, "idle_cores", lambda: 1)  # however busy the machine is now
    context = make_context("commercial_invoice", lines=60)
    with caplog.at_level(logging.WARNING, logger="apps.documents.renderer"):
        pdf, pages = renderer.render_pdf(context)
    assert "in one piece" in caplog.text and "the child broke" in caplog.text
    assert (pdf, pages)[1] == renderer.render_one_piece(renderer.render_html(context))[1]
    assert len(PdfReader(io.BytesIO(pdf)).pages) == pages
    assert_all_gone(forked)


def test_a_busy_machine_renders_in_one_piece(settings, monkeypatch):
    """Pieces on cores that other processes use only take turns with them: slower than one piece."""
    settings.DOCUMENT_RENDER_PROCESSES = 2
    settings.DOCUMENT_PARALLEL_MIN_ROWS = 50
    monkeypatch.setattr(renderer, "idle_cores", lambda: 0)

    def no_fork():
        raise AssertionError("no idle core: must not fork")

    monkeypatch.setattr(os, "fork", no_fork)
    pdf, pages = renderer.render_pdf(make_context("commercial_invoice", lines=60))
    assert len(PdfReader(io.BytesIO(pdf)).pages) == pages


def test_when_the_parent_fails_its_children_are_killed_and_reaped(monkeypatch, forked):
    parent = os.getpid()

    def render_piece(*args, **kwargs):
        if os.getpid() == parent:
            raise RuntimeError("the parent broke")
        time.sleep(30)  # a child still at work

    monkeypatch.setattr(renderer, "_render_piece", render_piece)
    html = renderer.render_html(make_context("commercial_invoice", lines=120))
    with pytest.raises(RuntimeError, match="the parent broke"):
        renderer.render_parallel(html, 3)
    assert len(forked) == 2
    assert_all_gone(forked)
