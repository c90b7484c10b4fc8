"""Trade documents: numbered per type and year, versioned, immutable once issued."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from apps.core.models import AuditedModel, OrgScopedQuerySet


class DocumentType(models.TextChoices):
    COMMERCIAL_INVOICE = "commercial_invoice", "Commercial invoice"
    PACKING_LIST = "packing_list", "Packing list"
    SLI = "sli", "Shipper's letter of instruction"
    EEI_SUMMARY = "eei_summary", "Electronic export information summary"
    END_USER_STATEMENT = "end_user_statement", "End-user statement"
    IOR_AUTHORISATION = "ior_authorisation", "Importer of record authorisation"
    EOR_AUTHORISATION = "eor_authorisation", "Exporter of record authorisation"
    CERTIFICATE_OF_ORIGIN = "certificate_of_origin", "Certificate of origin"


PREFIXES = {
    DocumentType.COMMERCIAL_INVOICE: "CI",
    DocumentType.PACKING_LIST: "PL",
    DocumentType.SLI: "SLI",
    DocumentType.EEI_SUMMARY: "EEI",
    DocumentType.END_USER_STATEMENT: "EUS",
    DocumentType.IOR_AUTHORISATION: "IOR",
    DocumentType.EOR_AUTHORISATION: "EOR",
    DocumentType.CERTIFICATE_OF_ORIGIN: "CO",
}


class DocumentStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ISSUED = "issued", "Issued"
    SUPERSEDED = "superseded", "Superseded draft"
    VOID = "void", "Void"


class DocumentNumber(models.Model):
    """The number of one shipment's document of one type, reserved (in its own short transaction,
    under the counter's lock only) before its first version is rendered. Every version of that
    document carries it, so a number once allocated belongs to that document and no other: never
    lost to a failed render, never given to two documents."""

    shipment = models.ForeignKey(
        "shipments.Shipment", on_delete=models.PROTECT, related_name="document_numbers"
    )
    doc_type = models.CharField(max_length=24, choices=DocumentType.choices)
    number = models.CharField(max_length=24, unique=True, help_text="e.g. CI-2026-000123.")
    reserved_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["shipment", "doc_type"], name="documents_number_per_type"),
        ]

    def __str__(self) -> str:
        return self.number


def _pdf_path(instance: Document, filename: str) -> str:
    return f"documents/{instance.shipment_id}/{instance.number}-v{instance.version}-{filename}"


class Document(AuditedModel):
    """One version of one document of a shipment. Once issued its bytes never change: they are
    stored with their SHA-256, which every download checks. Documents are voided, never deleted."""

    audit_exclude = ("pdf", "void_pdf", "data")

    shipment = models.ForeignKey("shipments.Shipment", on_delete=models.PROTECT, related_name="documents")
    doc_type = models.CharField(max_length=24, choices=DocumentType.choices)
    number = models.CharField(
        max_length=24, help_text="Per type and year, e.g. CI-2026-000123; shared by versions."
    )
    version = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=12, choices=DocumentStatus.choices, default=DocumentStatus.DRAFT)
    watermark = models.CharField(
        max_length=10, blank=True, help_text="DRAFT until the compliance check passed."
    )
    pdf = models.FileField(upload_to=_pdf_path)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    page_count = models.PositiveIntegerField()
    data = models.JSONField(help_text="The data rendered, kept with the document.")
    void_pdf = models.FileField(
        upload_to=_pdf_path, blank=True, help_text="The issued bytes with VOID stamped on every page."
    )
    void_sha256 = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the VOID copy.")
    task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    issued_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.TextField(blank=True)

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["shipment", "doc_type", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["number", "version"], name="documents_number_version_unique"),
            models.UniqueConstraint(
                fields=["shipment", "doc_type", "version"], name="documents_type_version_unique"
            ),
            models.CheckConstraint(
                condition=~Q(status="void") | ~Q(void_reason=""), name="documents_void_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.number} v{self.version}"

    def get_absolute_url(self) -> str:
        return reverse("documents:download", args=[self.pk])

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        from apps.shipments.models import Shipment

        return Q(shipment__in=Shipment.objects.filter(Shipment.org_scope_q(organisation_id, "view")))

    def delete(self, *args, **kwargs):
        raise PermissionError("Documents are voided, never deleted.")

    # Once issued, only the voiding fields may change: the bytes, their hash and the data are final.
    FROZEN = (
        "doc_type",
        "number",
        "version",
        "pdf",
        "sha256",
        "size",
        "page_count",
        "data",
        "watermark",
        "shipment_id",
    )

    def save(self, *args, **kwargs):
        loaded = getattr(self, "_audit_loaded", None)
        if self.pk and loaded and loaded.get("status") in (DocumentStatus.ISSUED, DocumentStatus.VOID):
            for attname in self.FROZEN:
                value = getattr(self, attname)
                value = value.name if hasattr(value, "name") and attname == "pdf" else value
                if attname in loaded and loaded[attname] != value:
                    raise PermissionError(f"{self} is {loaded['status']}: {attname} cannot change.")
        super().save(*args, **kwargs)

    @property
    def filename(self) -> str:
        return f"{self.number}-v{self.version}{'-DRAFT' if self.watermark else ''}.pdf"
