"""`POST /api/v1/shipments/{reference}/lines/bulk/`: many lines in one call, all or nothing, for
partners and coordinators alike (`services.lines_bulk`). The body is a JSON list of lines (or
`{"lines": [...]}`), `{"csv": "<text>"}`, a `text/csv` body, or a multipart upload of a CSV file
(`file`). A mixin of the shipment viewset, with its serializers and schema."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import parsers, serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.core.idempotency import idempotent
from apps.core.parsers import JSONParser
from apps.core.scoping import CHANGE

from ..engines.line_rows import MAX_ROWS, RowProblem, read_csv, read_json
from ..models import Shipment
from ..services.lines_bulk import LineRowsRefused, lines_add_bulk
from .schema import CONTENTS

# An uploaded or posted CSV is read whole: a 5,000-line paste is about 300 kB.
MAX_CSV_BYTES = 2_000_000


class CsvTextParser(parsers.BaseParser):
    """A `text/csv` body, as text."""

    media_type = "text/csv"

    def parse(self, stream, media_type=None, parser_context=None):
        data = stream.read(MAX_CSV_BYTES + 1)
        if len(data) > MAX_CSV_BYTES:
            raise parsers.ParseError(f"A CSV of at most {MAX_CSV_BYTES:,} bytes.")
        try:
            return {"csv": data.decode("utf-8-sig")}
        except UnicodeDecodeError as exc:
            raise parsers.ParseError("The CSV is not UTF-8 text.") from exc


class BulkLineSerializer(serializers.Serializer):
    part_number = serializers.CharField(
        help_text="A part number of the catalogue (its case does not matter)."
    )
    quantity = serializers.IntegerField(min_value=1)
    serials = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Serial numbers (a list, or one text separated by spaces, commas or semicolons).",
    )
    unit_value = serializers.DecimalField(
        max_digits=16,
        decimal_places=2,
        required=False,
        help_text="In the shipment's currency; empty: the catalogue's.",
    )


class BulkLinesRequestSerializer(serializers.Serializer):
    lines = BulkLineSerializer(many=True, required=False, help_text=f"At most {MAX_ROWS:,} lines.")
    csv = serializers.CharField(
        required=False,
        help_text="CSV text: a header row (part_number, quantity, serials, unit_value), one line per row.",
    )
    file = serializers.FileField(required=False, help_text="A CSV file (multipart upload).")


class BulkLineAddedSerializer(serializers.Serializer):
    row = serializers.IntegerField()
    line_number = serializers.IntegerField()
    part_number = serializers.CharField()
    quantity = serializers.IntegerField()
    serials = serializers.IntegerField(help_text="How many serial numbers the line has.")


class BulkLinesSerializer(serializers.Serializer):
    added = serializers.IntegerField()
    lines = BulkLineAddedSerializer(many=True)


BULK_DOCS = extend_schema(
    summary="Add many lines at once (all or nothing)",
    tags=[CONTENTS],
    request={
        "application/json": BulkLinesRequestSerializer,
        "multipart/form-data": BulkLinesRequestSerializer,
        "text/csv": {"type": "string"},
    },
    responses={
        201: BulkLinesSerializer,
        400: OpenApiResponse(
            description="Nothing was added: `detail`, and in `rows` every row's problems as "
            "`{row, field, message}` (row 1 is a CSV's header; 0 is the body as a whole): unknown part, "
            "quantity, unit value, serial numbers repeated, another part's or on another live "
            "shipment), or `shipment` when it is not a draft.",
        ),
        403: OpenApiResponse(description="Your role may not change shipments."),
        404: OpenApiResponse(description="No such shipment among those you may change."),
    },
    examples=[
        OpenApiExample(
            "Two lines",
            value={
                "lines": [
                    {"part_number": "DGX-H100", "quantity": 2, "serials": ["SN1", "SN2"]},
                    {"part_number": "MCP4Y10-N002", "quantity": 64},
                ]
            },
            request_only=True,
        ),
        OpenApiExample(
            "A row refused",
            value={
                "detail": "No line was added: 1 row with problems.",
                "rows": [
                    {
                        "row": 3,
                        "field": "part_number",
                        "message": "No active part 'DGX-H10' in the catalogue.",
                    }
                ],
            },
            response_only=True,
            status_codes=["400"],
        ),
    ],
)


def rows_from_request(data) -> tuple[list, list[RowProblem]]:
    """The rows of whichever form the body took: a list, `lines`, `csv` text or a `file`."""
    if isinstance(data, list):
        return read_json(data)
    upload = data.get("file")
    if upload is not None:
        if not hasattr(upload, "read"):  # a `file` field in a JSON body, or a form's text field
            return [], [RowProblem(0, "file", "Upload the CSV as a file (multipart); as text, send `csv`.")]
        if upload.size > MAX_CSV_BYTES:
            return [], [RowProblem(0, "file", f"A CSV of at most {MAX_CSV_BYTES:,} bytes.")]
        try:
            return read_csv(upload.read().decode("utf-8-sig"))
        except UnicodeDecodeError:
            return [], [RowProblem(0, "file", "The file is not UTF-8 text (save the sheet as CSV UTF-8).")]
    if "csv" in data:
        return read_csv(str(data["csv"]))
    if "lines" in data:
        return read_json(data["lines"])
    return [], [RowProblem(0, "lines", "Send a list of lines, `lines`, `csv` text or a CSV `file`.")]


class BulkLinesMixin:
    """The shipment viewset's `lines/bulk/` action."""

    @BULK_DOCS
    @action(
        detail=True,
        methods=["post"],
        url_path="lines/bulk",
        parser_classes=[JSONParser, CsvTextParser, parsers.MultiPartParser],
    )
    def bulk_lines(self, request, reference=None):
        """Add many lines to a draft shipment in one call: every row is checked as one line is
        (part, quantity, unit value, serial numbers), and either every line is added or none, with
        each row's problems named by row and field."""
        shipment = get_object_or_404(Shipment.objects.visible_to(request.user, CHANGE), reference=reference)

        def handler():
            rows, problems = rows_from_request(request.data)
            try:
                lines = lines_add_bulk(
                    shipment=shipment, rows=rows, actor=request.user, read_problems=problems
                )
            except LineRowsRefused as exc:
                return Response(exc.as_dict(), status=status.HTTP_400_BAD_REQUEST)
            answer = {
                "added": len(lines),
                "lines": [
                    {
                        "row": row.row,
                        "line_number": line.line_number,
                        "part_number": line.part.part_number,
                        "quantity": line.quantity,
                        "serials": len(row.serials),
                    }
                    for row, line in zip(rows, lines, strict=True)
                ],
            }
            return Response(BulkLinesSerializer(answer).data, status=status.HTTP_201_CREATED)

        return idempotent(request, handler)
