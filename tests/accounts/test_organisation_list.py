"""Issue 12: the organisations list sorts by its column headers and exports what it shows as CSV
or XLSX; a partner's list and export hold its own organisation only."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from openpyxl import load_workbook

from tests.factories import OrganisationFactory, UserFactory

pytestmark = pytest.mark.django_db


def _rows(response) -> list:
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    if response["Content-Type"].startswith("text/csv"):
        return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    return list(load_workbook(io.BytesIO(body), read_only=True).active.iter_rows(values_only=True))


def test_organisations_sort_both_ways_and_a_bad_sort_is_named(operator, coordinator, browser_as):
    OrganisationFactory(kind="customer", legal_name="Aardvark Compute", city="Zurich")
    OrganisationFactory(kind="supplier", legal_name="Zebra Servers", city="Austin")
    client = browser_as(coordinator)
    page = client.get("/organisations/?sort=name").content.decode()
    assert page.index("Aardvark Compute") < page.index("Zebra Servers")
    assert 'href="?sort=-name"' in page
    page = client.get("/organisations/?sort=-name").content.decode()
    assert page.index("Zebra Servers") < page.index("Aardvark Compute")
    page = client.get("/organisations/?sort=city").content.decode()
    assert page.index("Zebra Servers") < page.index("Aardvark Compute")
    page = client.get("/organisations/?sort=notes").content.decode()
    assert 'id="filter-errors"' in page and "0 organisations" in page


def test_organisations_export_what_the_filter_shows(operator, coordinator, browser_as):
    aardvark = OrganisationFactory(kind="customer", legal_name="Aardvark Compute", city="Zurich")
    UserFactory(organisation=aardvark, role="partner", username="aardvark-1")
    OrganisationFactory(kind="customer", legal_name="Beaver Compute")
    OrganisationFactory(kind="supplier", legal_name="=cmd|' /C calc'!A0")
    client = browser_as(coordinator)
    rows = _rows(client.get("/organisations/?kind=customer&sort=name&export=csv"))
    assert rows[0] == ["Legal name", "Trading name", "Kind", "City", "Country", "Active", "Users"]
    assert [r[0] for r in rows[1:]] == ["Aardvark Compute", "Beaver Compute"]
    assert rows[1][2:] == ["Customer / end user", "Zurich", aardvark.country, "yes", "1"]
    rows = _rows(client.get("/organisations/?kind=supplier&export=csv"))
    assert rows[1][0] == "'=cmd|' /C calc'!A0"  # a name a spreadsheet would run is defused
    rows = _rows(client.get("/organisations/?kind=customer&sort=-name&export=xlsx"))
    assert [r[0] for r in rows[1:]] == ["Beaver Compute", "Aardvark Compute"]
    assert rows[2][-1] == 1  # the user count is a number


def test_a_partner_exports_only_its_own_organisation(supplier, forwarder, supplier_user, browser_as):
    client = browser_as(supplier_user)
    for fmt in ("csv", "xlsx"):
        assert [r[0] for r in _rows(client.get(f"/organisations/?export={fmt}"))[1:]] == [supplier.legal_name]


def test_the_organisations_page_reads_a_fixed_number_of_queries(operator, coordinator, browser_as):
    client = browser_as(coordinator)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            client.get("/organisations/?sort=kind")
            _rows(client.get("/organisations/?sort=kind&export=xlsx"))
        return len(captured)

    OrganisationFactory(kind="customer")
    one = queries()
    for _ in range(4):
        OrganisationFactory(kind="customer")
    assert queries() == one
