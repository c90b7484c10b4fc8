"""Issue 12: the shipments, sites and freight-rates lists sort by their column headers and export
what the filter shows as CSV or XLSX; a partner's export holds only what it may see."""

import csv
import datetime as dt
import io
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from openpyxl import load_workbook

from apps.shipments.models import FreightRate, Site
from tests.factories import OrganisationFactory

pytestmark = pytest.mark.django_db


def _xlsx(response) -> list[tuple]:
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    workbook = load_workbook(io.BytesIO(b"".join(response.streaming_content)), read_only=True)
    return list(workbook.active.iter_rows(values_only=True))


def _csv(response) -> list[list[str]]:
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(body)))


def test_shipments_export_as_xlsx_holds_the_filtered_rows_typed(make_shipment, coordinator, browser_as):
    air = [make_shipment(mode="air") for _ in range(2)]
    make_shipment(mode="ocean")
    response = browser_as(coordinator).get("/shipments/?mode=air&sort=reference&export=xlsx")
    assert (
        'filename="shipments-' in response["Content-Disposition"]
        and ".xlsx" in response["Content-Disposition"]
    )
    rows = _xlsx(response)
    assert rows[0][:3] == ("Reference", "Status", "Origin")
    assert [row[0] for row in rows[1:]] == sorted(s.reference for s in air)
    header = rows[0]
    first = dict(zip(header, rows[1], strict=True))
    # A number is a number and a date a date, not text (a spreadsheet can sum and sort them).
    assert first["Lines"] == 0 and first["Mode"] == "Air" and first["Status"] == "Draft"
    assert first["Required by"].date() == air[0].required_by


def test_the_list_offers_both_formats_for_what_it_shows(make_shipment, coordinator, browser_as):
    make_shipment()
    page = browser_as(coordinator).get("/shipments/?mode=air&page=1").content.decode()
    assert 'href="?mode=air&amp;export=csv" id="export-csv"' in page
    assert 'href="?mode=air&amp;export=xlsx" id="export-xlsx"' in page


def test_an_unknown_export_format_is_named(coordinator, browser_as):
    page = browser_as(coordinator).get("/shipments/?export=pdf").content.decode()
    assert 'id="filter-errors"' in page and "Export (&#x27;pdf&#x27;): choose one of csv, xlsx." in page


def test_an_unreadable_filter_exports_nothing_but_says_why(make_shipment, coordinator, browser_as):
    make_shipment()
    response = browser_as(coordinator).get("/shipments/?late=maybe&export=xlsx")
    assert response["Content-Type"].startswith("text/html")
    assert 'id="filter-errors"' in response.content.decode()


def test_another_organisations_shipments_are_not_in_its_export(
    make_shipment, coordinator, supplier_user, forwarder_user, browser_as
):
    theirs = make_shipment(parties={"shipper": OrganisationFactory(kind="supplier")})
    ours = make_shipment()  # the supplier is its shipper
    rows = _xlsx(browser_as(supplier_user).get("/shipments/?export=xlsx"))
    assert [row[0] for row in rows[1:]] == [ours.reference]
    assert theirs.reference not in str(rows)
    assert _xlsx(browser_as(forwarder_user).get("/shipments/?export=xlsx"))[1:] == []


def test_the_export_reads_the_same_number_of_queries_for_any_number_of_rows(
    make_shipment, coordinator, browser_as
):
    client = browser_as(coordinator)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            for fmt in ("csv", "xlsx"):
                response = client.get(f"/shipments/?export={fmt}")
                b"".join(response.streaming_content)  # the rows are read while streaming
        return len(captured)

    make_shipment()
    one = queries()
    for _ in range(4):
        make_shipment()
    assert queries() == one


def test_the_shipments_export_query_count(make_shipment, coordinator, browser_as, django_assert_num_queries):
    for _ in range(3):
        make_shipment()
    client = browser_as(coordinator)
    client.get("/shipments/")  # the session and user are read once per request; warm nothing else
    # session, user + organisation, the count of at most the inline limit (answered inline or in
    # the background: apps.core.exports.fits_inline), the rows with their line counts
    with django_assert_num_queries(4):
        b"".join(client.get("/shipments/?export=xlsx").streaming_content)


# --- sites ----------------------------------------------------------------------------------------


def test_sites_sort_by_any_column_and_export(coordinator, supplier, operator, browser_as):
    Site.objects.create(owner=operator, name="Zeta hub", kind="warehouse", city="Austin", country="US")
    Site.objects.create(owner=supplier, name="Alpha plant", kind="factory", city="Taoyuan", country="TW")
    client = browser_as(coordinator)
    page = client.get("/sites/?sort=name").content.decode()
    assert page.index("Alpha plant") < page.index("Zeta hub")
    assert 'href="?sort=-name"' in page
    page = client.get("/sites/?sort=-name").content.decode()
    assert page.index("Zeta hub") < page.index("Alpha plant")
    page = client.get("/sites/?sort=city").content.decode()
    assert page.index("Austin") < page.index("Taoyuan")
    rows = _csv(client.get("/sites/?sort=-city&export=csv"))
    assert rows[0][:3] == ["Name", "Kind", "Bonded"]
    assert [r[0] for r in rows[1:]] == ["Alpha plant", "Zeta hub"]
    rows = _xlsx(client.get("/sites/?kind=factory&export=xlsx"))
    assert [r[0] for r in rows[1:]] == ["Alpha plant"] and rows[1][2] == "no"


def test_a_bad_site_sort_is_named(coordinator, browser_as):
    page = browser_as(coordinator).get("/sites/?sort=owner__password").content.decode()
    assert 'id="filter-errors"' in page and "Sort" in page


def test_a_partner_exports_only_its_own_sites(supplier, operator, supplier_user, browser_as):
    Site.objects.create(owner=operator, name="Operator DC", kind="data_centre", city="Chennai", country="IN")
    forwarder_site = Site.objects.create(
        owner=OrganisationFactory(kind="freight_forwarder"),
        name="Other CFS",
        kind="warehouse",
        city="Dubai",
        country="AE",
    )
    Site.objects.create(owner=supplier, name="Own plant", kind="factory", city="Taoyuan", country="TW")
    client = browser_as(supplier_user)
    visible = {s.name for s in Site.objects.visible_to(supplier_user)}
    assert "Own plant" in visible and forwarder_site.name not in visible
    for fmt in ("csv", "xlsx"):
        response = client.get(f"/sites/?export={fmt}")
        names = {r[0] for r in (_csv(response) if fmt == "csv" else _xlsx(response))[1:]}
        assert names == visible


def test_the_sites_page_query_count_is_fixed(coordinator, operator, browser_as, django_assert_num_queries):
    for n in range(3):
        Site.objects.create(owner=operator, name=f"DC {n}", kind="data_centre", city="Chennai", country="IN")
    client = browser_as(coordinator)
    client.get("/sites/")
    with CaptureQueriesContext(connection) as three:
        client.get("/sites/?sort=owner")
    for n in range(3, 8):
        Site.objects.create(owner=operator, name=f"DC {n}", kind="data_centre", city="Chennai", country="IN")
    with django_assert_num_queries(len(three)):
        client.get("/sites/?sort=owner")


# --- freight rates ----------------------------------------------------------------------------------


def _rate(origin: str, destination: str, *, days: int, per_kg: str, service: str = "Air general cargo"):
    today = timezone.localdate()
    return FreightRate.objects.create(
        origin_country=origin,
        destination_country=destination,
        mode="air",
        service=service,
        currency="USD",
        price_per_kg=Decimal(per_kg),
        minimum_charge=Decimal("100"),
        transit_days=days,
        valid_from=today - dt.timedelta(days=10),
        valid_to=today + dt.timedelta(days=100),
    )


def test_freight_rates_sort_by_lane_and_price_and_export(coordinator, browser_as):
    tw_in = _rate("TW", "IN", days=4, per_kg="6.10")
    tw_ae = _rate("TW", "AE", days=3, per_kg="5.20")
    sg_in = _rate("SG", "IN", days=2, per_kg="3.75")
    client = browser_as(coordinator)
    rows = _csv(client.get("/freight-rates/?sort=lane&export=csv"))
    assert [(r[0], r[1]) for r in rows[1:]] == [("SG", "IN"), ("TW", "AE"), ("TW", "IN")]
    rows = _xlsx(client.get("/freight-rates/?sort=-per_kg&export=xlsx"))
    header = rows[0]
    per_kg = header.index("Per chargeable kg")
    assert [r[per_kg] for r in rows[1:]] == pytest.approx([6.10, 5.20, 3.75])
    assert rows[1][header.index("Transit days")] == tw_in.transit_days
    page = client.get("/freight-rates/?sort=days").content.decode()
    assert 'href="?sort=-days"' in page
    edit = [f"/freight-rates/{r.pk}/edit/" for r in (sg_in, tw_ae, tw_in)]
    assert page.index(edit[0]) < page.index(edit[1]) < page.index(edit[2])
    rows = _csv(client.get("/freight-rates/?origin_country=TW&sort=-lane&export=csv"))
    assert [(r[0], r[1]) for r in rows[1:]] == [("TW", "IN"), ("TW", "AE")]


def test_a_bad_rate_sort_is_named_and_partners_cannot_export_rates(coordinator, supplier_user, browser_as):
    _rate("TW", "IN", days=4, per_kg="6.10")
    client = browser_as(coordinator)
    page = client.get("/freight-rates/?sort=price_per_kg").content.decode()
    assert 'id="filter-errors"' in page and "0 rates" in page
    client.logout()
    # The rate table is the operator's: a partner gets no page and no export of it.
    client = browser_as(supplier_user)
    assert client.get("/freight-rates/?export=csv").status_code == 403
    assert client.get("/freight-rates/?export=xlsx").status_code == 403
