"""Browser building blocks: organisation-scoped list/detail/edit views with the audit trail."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from . import export_files, exports
from .access import CapabilityRequiredMixin
from .disclosure import events_for
from .filters import scope_filter_choices
from .models import AuditEvent
from .pickers import use_search_pickers
from .scoping import VIEW


def safe_next(request: HttpRequest, default: str) -> str:
    """Where a form goes after it is posted: its `next` field (or `?next=`) when that is a page of this
    site, else `default`. Never another host, `//host`, a backslash trick or another scheme, and over
    HTTPS never plain HTTP. Every view that redirects to an address from the request uses this."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


class ScopedQuerysetMixin(CapabilityRequiredMixin):
    """`get_queryset` through `visible_to`: another organisation's object is a 404 here too."""

    scope_action = VIEW

    def get_queryset(self):
        return super().get_queryset().visible_to(self.request.user, self.scope_action)


class AuditTrailMixin:
    """Puts the object's audit trail in the context of a detail page."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["audit_events"] = events_for(self.request.user, AuditEvent.objects.for_object(self.object))
        return context


class FilteredListMixin:
    """A list page driven by a django-filter FilterSet; htmx requests get only the results table."""

    filterset_class = None
    paginate_by = 50
    paginator_class = Paginator  # a list may read its pages another way (apps.warehouse.paging)
    partial_template_name: str = ""

    def get_filterset(self):
        filterset = self.filterset_class(
            self.request.GET or None, queryset=self.get_queryset(), request=self.request
        )
        scope_filter_choices(filterset, self.request.user)
        use_search_pickers(filterset.form)  # an object filter is a search box, as in the forms
        return filterset

    # Export of what the filter shows (every matching row, not one page), `?export=csv` or
    # `?export=xlsx`: one set of columns for both, ((header, row → value), …); see apps.core.exports.
    export_columns: tuple = ()
    export_name = "export"
    export_batch_size = exports.CHUNK_ROWS

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        export_files.register(cls.export_list_name(), cls)  # its background export finds it by name

    @classmethod
    def export_list_name(cls) -> str:
        return export_files.list_key(cls.__module__, cls.__qualname__)

    def get(self, request, *args, **kwargs):
        export = request.GET.get("export")
        if export in exports.FORMATS and self.export_columns:
            filterset = self.get_filterset()
            if not filterset.is_bound or filterset.is_valid():
                return self.export(export, filterset.qs if filterset.is_bound else filterset.queryset)
        return super().get(request, *args, **kwargs)

    def export(self, export_format: str, queryset):
        """A short list answers at once (CSV streamed, XLSX built); a long one is written to a file
        in the background and the user is sent to its page (`apps.core.export_files`): streamed,
        it would outlive the server's worker timeout and end early in a 200."""
        if not exports.fits_inline(queryset, export_format):
            from .tasks import write_export_file

            record = export_files.export_file_start(
                task=write_export_file, view=self, export_format=export_format
            )
            return HttpResponseRedirect(reverse("core:export", args=[record.task_id]))
        filename = self.export_filename(export_format)
        rows = self.export_rows(queryset)
        if export_format == "xlsx":
            return exports.xlsx_response(self.export_columns, rows, filename, title=self.export_name)
        return exports.csv_response(self.export_columns, rows, filename)

    def export_filename(self, export_format: str) -> str:
        from django.utils import timezone

        return f"{self.export_name}-{timezone.localdate().isoformat()}.{export_format}"

    def export_write(self, export_format: str, queryset, path: str, *, progress=None) -> int:
        """Write the whole export to `path` in the default storage (the background export);
        returns the rows written. `progress(rows)` as the rows go."""
        rows = self.export_rows(queryset)
        if export_format == "xlsx":
            return export_files.write_to_storage(
                path,
                lambda out: exports.xlsx_write(
                    self.export_columns, rows, out, title=self.export_name, progress=progress
                ),
            )
        return export_files.write_to_storage(
            path, lambda out: exports.csv_write(self.export_columns, rows, out, progress=progress)
        )

    def export_queryset(self, queryset):
        """What the export reads per row (annotations, joins): the view may add to it."""
        return queryset

    def export_rows(self, queryset) -> Iterable:
        """The rows the export writes, read in chunks (a list of any length in flat memory): when
        every column is `exports.read`, values straight from the database (no model instances);
        else objects, and a view whose rows need figures read per batch passes them through
        `exports.in_batches`."""
        queryset = self.export_queryset(queryset)
        if exports.reads_only(self.export_columns):
            return exports.read_rows(self.export_columns, queryset, self.export_batch_size)
        return queryset.iterator(chunk_size=self.export_batch_size)

    def get_context_data(self, **kwargs):
        filterset = self.get_filterset()
        filter_errors = []
        if filterset.is_bound and not filterset.is_valid():
            # A filter value that cannot be read is named, and nothing is listed: the whole list
            # shown as if it were filtered would mislead.
            form = filterset.form
            for name, errors in form.errors.items():
                label = form.fields[name].label if name in form.fields else name
                value = self.request.GET.get(name, "")
                filter_errors += [f"{label or name} ({value!r}): {error}" for error in errors]
            qs = filterset.queryset.none()
        else:
            qs = filterset.qs if filterset.is_bound else filterset.queryset
        export = self.request.GET.get("export")
        if export is not None and export not in exports.FORMATS and self.export_columns:
            # `?export=pdf` names what can be had, not a page that looks like a download failed.
            filter_errors.append(f"Export ({export!r}): choose one of {', '.join(exports.FORMATS)}.")
            qs = filterset.queryset.none()
        page = self.paginator_class(qs, self.paginate_by).get_page(self.request.GET.get("page"))
        page.object_list = self.decorate_page(list(page.object_list))
        query = self.request.GET.copy()
        for name in ("page", "export"):
            query.pop(name, None)
        kwargs.update(
            filterset=filterset,
            page_obj=page,
            object_list=page.object_list,
            querystring=query.urlencode(),
            filter_errors=filter_errors,
            export_formats=exports.FORMATS if self.export_columns else {},
        )
        return super().get_context_data(**kwargs)

    def decorate_page(self, objects: list) -> list:
        """Add per-row figures to one page of objects (a fixed number of queries)."""
        return objects

    def get_template_names(self):
        if getattr(self.request, "htmx", False) and self.partial_template_name:
            return [self.partial_template_name]
        return super().get_template_names()


def add_service_errors(form, exc: ValidationError) -> None:
    """Put a service's ValidationError on the form: on the fields it names, and what it says of a
    field the form does not show (a description copied from the part …) above the form, named —
    `form.add_error` would raise (a 500) for a field the form lacks."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    for field, errors in exc.error_dict.items():
        if field in form.fields or field == "__all__":
            form.add_error(None if field == "__all__" else field, errors)
        else:
            label = field.replace("_", " ")
            form.add_error(None, [f"{label}: {message}" for error in errors for message in error.messages])


class ServiceFormMixin:
    """Forms whose save goes through a service: service ValidationErrors land on the form's fields.

    The view defines `save_with_service(form)` returning the saved object.
    """

    def form_valid(self, form):
        try:
            self.object = self.save_with_service(form)
        except ValidationError as exc:
            add_service_errors(form, exc)
            return self.form_invalid(form)
        return HttpResponseRedirect(self.get_success_url())

    def get_success_url(self):
        return self.object.get_absolute_url()
