"""Lines in bulk: `POST /api/v1/shipments/{ref}/lines/bulk/` (JSON list, CSV text, CSV upload) and
the shipment page's paste/upload form add every row as a line or none, each row checked as one line
is, every problem named by row and field; 1,000 lines in one call in the same number of queries as
ten; another organisation's shipment is not found."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.roles import Role
from apps.core.models import AuditEvent
from apps.shipments import services
from apps.shipments.models import LineSerial, Shipment, ShipmentLine
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def url(shipment):
    return f"/api/v1/shipments/{shipment.reference}/lines/bulk/"


@pytest.fixture
def draft(make_shipment, gpu_server, cable):
    return make_shipment()


def test_a_partner_adds_lines_as_a_json_list(draft, supplier_user, gpu_server, api_as):
    body = [
        {"part_number": "DGX-H100", "quantity": 2, "serials": ["SN-1", "SN-2"]},
        {"part_number": "mcp4y10-n002", "quantity": 64},
    ]
    response = api_as(supplier_user).post(url(draft), body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["added"] == 2
    assert [(r["row"], r["line_number"], r["serials"]) for r in response.json()["lines"]] == [
        (1, 1, 2),
        (2, 2, 0),
    ]
    first, second = ShipmentLine.objects.filter(shipment=draft).order_by("line_number")
    # Trade data copied from the part, as one line's service does.
    assert (first.part, first.unit_value, first.hs_code, first.country_of_origin) == (
        gpu_server,
        gpu_server.unit_value,
        "847150",
        "TW",
    )
    assert sorted(first.serials.values_list("unit__serial", flat=True)) == ["SN-1", "SN-2"]
    assert second.quantity == 64
    # Each line is in the audit log, as a line added alone is.
    created = AuditEvent.objects.filter(
        content_type=ContentType.objects.get_for_model(ShipmentLine), action="create"
    )
    assert sorted(created.values_list("object_id", flat=True)) == sorted([str(first.pk), str(second.pk)])


def test_csv_text_and_an_uploaded_file_are_read_alike(draft, coordinator, api_as):
    csv = "Part number,Qty,Serial numbers\nDGX-H100,2,SN-1 SN-2\n\nMCP4Y10-N002,10,\n"
    api = api_as(coordinator)
    response = api.post(url(draft), csv, content_type="text/csv")
    assert response.status_code == 201, response.content
    assert [r["row"] for r in response.json()["lines"]] == [2, 4]  # the blank row keeps its number
    upload = SimpleUploadedFile(
        "lines.csv", b"part_number,quantity\nMCP4Y10-N002,5\n", content_type="text/csv"
    )
    response = api.post(url(draft), {"file": upload}, format="multipart")
    assert response.status_code == 201, response.content
    assert list(draft.lines.values_list("line_number", "quantity")) == [(1, 2), (2, 10), (3, 5)]


def test_every_row_problem_is_named_and_nothing_is_added(
    draft, coordinator, api_as, make_shipment, gpu_server
):
    other = make_shipment()
    services.line_add(shipment=other, part=gpu_server, quantity=1, serials=["TAKEN-1"])
    csv = (
        "part_number,quantity,serials,unit_value\n"
        "DGX-H100,two,,\n"  # row 2
        "DGX-H10,1,,\n"  # row 3
        "DGX-H100,1,SN-9,\n"  # row 4: fine on its own
        "DGX-H100,1,SN-9,\n"  # row 5: the same box as row 4
        "DGX-H100,1,TAKEN-1,\n"  # row 6: on another live shipment
        "MCP4Y10-N002,1,X1,\n"  # row 7: not serialised
        "DGX-H100,1,,abc\n"  # row 8
    )
    response = api_as(coordinator).post(url(draft), {"csv": csv}, format="json")
    assert response.status_code == 400
    problems = {(p["row"], p["field"]) for p in response.json()["rows"]}
    assert problems == {
        (2, "quantity"),
        (3, "part_number"),
        (5, "serials"),
        (6, "serials"),
        (7, "serials"),
        (8, "unit_value"),
    }
    messages = {p["row"]: p["message"] for p in response.json()["rows"]}
    assert "No active part 'DGX-H10'" in messages[3]
    assert "row 4" in messages[5]
    assert f"{other.reference} (line 1)" in messages[6]
    assert response.json()["detail"].startswith("No line was added")
    assert not draft.lines.exists()


def test_the_line_rules_apply_to_each_row(draft, coordinator, api_as):
    # More serials than units, and a line value over the largest amount: the one-line rules.
    body = {
        "lines": [
            {"part_number": "DGX-H100", "quantity": 1, "serials": ["A", "B"]},
            {"part_number": "DGX-H100", "quantity": 1_000_000, "unit_value": "99999999999.00"},
        ]
    }
    response = api_as(coordinator).post(url(draft), body, format="json")
    assert response.status_code == 400
    rows = {(p["row"], p["field"]): p["message"] for p in response.json()["rows"]}
    assert "2 serial numbers for a quantity of 1" in rows[(1, "serials")]
    assert "largest line value" in rows[(2, "quantity")]


def test_only_a_draft_takes_lines(draft, coordinator, api_as):
    Shipment.objects.filter(pk=draft.pk).update(status="approved")
    response = api_as(coordinator).post(
        url(draft), [{"part_number": "DGX-H100", "quantity": 1}], format="json"
    )
    assert response.status_code == 400
    assert "only in draft" in response.json()["shipment"][0]


def test_another_organisations_shipment_is_not_found(draft, forwarder_user, api_as):
    response = api_as(forwarder_user).post(
        url(draft), [{"part_number": "DGX-H100", "quantity": 1}], format="json"
    )
    assert response.status_code == 404
    assert not draft.lines.exists()


def test_a_role_that_does_not_change_shipments_is_refused(draft, operator, api_as):
    officer = UserFactory(organisation=operator, role=Role.COMPLIANCE_OFFICER)
    response = api_as(officer).post(url(draft), [{"part_number": "DGX-H100", "quantity": 1}], format="json")
    assert response.status_code == 403


def _rows(n, prefix):
    rows = ["part_number,quantity,serials"]
    for i in range(n):
        rows.append(f"DGX-H100,1,{prefix}-{i}" if i % 2 else "MCP4Y10-N002,3,")
    return "\n".join(rows)


def _queries(api, shipment, n) -> tuple[int, int]:
    """(reads and other statements, INSERT statements) of one call adding n lines."""
    ContentType.objects.clear_cache()  # each call reads it, as a first call of a process does
    with CaptureQueriesContext(connection) as queries:
        response = api.post(url(shipment), {"csv": _rows(n, prefix=f"BULK{n}")}, format="json")
    assert response.status_code == 201, response.content[:500]
    inserts = sum(1 for q in queries.captured_queries if q["sql"].startswith("INSERT"))
    return len(queries) - inserts, inserts


def test_a_thousand_lines_take_the_queries_ten_do(make_shipment, gpu_server, cable, coordinator, api_as):
    """The reads are the same for 10 and 1,000 lines; the rows are written by bulk_create, in as
    many statements as the database's limit on parameters needs (one on PostgreSQL)."""
    api = api_as(coordinator)
    small, large = make_shipment(), make_shipment()
    api.get(f"/api/v1/shipments/{small.reference}/")  # the token's first use of the minute is recorded
    ten, ten_inserts = _queries(api, small, 10)
    thousand, thousand_inserts = _queries(api, large, 1000)
    assert thousand == ten <= 25, (ten, thousand)
    # Lines, their audit events, units and serial links: one INSERT each on PostgreSQL; SQLite's
    # 999 parameters a statement split 1,000 lines into about 30.
    per_table = 1 if connection.vendor == "postgresql" else 12
    assert ten_inserts <= 5 and thousand_inserts <= 4 * per_table, (ten_inserts, thousand_inserts)
    assert large.lines.count() == 1000
    assert LineSerial.objects.filter(line__shipment=large).count() == 500


def test_the_page_adds_pasted_lines_and_shows_row_errors(draft, coordinator, browser_as):
    browser = browser_as(coordinator)
    page = browser.get(draft.get_absolute_url()).content.decode()
    assert "Add lines in bulk" in page
    bad = "part_number,quantity,serials\nDGX-H100,2,SN-1 SN-2\nNOPE-1,1,\n"
    response = browser.post(f"/shipments/{draft.reference}/lines/bulk/", {"csv": bad})
    assert response.status_code == 400
    text = response.content.decode()
    assert "Row 3" in text and "part_number" in text and "No active part" in text
    assert "NOPE-1" in text  # the paste is kept, to be fixed
    assert not draft.lines.exists()
    good = bad.replace("NOPE-1", "MCP4Y10-N002")
    response = browser.post(f"/shipments/{draft.reference}/lines/bulk/", {"csv": good})
    assert response.status_code == 302 and response.url.endswith("#lines")
    assert draft.lines.count() == 2


def test_the_page_of_another_organisations_shipment_is_not_found(draft, forwarder_user, browser_as):
    response = browser_as(forwarder_user).post(
        f"/shipments/{draft.reference}/lines/bulk/", {"csv": "part_number,quantity\nDGX-H100,1\n"}
    )
    assert response.status_code == 404


def test_a_file_field_that_is_not_an_upload_is_refused_by_name(draft, coordinator, api_as):
    """Found by schemathesis: `{"file": "..."}` in JSON was read as an upload (a 500)."""
    shipment = draft
    answer = api_as(coordinator).post(url(shipment), {"file": "part_number,quantity"}, format="json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["rows"][0]["field"] == "file"
    assert shipment.lines.count() == 0
