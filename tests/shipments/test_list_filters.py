"""Issue 12, "Lists people can work with": a filter value that cannot be read is named on the page
(and refused with a 400 by the API) instead of being ignored, and the "Late" filter offers "Any",
"Late only" and "On time only" rather than Django's "Unknown"."""

import pytest

pytestmark = pytest.mark.django_db


def test_an_unreadable_filter_is_named_and_lists_nothing(make_shipment, coordinator, browser_as):
    make_shipment()
    client = browser_as(coordinator)
    page = client.get("/shipments/?required_before=next-week").content.decode()
    assert 'id="filter-errors"' in page
    assert "Required on or before (&#x27;next-week&#x27;): Enter a valid date." in page
    assert "0 shipments" in page
    page = client.get("/shipments/?late=maybe").content.decode()
    assert 'id="filter-errors"' in page and "maybe" in page and "0 shipments" in page
    # htmx asks for the results only: the errors come with them.
    partial = client.get("/shipments/?late=maybe", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="filter-errors"' in partial
    page = client.get("/shipments/?late=false").content.decode()
    assert 'id="filter-errors"' not in page and "1 shipment" in page


def test_the_late_filter_reads_any_late_or_on_time(coordinator, browser_as):
    page = browser_as(coordinator).get("/shipments/").content.decode()
    assert "Unknown" not in page
    assert '<option value="" selected>Any</option>' in page
    assert '<option value="true">Late only</option>' in page


def test_the_api_refuses_an_unreadable_filter(coordinator, api_as):
    response = api_as(coordinator).get("/api/v1/shipments/?late=maybe")
    assert response.status_code == 400 and "late" in response.json()


def test_date_filters_are_date_pickers(coordinator, browser_as):
    client = browser_as(coordinator)
    assert 'type="date" name="valid_on"' in client.get("/freight-rates/").content.decode()


def _csv(response) -> list[list[str]]:
    import csv
    import io

    body = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(body)))


def test_columns_sort_both_ways_and_a_bad_sort_is_named(make_shipment, coordinator, browser_as):
    import datetime as dt

    from django.utils import timezone

    today = timezone.localdate()
    late, soon = (
        make_shipment(required_by=today + dt.timedelta(days=40)),
        make_shipment(required_by=today + dt.timedelta(days=5)),
    )
    client = browser_as(coordinator)
    page = client.get("/shipments/?sort=required_by").content.decode()
    assert page.index(soon.reference) < page.index(late.reference)
    assert 'href="?sort=-required_by"' in page  # the header sorts the other way next
    page = client.get("/shipments/?sort=-required_by").content.decode()
    assert page.index(late.reference) < page.index(soon.reference)
    page = client.get("/shipments/?sort=password").content.decode()
    assert 'id="filter-errors"' in page and "Sort" in page


def test_export_gives_every_shipment_the_filter_shows_as_csv(
    make_shipment, coordinator, browser_as, forwarder_user
):
    shipments = [make_shipment(mode="air") for _ in range(3)] + [make_shipment(mode="ocean")]
    client = browser_as(coordinator)
    response = client.get("/shipments/?mode=air&sort=reference&export=csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="shipments-' in response["Content-Disposition"]
    rows = _csv(response)
    assert rows[0][:3] == ["Reference", "Status", "Origin"]
    assert [row[0] for row in rows[1:]] == sorted(s.reference for s in shipments[:3])
    assert rows[1][1] == "Draft" and rows[1][4] == "Air" and rows[1][6] == "0"
    # Another organisation's user exports only what it may see: nothing here.
    client.logout()
    assert _csv(browser_as(forwarder_user).get("/shipments/?export=csv"))[1:] == []


def test_parts_sort_and_export(coordinator, browser_as):
    from decimal import Decimal

    from tests.factories import PartFactory

    cheap, dear = PartFactory(unit_value=Decimal("10")), PartFactory(unit_value=Decimal("900"))
    client = browser_as(coordinator)
    page = client.get("/parts/?sort=-unit_value").content.decode()
    assert page.index(dear.part_number) < page.index(cheap.part_number)
    rows = _csv(client.get("/parts/?sort=unit_value&export=csv"))
    assert rows[0][0] == "Part number" and [r[0] for r in rows[1:]] == [cheap.part_number, dear.part_number]


def test_the_parts_list_shows_each_parts_eccn(
    coordinator, compliance_officer, browser_as, django_assert_max_num_queries
):
    from tests.factories import PartFactory
    from tests.four_eyes import classify_with_second_officer

    classified, unknown = PartFactory(), PartFactory()
    classify_with_second_officer(
        part=classified, eccn="5A992.c", reason="Maker's letter", actor=compliance_officer
    )
    client = browser_as(coordinator)
    page = client.get("/parts/").content.decode()
    assert "<th>ECCN</th>" in page and "5A992.c" in page and "not classified" in page
    rows = _csv(client.get("/parts/?sort=part_number&export=csv"))
    assert rows[0][-1] == "ECCN"
    assert {r[0]: r[-1] for r in rows[1:]} == {classified.part_number: "5A992.c", unknown.part_number: ""}
