"""`/api/v1/stock/imports/`: bulk import of serials from a CSV file (`services.imports`).

POST (multipart: `file`, `site`, `owner`, optional `customs_reference`) answers 201 with the
import when the file was imported, 202 with the task to poll when it is large enough to go to the
background (more than `imports.BACKGROUND_FROM_ROWS` rows), or 400 with every refused row's
number, column and reason (nothing written). GET `{id}/` reads an import, with its problems when
the background task refused it."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from apps.accounts.models import Organisation
from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin, ScopedPrimaryKeyRelatedField
from apps.core.api_docs import HISTORY_EXAMPLE
from apps.core.validators import TextValidator
from apps.shipments.models import Site

from ..models import WAREHOUSE_KINDS, SerialImport
from ..services import imports

TAG = "Stock"


def _warehouses(queryset, user):
    return Site.objects.visible_to(user).filter(kind__in=WAREHOUSE_KINDS)


class SerialImportUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="The CSV: UTF-8 (a byte-order mark is fine), header "
        "`manufacturer,part_number,serial,location[,owner][,customs_reference]`."
    )
    site = ScopedPrimaryKeyRelatedField(
        queryset=Site.objects.all(), chooser=_warehouses, help_text="The warehouse site the locations are in."
    )
    owner = ScopedPrimaryKeyRelatedField(
        queryset=Organisation.objects.all(), help_text="Whose units, for the rows that name no owner."
    )
    customs_reference = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=50,
        validators=[TextValidator("identifier")],
        help_text="The customs entry or bonded-warehouse receipt number of the rows that give none.",
    )

    def validate_file(self, value):
        if value.size > imports.MAX_BYTES:
            raise serializers.ValidationError(f"At most {imports.MAX_BYTES:,} bytes ({value.size:,} given).")
        return value


class ProblemSerializer(serializers.Serializer):
    row = serializers.IntegerField(
        allow_null=True, help_text="The spreadsheet row (the header is 1); null: the file."
    )
    column = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()


class SerialImportSerializer(serializers.ModelSerializer):
    site = serializers.PrimaryKeyRelatedField(read_only=True)
    owner = serializers.PrimaryKeyRelatedField(read_only=True)
    problems = ProblemSerializer(many=True, read_only=True)
    status_url = serializers.SerializerMethodField(help_text="The background task to poll, if any.")
    stalled = serializers.SerializerMethodField(
        help_text="Running, but its worker stopped (its lease ran out): nothing was imported; "
        "`POST …/rerun/` runs it again."
    )

    class Meta:
        model = SerialImport
        fields = [
            "id", "status", "stalled", "site", "owner", "customs_reference", "file_name", "rows", "imported",
            "problem_count", "problems", "error", "task_id", "status_url", "created_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_status_url(self, obj) -> str | None:
        return f"/api/v1/tasks/{obj.task_id}/" if obj.task_id else None

    def get_stalled(self, obj) -> bool:
        return obj.is_stalled()


DONE_EXAMPLE = {
    "id": 12,
    "status": "done",
    "stalled": False,
    "site": 3,
    "owner": 7,
    "customs_reference": "SG-TWH-2026-0042",
    "file_name": "dgx-delivery-0412.csv",
    "rows": 480,
    "imported": 480,
    "problem_count": 0,
    "problems": [],
    "error": "",
    "task_id": "",
    "status_url": None,
    "created_at": "2026-12-03T09:15:02Z",
    "finished_at": "2026-12-03T09:15:03Z",
}
EXAMPLES = [
    OpenApiExample("Imported", value=DONE_EXAMPLE, response_only=True, status_codes=["201"]),
    OpenApiExample(
        "Queued (a large file)",
        value=DONE_EXAMPLE
        | {
            "status": "queued",
            "rows": 120000,
            "imported": 0,
            "task_id": "5f0c2f7e-3d1b-4a8e-9a53-0d7c1e2b9f11",
            "status_url": "/api/v1/tasks/5f0c2f7e-3d1b-4a8e-9a53-0d7c1e2b9f11/",
            "finished_at": None,
        },
        response_only=True,
        status_codes=["202"],
    ),
    OpenApiExample(
        "Refused",
        value={
            "detail": "The file is refused: 2 problems in 2 rows; nothing was imported.",
            "problem_count": 2,
            "problems": [
                {"row": 7, "column": "serial", "reason": "Serial 1652422000123 repeats row 3."},
                {"row": 9, "column": "location", "reason": "No location A-01-R9-B1 at SG bonded hub."},
            ],
        },
        response_only=True,
        status_codes=["400"],
    ),
]


@extend_schema_view(
    create=extend_schema(
        tags=[TAG],
        summary="Import serials from a CSV file",
        request={"multipart/form-data": SerialImportUploadSerializer},
        responses={
            201: SerialImportSerializer,
            202: OpenApiResponse(SerialImportSerializer, description="Queued: poll `status_url`."),
            # 400 is the API's ValidationError answer; a refused file's body is `detail`,
            # `problem_count` and `problems` (every bad row: row, column, reason), nothing written.
        },
        examples=EXAMPLES,
    ),
    history=extend_schema(
        tags=[TAG],
        summary="A serial import's audit trail, newest first",
        examples=[OpenApiExample("An audit event", value=HISTORY_EXAMPLE, response_only=True)],
    ),
    retrieve=extend_schema(
        tags=[TAG],
        summary="A serial import and, if refused, its problems",
        examples=[OpenApiExample("Imported", value=DONE_EXAMPLE, response_only=True)],
    ),
    rerun=extend_schema(
        tags=[TAG],
        summary="Run a stalled or failed import again",
        request=None,
        responses={
            202: OpenApiResponse(SerialImportSerializer, description="Queued again: poll `status_url`."),
            409: OpenApiResponse(
                description="Not stalled or failed: still running under its worker, or imported or refused."
            ),
        },
        examples=[
            OpenApiExample(
                "Queued again",
                value=DONE_EXAMPLE
                | {
                    "status": "queued",
                    "rows": 120000,
                    "imported": 0,
                    "task_id": "9b1d7e2a-5c4f-4d3b-8e6a-2f0c1d9e8a77",
                    "status_url": "/api/v1/tasks/9b1d7e2a-5c4f-4d3b-8e6a-2f0c1d9e8a77/",
                    "finished_at": None,
                },
                response_only=True,
                status_codes=["202"],
            )
        ],
    ),
)
class SerialImportViewSet(
    AuditHistoryMixin, OrgScopedViewSetMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Bulk imports of serials into a warehouse (stock.manage)."""

    queryset = SerialImport.objects.all()
    serializer_class = SerialImportSerializer
    parser_classes = [MultiPartParser]
    capabilities = {"read": "stock.manage", "write": "stock.manage"}

    def get_queryset(self):
        # Reading an import is not changing it: the uploader's staff read what they uploaded.
        return self.get_base_queryset().visible_to(self.request.user)

    def create(self, request):
        upload = SerialImportUploadSerializer(data=request.data, context=self.get_serializer_context())
        upload.is_valid(raise_exception=True)
        data = upload.validated_data
        try:
            serial_import = imports.serial_import_create(
                site=data["site"],
                owner=data["owner"],
                data=data["file"].read(),
                file_name=data["file"].name,
                actor=request.user,
                customs_reference=data.get("customs_reference", ""),
            )
        except imports.ImportRefused as refused:
            return Response(refused.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        queued = bool(serial_import.task_id)  # run eagerly on commit, it may be done already
        serial_import.refresh_from_db()
        return Response(
            self.get_serializer(serial_import).data,
            status=status.HTTP_202_ACCEPTED if queued else status.HTTP_201_CREATED,
        )

    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        """Run a stalled import (its worker stopped; nothing was imported) or a failed one again,
        from its stored file. 409 for one still running under its worker, imported or refused."""
        serial_import = self.get_object()
        try:
            serial_import = imports.serial_import_rerun(serial_import=serial_import, actor=request.user)
        except ValidationError as exc:
            return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(serial_import).data, status=status.HTTP_202_ACCEPTED)
