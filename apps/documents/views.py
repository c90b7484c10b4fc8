"""Documents in the browser: what a shipment needs, generate, issue, void, download."""

from __future__ import annotations

from csp.constants import SELF
from csp.decorators import csp_replace
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.clickjacking import xframe_options_sameorigin

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import CHANGE
from apps.shipments.models import Shipment

from . import builder, services
from .downloads import pdf_response
from .models import Document, DocumentStatus, DocumentType


def _shipment(request, reference, action="view"):
    return get_object_or_404(Shipment.objects.visible_to(request.user, action), reference=reference)


class ShipmentDocumentsView(CapabilityRequiredMixin, View):
    capability = "documents.view"

    def get(self, request, reference):
        shipment = builder.load_shipment(_shipment(request, reference))
        documents = list(
            services.visible_documents(
                Document.objects.filter(shipment=shipment), request.user
            ).select_related("issued_by__organisation", "voided_by")
        )
        requirements = builder.document_requirements(shipment)
        required = [(doc_type, why) for doc_type, needed, why in requirements if needed]
        not_required = [
            {"doc_type": doc_type, "label": DocumentType(doc_type).label, "why": why}
            for doc_type, needed, why in requirements
            if not needed
        ]
        issued = {d.doc_type for d in documents if d.status == "issued"}
        rows = []
        for doc_type, why in required:
            versions = [d for d in documents if d.doc_type == doc_type]
            rows.append(
                {
                    "doc_type": doc_type,
                    "label": DocumentType(doc_type).label,
                    "why": why,
                    "issued": doc_type in issued,
                    "versions": versions,
                    "problems": builder.document_problems(shipment, doc_type),
                }
            )
        extra = [d for d in documents if d.doc_type not in {t for t, _ in required}]
        issuable, left_unissued = (
            services.issuable_among([t for t, _ in required], documents)
            if request.user.can("documents.issue")
            else ([], [])
        )
        return render(
            request,
            "documents/shipment_documents.html",
            {
                "shipment": shipment,
                "rows": rows,
                "not_required": not_required,
                "extra": extra,
                "task_id": request.GET.get("task", ""),
                "can_generate": request.user.can("documents.generate"),
                "can_issue": request.user.can("documents.issue"),
                "watermark": builder.watermark_for(shipment),
                # "Issue all required" names what becomes final, and what it leaves unissued.
                "issuable": issuable,
                "left_unissued": left_unissued,
            },
        )


class GenerateView(CapabilityRequiredMixin, View):
    capability = "documents.generate"

    def post(self, request, reference):
        shipment = _shipment(request, reference, CHANGE)
        # "Generate all required" generates what is not issued yet: an issued document is never regenerated.
        doc_types = request.POST.getlist("doc_type") or [
            t for t, _, _ in services.missing_documents(shipment)
        ]
        if not doc_types:
            messages.info(request, "Every required document is already issued.")
            return HttpResponseRedirect(reverse("documents:shipment", args=[reference]))
        try:
            task_id = services.document_generate_start(
                shipment=shipment, doc_types=doc_types, actor=request.user
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return HttpResponseRedirect(reverse("documents:shipment", args=[reference]))
        return HttpResponseRedirect(reverse("documents:shipment", args=[reference]) + f"?task={task_id}")


class IssueView(CapabilityRequiredMixin, View):
    capability = "documents.issue"

    def post(self, request, pk):
        document = get_object_or_404(Document.objects.visible_to(request.user, CHANGE), pk=pk)
        try:
            services.document_issue(document=document, actor=request.user)
            messages.success(request, f"{document} issued; its bytes are now final.")
        except (ValidationError, services.DocumentIntegrityError) as exc:
            messages.error(request, " ".join(getattr(exc, "messages", [str(exc)])))
        return HttpResponseRedirect(reverse("documents:shipment", args=[document.shipment.reference]))


class IssueAllView(CapabilityRequiredMixin, View):
    """ "Issue all required": the drafts the confirmation named (their ids posted back) are issued,
    all or none (`services.documents_issue_drafts`)."""

    capability = "documents.issue"

    def post(self, request, reference):
        shipment = _shipment(request, reference, CHANGE)
        try:
            ids = [int(pk) for pk in request.POST.getlist("document")]
        except ValueError:
            ids = []
        try:
            issued = services.documents_issue_drafts(shipment=shipment, document_ids=ids, actor=request.user)
        except (ValidationError, services.DocumentIntegrityError) as exc:
            messages.error(request, " ".join(getattr(exc, "messages", [str(exc)])))
        else:
            names = ", ".join(str(d) for d in issued)
            messages.success(request, f"Issued {names}; their bytes are now final.")
        return HttpResponseRedirect(reverse("documents:shipment", args=[reference]))


@method_decorator(xframe_options_sameorigin, name="dispatch")
@method_decorator(csp_replace({"frame-ancestors": [SELF]}), name="dispatch")
class PreviewView(CapabilityRequiredMixin, View):
    """A draft's PDF shown inside the documents page (an <iframe>, so this one response may be framed
    by the site's own pages: frame-ancestors 'self', X-Frame-Options SAMEORIGIN), marked DRAFT as a
    download of it is. Issued and void documents are downloaded, not previewed."""

    capability = "documents.view"

    def get(self, request, pk):
        document = get_object_or_404(
            services.visible_documents(
                Document.objects.visible_to(request.user).select_related("shipment"), request.user
            ),
            pk=pk,
            status=DocumentStatus.DRAFT,
        )
        try:
            data, filename = services.document_download(document)
        except services.DocumentIntegrityError as exc:
            return HttpResponse(str(exc), status=409, content_type="text/plain")
        response = pdf_response(data, filename)
        response["Content-Disposition"] = f'inline; filename="{filename}"'
        return response


class VoidView(CapabilityRequiredMixin, View):
    capability = "documents.issue"

    def post(self, request, pk):
        document = get_object_or_404(Document.objects.visible_to(request.user, CHANGE), pk=pk)
        try:
            services.document_void(
                document=document, actor=request.user, reason=request.POST.get("reason", "")
            )
            messages.success(request, f"{document} voided.")
        except (ValidationError, services.DocumentIntegrityError) as exc:
            messages.error(request, " ".join(getattr(exc, "messages", [str(exc)])))
        return HttpResponseRedirect(reverse("documents:shipment", args=[document.shipment.reference]))


class DownloadView(CapabilityRequiredMixin, View):
    capability = "documents.view"

    def get(self, request, pk):
        document = get_object_or_404(
            services.visible_documents(
                Document.objects.visible_to(request.user).select_related("shipment"), request.user
            ),
            pk=pk,
        )
        # Issued: as issued; void: its VOID copy (also at ?copy=void); unissued: marked DRAFT.
        try:
            return pdf_response(*services.document_download(document))
        except services.DocumentIntegrityError as exc:
            return HttpResponse(str(exc), status=409, content_type="text/plain")


class BundleView(CapabilityRequiredMixin, View):
    capability = "documents.view"

    def get(self, request, reference):
        shipment = _shipment(request, reference)
        try:
            if request.GET.get("as") == "pdf":
                response = pdf_response(services.bundle_pdf(shipment), f"{shipment.reference}-documents.pdf")
            else:
                response = pdf_response(
                    services.bundle_zip(shipment), f"{shipment.reference}-documents.zip", "application/zip"
                )
        except services.DocumentIntegrityError as exc:
            return HttpResponse(str(exc), status=409, content_type="text/plain")
        response["X-Missing-Documents"] = ",".join(t for t, _ in services.bundle_missing(shipment))
        return response
