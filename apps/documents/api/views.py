"""The documents API: a shipment's documents (list, download, issue, void), which documents a
shipment needs and their generation in the background, and the bundle of its issued documents."""

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin
from apps.core.rest import allowed_query_params, refuse_unknown_query_params
from apps.core.scoping import CHANGE
from apps.shipments.models import Shipment

from .. import builder, services
from ..downloads import pdf_response
from ..models import Document, DocumentType
from . import schema
from .serializers import DocumentSerializer, GenerateSerializer, VoidSerializer


def integrity_failure(exc) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)


@schema.document_docs
class DocumentViewSet(AuditHistoryMixin, OrgScopedViewSetMixin, viewsets.ReadOnlyModelViewSet):
    """Documents of the shipments you can see. Partners download their own shipments' documents."""

    queryset = Document.objects.select_related("shipment")
    serializer_class = DocumentSerializer
    filterset_fields = ["doc_type", "status", "shipment__reference"]
    ordering_fields = ["created_at", "number", "version"]
    capabilities = {
        "read": "documents.view",
        "write": "documents.issue",
        "download": "documents.view",
        "issue": "documents.issue",
        "void": "documents.issue",
    }

    def get_queryset(self):
        # Partners see issued and voided documents only, never an unissued version.
        return services.visible_documents(
            self.get_base_queryset().visible_to(self.request.user), self.request.user
        )

    @extend_schema(responses={(200, "application/pdf"): OpenApiTypes.BINARY, 409: None})
    @action(detail=True, methods=["get"])
    def download(self, request, pk=None):
        """The PDF, checked against its SHA-256 first (409 if the stored file is missing or altered):
        an issued document as issued, a void one as its VOID copy, an unissued one marked DRAFT."""
        document = self.get_object()
        try:
            data, filename = services.document_download(document)
        except services.DocumentIntegrityError as exc:
            return integrity_failure(exc)
        return pdf_response(data, filename)

    @extend_schema(request=None, responses={200: DocumentSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def issue(self, request, pk=None):
        """Freeze this version: its bytes and SHA-256 are final (409: its stored file is missing/altered)."""
        try:
            document = services.document_issue(document=self.get_object(), actor=request.user)
        except services.DocumentIntegrityError as exc:
            return integrity_failure(exc)
        return Response(DocumentSerializer(document).data)

    @extend_schema(request=VoidSerializer, responses={200: DocumentSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def void(self, request, pk=None):
        """Void (reason required); the document stays, with a copy stamped VOID."""
        data = VoidSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            document = services.document_void(
                document=self.get_object(), actor=request.user, reason=data.validated_data["reason"]
            )
        except services.DocumentIntegrityError as exc:  # the VOID copy is stamped on the checked bytes
            return integrity_failure(exc)
        return Response(DocumentSerializer(document).data)


@schema.shipment_documents_docs
class ShipmentDocumentsView(APIView):
    """What documents the shipment needs; POST generates them in the background."""

    capabilities = {"read": "documents.view", "write": "documents.generate"}

    def _shipment(self, request, reference, action="view"):
        return get_object_or_404(Shipment.objects.visible_to(request.user, action), reference=reference)

    @extend_schema(
        responses=inline_serializer(
            "RequiredDocuments",
            {
                "required": inline_serializer(
                    "RequiredDocument",
                    {
                        "doc_type": serializers.ChoiceField(choices=DocumentType.choices),
                        "why": serializers.CharField(),
                        "issued": serializers.BooleanField(),
                        "problems": serializers.ListField(child=serializers.DictField()),
                    },
                    many=True,
                ),
                "not_required": inline_serializer(
                    "NotRequiredDocument",
                    {
                        "doc_type": serializers.ChoiceField(choices=DocumentType.choices),
                        "why": serializers.CharField(),
                    },
                    many=True,
                ),
            },
        )
    )
    def get(self, request, shipment_reference):
        """Every document type: the required ones (issued or not, and what stops generating them)
        and the others, each with why it is or is not required."""
        shipment = builder.load_shipment(self._shipment(request, shipment_reference))
        missing = {doc_type for doc_type, _, _ in services.missing_documents(shipment)}
        requirements = builder.document_requirements(shipment)
        return Response(
            {
                "required": [
                    {
                        "doc_type": doc_type,
                        "why": why,
                        "issued": doc_type not in missing,
                        "problems": [p.__dict__ for p in builder.document_problems(shipment, doc_type)],
                    }
                    for doc_type, required, why in requirements
                    if required
                ],
                "not_required": [
                    {"doc_type": doc_type, "why": why}
                    for doc_type, required, why in requirements
                    if not required
                ],
            }
        )

    @extend_schema(
        request=GenerateSerializer,
        responses={
            202: inline_serializer(
                "GenerationStarted",
                {"task_id": serializers.CharField(), "status_url": serializers.CharField()},
            )
        },
    )
    def post(self, request, shipment_reference):
        shipment = self._shipment(request, shipment_reference, CHANGE)
        data = GenerateSerializer(data=request.data)
        data.is_valid(raise_exception=True)

        # By default every required document not issued yet: an issued one is never regenerated.
        doc_types = data.validated_data.get("doc_types") or [
            t for t, _, _ in services.missing_documents(shipment)
        ]
        if not doc_types:
            raise serializers.ValidationError({"doc_types": "Every required document is already issued."})
        task_id = services.document_generate_start(shipment=shipment, doc_types=doc_types, actor=request.user)
        return Response(
            {"task_id": task_id, "status_url": f"/api/v1/tasks/{task_id}/"}, status=status.HTTP_202_ACCEPTED
        )


BUNDLE_KINDS = ["zip", "pdf"]


def _one_of(choices: list[str]):
    def check(value: str) -> str | None:
        return None if value in ("", *choices) else f"{value!r} is not one of {', '.join(choices)}."

    return check


@schema.bundle_docs
class BundleView(APIView):
    """The issued version of each document of a shipment as one ZIP (`?as=zip`, default) or one
    merged PDF; required documents not issued are named in `X-Missing-Documents` (and MISSING.txt
    in the ZIP). A missing or altered file refuses the bundle with 409, naming the document."""

    capabilities = {"read": "documents.view", "write": "documents.view"}

    @extend_schema(
        parameters=[OpenApiParameter("as", str, enum=BUNDLE_KINDS, description="Default: zip.")],
        responses={
            (200, "application/zip"): OpenApiTypes.BINARY,
            (200, "application/pdf"): OpenApiTypes.BINARY,
            409: None,
        },
    )
    def get(self, request, shipment_reference):
        refuse_unknown_query_params(
            request, allowed_query_params(request, None) | {"as": _one_of(BUNDLE_KINDS)}
        )
        shipment = get_object_or_404(Shipment.objects.visible_to(request.user), reference=shipment_reference)
        kind = request.query_params.get("as") or "zip"
        try:
            if kind == "pdf":
                response = pdf_response(services.bundle_pdf(shipment), f"{shipment.reference}-documents.pdf")
            else:
                response = pdf_response(
                    services.bundle_zip(shipment), f"{shipment.reference}-documents.zip", "application/zip"
                )
        except services.DocumentIntegrityError as exc:
            return integrity_failure(exc)
        response["X-Missing-Documents"] = ",".join(t for t, _ in services.bundle_missing(shipment))
        return response
