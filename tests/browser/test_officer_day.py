"""A compliance officer's day in real Chromium, at 1440 and 390 px: the dashboard lands on holds,
restricted-party hits, stale answers and licences running low; each tile leads to the list of
exactly what it counts; the officer decides a hit from there and a second officer approves it;
every page axe-clean and without sideways scroll."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.accounts.roles import Role
from apps.compliance import services
from apps.compliance.models import ComplianceCheck, Licence
from apps.shipments.models import Shipment
from tests.factories import OrganisationFactory, UserFactory

from .days import checked, chromium_at, log_in, tile


def _officers_work(request):
    coordinator = request.getfixturevalue("coordinator")
    request.getfixturevalue("screening_list")
    submitted, dgx = request.getfixturevalue("submitted"), request.getfixturevalue("dgx")
    held = submitted(request.getfixturevalue("indian_lookalike"), "IN", "Chennai", [(dgx, 1)])
    services.compliance_check_run(shipment=held, actor=coordinator)
    stale = submitted(request.getfixturevalue("indian_customer"), "IN", "Chennai", [(dgx, 1)])
    services.compliance_check_run(shipment=stale, actor=coordinator)
    ComplianceCheck.objects.filter(shipment=stale).update(
        stale_since=timezone.now(), stale_reason="A party changed its legal name."
    )
    riyadh = OrganisationFactory(kind="customer", legal_name="Riyadh Compute", country="SA", city="Riyadh")
    today = timezone.localdate()
    Licence.objects.create(
        number="D7000001",
        licensee=held.parties.get(role="shipper").organisation,
        eccns="4A090.a",
        destination_countries="SA",
        consignee=riyadh,
        permitted_quantity=10,
        permitted_value=5_000_000,
        valid_from=today - dt.timedelta(days=300),
        expires_on=today + dt.timedelta(days=12),  # ends within 30 days: running low
    )
    UserFactory(username="ines", role=Role.COMPLIANCE_OFFICER, organisation=coordinator.organisation)
    UserFactory(username="omar", role=Role.COMPLIANCE_OFFICER, organisation=coordinator.organisation)
    return held, stale


@pytest.mark.browser
@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_an_officer_lands_on_their_work_follows_a_tile_and_decides(
    width, live_server, transactional_db, request
):
    from playwright.sync_api import expect

    held, stale = _officers_work(request)
    base, problems = live_server.url, []
    with chromium_at(width) as page:
        log_in(page, base, "ines")
        # The officer's four tiles come first, each with its number.
        labels = page.locator("a.tile span:not(.num)").all_inner_texts()
        assert labels[:4] == [
            "on compliance hold",
            "restricted-party hits to review",
            "compliance answers stale",
            "licences running low",
        ], labels
        for label in labels[:4]:
            expect(tile(page, label).locator(".num")).to_have_text("1")
        checked(page, f"officer-{width}-dashboard", problems)

        # Each tile's list holds exactly what it counted.
        tile(page, "on compliance hold").click()
        rows = page.locator("main table tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text(held.reference)
        checked(page, f"officer-{width}-holds", problems)
        page.go_back()
        tile(page, "compliance answers stale").click()
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text(stale.reference)
        page.go_back()
        tile(page, "licences running low").click()
        expect(page.locator("main table tbody tr")).to_have_count(1)
        expect(page.locator("main table tbody tr").first).to_contain_text("D7000001")
        checked(page, f"officer-{width}-licences-low", problems)
        page.go_back()

        # From the hits tile to the queue, and the decision (four eyes: asked, then approved).
        tile(page, "restricted-party hits to review").click()
        hits = page.locator("#hits")
        expect(hits).to_contain_text("SHENZHEN DEMO AI TECHNOLOGY CO., LTD.")
        checked(page, f"officer-{width}-queue", problems)
        hits.get_by_label("Reason").fill("Indian start-up, different CIN; no link to the listed entity")
        hits.get_by_role("button", name="Decide").click()
        expect(page.locator(".messages")).to_contain_text("a second compliance officer approves it")

        log_in(page, base, "omar")
        page.goto(f"{base}/compliance/")
        request_row = page.locator(".approval").filter(has_text="clear the possible match")
        request_row.get_by_role("button", name="Approve").click()
        expect(page.locator(".messages")).to_contain_text("Approved")
        assert Shipment.objects.get(pk=held.pk).status == "approved"

        # Back on the dashboard the hold and the hit are gone from the tiles.
        page.goto(f"{base}/")
        expect(tile(page, "on compliance hold").locator(".num")).to_have_text("0")
        expect(tile(page, "restricted-party hits to review").locator(".num")).to_have_text("0")
    assert not problems, "\n".join(problems)
