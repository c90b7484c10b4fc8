"""Store the VOID copy of every voided document that has none (voided before documents/0002)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand

from apps.documents import services
from apps.documents.models import Document, DocumentStatus


class Command(BaseCommand):
    help = (
        "Stamp VOID on the issued bytes of each voided document without a VOID copy and store it "
        "with its SHA-256. Documents whose issued file is missing or altered are named and left "
        "without one (exit status 1)."
    )

    def handle(self, *args, **options) -> None:
        stored, failed = 0, 0
        for document in Document.objects.filter(status=DocumentStatus.VOID, void_sha256="").order_by("pk"):
            try:
                services.document_store_void_copy(document=document)
            except services.DocumentIntegrityError as exc:
                failed += 1
                self.stderr.write(str(exc))
                continue
            stored += 1
            self.stdout.write(f"{document}: VOID copy stored")
        self.stdout.write(f"{stored} VOID copies stored, {failed} refused.")
        if failed:
            sys.exit(1)
