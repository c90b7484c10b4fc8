"""Generate, issue, void and read documents. Issued bytes are frozen and checked on every read."""

from __future__ import annotations

import hashlib
import io
import logging
import zipfile

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from apps.accounts.models import User
from apps.core.jsonable import jsonable
from apps.core.sequences import next_reference
from apps.core.tasks_outbox import enqueue_on_commit
from apps.shipments.models import Shipment

from . import builder
from .context import DocumentContext
from .models import PREFIXES, Document, DocumentNumber, DocumentStatus, DocumentType
from .renderer import render_notice, render_pdf, stamp_pdf

logger = logging.getLogger(__name__)


class DocumentIntegrityError(Exception):
    """Stored bytes are missing or no longer match the SHA-256 recorded when they were written."""


def _refuse_over_issued(shipment: Shipment, doc_type: str) -> None:
    """Generating never replaces an issued document: a new version comes after a void (with a reason)."""
    issued = Document.objects.filter(
        shipment=shipment, doc_type=doc_type, status=DocumentStatus.ISSUED
    ).first()
    if issued:
        raise ValidationError(
            {"status": f"{issued} is issued; void it (saying why) before generating a new version."}
        )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _problems_error(problems: list[builder.Problem]) -> ValidationError:
    return ValidationError({p.field: f"{p.message} Fix it at {p.fix_url}" for p in problems})


# Renders tried outside any lock before the last one is made under the shipment's lock.
RENDER_ATTEMPTS = 3


class _Moved(Exception):
    """What a render was made from changed before its version could be written."""


def document_number_reserve(*, shipment: Shipment, doc_type: str) -> str:
    """The number of the shipment's document of `doc_type`, reserved on first use.

    The reservation is its own short transaction, holding only the counter's row lock (for the
    increment and one insert), and it is committed before anything is rendered: concurrent
    generations for different shipments each get their own number at once and render side by
    side. A reservation is never released, so no number is lost or reused: each belongs to one
    shipment's document, whose every version carries it. When two generations of the same
    document race, the loser's insert fails and its transaction (the increment too) rolls back."""
    reserved = DocumentNumber.objects.filter(shipment=shipment, doc_type=doc_type)
    number = reserved.values_list("number", flat=True).first()
    if number:
        return number
    try:
        with transaction.atomic():
            number = next_reference(PREFIXES[DocumentType(doc_type)])
            DocumentNumber.objects.create(shipment=shipment, doc_type=doc_type, number=number)
    except IntegrityError:
        pass  # reserved by a concurrent generation of the same document: use that one
    return reserved.values_list("number", flat=True).get()


def document_generate(
    *, shipment: Shipment, doc_type: str, actor: User | None = None, task_id: str = ""
) -> Document:
    """Render a new version of a document (DRAFT-marked until the compliance check passed).

    Refused, listing every missing field, when the shipment lacks data the document needs.

    Three steps, none of which holds a lock while WeasyPrint renders: the document's number is
    reserved (`document_number_reserve`: only the counter's row is locked, briefly); the PDF is
    rendered from what the shipment holds now, outside any transaction; then, in a short
    transaction holding the shipment's row lock, the content is rebuilt and the version written
    only if it still matches what was rendered. Otherwise (an edit, or another version came first)
    it renders again; the last attempt renders under the shipment's lock, so a busy shipment still
    gets its document."""
    if doc_type not in DocumentType.values:
        raise ValidationError({"doc_type": f"Unknown document type {doc_type!r}."})
    number = ""
    for _attempt in range(RENDER_ATTEMPTS - 1):
        current = Shipment.objects.get(pk=shipment.pk)
        _refuse_over_issued(current, doc_type)
        problems = builder.document_problems(current, doc_type)
        if problems:
            raise _problems_error(problems)
        number = number or document_number_reserve(shipment=current, doc_type=doc_type)
        context = _context(current, doc_type, actor, number)
        pdf, pages = render_pdf(context)  # no transaction, no lock
        try:
            with transaction.atomic():
                return _write(shipment, doc_type, number, context, pdf, pages, actor, task_id)
        except _Moved:
            continue
    with transaction.atomic():
        return _write(shipment, doc_type, number, None, None, None, actor, task_id)


def _context(shipment: Shipment, doc_type: str, actor: User | None, number: str) -> DocumentContext:
    """The document's content from the shipment as it is now, as its next version (signed as
    `signatures.signature_for` decides: the party's signatory, or `actor` as its agent)."""
    last = Document.objects.filter(shipment=shipment, doc_type=doc_type).aggregate(v=Max("version"))["v"]
    return builder.build_context(
        shipment,
        doc_type,
        number=number,
        version=(last or 0) + 1,
        watermark=builder.watermark_for(shipment),
        actor=actor,
    )


def _write(
    shipment: Shipment,
    doc_type: str,
    number: str,
    rendered: DocumentContext | None,
    pdf: bytes | None,
    pages: int | None,
    actor: User | None,
    task_id: str,
) -> Document:
    """Inside a transaction: lock the shipment, check the render still holds, write the version."""
    locked = Shipment.objects.select_for_update().get(pk=shipment.pk)
    _refuse_over_issued(locked, doc_type)
    context = _context(locked, doc_type, actor, number)
    if rendered is None:  # the last attempt: render under the shipment's lock
        problems = builder.document_problems(locked, doc_type)
        if problems:
            raise _problems_error(problems)
        logger.warning("Rendering %s of %s under the lock: it kept changing", doc_type, locked.reference)
        pdf, pages = render_pdf(context)
    elif jsonable(context) != jsonable(rendered):
        raise _Moved
    previous = Document.objects.filter(shipment=locked, doc_type=doc_type)
    previous.filter(status=DocumentStatus.DRAFT).update(status=DocumentStatus.SUPERSEDED)
    document = Document(
        shipment=locked,
        doc_type=doc_type,
        number=context.number,
        version=context.version,
        watermark=context.watermark,
        sha256=_sha256(pdf),
        size=len(pdf),
        page_count=pages,
        data=jsonable(context),
        created_by=actor,
        task_id=task_id,
    )
    document.pdf.save("document.pdf", ContentFile(pdf), save=False)
    document.save()
    return document


def document_generate_start(*, shipment: Shipment, doc_types: list[str], actor: User | None) -> str:
    """Queue generation (recorded as owed now, sent after this transaction commits: the outbox);
    returns the task id to poll. The task (`tasks.generate_documents`) is named, not imported: it
    calls back into this module."""
    unknown = [t for t in doc_types if t not in DocumentType.values]
    if unknown or not doc_types:
        raise ValidationError({"doc_types": f"Unknown document types: {', '.join(unknown) or 'none given'}."})
    return enqueue_on_commit(
        "documents.generate",
        kwargs={"shipment_id": shipment.pk, "doc_types": doc_types, "actor_id": actor.pk if actor else None},
        kind="document generation",
        actor=actor,
        object_repr=shipment.reference,
        object_url=shipment.get_absolute_url(),
    ).task_id


@transaction.atomic
def document_issue(*, document: Document, actor: User) -> Document:
    """Freeze a version: its bytes are final. Only an unmarked (compliance-passed) version can be issued."""
    document = Document.objects.select_for_update().get(pk=document.pk)
    if document.status != DocumentStatus.DRAFT:
        raise ValidationError(
            {"status": f"{document} is {document.get_status_display().lower()}, not a draft."}
        )
    if document.watermark:
        raise ValidationError(
            {
                "watermark": f"{document} was generated before the compliance check passed and "
                "carries a DRAFT mark. Regenerate it, then issue the new version."
            }
        )
    _refuse_before_cited_invoice(document)
    _verify(document)
    current = Document.objects.filter(
        shipment=document.shipment, doc_type=document.doc_type, status=DocumentStatus.ISSUED
    ).exclude(pk=document.pk)
    if current.exists():
        raise ValidationError(
            {"status": f"{current.first()} is already issued; void it before issuing another version."}
        )
    document.status, document.issued_by, document.issued_at = DocumentStatus.ISSUED, actor, timezone.now()
    document.save(update_fields=["status", "issued_by", "issued_at"])
    from apps.core.audit import record_transition

    record_transition(
        document,
        field="status",
        before=DocumentStatus.DRAFT,
        after=DocumentStatus.ISSUED,
        actor=actor,
        reason=f"SHA-256 {document.sha256}",
    )
    return document


def _refuse_before_cited_invoice(document: Document) -> None:
    """A document that cites the commercial invoice by number (the certificate of origin; the
    packing list, SLI and IOR letter once an invoice exists) is issued only while a version of that
    invoice is issued: an issued document never cites an invoice that is a draft, or void."""
    cited = (document.data or {}).get("invoice_number")
    if document.doc_type == DocumentType.COMMERCIAL_INVOICE or not cited:
        return
    issued = Document.objects.filter(
        shipment_id=document.shipment_id,
        doc_type=DocumentType.COMMERCIAL_INVOICE,
        number=cited,
        status=DocumentStatus.ISSUED,
    )
    if not issued.exists():
        raise ValidationError(
            {
                "invoice_number": f"{document} cites commercial invoice {cited}, which is not issued: "
                f"issue commercial invoice {cited} first, then this document."
            }
        )


def document_void(*, document: Document, actor: User, reason: str) -> Document:
    """Void a document (reason required). Its issued bytes stay; a VOID copy is added: those same
    bytes with VOID stamped on every page (never a re-render from today's data), stored with its
    own SHA-256. From then on the document downloads as its VOID copy.

    The VOID copy is made before the document's row is locked (to check it is still not void
    and write)."""
    if not (reason or "").strip():
        raise ValidationError({"reason": "Say why the document is voided."})
    document = Document.objects.select_related("shipment").get(pk=document.pk)
    if document.status == DocumentStatus.VOID:
        raise ValidationError({"status": f"{document} is already void."})
    void_pdf = stamp_pdf(_verify(document), "VOID")
    with transaction.atomic():
        return _void(document, actor, reason, void_pdf)


def _void(document: Document, actor: User, reason: str, void_pdf: bytes) -> Document:
    document = Document.objects.select_for_update().get(pk=document.pk)
    if document.status == DocumentStatus.VOID:
        raise ValidationError({"status": f"{document} is already void."})
    before = document.status
    document.status, document.voided_by, document.voided_at = DocumentStatus.VOID, actor, timezone.now()
    document.void_reason = reason.strip()
    document.void_sha256 = _sha256(void_pdf)
    document.void_pdf.save("void.pdf", ContentFile(void_pdf), save=False)
    document.save(
        update_fields=["status", "voided_by", "voided_at", "void_reason", "void_pdf", "void_sha256"]
    )
    from apps.core.audit import record_transition

    record_transition(
        document, field="status", before=before, after=DocumentStatus.VOID, actor=actor, reason=reason.strip()
    )
    return document


def documents_void_on_cancel(event) -> None:
    """What cancelling a shipment does to its documents (a `shipments.hooks` hook for `cancelled`,
    run inside the cancel's transaction with the shipment locked, so no version can be written
    meanwhile): every issued document is voided — its checked bytes stamped VOID — with the reason
    "Shipment <ref> cancelled: <reason>", and every draft is superseded. Every issued file is
    checked and stamped before anything is written; one that is missing or altered refuses the
    cancel (`TransitionRefused`, naming each such document), and the whole cancel rolls back."""
    _void_all(event, what="cancelled")


def documents_void_on_amend(event) -> None:
    """What amending an approved shipment (approved → draft, a `shipments.hooks` hook for `draft`)
    does to its documents: as a cancel, with the reason "Shipment <ref> amended: <reason>". The
    voided versions keep their numbers, versions and bytes; the corrected documents are new versions
    generated after the shipment is approved again. Withdrawing a shipment from review (review →
    draft) leaves its documents alone: none can have been issued."""
    if event.before == "approved":
        _void_all(event, what="amended")


def amend_effects(shipment: Shipment) -> list[str]:
    """What amending the shipment will do to its documents, for the confirmation page."""
    sentences = [
        f"{document.get_doc_type_display()} {document.number} version {document.version} (issued) will be "
        "voided: kept with its number, version and bytes, and a copy stamped VOID."
        for document in Document.objects.filter(shipment=shipment, status=DocumentStatus.ISSUED).order_by(
            "doc_type", "version"
        )
    ]
    drafts = Document.objects.filter(shipment=shipment, status=DocumentStatus.DRAFT).count()
    if drafts:
        sentences.append(f"{drafts} unissued draft version{'s' if drafts != 1 else ''} will be superseded.")
    return sentences or ["No document is issued or drafted yet: nothing to void."]


def _void_all(event, *, what: str) -> None:
    """Void every issued document of the event's shipment and supersede every draft, saying the
    shipment was `what` ("cancelled", "amended") and why; all or nothing."""
    from apps.core.audit import record, record_transition
    from apps.shipments.services import TransitionRefused

    shipment = event.shipment
    reason = f"Shipment {shipment.reference} {what}: {event.reason}"
    documents = list(
        Document.objects.select_for_update()
        .filter(shipment=shipment, status__in=[DocumentStatus.ISSUED, DocumentStatus.DRAFT])
        .order_by("pk")
    )
    copies: dict[int, bytes] = {}
    problems: list[str] = []
    for document in documents:
        if document.status == DocumentStatus.ISSUED:
            try:
                copies[document.pk] = stamp_pdf(_verify(document), "VOID")
            except DocumentIntegrityError as exc:
                problems.append(f"{exc} Restore it from a backup first.")
    if problems:
        verb = "cancelled" if what == "cancelled" else "amended"
        raise TransitionRefused(
            f"{shipment.reference} cannot be {verb}: an issued document cannot be voided.",
            reasons=problems,
        )
    superseded = 0
    for document in documents:
        if document.status == DocumentStatus.ISSUED:
            _void(document, event.actor, reason, copies[document.pk])
            continue
        document.status = DocumentStatus.SUPERSEDED
        document.save(update_fields=["status"])
        record_transition(
            document,
            field="status",
            before=DocumentStatus.DRAFT,
            after=DocumentStatus.SUPERSEDED,
            actor=event.actor,
            reason=reason,
        )
        superseded += 1
    if documents:
        record(
            shipment,
            action="update",
            actor=event.actor,
            message=f"Shipment {what}: {len(copies)} issued document(s) voided, "
            f"{superseded} draft(s) superseded.",
        )


def _refuse(document: Document, reason: str) -> DocumentIntegrityError:
    """Audit a file that will not be served (in its own write, whatever the caller's transaction)."""
    from apps.core.audit import record

    message = f"{document}: {reason}; it will not be served."
    try:
        with transaction.atomic():  # a savepoint: a failed write leaves the caller's transaction usable
            record(document, action="integrity", message=message)
    except Exception:  # the refusal itself must still answer
        logger.exception("Could not audit the integrity failure of %s", document)
    logger.error(message)
    return DocumentIntegrityError(message)


def _verify(document: Document, *, copy: str = "pdf") -> bytes:
    """The stored bytes of the document (`copy="void_pdf"`: of its VOID copy), after checking them
    against their recorded SHA-256. A missing or altered file is refused (and audited)."""
    stored, expected = (
        (document.pdf, document.sha256) if copy == "pdf" else (document.void_pdf, document.void_sha256)
    )
    what = "stored file" if copy == "pdf" else "stored VOID copy"
    if not stored or not expected:
        raise _refuse(document, f"the {what} is missing")
    try:
        with stored.open("rb") as handle:
            data = handle.read()
    except (FileNotFoundError, OSError):
        raise _refuse(document, f"the {what} is missing ({stored.name})") from None
    if _sha256(data) != expected:
        raise _refuse(document, f"the {what} does not match its SHA-256")
    return data


def document_read(document: Document) -> bytes:
    """The document's bytes as written, after checking them against the recorded SHA-256."""
    return _verify(document)


UNISSUED = (DocumentStatus.DRAFT, DocumentStatus.SUPERSEDED)


def document_download(document: Document) -> tuple[bytes, str]:
    """What a download serves, hash-checked, and its filename: an issued document's bytes; a void
    one's VOID copy; an unissued version with the DRAFT mark (stamped on when it was rendered
    without one), so no unissued rendering ever looks like an issued document."""
    base = f"{document.number}-v{document.version}"
    if document.status == DocumentStatus.ISSUED:
        return _verify(document), f"{base}.pdf"
    if document.status == DocumentStatus.VOID:
        return _verify(document, copy="void_pdf"), f"{base}-VOID.pdf"
    data = _verify(document)
    return (data if document.watermark == "DRAFT" else stamp_pdf(data, "DRAFT")), f"{base}-DRAFT.pdf"


def visible_documents(queryset, user):
    """Partners (anyone outside the operator's staff) see issued and voided documents only."""
    if getattr(user, "is_operator_staff", False):
        return queryset
    return queryset.filter(status__in=[DocumentStatus.ISSUED, DocumentStatus.VOID])


def current_documents(shipment: Shipment) -> list[Document]:
    """The latest version of each type that is not void (what the documents page offers to issue)."""
    latest: dict[str, Document] = {}
    for document in (
        Document.objects.filter(shipment=shipment)
        .exclude(status=DocumentStatus.VOID)
        .order_by("doc_type", "-version")
    ):
        latest.setdefault(document.doc_type, document)
    return list(latest.values())


def issued_documents(shipment: Shipment) -> list[Document]:
    """The issued version of each type (at most one: issuing another needs a void first),
    required types first in their order."""
    order = {doc_type: n for n, (doc_type, _why) in enumerate(builder.required_documents(shipment))}
    issued = Document.objects.filter(shipment=shipment, status=DocumentStatus.ISSUED)
    return sorted(issued, key=lambda d: (order.get(d.doc_type, len(order)), d.doc_type, -d.version))


def _bundle_documents(shipment: Shipment) -> list[tuple[Document, bytes]]:
    """Every issued document with its checked bytes; one bad file refuses the bundle, naming it."""
    return [(document, _verify(document)) for document in issued_documents(shipment)]


def bundle_missing(shipment: Shipment) -> list[tuple[str, str]]:
    """Required types not issued, for the bundle: (type, label)."""
    return [
        (doc_type, DocumentType(doc_type).label) for doc_type, _why, _latest in missing_documents(shipment)
    ]


def bundle_zip(shipment: Shipment) -> bytes:
    """The issued version of each document, and MISSING.txt naming required documents not issued."""
    documents = _bundle_documents(shipment)
    missing = bundle_missing(shipment)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for document, data in documents:
            archive.writestr(f"{document.number}-v{document.version}.pdf", data)
        if missing:
            archive.writestr(
                "MISSING.txt",
                f"Required documents of {shipment.reference} not issued yet:\n"
                + "".join(f"- {label} ({doc_type})\n" for doc_type, label in missing),
            )
    return buffer.getvalue()


def bundle_pdf(shipment: Shipment) -> bytes:
    """The issued version of each document merged (the missing ones: see `bundle_missing`)."""
    from pypdf import PdfWriter

    documents = _bundle_documents(shipment)
    if not documents:  # a one-page PDF saying so, never an unissued version instead
        return render_notice(
            f"{shipment.reference}: no document is issued yet",
            [f"Not issued: {label}" for _doc_type, label in bundle_missing(shipment)],
        )
    writer = PdfWriter()
    for document, data in documents:
        writer.append(io.BytesIO(data), outline_item=f"{document.get_doc_type_display()} {document}")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def missing_documents(shipment: Shipment) -> list[tuple[str, str, Document | None]]:
    """Required documents not yet issued: (type, why, latest version or None)."""
    issued = {d.doc_type for d in Document.objects.filter(shipment=shipment, status=DocumentStatus.ISSUED)}
    latest = {d.doc_type: d for d in current_documents(shipment)}
    return [
        (doc_type, why, latest.get(doc_type))
        for doc_type, why in builder.required_documents(shipment)
        if doc_type not in issued
    ]


def booking_problems(shipment: Shipment) -> list[str]:
    """What stops booking on the documents side: every required document issued."""
    return [
        f"The {DocumentType(doc_type).label.lower()} is not issued. {why}"
        for doc_type, why, _latest in missing_documents(shipment)
    ]


def missing_documents_labelled(shipment: Shipment) -> list[tuple[str, str, Document | None]]:
    """Required documents not issued, for the shipment page: (label, why, latest version)."""
    return [(DocumentType(t).label.lower(), why, latest) for t, why, latest in missing_documents(shipment)]


def documents_issue_required(*, shipment: Shipment, actor: User) -> list[Document]:
    """Generate and issue every required document that is not issued yet (used by the demo and tests)."""
    issued = []
    for doc_type, _why, _latest in missing_documents(shipment):
        document = document_generate(shipment=shipment, doc_type=doc_type, actor=actor)
        issued.append(document_issue(document=document, actor=actor))
    return issued


def issuable_drafts(shipment: Shipment) -> tuple[list[Document], list[tuple[str, str]]]:
    """What "Issue all required" would make final: for each required document not issued yet, its
    latest version when that is a draft that may be issued (no DRAFT mark); and the required
    documents it would leave unissued, each with why (label, reason)."""
    required = [doc_type for doc_type, _why in builder.required_documents(shipment)]
    return issuable_among(required, list(Document.objects.filter(shipment=shipment)))


def issuable_among(
    required: list[str], documents: list[Document]
) -> tuple[list[Document], list[tuple[str, str]]]:
    """`issuable_drafts` from the required types and the shipment's documents already read (the
    documents page has both: no query of its own)."""
    issued = {d.doc_type for d in documents if d.status == DocumentStatus.ISSUED}
    latest: dict[str, Document] = {}
    for document in sorted(documents, key=lambda d: -d.version):
        if document.status != DocumentStatus.VOID:
            latest.setdefault(document.doc_type, document)
    ready: list[Document] = []
    left: list[tuple[str, str]] = []
    for doc_type in required:
        if doc_type in issued:
            continue
        latest_version = latest.get(doc_type)
        label = DocumentType(doc_type).label
        if latest_version is None:
            left.append((label, "not generated yet"))
        elif latest_version.watermark:
            left.append(
                (label, f"{latest_version} carries a {latest_version.watermark} mark: regenerate it first")
            )
        else:
            ready.append(latest_version)
    return ready, left


@transaction.atomic
def documents_issue_drafts(*, shipment: Shipment, document_ids: list[int], actor: User) -> list[Document]:
    """Issue, all or none, the drafts "Issue all required" named when it asked (`issuable_drafts`):
    the confirmation names what becomes final, so a different set now (a version generated or
    issued since, another draft asked for) is refused rather than issuing what was not shown."""
    Shipment.objects.select_for_update().filter(pk=shipment.pk).first()
    ready, _left = issuable_drafts(shipment)
    if not ready:
        raise ValidationError({"documents": "No required document has a draft ready to issue."})
    if sorted(d.pk for d in ready) != sorted(document_ids):
        raise ValidationError(
            {
                "documents": "The drafts ready to issue changed since you were asked (a version was "
                "generated or issued meanwhile); read the list again and confirm it."
            }
        )
    return [document_issue(document=document, actor=actor) for document in ready]


def document_store_void_copy(*, document: Document) -> Document:
    """Give a voided document that has no VOID copy (voided before copies were stored) its copy:
    the issued bytes, checked against their SHA-256, stamped VOID. A copy is never replaced, and
    a document whose issued file is missing or altered gets none (DocumentIntegrityError)."""
    data = stamp_pdf(_verify(document), "VOID")
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        if locked.status != DocumentStatus.VOID:
            raise ValidationError({"status": f"{locked} is not void."})
        if locked.void_sha256:
            return locked
        locked.void_sha256 = _sha256(data)
        locked.void_pdf.save("void.pdf", ContentFile(data), save=False)
        locked.save(update_fields=["void_pdf", "void_sha256"])  # audited as an update
        return locked
