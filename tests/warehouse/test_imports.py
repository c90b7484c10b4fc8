"""Bulk import of serials from CSV (apps/warehouse/services/imports.py): refused whole with every bad row,
or written whole — units, placements and the ledger's receipt rows — in a constant number of
queries; the API, the background task and the upload page."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.catalog.models import Unit
from apps.core.models import TaskRecord, TaskState
from apps.warehouse import selectors, services
from apps.warehouse.models import Location, Movement, SerialImport, UnitPlacement
from apps.warehouse.services import imports
from tests.warehouse.conftest import BOND

HEADER = "manufacturer,part_number,serial,location,owner,customs_reference"
API = "/api/v1/stock/imports/"


def csv_bytes(*rows: str, header: str = HEADER) -> bytes:
    return ("\r\n".join([header, *rows]) + "\r\n").encode()


def serials(n: int, location: str = "A-01-02-03", prefix: str = "SN") -> bytes:
    return csv_bytes(*(f"NVIDIA,DGX-H100,{prefix}{i:06d},{location},,{BOND}" for i in range(n)))


@pytest.fixture
def world(hub, bin_a, dock, gpu_server, supplier, warehouse_operator):
    return hub


def run(data: bytes, *, site, owner, actor, reference: str = ""):
    return imports.serial_import_create(
        site=site, owner=owner, data=data, file_name="serials.csv", actor=actor, customs_reference=reference
    )


def problems_of(excinfo) -> set[tuple]:
    return {(p.row, p.column) for p in excinfo.value.problems}


def nothing_written():
    assert not Unit.objects.exists()
    assert not UnitPlacement.objects.exists()
    assert not Movement.objects.exists()
    assert not SerialImport.objects.exists()


# --- success ---------------------------------------------------------------------------------


def test_import_writes_units_placements_and_receipt_rows(
    world, hub, bin_a, dock, supplier, warehouse_operator
):
    data = csv_bytes(
        f"NVIDIA,DGX-H100,QT0001,A-01-02-03,,{BOND}",
        'nvidia,dgx-h100,QT0002,rcv,"Taiwan Servers Co., Ltd.",SG-OTHER-1',
        "NVIDIA,DGX-H100,QT0003,a-01-02-03,,",
    )
    done = run(data, site=hub, owner=supplier, actor=warehouse_operator, reference="SG-DEFAULT-9")

    assert (done.status, done.rows, done.imported) == ("done", 3, 3)
    units = {u.serial: u for u in Unit.objects.select_related("placement__location")}
    assert set(units) == {"QT0001", "QT0002", "QT0003"}
    assert {(u.status, u.customs_status, u.owner_id) for u in units.values()} == {
        ("received", "in_bond", supplier.pk)
    }
    assert units["QT0002"].placement.location == dock
    assert units["QT0001"].placement.location == bin_a
    assert units["QT0003"].placement.customs_reference == "SG-DEFAULT-9"  # the import's default
    rows = Movement.objects.order_by("unit__serial")
    assert [
        (m.kind, m.to_location_id, m.status_before, m.status_after, m.customs_reference) for m in rows
    ] == [
        ("receipt", bin_a.pk, "expected", "received", BOND),
        ("receipt", dock.pk, "expected", "received", "SG-OTHER-1"),
        ("receipt", bin_a.pk, "expected", "received", "SG-DEFAULT-9"),
    ]
    assert {m.actor_id for m in rows} == {warehouse_operator.pk}
    assert all(m.reason.startswith(f"Serial import {done.pk}") for m in rows)
    # The ledger alone rebuilds what the tables hold.
    ledger, tables = selectors.rebuild_on_hand(), selectors.stock_on_hand()
    assert ledger.units == tables.units and ledger.statuses == tables.statuses
    # The imported units go on like received ones: put away, they become available.
    bin_b = services.location_create(site=hub, zone="A", aisle="01", rack="02", bin="09")
    moved = services.unit_move(unit=units["QT0001"], to_location=bin_b, actor=warehouse_operator)
    assert moved.status == "available"


def test_duty_paid_site_needs_no_customs_reference_and_bom_is_accepted(
    plain_warehouse, plain_bin, gpu_server, supplier, warehouse_operator
):
    data = b"\xef\xbb\xbf" + csv_bytes(
        "NVIDIA,DGX-H100,DP-1,B-1", header="manufacturer,part_number,serial,location"
    )
    done = run(data, site=plain_warehouse, owner=supplier, actor=warehouse_operator)
    unit = Unit.objects.get()
    assert (done.imported, unit.status, unit.customs_status) == (1, "received", "duty_paid")


# --- refusals --------------------------------------------------------------------------------


def test_every_bad_row_is_named_and_nothing_is_written(
    world, hub, dock, gpu_server, supplier, warehouse_operator, cable
):
    Location.objects.create(site=hub, zone="Z", aisle="9", is_active=False)
    services.units_receive(
        location=dock,
        part=gpu_server,
        serials=["KNOWN-1"],
        owner=supplier,
        actor=warehouse_operator,
        customs_reference=BOND,
    )
    before = (Unit.objects.count(), UnitPlacement.objects.count(), Movement.objects.count())
    data = csv_bytes(
        f"NVIDIA,DGX-H100,OK-1,A-01-02-03,,{BOND}",  # 2: fine
        f"Nvidya,DGX-H100,X-3,A-01-02-03,,{BOND}",  # 3: unknown manufacturer
        f"NVIDIA,NOPE-9,X-4,A-01-02-03,,{BOND}",  # 4: unknown part
        f"NVIDIA,{cable.part_number},X-5,A-01-02-03,,{BOND}",  # 5: not serialised
        f"NVIDIA,DGX-H100,,A-01-02-03,,{BOND}",  # 6: blank serial
        f"NVIDIA,DGX-H100,X\u200b7,A-01-02-03,,{BOND}",  # 7: invisible character
        f"NVIDIA,DGX-H100,ok-1,A-01-02-03,,{BOND}",  # 8: repeats row 2 (any case)
        f"NVIDIA,DGX-H100,known-1,A-01-02-03,,{BOND}",  # 9: already known
        f"NVIDIA,DGX-H100,X-10,B-99,,{BOND}",  # 10: no such location
        f"NVIDIA,DGX-H100,X-11,Z-9,,{BOND}",  # 11: inactive location
        "NVIDIA,DGX-H100,X-12,A-01-02-03,,",  # 12: bonded, no reference
        f"NVIDIA,DGX-H100,X-13,A-01-02-03,Nobody Ltd,{BOND}",  # 13: unknown owner
    )
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(data, site=hub, owner=supplier, actor=warehouse_operator)

    assert problems_of(excinfo) == {
        (3, "manufacturer"),
        (4, "part_number"),
        (5, "part_number"),
        (6, "serial"),
        (7, "serial"),
        (8, "serial"),
        (9, "serial"),
        (10, "location"),
        (11, "location"),
        (12, "customs_reference"),
        (13, "owner"),
    }
    reasons = {(p.row, p.column): p.reason for p in excinfo.value.problems}
    assert reasons[(8, "serial")] == "Serial ok-1 repeats row 2."
    assert "already known" in reasons[(9, "serial")]
    assert "U+200B" in reasons[(7, "serial")]
    assert "bonded" in reasons[(12, "customs_reference")]
    assert excinfo.value.total == 11
    assert excinfo.value.as_dict()["problem_count"] == 11
    assert (Unit.objects.count(), UnitPlacement.objects.count(), Movement.objects.count()) == before
    assert not SerialImport.objects.exists()


def test_malformed_rows_are_named(world, hub, supplier, warehouse_operator):
    data = csv_bytes(
        f"NVIDIA,DGX-H100,M-1,A-01-02-03,,{BOND}", "NVIDIA,DGX-H100,M-2", f"NVIDIA,DGX-H100,M-3,A,,{BOND},x"
    )
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(data, site=hub, owner=supplier, actor=warehouse_operator)
    assert problems_of(excinfo) == {(3, ""), (4, "")}
    assert "3 fields; the header has 6" in excinfo.value.problems[0].reason
    nothing_written()


def test_wrong_header_is_refused(world, hub, supplier, warehouse_operator):
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(csv_bytes("NVIDIA,DGX-H100,A-01-02-03", header="maker,part,serial"), site=hub, owner=supplier,
            actor=warehouse_operator)  # fmt: skip
    [problem] = excinfo.value.problems
    assert problem.row == 1 and "The header is “maker,part,serial”" in problem.reason
    nothing_written()


def test_another_encoding_is_refused_with_its_row(world, hub, supplier, warehouse_operator):
    data = csv_bytes(
        f"NVIDIA,DGX-H100,OK-1,A-01-02-03,,{BOND}", f"NVIDIA,DGX-H100,Müller-2,A-01-02-03,,{BOND}"
    )
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(data.decode().encode("latin-1"), site=hub, owner=supplier, actor=warehouse_operator)
    [problem] = excinfo.value.problems
    assert problem.row == 3 and "Not UTF-8 (byte 0xFC" in problem.reason
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(data.decode().encode("utf-16"), site=hub, owner=supplier, actor=warehouse_operator)
    assert "The file is UTF-16: save it as UTF-8" in excinfo.value.problems[0].reason
    nothing_written()


def test_too_many_rows_and_empty_files_are_refused(world, hub, supplier, warehouse_operator, monkeypatch):
    monkeypatch.setattr(imports, "MAX_ROWS", 3)
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(serials(4), site=hub, owner=supplier, actor=warehouse_operator)
    assert "more than 3 rows" in excinfo.value.problems[0].reason
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(csv_bytes(), site=hub, owner=supplier, actor=warehouse_operator)
    assert "no rows" in excinfo.value.problems[0].reason
    nothing_written()


def test_problems_listed_are_capped_with_the_total(world, hub, supplier, warehouse_operator, monkeypatch):
    monkeypatch.setattr(imports, "PROBLEMS_LISTED", 5)
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(serials(20, location="NOWHERE"), site=hub, owner=supplier, actor=warehouse_operator)
    assert [p.row for p in excinfo.value.problems] == [2, 3, 4, 5, 6]
    assert excinfo.value.total == 20
    assert "20 problems" in excinfo.value.summary


def test_query_count_does_not_grow_with_the_rows(world, hub, supplier, warehouse_operator):
    """The checks are a fixed handful of set-based queries; the writes one INSERT per table per
    batch — on SQLite Django splits an INSERT at 999 parameters, so there only the reads and
    other statements are compared."""
    counts = {}
    # A first import warms the process's caches (content types …): it is not compared.
    run(serials(10, prefix="W"), site=hub, owner=supplier, actor=warehouse_operator)
    for n, prefix in ((100, "S"), (1_000, "L")):
        with CaptureQueriesContext(connection) as captured:
            run(serials(n, prefix=prefix), site=hub, owner=supplier, actor=warehouse_operator)
        sqls = [q["sql"] for q in captured.captured_queries]
        inserts = [s for s in sqls if s.startswith("INSERT")]
        counts[n] = (len(sqls) - len(inserts), len(inserts))
    assert counts[100][0] == counts[1_000][0], counts
    if connection.vendor == "postgresql":
        assert counts[100][1] == counts[1_000][1], counts
    assert Unit.objects.count() == 1_110 and Movement.objects.count() == 1_110


# --- the background task ---------------------------------------------------------------------


def test_a_large_file_is_imported_in_the_background(
    world, hub, supplier, warehouse_operator, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(imports, "BACKGROUND_FROM_ROWS", 5)
    with django_capture_on_commit_callbacks(execute=True):
        queued = run(serials(12), site=hub, owner=supplier, actor=warehouse_operator)
    assert queued.task_id
    done = SerialImport.objects.get(pk=queued.pk)
    assert (done.status, done.rows, done.imported) == ("done", 12, 12)
    record = TaskRecord.objects.get(task_id=queued.task_id)
    assert (record.state, record.kind, record.result["imported"]) == (
        TaskState.SUCCEEDED,
        "serial import",
        12,
    )
    assert Movement.objects.filter(kind="receipt").count() == 12
    # Idempotent: run again (a redelivery), it writes nothing more.
    imports.serial_import_run(serial_import=done)
    assert Unit.objects.count() == 12


def test_a_large_file_refused_in_the_background_records_every_problem(
    world, hub, supplier, warehouse_operator, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(imports, "BACKGROUND_FROM_ROWS", 5)
    data = serials(8) + f"NVIDIA,DGX-H100,SN000003,A-01-02-03,,{BOND}\r\n".encode()
    with django_capture_on_commit_callbacks(execute=True):
        queued = run(data, site=hub, owner=supplier, actor=warehouse_operator)
    refused = SerialImport.objects.get(pk=queued.pk)
    assert (refused.status, refused.problem_count) == ("refused", 1)
    assert refused.problems == [{"row": 10, "column": "serial", "reason": "Serial SN000003 repeats row 5."}]
    assert not Unit.objects.exists() and not Movement.objects.exists()
    assert TaskRecord.objects.get(task_id=queued.task_id).result["status"] == "refused"


# --- API -------------------------------------------------------------------------------------


def upload(data: bytes, name: str = "serials.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/csv")


def test_api_imports_a_file(world, hub, supplier, coordinator, api_as):
    response = api_as(coordinator).post(
        API, {"file": upload(serials(3)), "site": hub.pk, "owner": supplier.pk}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["status"], body["imported"], body["status_url"]) == ("done", 3, None)
    again = api_as(coordinator).get(f"{API}{body['id']}/")
    assert again.status_code == 200 and again.json()["imported"] == 3


def test_api_refuses_with_every_row(world, hub, supplier, coordinator, api_as):
    data = csv_bytes(f"NVIDIA,DGX-H100,A1,A-01-02-03,,{BOND}", f"NVIDIA,DGX-H100,A1,NOWHERE,,{BOND}")
    response = api_as(coordinator).post(
        API, {"file": upload(data), "site": hub.pk, "owner": supplier.pk}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"row": 3, "column": "serial", "reason": "Serial A1 repeats row 2."},
        {"row": 3, "column": "location", "reason": "No location NOWHERE at SG bonded hub."},
    ]
    assert response.json()["problem_count"] == 2
    assert not Unit.objects.exists()


def test_api_queues_a_large_file(world, hub, supplier, coordinator, api_as, monkeypatch):
    monkeypatch.setattr(imports, "BACKGROUND_FROM_ROWS", 5)
    response = api_as(coordinator).post(
        API, {"file": upload(serials(6)), "site": hub.pk, "owner": supplier.pk}, format="multipart"
    )
    assert response.status_code == 202
    assert response.json()["status_url"] == f"/api/v1/tasks/{response.json()['task_id']}/"


def test_api_refuses_partners_unknown_imports_and_non_warehouses(
    world, hub, supplier, supplier_user, coordinator, api_as, factory_site
):
    body = {"file": upload(serials(1)), "site": hub.pk, "owner": supplier.pk}
    assert api_as(supplier_user).post(API, body, format="multipart").status_code == 403
    assert api_as(coordinator).get(f"{API}999999/").status_code == 404
    body = {"file": upload(serials(1)), "site": factory_site.pk, "owner": supplier.pk}
    response = api_as(coordinator).post(API, body, format="multipart")
    assert response.status_code == 400 and "site" in response.json()
    assert not Unit.objects.exists()


# --- the upload page -------------------------------------------------------------------------


def test_page_lists_every_refused_row(world, hub, supplier, warehouse_operator, browser_as):
    client = browser_as(warehouse_operator)
    url = reverse("warehouse:serial-import")
    assert client.get(url).status_code == 200
    data = csv_bytes(f"NVIDIA,DGX-H100,P1,NOWHERE,,{BOND}", f"NVIDIA,NOPE,P2,A-01-02-03,,{BOND}")
    response = client.post(url, {"site": hub.pk, "owner": supplier.pk, "file": upload(data)})
    html = response.content.decode()
    assert response.status_code == 200 and 'id="import-refused"' in html
    assert "No location NOWHERE at SG bonded hub." in html and "No part NOPE of NVIDIA" in html
    assert not Unit.objects.exists()


def test_page_imports_and_shows_the_result(world, hub, supplier, warehouse_operator, browser_as):
    client = browser_as(warehouse_operator)
    url = reverse("warehouse:serial-import")
    response = client.post(
        url, {"site": hub.pk, "owner": supplier.pk, "file": upload(serials(2))}, follow=True
    )
    html = response.content.decode()
    assert 'data-import-status="done"' in html and "2 serials imported" in html
    assert Unit.objects.count() == 2


def test_page_is_refused_to_partners(supplier_user, browser_as):
    assert browser_as(supplier_user).get(reverse("warehouse:serial-import")).status_code == 403


def test_page_shows_the_progress_of_a_large_import(
    world, hub, supplier, warehouse_operator, browser_as, monkeypatch
):
    monkeypatch.setattr(imports, "BACKGROUND_FROM_ROWS", 5)
    client = browser_as(warehouse_operator)
    url = reverse("warehouse:serial-import")
    response = client.post(
        url, {"site": hub.pk, "owner": supplier.pk, "file": upload(serials(6))}, follow=True
    )
    html = response.content.decode()
    queued = SerialImport.objects.get()
    assert 'data-import-status="queued"' in html
    assert reverse("compliance:task", args=[queued.task_id]) in html and "refresh=import-result" in html


def test_a_serial_added_meanwhile_refuses_the_whole_file(
    world, hub, gpu_server, supplier, warehouse_operator, monkeypatch
):
    checked = imports.validate

    def validate_then_someone_receives(*args, **kwargs):
        plan = checked(*args, **kwargs)
        Unit.objects.create(
            part=gpu_server, manufacturer=gpu_server.manufacturer, serial="sn000001", owner=supplier
        )
        return plan

    monkeypatch.setattr(imports, "validate", validate_then_someone_receives)
    with pytest.raises(imports.ImportRefused) as excinfo:
        run(serials(3), site=hub, owner=supplier, actor=warehouse_operator)
    assert "added by someone else" in excinfo.value.problems[0].reason
    nothing_written()


# --- a unit's part is its owner's or the master catalogue's -----------------------------------------


def test_a_third_organisations_private_part_is_refused_even_when_it_is_the_only_one(
    hub, bin_a, supplier, forwarder, warehouse_operator
):
    """The operator's staff see every catalogue; a unit of the supplier must not be made of the
    forwarder's private part (its owner would then read that part's number, name and value)."""
    from tests.factories import PartFactory

    PartFactory(owner=forwarder, part_number="FWD-PRIVATE-1", name="Forwarder's own kit")
    with pytest.raises(imports.ImportRefused) as refused:
        run(csv_bytes(f"NVIDIA,FWD-PRIVATE-1,P-1,A-01-02-03,,{BOND}"), site=hub, owner=supplier,
            actor=warehouse_operator)  # fmt: skip
    [problem] = refused.value.problems
    assert (problem.row, problem.column) == (2, "part_number")
    assert "Taiwan Servers Co., Ltd." in problem.reason and "master catalogue" in problem.reason
    nothing_written()
    # Named in the row as the owner, the forwarder's own part is its to use.
    done = run(
        csv_bytes(f"NVIDIA,FWD-PRIVATE-1,P-1,A-01-02-03,{forwarder.legal_name},{BOND}"),
        site=hub, owner=supplier, actor=warehouse_operator,
    )  # fmt: skip
    assert done.imported == 1 and Unit.objects.get(serial="P-1").owner == forwarder
