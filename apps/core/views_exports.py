"""The page of a long list's export (its progress, then a link to the file) and the download.

Only the user who asked for an export sees its page and downloads its file: the file holds what
that user's scoping let them see. Anyone else gets a 404, as for any object they may not see."""

from __future__ import annotations

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.views import View

from . import export_files
from .access import CapabilityRequiredMixin
from .models import TaskRecord
from .tasks_outbox import task_progress


class ExportView(CapabilityRequiredMixin, View):
    """The export's progress (polled by the task box) and, once written, its download link."""

    capability = "tasks.view"

    def get(self, request, task_id):
        record = TaskRecord.objects.filter(task_id=task_id, kind=export_files.KIND, user=request.user).first()
        if record is None:
            raise Http404
        context = {"record": record, "task": task_progress(record), "keep_days": export_files.KEEP.days}
        return render(request, "core/export.html", context)


class ExportDownloadView(CapabilityRequiredMixin, View):
    """The finished file, streamed from storage."""

    capability = "tasks.view"

    def get(self, request, task_id):
        try:
            _, result = export_files.export_file_for(request.user, task_id)
        except LookupError:
            raise Http404 from None
        if not default_storage.exists(result["file"]):
            raise Http404
        return FileResponse(
            default_storage.open(result["file"], "rb"), as_attachment=True, filename=result["file_name"]
        )
