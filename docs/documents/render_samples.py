#!/usr/bin/env python
"""Render every document type for a small and a large shipment and save page images here.

    .venv/bin/python docs/documents/render_samples.py          # needs pdftoppm (poppler-utils)

Small: the demo's US export (Demo C, Supermicro San Jose → Chennai, CIP), after `load_demo`, with
its real compliance check, packing and signatories. Large: the benchmark's 1,000-line, 4,000-serial
shipment (`bench/bench_documents.py`). Each type is built by `builder.build_context` and rendered
by `renderer.render_pdf` exactly as `document_generate` does — but for every type, including the
ones the shipment does not require (the page images are of the layout), so the numbers are
"SAMPLE". A large document keeps its first two pages and its last one. Runs on a throwaway test
database (SQLite in memory unless DATABASE_URL is set).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DPI = 70


def main() -> int:
    if not shutil.which("pdftoppm"):
        print("pdftoppm is missing: apt-get install -y poppler-utils", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    warnings.filterwarnings("ignore", "No directory at", UserWarning)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)

    from apps.accounts.models import User
    from apps.shipments.models import Shipment
    from bench.bench_documents import _world

    for old in HERE.glob("*.png"):
        old.unlink()
    call_command("load_demo", verbosity=0)
    coordinator = User.objects.get(username="coordinator")
    _render("small", Shipment.objects.get(instructions__startswith="[Demo C]"), coordinator)
    call_command("flush", interactive=False, verbosity=0)  # the benchmark brings its own operator
    _render("large", _world(), None)
    return 0


def _render(size: str, shipment, actor) -> None:
    from apps.documents import builder
    from apps.documents.models import DocumentType
    from apps.documents.renderer import render_pdf

    for doc_type in DocumentType.values:
        context = builder.build_context(
            shipment, doc_type, number="SAMPLE", version=1, watermark="", actor=actor
        )
        pdf, pages = render_pdf(context)
        keep = [1, 2, pages] if size == "large" and pages > 3 else list(range(1, pages + 1))
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "doc.pdf"
            source.write_bytes(pdf)
            for page in dict.fromkeys(keep):
                target = HERE / f"{size}-{doc_type}-p{page:02d}"
                subprocess.run(
                    ["pdftoppm", "-png", "-r", str(DPI), "-f", str(page), "-l", str(page), "-singlefile",
                     str(source), str(target)],
                    check=True,
                )  # fmt: skip
        print(f"{size:5} {doc_type:22} {pages:3} pages")


if __name__ == "__main__":
    sys.exit(main())
