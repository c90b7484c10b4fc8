"""In real Chromium (issue 12): the shipments list sorts by a column header without a page load,
"select all" ticks every row of the page, and "Cancel selected drafts" cancels them, saying so."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.accounts.roles import Role
from apps.shipments import services
from apps.shipments.models import Shipment, ShipmentStatus, Site
from tests.factories import PASSWORD, OperatorFactory, OrganisationFactory, UserFactory

from .test_catalogue_flow import page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_a_coordinator_cancels_every_draft_on_the_page(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    operator = OperatorFactory()
    coordinator = UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    shipper = OrganisationFactory(kind="supplier", legal_name="Taiwan Servers Co.", country="TW")
    consignee = OrganisationFactory(kind="customer", legal_name="Chennai AI Compute", country="IN")
    origin = Site.objects.create(owner=operator, name="Guishan", kind="factory", city="Taoyuan", country="TW")
    destination = Site.objects.create(
        owner=operator, name="Siruseri DC1", kind="data_centre", city="Chennai", country="IN"
    )
    today = timezone.localdate()
    drafts = [
        services.shipment_create(
            actor=coordinator,
            fields={
                "origin": origin,
                "destination": destination,
                "incoterm": "DAP",
                "incoterm_place": "Siruseri DC1",
                "mode": "air",
                "end_use": "AI training cluster",
                "ready_date": today,
                "required_by": today + dt.timedelta(days=10 * n + 5),
            },
            parties={"shipper": shipper, "consignee": consignee},
        )
        for n in range(3)
    ]

    page.goto(f"{live_server.url}/login/?next=/shipments/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Shipments")).to_be_visible()

    # The "Required by" header sorts through htmx: soonest first, then the other way.
    page.get_by_role("link", name="Required by").click()
    expect(page).to_have_url(f"{live_server.url}/shipments/?sort=required_by")
    expect(page.locator("#results tbody tr").first).to_contain_text(drafts[0].reference)
    page.get_by_role("link", name="Required by ▲").click()
    expect(page).to_have_url(f"{live_server.url}/shipments/?sort=-required_by")
    expect(page.locator("#results tbody tr").first).to_contain_text(drafts[2].reference)

    # "Select all" works on the table htmx swapped in; unticking one row makes it "some".
    select_all = page.get_by_label("Select every shipment on this page")
    select_all.check()
    for shipment in drafts:
        expect(page.get_by_label(f"Select {shipment.reference}")).to_be_checked()
    page.get_by_label(f"Select {drafts[0].reference}").uncheck()
    assert page.evaluate("document.querySelector('.select-all').indeterminate") is True
    page.get_by_label(f"Select {drafts[0].reference}").check()

    page.get_by_label("Reason (recorded with a cancel)").fill("Order withdrawn by the customer")
    page.get_by_role("button", name="Cancel selected drafts").click()
    expect(page.get_by_text("3 drafts cancelled.")).to_be_visible()
    expect(page).to_have_url(f"{live_server.url}/shipments/?sort=-required_by")
    statuses = set(Shipment.objects.values_list("status", flat=True))
    assert statuses == {ShipmentStatus.CANCELLED}
