"""A list's export never ends early: a short list is answered inline (CSV streamed with its query
run before the 200, rows read from the database in a constant number of queries), a long one is
written to a file in the background and downloaded, whole, by who asked for it
(apps.core.exports, apps.core.export_files)."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from apps.core import exports
from apps.core.models import TaskRecord
from apps.warehouse.selectors import visible_units
from apps.warehouse.views.stock import StockListView

pytestmark = pytest.mark.django_db


def _lines(response) -> list[list[str]]:
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(body)))


@pytest.fixture
def export_of(monkeypatch, django_capture_on_commit_callbacks):
    """`export_of(client, params)`: the stock list's export with lists past 3 rows going to the
    background (the real limits are tens of thousands); its task runs (eagerly, in the suite)
    once the request commits, as a worker would take it."""
    monkeypatch.setitem(exports.INLINE_ROWS, "csv", 3)
    monkeypatch.setitem(exports.INLINE_ROWS, "xlsx", 3)

    def export(client, params):
        with django_capture_on_commit_callbacks(execute=True):
            return client.get(reverse("warehouse:stock-list"), params)

    return export


def test_a_long_list_is_written_in_the_background_whole_and_in_the_lists_order(
    receive, bin_a, warehouse_operator, client, export_of
):
    receive(*[f"BG-{n:03d}" for n in (7, 3, 5, 1, 4, 2, 6)], put_away=bin_a)
    client.force_login(warehouse_operator)
    response = export_of(client, {"export": "csv", "sort": "-serial"})

    # Not a 200 that may end early: the user is sent to the export's page.
    record = TaskRecord.objects.get(kind="export")
    assert response.status_code == 302 and response["Location"] == reverse(
        "core:export", args=[record.task_id]
    )
    assert record.user == warehouse_operator and record.state == "succeeded"  # eager in the suite
    page = client.get(response["Location"])
    assert page.status_code == 200 and "Export of stock-units (CSV)" in page.content.decode()
    progress = client.get(reverse("compliance:task", args=[record.task_id])).content.decode()
    download = reverse("core:export-download", args=[record.task_id])
    assert f'href="{download}"' in progress and "(7 rows)" in progress

    rows = _lines(client.get(download))
    assert rows[0][0] == "Serial" and len(rows) == 8  # the header and every unit
    assert [r[0] for r in rows[1:]] == [f"BG-{n:03d}" for n in range(7, 0, -1)]  # the ?sort= kept
    assert rows[1][rows[0].index("Location")] == "A-01-02-03"
    assert rows[1][rows[0].index("Status")] == "Available"


def test_only_who_asked_opens_the_exports_page_and_file(
    receive, bin_a, warehouse_operator, coordinator, supplier_user, client, export_of
):
    receive(*[f"BG-{n:03d}" for n in range(5)], put_away=bin_a)
    client.force_login(warehouse_operator)
    export_of(client, {"export": "csv"})
    record = TaskRecord.objects.get(kind="export")
    for other in (coordinator, supplier_user):  # a colleague, another organisation
        client.force_login(other)
        assert client.get(reverse("core:export", args=[record.task_id])).status_code == 404
        assert client.get(reverse("core:export-download", args=[record.task_id])).status_code == 404


def test_a_partners_background_export_holds_only_what_it_sees(
    receive, bin_a, supplier_user, client, export_of, gpu_server, dock, warehouse_operator, customer
):
    from apps.warehouse import services

    receive(*[f"OWN-{n}" for n in range(5)], put_away=bin_a)
    services.units_receive(
        location=dock,
        part=gpu_server,
        serials=["THEIRS-1"],
        owner=customer,
        actor=warehouse_operator,
        customs_reference="SG-OTHER-1",
    )
    client.force_login(supplier_user)
    response = export_of(client, {"export": "xlsx"})
    assert response.status_code == 302
    record = TaskRecord.objects.get(kind="export")
    body = b"".join(client.get(reverse("core:export-download", args=[record.task_id])).streaming_content)
    rows = list(load_workbook(io.BytesIO(body), read_only=True).active.iter_rows(values_only=True))
    assert sorted(r[0] for r in rows[1:]) == [f"OWN-{n}" for n in range(5)]


def test_a_user_who_lost_the_list_gets_no_file(receive, bin_a, warehouse_operator):
    from apps.core import export_files

    receive(*[f"BG-{n:03d}" for n in range(5)], put_away=bin_a)
    warehouse_operator.is_active = False
    warehouse_operator.save()
    with pytest.raises(Exception, match="no longer see this list"):
        export_files.export_file_write(
            task_id="t-1",
            list_name=StockListView.export_list_name(),
            query="export=csv",
            user_id=warehouse_operator.pk,
            export_format="csv",
        )


def test_a_short_list_streams_inline_every_row_in_a_constant_number_of_queries(
    receive, bin_a, warehouse_operator, client
):
    client.force_login(warehouse_operator)
    url = reverse("warehouse:stock-list")

    def export() -> tuple[int, int]:
        client.get(url)  # the session read once
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, {"export": "csv"})
            assert response.status_code == 200 and response.streaming
            rows = _lines(response)
        return len(rows) - 1, len(queries)

    receive("S-1", "S-2", put_away=bin_a)
    rows, few = export()
    receive(*[f"S-{n}" for n in range(3, 40)], put_away=bin_a)
    more_rows, many = export()
    assert (rows, more_rows) == (2, 39)
    assert few == many


def test_the_stock_export_reads_values_not_model_instances(receive, bin_a, warehouse_operator):
    receive("V-1", "V-2", put_away=bin_a)
    assert exports.reads_only(StockListView.export_columns)
    from apps.warehouse.models import UnitPlacement

    rows = list(
        exports.read_rows(StockListView.export_columns, UnitPlacement.objects.order_by("unit__serial"))
    )
    assert [row[0] for row in rows] == ["V-1", "V-2"] and all(isinstance(row, tuple) for row in rows)


@pytest.mark.django_db(transaction=True)
def test_the_rows_read_through_copy_are_the_rows_the_queryset_gives(
    receive, bin_a, warehouse_operator, monkeypatch
):
    """On PostgreSQL, outside a transaction (as a worker writes an export), the values are read
    through COPY in binary on a connection of their own; they are the values `iterator()` gives:
    strings, numbers, aware times. Meanwhile the default connection still answers (the export's
    progress is written through it)."""
    from apps.core.models import TaskRecord
    from apps.warehouse.models import UnitPlacement

    opened = []
    if connection.vendor == "postgresql":
        real = connection.get_new_connection
        monkeypatch.setattr(connection, "get_new_connection", lambda params: opened.append(1) or real(params))
    receive("C-1", "C-2", "C-3", put_away=bin_a)
    rows = exports.read_rows(StockListView.export_columns, UnitPlacement.objects.order_by("-unit__serial"))
    through_copy = []
    for values in rows.values():
        through_copy.append(values)
        TaskRecord.objects.count()  # what a progress report does between rows: never blocked
    assert through_copy == list(rows.queryset.iterator())
    assert opened == ([1] if connection.vendor == "postgresql" else [])  # COPY ran on its own connection
    assert [values[0] for values in through_copy] == ["C-3", "C-2", "C-1"]
    assert list(exports.read_rows(StockListView.export_columns, UnitPlacement.objects.none()).values()) == []
    # The cells made of them are the same whichever way they were read.
    functions = rows.cell_functions()
    assert list(rows) == [tuple(f(values) for f in functions) for values in rows.queryset.iterator()]


def test_a_failing_query_is_an_error_before_any_200():
    # The old response sent its 200 and header row, then met the failure while streaming.
    def failing():
        raise RuntimeError("the database went away")
        yield  # a generator, as a queryset's iterator is

    with pytest.raises(RuntimeError, match="went away"):
        exports.csv_response((("Name", lambda row: row),), failing(), "x.csv")


def test_the_export_task_ends_before_the_broker_would_deliver_it_again():
    from django.conf import settings

    from apps.core.tasks import write_export_file

    assert write_export_file.time_limit < settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]


def test_a_partners_units_read_the_units_table_once(supplier_user):
    # `pk IN (its units) OR pk IN (placements it sees)` read a million-row subquery per unit on
    # PostgreSQL; the owner column and a short list of held units are one scan.
    sql = str(visible_units(supplier_user).query)
    assert sql.count('FROM "catalog_unit"') == 1 and 'JOIN "catalog_unit"' not in sql


@pytest.mark.parametrize(
    "queued_as",
    [
        "warehouse.StockListView",
        "apps.warehouse.views.StockListView",
        "apps.warehouse.views.stock.StockListView",
    ],
)
def test_an_export_finds_its_list_by_app_and_class_whatever_module_it_was_queued_from(
    queued_as, receive, bin_a, warehouse_operator, settings, tmp_path
):
    """The lists moved into modules by subject; an export queued before the move (under the list's
    old module path) is still written after it."""
    from apps.core import export_files

    settings.MEDIA_ROOT = tmp_path
    receive(*[f"MV-{n:03d}" for n in range(3)], put_away=bin_a)
    assert StockListView.export_list_name() == "warehouse.StockListView"
    result = export_files.export_file_write(
        task_id=f"t-{len(queued_as)}",
        list_name=queued_as,
        query="export=csv",
        user_id=warehouse_operator.pk,
        export_format="csv",
    )
    assert result["rows"] == 3


def test_two_lists_cannot_export_under_one_name():
    from django.core.exceptions import ImproperlyConfigured

    from apps.core import export_files

    with pytest.raises(ImproperlyConfigured, match="Two lists"):
        export_files.register("warehouse.StockListView", type("Other", (), {}))
