"""HTML → PDF with WeasyPrint, fetching nothing but the project's own static files."""

from __future__ import annotations

import functools
import io
import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlparse

import weasyprint
from django.conf import settings
from django.template.loader import render_to_string
from weasyprint.urls import URLFetcher, URLFetcherResponse

from .context import DocumentContext

STATIC_DIR = Path(settings.BASE_DIR) / "static"
STYLESHEET = STATIC_DIR / "documents" / "print.css"


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
    """The PDF bytes and the page count."""
    fetcher = fetcher or StaticOnlyFetcher()
    document = weasyprint.HTML(
        string=render_html(context), base_url=STATIC_DIR.as_uri() + "/", url_fetcher=fetcher
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
