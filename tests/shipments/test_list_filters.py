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
