"""HTML → PDF with WeasyPrint, fetching nothing but the project's own static files.

Large documents (DOCUMENT_PARALLEL_MIN_ROWS table rows or more) are cut into pieces rendered in
parallel by forked processes and joined: see "large documents" below."""

from __future__ import annotations

import functools
import io
import logging
import mimetypes
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape as html_escape
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from xml.etree import ElementTree

import cssselect2
import tinycss2
import tinyhtml5
import weasyprint
from django.conf import settings
from django.template.loader import render_to_string
from weasyprint.urls import URLFetcher, URLFetcherResponse

from .context import DocumentContext

logger = logging.getLogger(__name__)

STATIC_DIR = Path(settings.BASE_DIR) / "static"
STYLESHEET = STATIC_DIR / "documents" / "print.css"
BASE_URL = STATIC_DIR.as_uri() + "/"


class StaticOnlyFetcher(URLFetcher):
    """Serves `file://` URLs inside the project's static directory and refuses everything else:
    no network, no other files. Partner-supplied text can never make the renderer fetch."""

    def __init__(self):
        super().__init__(allowed_protocols={"file"}, allow_redirects=False, fail_on_errors=False)
        self.refused: list[str] = []

    def fetch(self, url, headers=None):
        parsed = urlparse(url)
        path = Path(unquote(parsed.path)).resolve() if parsed.scheme == "file" else None
        if path is None or not path.is_relative_to(STATIC_DIR.resolve()) or not path.is_file():
            self.refused.append(url)
            raise ValueError(f"Refused to fetch {url!r}: only the project's static files are served.")
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(
            path.as_uri(), path.read_bytes(), headers={"Content-Type": content_type}, status=200
        )


def render_html(context: DocumentContext) -> str:
    return render_to_string(
        f"documents/pdf/{context.doc_type}.html", {"doc": context, "stylesheet_url": STYLESHEET.as_uri()}
    )


def render_pdf(context: DocumentContext, *, fetcher: StaticOnlyFetcher | None = None) -> tuple[bytes, int]:
    """The PDF bytes and the page count.

    A document whose big tables have DOCUMENT_PARALLEL_MIN_ROWS rows or more in all is rendered
    in up to DOCUMENT_RENDER_PROCESSES pieces in parallel (see `render_parallel`), no more than
    there are idle cores (plus this process's own): each cut between pieces may leave one page
    partly filled, nothing else differs. If that fails it is rendered in one piece (logged)."""
    fetcher = fetcher or StaticOnlyFetcher()
    html = render_html(context)
    processes = settings.DOCUMENT_RENDER_PROCESSES
    min_rows = settings.DOCUMENT_PARALLEL_MIN_ROWS
    # Counting "<tr" is a cheap upper bound of the rows: small documents are not even parsed.
    pieces = 1
    if processes > 1 and hasattr(os, "fork") and html.count("<tr") >= min_rows:
        pieces = min(processes, 1 + idle_cores())
    if pieces > 1:
        try:
            rendered = render_parallel(html, pieces, fetcher=fetcher, min_rows=min_rows)
        except Exception:
            logger.warning(
                "Rendering %s %s in %s pieces failed; rendering it in one piece",
                context.doc_type,
                context.number,
                pieces,
                exc_info=True,
            )
        else:
            if rendered is not None:
                return rendered.pdf, rendered.pages
    return render_one_piece(html, fetcher=fetcher)


def idle_cores() -> int:
    """The cores no other process is running on now (Linux: /proc/loadavg's count of running
    tasks, this one included); the cores this process may use elsewhere. Pieces on busy cores
    only take turns with what runs there: a cut document then costs more than one piece."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        running = int(Path("/proc/loadavg").read_text().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return cores - 1
    return max(0, cores - running)


def render_one_piece(html: str, *, fetcher: StaticOnlyFetcher | None = None) -> tuple[bytes, int]:
    document = weasyprint.HTML(
        string=html, base_url=BASE_URL, url_fetcher=fetcher or StaticOnlyFetcher()
    ).render()
    return document.write_pdf(), len(document.pages)


def render_notice(title: str, lines: list[str]) -> bytes:
    """A one-page PDF with a title and lines of plain text (escaped), e.g. an empty bundle's notice."""
    from django.utils.html import escape

    body = "".join(f"<p>{escape(line)}</p>" for line in lines)
    html = (
        "<!doctype html><html><head><style>@page { size: A4; margin: 20mm; } "
        "body { font-family: sans-serif; font-size: 11pt; }</style></head>"
        f"<body><h1>{escape(title)}</h1>{body}</body></html>"
    )
    return weasyprint.HTML(string=html, url_fetcher=StaticOnlyFetcher()).write_pdf()


STAMP_HTML = """<!doctype html><html><head><style>
@page {{ size: A4; margin: 0; }}
body {{ margin: 0; }}
.mark {{ position: absolute; top: 120mm; left: -10mm; width: 230mm; text-align: center;
  font-family: sans-serif; font-size: 120pt; font-weight: bold; letter-spacing: 8pt;
  color: rgba(190, 30, 30, 0.28); transform: rotate(-35deg); }}
</style></head><body><div class="mark">{mark}</div></body></html>"""
STAMP_MARKS = ("DRAFT", "VOID")


@functools.cache
def stamp_page(mark: str) -> bytes:
    """A one-page A4 PDF carrying only `mark` (DRAFT or VOID), rendered once per process."""
    if mark not in STAMP_MARKS:
        raise ValueError(f"Unknown mark {mark!r}.")
    return weasyprint.HTML(string=STAMP_HTML.format(mark=mark), url_fetcher=StaticOnlyFetcher()).write_pdf()


def stamp_pdf(pdf: bytes, mark: str) -> bytes:
    """`pdf` with `mark` stamped over every page: the pages themselves are left as they are."""
    from pypdf import PdfReader, PdfWriter

    stamp = PdfReader(io.BytesIO(stamp_page(mark))).pages[0]
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    for page in writer.pages:
        page.merge_page(stamp, over=True)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


# --- large documents: rendered in pieces, in parallel ------------------------------------------
#
# WeasyPrint's cost (cascade, boxes, layout, PDF) grows with the number of elements, about 1 ms
# per table cell, on one core. A document whose big tables (table bodies of SPLITTABLE_ROWS rows or
# more) have DOCUMENT_PARALLEL_MIN_ROWS rows or more in all is cut between their rows into one
# piece per process, each piece is rendered by its own process, and the pieces' PDFs are joined:
#
# - Every piece keeps the head of the body (up to the title block, which feeds the running header
#   through string-set; the watermark), then its share of the content in document order: the first
#   piece what precedes its cut (parties, terms, the first rows), the last one what follows the
#   last cut (the last rows, totals, signature, annexes). A table cut in pieces keeps its <thead>
#   and <colgroup> in each, as it repeats them on every page anyway.
# - In every piece but the first, the title block is laid out with no height and drawn invisible:
#   its string-set still feeds the running header, so every page has the same header.
# - The margin box that numbers pages (whose content uses counter(page) or counter(pages)) is
#   hidden in the pieces; once they are joined, a cheap document of as many empty pages, with the
#   same stylesheets, that draws only that box is laid over them page by page.
# - Each cut may leave the last page of a piece partly filled; nothing else differs from the
#   document rendered in one piece. Limits, which the templates do not meet: CSS counters and
#   string-set values set by elements of the content would restart in every piece.
#
# Processes: os.fork(), not multiprocessing, which refuses to start children from Celery's
# daemonic prefork workers. A child only lays out its piece of the already parsed HTML and writes
# the PDF to a temporary file; it never touches the database or the cache (it inherits their
# connections and leaves them alone), and leaves with os._exit(). The parent renders the first
# piece itself, waits for the others and joins. Whatever goes wrong (a child's error or timeout, an
# unexpected page size) raises, children are killed and reaped, and render_pdf() falls back to one
# piece. The timeout also bounds the one risk of forking a process with threads (a child stuck on
# a lock another thread held at the fork). A parent killed outright (SIGKILL) leaves its children
# to finish their piece and exit on their own, within seconds.

RUNNING_SOURCE_CLASS = "title-block"  # base.html: the block whose descendants feed string-set
SPLITTABLE_ROWS = 20  # table bodies with fewer rows (key-value tables, totals) are never cut
CHILD_TIMEOUT = 60  # seconds a child may take beyond 3× the parent's own piece
CONTINUED = "data-rackpass-continued"
CONTINUATION_CSS = f"""
[{CONTINUED}] {{
  height: 0 !important; min-height: 0 !important; max-height: 0 !important;
  margin: 0 !important; padding: 0 !important; border: 0 !important;
  overflow: hidden !important; visibility: hidden !important;
}}
[{CONTINUED}], [{CONTINUED}] * {{ bookmark-level: none !important; }}
"""
MARGIN_BOXES = (
    "top-left-corner", "top-left", "top-center", "top-right", "top-right-corner",
    "right-top", "right-middle", "right-bottom",
    "bottom-right-corner", "bottom-right", "bottom-center", "bottom-left", "bottom-left-corner",
    "left-bottom", "left-middle", "left-top",
)  # fmt: skip
PX_TO_PT = 0.75  # WeasyPrint lays out in CSS px and writes PDF points


@functools.cache
def page_number_boxes() -> tuple[str, ...]:
    """The @page margin boxes of print.css whose content counts pages, e.g. ("bottom-right",);
    () if the document cannot be cut: one of them also shows a string or an element (which the
    overlay could not draw), or an @page rule has a selector (:first, :left, a named page: a piece
    would start with a first or a right page where the document has none)."""
    names: set[str] = set()
    for rule in tinycss2.parse_stylesheet(STYLESHEET.read_text(), skip_comments=True, skip_whitespace=True):
        if rule.type != "at-rule" or rule.lower_at_keyword != "page" or rule.content is None:
            continue
        if tinycss2.serialize(rule.prelude).strip():
            return ()
        for box in tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True):
            if box.type != "at-rule" or box.lower_at_keyword not in MARGIN_BOXES or box.content is None:
                continue
            for declaration in tinycss2.parse_blocks_contents(box.content, skip_whitespace=True):
                if declaration.type != "declaration" or declaration.lower_name != "content":
                    continue
                functions = [
                    (token.lower_name, tinycss2.serialize(token.arguments).strip())
                    for token in declaration.value
                    if token.type == "function"
                ]
                if any(name == "counter" and args in ("page", "pages") for name, args in functions):
                    if any(name in ("string", "element") for name, _ in functions):
                        return ()
                    names.add(box.lower_at_keyword)
    return tuple(sorted(names))


def _margin_css(boxes: tuple[str, ...] | list[str], rule: str) -> str:
    return "@page { " + " ".join(f"@{box} {{ {rule} }}" for box in boxes) + " }"


@dataclass
class Rendered:
    """A rendered document and how it was cut."""

    pdf: bytes
    pages: int
    piece_pages: list[int]  # the pages of each piece, in order
    piece_seconds: list[float]  # how long each piece took to render, in its process
    piece_cpu_seconds: list[float]  # the CPU time of each (less than the above: other processes ran)
    inspected: list = field(default_factory=list)  # what `inspect` returned for each piece


@dataclass
class Plan:
    """Where a parsed document is cut. `units` are the body's children in document order, except
    that the elements holding cut rows (`containers`: a tbody, its table…, deepest first) are
    replaced by their content (a tbody by its rows; a table's thead and colgroup, which every piece
    keeps, are no units). Every piece keeps units[:head] (up to the title block); piece k keeps
    units[bounds[k]:bounds[k + 1]]."""

    units: list
    head: int
    bounds: list[int]
    containers: list
    parent_of: dict
    title: Any
    rows: int  # the rows of the table bodies that may be cut

    @property
    def pieces(self) -> int:
        return len(self.bounds) - 1


def _rows(tbody) -> int:
    return sum(1 for child in tbody if child.tag == "tr")


def _cost(element) -> float:
    """What laying out `element` costs, roughly: WeasyPrint's time follows its boxes (one or more
    per element, one per line of text)."""
    elements = characters = 0
    for node in element.iter():
        elements += 1
        characters += len(node.text or "") + len(node.tail or "")
    return elements + characters / 60


def plan_pieces(root, pieces: int) -> Plan | None:
    """How to cut the parsed document `root` into at most `pieces` pieces of about equal cost,
    only between rows of table bodies of SPLITTABLE_ROWS rows or more (never in a cell, never in
    the title block, never across a rowspan); None if it cannot be cut."""
    body = root.find("body")
    if body is None or pieces < 2:
        return None
    children = list(body)
    title = next((c for c in children if RUNNING_SOURCE_CLASS in (c.get("class") or "").split()), None)
    if title is None:
        return None
    head = children.index(title) + 1
    parent_of = {child: parent for parent in body.iter() for child in parent}

    def in_content(element) -> bool:
        node = parent_of.get(element)
        while node is not body:
            if node is None or node.tag in ("td", "th", "tr") or node in children[:head]:
                return False
            node = parent_of.get(node)
        return True

    cut = [t for t in body.iter("tbody") if _rows(t) >= SPLITTABLE_ROWS and in_content(t)]
    containers: dict = {}  # element → depth
    for tbody in cut:
        node, path = tbody, []
        while node is not body:
            path.append(node)
            node = parent_of[node]
        for depth, node in enumerate(reversed(path)):
            containers[node] = depth
    if not containers:
        return None

    units: list = list(children[:head])
    cuttable: list[bool] = [False] * head  # whether a cut may come just before units[i]

    def add(element, may_cut: bool = False) -> None:
        units.append(element)
        cuttable.append(may_cut)

    def flatten(container) -> None:
        if container.tag == "tbody":
            spanned = 0  # how many of the next rows a rowspan above reaches into
            for n, row in enumerate(container):
                add(row, n > 0 and row.tag == "tr" and spanned == 0)
                if row.tag == "tr":
                    spans = [int(c.get("rowspan") or 1) for c in row if c.tag in ("td", "th")]
                    spanned = max(spanned - 1, max(spans, default=1) - 1)
            return
        for child in container:
            if child in containers:
                flatten(child)
            elif not (container.tag == "table" and child.tag in ("thead", "colgroup", "col")):
                add(child)

    for child in children[head:]:
        if child in containers:
            flatten(child)
        else:
            add(child)

    costs = [_cost(unit) for unit in units]
    cumulative = [0.0]
    for cost in costs[head:]:
        cumulative.append(cumulative[-1] + cost)  # cumulative[i - head]: cost of units[head:i]
    total = cumulative[-1]
    candidates = [i for i in range(head, len(units)) if cuttable[i]]
    bounds = [head]
    for k in range(1, pieces):
        later = [i for i in candidates if i > bounds[-1]]
        if not later:
            break
        bounds.append(min(later, key=lambda i: abs(cumulative[i - head] - total * k / pieces)))
    bounds.append(len(units))
    if len(bounds) < 3:
        return None
    return Plan(
        units=units,
        head=head,
        bounds=bounds,
        containers=sorted(containers, key=containers.get, reverse=True),
        parent_of=parent_of,
        title=title,
        rows=sum(_rows(tbody) for tbody in cut),
    )


def cut_piece(plan: Plan, k: int) -> None:
    """Reduce the parsed document (in place: once per process) to piece `k` of `plan`."""
    kept = {id(unit) for unit in plan.units[: plan.head]}
    kept.update(id(unit) for unit in plan.units[plan.bounds[k] : plan.bounds[k + 1]])
    for unit in plan.units:
        if id(unit) not in kept:
            plan.parent_of[unit].remove(unit)
    for container in plan.containers:  # deepest first
        if not any(id(node) in kept for node in container.iter()):
            plan.parent_of[container].remove(container)
    if k > 0:
        plan.title.set(CONTINUED, "")


def _html_from_tree(root, fetcher: URLFetcher) -> weasyprint.HTML:
    """A weasyprint.HTML of an already parsed document, as HTML.__init__ makes it from a string
    (WeasyPrint has no public way to do this; parsing again would cost what parsing costs)."""
    html = weasyprint.HTML.__new__(weasyprint.HTML)
    html.base_url = BASE_URL
    html.url_fetcher = fetcher
    html.media_type = "print"
    html.wrapper_element = cssselect2.ElementWrapper.from_html_root(root, content_language=None)
    html.etree_element = html.wrapper_element.etree_element
    return html


def _render_piece(
    root, plan: Plan, k: int, fetcher: StaticOnlyFetcher, inspect: Callable[[Any], Any] | None
) -> dict:
    """Piece `k`, rendered: its PDF, pages, bookmarks (level, label, page, x, y, state in PDF
    points), page sizes and what `inspect` returned for its weasyprint.Document."""
    started, cpu_started = time.perf_counter(), time.process_time()
    cut_piece(plan, k)
    stylesheets = [weasyprint.CSS(string=_margin_css(page_number_boxes(), "visibility: hidden !important;"))]
    if k > 0:
        stylesheets.append(weasyprint.CSS(string=CONTINUATION_CSS))
    document = _html_from_tree(root, fetcher).render(stylesheets=stylesheets)
    bookmarks = [
        (level, label, n, x * PX_TO_PT, (page.height - y) * PX_TO_PT, state)
        for n, page in enumerate(document.pages)
        for level, label, (x, y), state in page.bookmarks
    ]
    return {
        "pdf": document.write_pdf(),
        "pages": len(document.pages),
        "bookmarks": bookmarks,
        "inspected": inspect(document) if inspect else None,
        "refused": list(fetcher.refused),
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu_started,
    }


def _child(root, plan: Plan, k: int, fetcher, inspect, path: str) -> None:
    """In a forked child: render piece `k` into `path` (a pickle), then leave: never returns."""
    status = 1
    try:
        for signum in (signal.SIGTERM, signal.SIGINT):  # not the parent's handlers (Celery's)
            signal.signal(signum, signal.SIG_DFL)
        result = _render_piece(root, plan, k, fetcher, inspect)
        status = 0
    except BaseException:
        result = {"error": traceback.format_exc()}
    try:
        with open(path + ".part", "wb") as file:
            pickle.dump(result, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(path + ".part", path)
    except BaseException:
        status = 1
    finally:
        os._exit(status)


def _exited(pid: int) -> bool:
    """Whether child `pid` has ended (and is reaped)."""
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored)
        return True
    return done != 0


def _result(path: str, k: int) -> dict:
    try:
        with open(path, "rb") as file:
            result = pickle.load(file)
    except FileNotFoundError:
        raise RuntimeError(f"Piece {k} was not rendered: its process died") from None
    if "error" in result:
        raise RuntimeError(f"Piece {k} failed in its process:\n{result['error']}")
    return result


def render_parallel(
    html: str,
    processes: int,
    *,
    fetcher: StaticOnlyFetcher | None = None,
    min_rows: int = 0,
    inspect: Callable[[Any], Any] | None = None,
) -> Rendered | None:
    """`html` rendered in up to `processes` pieces in parallel (see above), or None if it cannot be
    cut or its big tables (the table bodies of SPLITTABLE_ROWS rows or more) have fewer than
    `min_rows` rows in all. `inspect`, if given, is called with each piece's weasyprint.Document
    in the process that renders it; what it returns (it must pickle) is in `Rendered.inspected`.
    Raises if a piece fails: no process is left behind."""
    fetcher = fetcher or StaticOnlyFetcher()
    if not page_number_boxes():
        return None
    root = tinyhtml5.parse(html, namespace_html_elements=False)
    plan = plan_pieces(root, processes)
    if plan is None or plan.rows < min_rows:
        return None
    overlay_head = _overlay_head(root)
    children: dict[int, int] = {}  # pid → piece
    with tempfile.TemporaryDirectory(prefix="rackpass-render-") as directory:
        paths = [os.path.join(directory, f"piece-{k}.pickle") for k in range(plan.pieces)]
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            for k in range(1, plan.pieces):
                pid = os.fork()
                if pid == 0:
                    _child(root, plan, k, fetcher, inspect, paths[k])
                children[pid] = k
            started = time.monotonic()
            results = {0: _render_piece(root, plan, 0, fetcher, inspect)}
            deadline = time.monotonic() + CHILD_TIMEOUT + 3 * (time.monotonic() - started)
            while children:
                for pid, k in list(children.items()):
                    if _exited(pid):
                        del children[pid]
                        results[k] = _result(paths[k], k)
                if children and time.monotonic() > deadline:
                    raise TimeoutError(f"Pieces {sorted(children.values())} took too long")
                if children:
                    time.sleep(0.01)
        finally:
            for pid in children:  # only after an error: end and reap the children left
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
    pieces = [results[k] for k in range(plan.pieces)]
    for piece in pieces[1:]:
        fetcher.refused.extend(piece["refused"])
    pdf, pages = _join(pieces, overlay_head, fetcher)
    return Rendered(
        pdf,
        pages,
        piece_pages=[p["pages"] for p in pieces],
        piece_seconds=[p["seconds"] for p in pieces],
        piece_cpu_seconds=[p["cpu_seconds"] for p in pieces],
        inspected=[p["inspected"] for p in pieces],
    )


def _overlay_head(root) -> str:
    """The document's <html> start tag and <head> (its stylesheets), for the page-number overlay."""
    attributes = "".join(f' {name}="{html_escape(value)}"' for name, value in root.attrib.items())
    head = root.find("head")
    head_html = ElementTree.tostring(head, encoding="unicode", method="html") if head is not None else ""
    return f"<!DOCTYPE html><html{attributes}>{head_html}"


def page_number_overlay(head: str, pages: int, fetcher: URLFetcher | None = None) -> bytes:
    """`pages` empty pages with the document's stylesheets (`head`) that draw only the margin
    boxes that number pages: laid over the joined pieces."""
    body = '<div style="break-after: page"></div>' * (pages - 1) + "<div></div>"
    others = [box for box in MARGIN_BOXES if box not in page_number_boxes()]
    css = _margin_css(others, "visibility: hidden !important;") + (
        " @page { background: none !important; }"
        " html, body { background: none !important; }"
        " body * { visibility: hidden !important; }"
    )
    document = weasyprint.HTML(
        string=f"{head}<body>{body}</body></html>",
        base_url=BASE_URL,
        url_fetcher=fetcher or StaticOnlyFetcher(),
    ).render(stylesheets=[weasyprint.CSS(string=css)])
    if len(document.pages) != pages:
        raise RuntimeError(f"The page-number overlay has {len(document.pages)} pages, not {pages}")
    return document.write_pdf()


def _join(pieces: list[dict], overlay_head: str, fetcher: URLFetcher) -> tuple[bytes, int]:
    """The pieces' pages in order, numbered by the overlay, with the outline of all the pieces."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import Fit

    readers = [PdfReader(io.BytesIO(piece["pdf"])) for piece in pieces]
    writer = PdfWriter(clone_from=readers[0])  # the first piece's metadata (title, description…)
    for reader in readers[1:]:
        writer.append(reader, import_outline=False)
    pages = len(writer.pages)
    overlay = PdfReader(io.BytesIO(page_number_overlay(overlay_head, pages, fetcher)))
    for n, (page, numbers) in enumerate(zip(writer.pages, overlay.pages, strict=True), 1):
        if [round(float(v), 1) for v in page.mediabox] != [round(float(v), 1) for v in numbers.mediabox]:
            raise RuntimeError(f"Page {n} is {page.mediabox}, the page-number overlay {numbers.mediabox}")
        page.merge_page(numbers, over=True)
        page.compress_content_streams()  # merging leaves the page's content uncompressed
    # The outline: each piece's bookmarks (the first piece's alone came with the clone).
    if "/Outlines" in writer.root_object:
        del writer.root_object["/Outlines"]
    offset, parents = 0, []  # parents: (level, outline item) of the open bookmarks
    for piece in pieces:
        for level, label, n, x, y, state in piece["bookmarks"]:
            while parents and parents[-1][0] >= level:
                parents.pop()
            item = writer.add_outline_item(
                title=label,
                page_number=offset + n,
                parent=parents[-1][1] if parents else None,
                fit=Fit.xyz(left=x, top=y, zoom=0),
                is_open=state != "closed",
            )
            parents.append((level, item))
        offset += piece["pages"]
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue(), pages
