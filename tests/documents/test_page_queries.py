"""The documents page and the required-documents API read a shipment in a fixed number of queries,
whatever its lines, packages and serials (every required type's problems are worked out from one
load of the shipment)."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.compliance import services as compliance
from tests.shipments.conftest import pack_all


def _approved(submitted, customer, lines, actor):
    shipment = submitted(customer, "IN", "Chennai", lines)
    compliance.compliance_check_run(shipment=shipment, actor=actor)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    pack_all(shipment)
    return shipment


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_documents_page_and_api_queries_do_not_grow_with_the_shipment(
    submitted, indian_customer, dgx, switch, coordinator, browser_as, api_as
):
    small = _approved(submitted, indian_customer, [(dgx, 1)], coordinator)
    large = _approved(submitted, indian_customer, [(dgx, 3), (switch, 4), (dgx, 2), (switch, 6)], coordinator)
    browser, api = browser_as(coordinator), api_as(coordinator)
    for reference in (small.reference, large.reference):  # warm caches (sessions, token use)
        browser.get(f"/shipments/{reference}/documents/")
        api.get(f"/api/v1/shipments/{reference}/documents/")
    page = [_queries(browser, f"/shipments/{s.reference}/documents/") for s in (small, large)]
    listed = [_queries(api, f"/api/v1/shipments/{s.reference}/documents/") for s in (small, large)]
    # The compliance answer reads the lines' own shippers and exporters too (issue 11).
    assert page == [55, 55]
    assert listed == [41, 41]
