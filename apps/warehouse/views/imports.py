"""The browser page of the bulk serial import (`services.imports`): upload a CSV into a
warehouse site; a refused file shows every bad row (number, column, reason) as a table, a large
one the progress of its background task, then the import's result; a stalled one (its worker
stopped, nothing imported) or a failed one can be run again."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.views.generic import FormView

from apps.core.access import CapabilityRequiredMixin

from ..forms import SerialImportForm
from ..models import SerialImport, SerialImportStatus
from ..services import imports


class SerialImportView(CapabilityRequiredMixin, FormView):
    """Upload a CSV of serials; `?import=<id>` shows an import (and its task's progress)."""

    capability = "stock.manage"
    template_name = "warehouse/import.html"
    form_class = SerialImportForm

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(
            header=",".join(imports.HEADERS[-1]),
            max_rows=imports.MAX_ROWS,
            background_from=imports.BACKGROUND_FROM_ROWS,
            listed=imports.PROBLEMS_LISTED,
        )
        if (wanted := self.request.GET.get("import", "")).isdigit():
            serial_import = (
                SerialImport.objects.visible_to(self.request.user)
                .select_related("site", "owner", "created_by")
                .filter(pk=int(wanted))
                .first()
            )
            context["serial_import"] = serial_import
            context["import_missing"] = serial_import is None
            if serial_import is not None:
                context["stalled"] = serial_import.is_stalled()
                context["running"] = not context["stalled"] and serial_import.status in (
                    SerialImportStatus.QUEUED,
                    SerialImportStatus.RUNNING,
                )
                if serial_import.status == SerialImportStatus.REFUSED:
                    refused = imports.ImportRefused([], total=serial_import.problem_count)
                    context.update(
                        problems=serial_import.problems,
                        problem_total=serial_import.problem_count,
                        refused_summary=refused.summary,
                    )
        if (refused := kwargs.get("refused")) is not None:
            context.update(
                problems=[p.as_dict() for p in refused.problems],
                problem_total=refused.total,
                refused_summary=refused.summary,
            )
        return context

    def get(self, request, *args, **kwargs):
        if request.GET.get("template"):
            response = HttpResponse(imports.import_template(), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = 'attachment; filename="serial-import.csv"'
            return response
        return super().get(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        if "rerun" in request.POST:
            return self._rerun(request.POST["rerun"])
        return super().post(request, *args, **kwargs)

    def _rerun(self, wanted: str):
        """Run a stalled or failed background import again (`imports.serial_import_rerun`)."""
        serial_import = (
            SerialImport.objects.visible_to(self.request.user).filter(pk=int(wanted)).first()
            if wanted.isdigit()
            else None
        )
        if serial_import is None:
            raise Http404("No such import.")
        try:
            serial_import = imports.serial_import_rerun(serial_import=serial_import, actor=self.request.user)
        except ValidationError as exc:
            messages.error(self.request, " ".join(exc.messages))
        else:
            messages.info(self.request, f"{serial_import} runs again in the background (below).")
        return HttpResponseRedirect(serial_import.get_absolute_url())

    def form_valid(self, form):
        data = form.cleaned_data
        try:
            serial_import = imports.serial_import_create(
                site=data["site"],
                owner=data["owner"],
                data=data["file"].read(),
                file_name=data["file"].name,
                actor=self.request.user,
                customs_reference=data["customs_reference"],
            )
        except imports.ImportRefused as refused:
            return self.render_to_response(self.get_context_data(form=form, refused=refused))
        if serial_import.task_id:
            messages.info(
                self.request, f"{serial_import.rows:,} rows: the import runs in the background (below)."
            )
        else:
            messages.success(
                self.request, f"{serial_import.imported:,} serials imported into {serial_import.site.name}."
            )
        return HttpResponseRedirect(serial_import.get_absolute_url())
