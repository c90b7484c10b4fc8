"""HTML → PDF with WeasyPrint, fetching nothing but the project's own static files."""

from __future__ import annotations

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
