"""A list too long to export inline, written to a file in the background and downloaded once done.

The web server kills a request that runs past its worker timeout (gunicorn: 30 s), and a streamed
export has sent its 200 and header row long before: the user gets a file that ends early and looks
complete. So a list past `exports.INLINE_ROWS` is not streamed. The request records a background
task (`core.write_export_file`, through the outbox) and sends the user to the export's page, which
shows the task's progress and, once the file is complete, a link to it. The task rebuilds the
list exactly as the request had it — the same list view, filters and sort, for the same user, whose
sign-in and capability are checked again — writes every row to the file and only then records it
done with the number of rows: a file that is offered is whole.

Lists register themselves by name (`register`), so this module names no app's view: a task carries
the list's name, never a dotted path to import.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.core.files.base import File
from django.core.files.storage import default_storage
from django.http import HttpRequest, QueryDict
from django.urls import get_resolver, reverse
from django.utils import timezone

from . import exports
from .models import TaskRecord, TaskState
from .tasks_outbox import enqueue_on_commit

KIND = "export"
# A finished file is kept this long (the export's page says so), then its download is refused.
KEEP = dt.timedelta(days=2)

# list name → the list view class (a `FilteredListMixin`), filled as the classes are defined.
LISTS: dict[str, type] = {}


def list_key(module: str, qualname: str) -> str:
    """The name a list's background export is queued under: its app and its class, not its module
    (`apps.warehouse.views.stock` → `warehouse.StockListView`), so an export queued before a list
    moved to another module of its app (the apps' views split by subject) still finds it."""
    parts = module.split(".")
    app = parts[1] if parts[0] == "apps" and len(parts) > 1 else module
    return f"{app}.{qualname}"


def register(name: str, view_class: type) -> None:
    """Make `view_class` the list whose background export is named `name`; one name, one list."""
    if LISTS.get(name, view_class) is not view_class:
        raise ImproperlyConfigured(f"Two lists export as {name!r}: {LISTS[name]} and {view_class}.")
    LISTS[name] = view_class


def export_file_start(*, task, view, export_format: str) -> TaskRecord:
    """Record the background export of what `view` (a list view set up with its request) shows,
    sent once the request commits. `task` is the Celery task that runs `export_file_write`."""
    request = view.request
    query = request.GET.copy()
    query.pop("page", None)
    query["export"] = export_format
    return enqueue_on_commit(
        task,
        kwargs={
            "list_name": view.export_list_name(),
            "query": query.urlencode(),
            "user_id": request.user.pk,
            "export_format": export_format,
        },
        kind=KIND,
        actor=request.user,
        object_repr=f"{view.export_name} ({export_format.upper()})",
        object_url=request.path,
    )


def export_file_write(
    *,
    task_id: str,
    list_name: str,
    query: str,
    user_id: int,
    export_format: str,
    progress: Callable[[int, str], None] | None = None,
) -> dict[str, Any]:
    """Write the export to the default storage and return the task's result (rows, file name,
    download address). Raises PermissionDenied when the user may no longer see the list."""
    if list_name not in LISTS:
        get_resolver().url_patterns  # noqa: B018 — a worker imports the views (which register) with the URLs
    view_class = LISTS.get(list_name)
    if view_class is None and list_name.startswith("apps."):
        # Queued under the list's full module path (before exports were named by app and class).
        module, _, qualname = list_name.rpartition(".")
        view_class = LISTS.get(list_key(module, qualname))
    if view_class is None or export_format not in exports.FORMATS:
        raise ValueError(f"No list export {list_name!r} as {export_format!r}.")
    user = get_user_model().objects.filter(pk=user_id).first()
    capability = getattr(view_class, "capability", "")
    if user is None or not user.can(capability):
        raise PermissionDenied("You may no longer see this list: the export was not written.")
    request = HttpRequest()
    request.method = "GET"
    request.GET = QueryDict(query)
    request.user = user
    request.path = request.path_info = ""
    view = view_class()
    view.setup(request)
    filterset = view.get_filterset()
    if filterset.is_bound and not filterset.is_valid():
        raise ValueError(f"The list's filters cannot be read: {filterset.errors.as_text()}")
    queryset = filterset.qs if filterset.is_bound else filterset.queryset
    total = queryset.order_by().count()

    def tick(rows: int) -> None:
        if progress is not None and total:
            progress(min(99, rows * 100 // total), f"{rows:,} of {total:,} rows written")

    file_name = view.export_filename(export_format)
    path = f"exports/{task_id}/{file_name}"
    rows = view.export_write(export_format, queryset, path, progress=tick)
    return {
        "percent": 100,
        "summary": f"{rows:,} rows written to {file_name}",
        "rows": rows,
        "file": path,
        "file_name": file_name,
        "download_url": reverse("core:export-download", args=[task_id]),
    }


def write_to_storage(path: str, write: Callable[[Any], int]) -> int:
    """Open `path` in the default storage and let `write(file)` fill it; returns its rows."""
    with tempfile.TemporaryFile() as spool:
        rows = write(spool)
        spool.seek(0)
        default_storage.save(path, File(spool, name=path))
    return rows


def export_file_for(user, task_id: str) -> tuple[TaskRecord, dict]:
    """The finished export `task_id` of `user` (only who asked for it downloads it): the record
    and its result. Raises LookupError when there is none to download."""
    record = TaskRecord.objects.filter(task_id=task_id, kind=KIND, user=user).first()
    if record is None or record.state != TaskState.SUCCEEDED or not isinstance(record.result, dict):
        raise LookupError(task_id)
    if record.finished_at and record.finished_at < _now() - KEEP:
        raise LookupError(task_id)
    return record, record.result


def _now():
    return timezone.now()
