"""What a warehouse expects (page and API): inbound legs and shipments due overdue, today and this
week with ETA, units, weight and a Receive button; received ones say when and by whom; scoped, in a
constant number of queries. And the answers to a scan while receiving and packing."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.roles import Role
from apps.shipments import services as shipments
from apps.shipments.models import Shipment
from apps.warehouse.selectors import expected_arrivals
from apps.warehouse.services.receipts import receipt_record
from tests.factories import UserFactory

from .conftest import BOND

pytestmark = pytest.mark.django_db


@pytest.fixture
def outsider(forwarder):
    """Warehouse capabilities outside the operator: the scope, not the role, keeps it out."""
    return UserFactory(organisation=forwarder, role=Role.WAREHOUSE_OPERATOR, username="outside-floor")


@pytest.fixture
def consolidation(make_shipment, gpu_server, cable, hub, datacentre, factory_site):
    """A consolidation through the hub: one inbound leg per supplier line, arriving on different
    days, and the main leg onwards."""

    def build(*arrivals, reference_serial="S"):
        shipment = make_shipment()
        legs = []
        for n, days in enumerate(arrivals, start=1):
            line = shipments.line_add(
                shipment=shipment,
                part=gpu_server,
                quantity=2,
                serials=[f"{reference_serial}{n}A", f"{reference_serial}{n}B"],
            )
            legs.append(
                shipments.leg_add(
                    shipment=shipment,
                    fields={
                        "role": "inbound",
                        "origin": factory_site,
                        "destination": hub,
                        "mode": "road",
                        "carrier": f"Truck {n}",
                        "planned_arrival": timezone.localdate() + dt.timedelta(days=days),
                    },
                    lines=[line],
                )
            )
        shipments.leg_add(
            shipment=shipment,
            fields={"role": "main", "origin": hub, "destination": datacentre, "mode": "air"},
        )
        Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
        shipment.refresh_from_db()
        return shipment, legs

    return build


def test_overdue_today_this_week_and_received_each_in_their_place(
    consolidation, dock, hub, warehouse_operator
):
    shipment, (late, today, soon, far, received) = consolidation(-2, 0, 5, 20, -1)
    receipt_record(
        shipment=shipment, location=dock, leg=received, scanned=["S5A", "S5B"], actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    arrivals = expected_arrivals(warehouse_operator, hub, timezone.localdate())
    assert [(a.leg, a.bucket) for a in arrivals] == [
        (late, "overdue"),
        (today, "today"),
        (soon, "week"),
        (received, "received"),
    ]  # the leg due in 20 days is not this week's
    first = arrivals[0]
    assert (first.units, first.weight_kg) == (2, Decimal("260"))  # 2 × 130 kg, catalogue
    assert arrivals[-1].receipt.received_by == warehouse_operator


def test_the_page_lists_them_with_a_receive_button_and_who_received(
    consolidation, dock, hub, warehouse_operator, browser_as
):
    shipment, (late, received) = consolidation(-2, -1)
    receipt_record(
        shipment=shipment, location=dock, leg=received, scanned=["S2A", "S2B"], actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip
    page = browser_as(warehouse_operator).get(reverse("warehouse:expected") + f"?site={hub.pk}")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Overdue" in html and "Received" in html and shipment.reference in html
    receive = reverse("warehouse:receive-shipment", args=[shipment.reference])
    assert f"{receive}?site={hub.pk}&amp;leg={late.pk}" in html
    assert f"by {warehouse_operator.get_full_name() or warehouse_operator.username}" in html
    # The Receive button opens the receiving page with the leg and the hub's dock chosen.
    form = browser_as(warehouse_operator).get(f"{receive}?site={hub.pk}&leg={late.pk}").context["form"]
    assert form.initial["leg"] == late.pk and form.initial["location"] == dock.pk


def test_the_page_and_the_api_cost_the_same_queries_for_one_or_many(
    consolidation, dock, hub, warehouse_operator, browser_as, api_as
):
    def count(fetch):
        with CaptureQueriesContext(connection) as queries:
            assert fetch().status_code == 200
        return len(queries)

    page = reverse("warehouse:expected") + f"?site={hub.pk}"
    api = f"/api/v1/stock/expected/?site={hub.pk}"
    client, token = browser_as(warehouse_operator), api_as(warehouse_operator)
    client.get(page), token.get(api)  # the session's and the token's first-use writes out of the count
    consolidation(-1)
    few = (count(lambda: client.get(page)), count(lambda: token.get(api)))
    consolidation(-3, 0, 1, 2, 3, reference_serial="T")
    consolidation(4, 5, reference_serial="U")
    many = (count(lambda: client.get(page)), count(lambda: token.get(api)))
    assert few == many


def test_the_api_answers_the_rows(consolidation, dock, hub, warehouse_operator, api_as):
    shipment, (late,) = consolidation(-2)
    response = api_as(warehouse_operator).get(f"/api/v1/stock/expected/?site={hub.pk}")
    assert response.status_code == 200
    (row,) = response.json()
    assert row["shipment"] == shipment.reference and row["bucket"] == "overdue"
    assert row["leg_id"] == late.pk and row["units"] == 2 and row["weight_kg"] == "260.00"
    assert row["receipt"] is None
    assert api_as(warehouse_operator).get("/api/v1/stock/expected/").status_code == 400
    # An id past a 64-bit key names no site: refused by name, not asked of the database.
    huge = api_as(warehouse_operator).get("/api/v1/stock/expected/?site=2047144265652299688874703379759104")
    assert huge.status_code == 400 and "site" in huge.json()


def test_another_organisation_sees_no_warehouse_and_no_arrival(
    consolidation, dock, hub, outsider, browser_as, api_as
):
    shipment, _ = consolidation(-2)
    assert api_as(outsider).get(f"/api/v1/stock/expected/?site={hub.pk}").status_code == 404
    page = browser_as(outsider).get(reverse("warehouse:expected") + f"?site={hub.pk}")
    assert page.status_code == 404
    assert shipment.reference not in browser_as(outsider).get(reverse("warehouse:expected")).content.decode()


# --- a scan answered at once ----------------------------------------------------------------------------


def _check(client, shipment, serial, **params):
    url = reverse("warehouse:receive-check", args=[shipment.reference])
    return client.get(url, {"serial": serial, **params})


def test_a_scan_while_receiving_says_what_the_serial_is(
    consolidation, dock, hub, warehouse_operator, browser_as, receive, make_shipment, gpu_server
):
    shipment, (first, second) = consolidation(-1, 0)
    other = make_shipment()
    shipments.line_add(shipment=other, part=gpu_server, quantity=1, serials=["ELSEWHERE1"])
    receive("INSTOCK1")
    client = browser_as(warehouse_operator)
    expected = _check(client, shipment, "s1a", leg=first.pk).json()
    assert expected["verdict"] == "expected" and expected["serial"] == "S1A" and expected["line"] == 1
    assert _check(client, shipment, "S2A", leg=first.pk).json()["verdict"] == "other_shipment"  # another leg
    assert _check(client, shipment, "ELSEWHERE1", leg=first.pk).json()["verdict"] == "other_shipment"
    known = _check(client, shipment, "INSTOCK1", leg=first.pk).json()
    assert known["verdict"] == "known_elsewhere" and "in stock at" in known["message"]
    extra = _check(client, shipment, "NEVERSEEN", leg=first.pk).json()
    assert extra["verdict"] == "extra" and "recorded as an extra" in extra["message"]
    assert _check(client, shipment, "").status_code == 400


def test_a_scan_check_costs_a_few_queries(
    consolidation, warehouse_operator, browser_as, django_assert_max_num_queries
):
    shipment, (first,) = consolidation(-1)
    client = browser_as(warehouse_operator)
    client.get("/")  # the session's own queries out of the count
    with django_assert_max_num_queries(12):
        _check(client, shipment, "NEVERSEEN", leg=first.pk)


def test_another_organisation_cannot_check_a_scan(consolidation, outsider, browser_as):
    shipment, (first,) = consolidation(-1)
    response = _check(browser_as(outsider), shipment, "S1A", leg=first.pk)
    assert response.status_code == 404 and b"S1A" not in response.content


def test_the_receive_page_offers_the_scan_box_and_running_counts(
    consolidation, warehouse_operator, browser_as
):
    shipment, (first,) = consolidation(-1)
    html = (
        browser_as(warehouse_operator)
        .get(reverse("warehouse:receive-shipment", args=[shipment.reference]))
        .content.decode()
    )
    assert 'class="scan-input"' in html and 'data-scan-line="1" data-scan-of="2"' in html
    assert "js/scan.js" in html and "<script>" not in html  # CSP: no inline script


# --- the warehouse operator's dashboard ---------------------------------------------------------------


def test_the_dashboard_counts_what_expected_and_the_open_receipts_list(
    consolidation, dock, hub, warehouse_operator, coordinator, outsider, browser_as
):
    from apps.warehouse.dashboard import warehouse_tiles

    shipment, (late, today, far, received) = consolidation(-2, 0, 20, -1)
    receipt_record(
        shipment=shipment,
        location=dock,
        leg=received,
        scanned=["S4A"],
        actor=warehouse_operator,
        customs_reference=BOND,
    )  # fmt: skip  (S4B missing: an open receipt)
    expected, discrepancies = warehouse_tiles(warehouse_operator)
    rows = [a for a in expected_arrivals(warehouse_operator, hub, timezone.localdate()) if a.receipt is None]
    assert expected.count == len(rows) == 2 and expected.url == reverse("warehouse:expected")
    assert discrepancies.count == 1 and discrepancies.url.endswith("?status=open")
    listed = browser_as(warehouse_operator).get(discrepancies.url).context["object_list"]
    assert len(listed) == 1
    assert warehouse_tiles(coordinator) == []  # receiving is not the coordinator's work
    assert [tile.count for tile in warehouse_tiles(outsider)] == [0, 0]
    page = browser_as(warehouse_operator).get("/").content.decode()
    assert "arrivals expected this week" in page


def test_the_scanned_receipt_is_recorded_once_a_resend_is_refused(
    consolidation, dock, warehouse_operator, browser_as
):
    """What a reload or a second Enter on "Record receipt" sends again does not record twice."""
    shipment, (first,) = consolidation(-1)
    client = browser_as(warehouse_operator)
    url = reverse("warehouse:receive-shipment", args=[shipment.reference])
    data = {"location": dock.pk, "leg": first.pk, "scanned": "S1A\nS1B", "customs_reference": BOND}
    assert client.post(url, data).status_code == 302
    again = client.post(url, data)
    receipt = shipment.receipts.get()
    assert again.status_code == 200 and receipt.reference in str(again.context["form"].errors)
    assert receipt.received_units == 2
