"""Issue 12: the licences list sorts by its column headers, exports what it shows (with what is left
of each licence) as CSV or XLSX, and a partner's list and export hold only its own licences."""

import csv
import datetime as dt
import io
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from openpyxl import load_workbook

from apps.compliance import services
from apps.compliance.models import Licence
from tests.factories import OrganisationFactory, UserFactory

pytestmark = pytest.mark.django_db


def _licence(number: str, licensee, consignee, expires: dt.date) -> Licence:
    return services.licence_save(
        licence=Licence(),
        fields={
            "number": number,
            "licensee": licensee,
            "eccns": "4A090.a",
            "destination_countries": "SA",
            "consignee": consignee,
            "permitted_quantity": 6,
            "permitted_value": Decimal("3000000"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": expires,
        },
    )


def _rows(response) -> list:
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    if response["Content-Type"].startswith("text/csv"):
        return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    return list(load_workbook(io.BytesIO(body), read_only=True).active.iter_rows(values_only=True))


@pytest.fixture
def licences(supplier, saudi_customer):
    other = OrganisationFactory(kind="supplier", legal_name="Another Exporter Inc.")
    return {
        "late": _licence("B-200", supplier, saudi_customer, dt.date(2028, 6, 30)),
        "soon": _licence("A-100", supplier, saudi_customer, dt.date(2027, 3, 31)),
        "theirs": _licence("C-300", other, OrganisationFactory(kind="customer"), dt.date(2027, 9, 30)),
    }


def test_licences_sort_both_ways_and_a_bad_sort_is_named(licences, coordinator, browser_as):
    client = browser_as(coordinator)
    page = client.get("/compliance/licences/?sort=number").content.decode()
    assert page.index("A-100") < page.index("B-200") < page.index("C-300")
    assert 'href="?sort=-number"' in page
    page = client.get("/compliance/licences/?sort=-expires_on").content.decode()
    assert page.index("B-200") < page.index("C-300") < page.index("A-100")
    page = client.get("/compliance/licences/?sort=permitted_value").content.decode()
    assert 'id="filter-errors"' in page and "0 licences" in page


def test_licences_export_what_the_search_shows_with_what_is_left(licences, supplier, coordinator, browser_as):
    client = browser_as(coordinator)
    rows = _rows(client.get("/compliance/licences/?q=Taiwan&sort=number&export=csv"))
    assert rows[0][:3] == ["Number", "Issuing authority", "ECCNs"]
    assert [r[0] for r in rows[1:]] == ["A-100", "B-200"]
    header = rows[0]
    assert rows[1][header.index("Licensee")] == supplier.legal_name
    assert rows[1][header.index("Quantity left")] == "6" and rows[1][header.index("Drawn (%)")] == "0"
    rows = _rows(client.get("/compliance/licences/?sort=-number&export=xlsx"))
    assert [r[0] for r in rows[1:]] == ["C-300", "B-200", "A-100"]
    header = rows[0]
    assert rows[1][header.index("Value left")] == 3_000_000
    assert rows[1][header.index("Expires on")].date() == dt.date(2027, 9, 30)


def test_a_partner_lists_and_exports_only_its_own_licences(licences, supplier, browser_as):
    client = browser_as(UserFactory(organisation=supplier, role="partner", username="supplier-page"))
    page = client.get("/compliance/licences/").content.decode()
    assert "A-100" in page and "B-200" in page and "C-300" not in page
    for fmt in ("csv", "xlsx"):
        numbers = [r[0] for r in _rows(client.get(f"/compliance/licences/?export={fmt}"))[1:]]
        assert sorted(numbers) == ["A-100", "B-200"]


def test_the_licence_export_reads_a_fixed_number_of_queries(
    supplier, saudi_customer, coordinator, browser_as
):
    client = browser_as(coordinator)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            _rows(client.get("/compliance/licences/?export=xlsx"))
            client.get("/compliance/licences/")
        return len(captured)

    _licence("A-1", supplier, saudi_customer, dt.date(2027, 1, 1))
    one = queries()
    for n in range(2, 6):
        _licence(f"A-{n}", supplier, saudi_customer, dt.date(2027, 1, n))
    assert queries() == one


def test_an_officer_still_adds_a_licence_below_the_list(compliance_officer, browser_as):
    client = browser_as(compliance_officer)
    response = client.post("/compliance/licences/", {"number": ""})
    assert response.status_code == 400 and 'id="results"' in response.content.decode()
