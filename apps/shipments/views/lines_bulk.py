"""The shipment page's "Add lines in bulk": a pasted or uploaded CSV (part number, quantity, serial
numbers, unit value) added all or nothing through `services.lines_bulk`, as the API does. Refused,
the page of its own lists each row's problems by row and field above the paste, kept to be fixed."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.views import View

from apps.core.access import CapabilityRequiredMixin
from apps.core.scoping import CHANGE

from ..engines.line_rows import COLUMNS, RowProblem, read_csv
from ..services.lines_bulk import LineRowsRefused, lines_add_bulk
from .detail import get_shipment

MAX_UPLOAD_BYTES = 2_000_000


class LinesBulkView(CapabilityRequiredMixin, View):
    capability = "shipments.edit"

    def get(self, request, reference):
        shipment = get_shipment(request, reference, CHANGE)
        return self._page(request, shipment, "", [])

    def post(self, request, reference):
        shipment = get_shipment(request, reference, CHANGE)
        text = request.POST.get("csv", "")
        upload = request.FILES.get("file")
        problems: list[RowProblem] = []
        if upload is not None:
            if upload.size > MAX_UPLOAD_BYTES:
                problems = [RowProblem(0, "file", f"A CSV of at most {MAX_UPLOAD_BYTES:,} bytes.")]
            else:
                try:
                    text = upload.read().decode("utf-8-sig")
                except UnicodeDecodeError:
                    problems = [
                        RowProblem(0, "file", "The file is not UTF-8 text (save the sheet as CSV UTF-8).")
                    ]
        if not problems:
            rows, problems = read_csv(text)
            try:
                lines = lines_add_bulk(
                    shipment=shipment, rows=rows, actor=request.user, read_problems=problems
                )
            except LineRowsRefused as exc:
                problems = exc.problems
            except ValidationError as exc:
                problems = [RowProblem(0, "shipment", " ".join(exc.messages))]
            else:
                messages.success(
                    request,
                    f"{len(lines):,} line{'s' if len(lines) != 1 else ''} added "
                    f"(lines {lines[0].line_number}–{lines[-1].line_number}).",
                )
                return HttpResponseRedirect(shipment.get_absolute_url() + "#lines")
        return self._page(request, shipment, text, problems, status=400)

    def _page(self, request, shipment, text, problems, status=200):
        context = {"shipment": shipment, "csv": text, "problems": problems, "columns": COLUMNS}
        return render(request, "shipments/lines_bulk.html", context, status=status)
