"""A partner's day in real Chromium, at 1440 and 390 px: the forwarder lands on what it owes (the
milestones of the shipments it forwards, under way) and its own shipments, never another
forwarder's; it follows the tile to exactly those shipments and records a milestone; every page
axe-clean and without sideways scroll."""

import pytest

from apps.accounts.roles import Role
from apps.shipments import services
from apps.shipments.models import Shipment, ShipmentStatus, TrackingEvent
from tests.factories import OrganisationFactory, UserFactory

from .conftest import draft_to_chennai
from .days import checked, chromium_at, log_in, tile


def _forwarders_work():
    forwarder = OrganisationFactory(
        kind="freight_forwarder", legal_name="Lion City Freight Pte. Ltd.", country="SG", city="Singapore"
    )
    rival = OrganisationFactory(kind="freight_forwarder", legal_name="Rival Forwarding Ltd.", country="SG")
    first = draft_to_chennai()
    coordinator = first.created_by

    def another(status, agent):
        shipment = services.shipment_create(
            actor=coordinator,
            fields={
                field: getattr(first, field)
                for field in ("origin", "destination", "incoterm", "incoterm_place", "mode", "end_use")
            }
            | {"ready_date": first.ready_date, "required_by": first.required_by},
            parties={"shipper": first.parties.get(role="shipper").organisation, "freight_forwarder": agent},
        )
        # Where the day finds it (the workflow that brings it there is tested elsewhere).
        Shipment.objects.filter(pk=shipment.pk).update(status=status)
        return shipment

    owed = [another(ShipmentStatus.BOOKED, forwarder), another(ShipmentStatus.IN_TRANSIT, forwarder)]
    another(ShipmentStatus.DRAFT, forwarder)  # its own, open, nothing owed yet
    rivals = another(ShipmentStatus.IN_TRANSIT, rival)
    UserFactory(username="fran", role=Role.PARTNER, organisation=forwarder)
    return owed, rivals


@pytest.mark.browser
@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_a_forwarder_lands_on_what_it_owes_and_records_a_milestone(width, live_server, transactional_db):
    from playwright.sync_api import expect

    owed, rivals = _forwarders_work()
    base, problems = live_server.url, []
    with chromium_at(width) as page:
        log_in(page, base, "fran")
        labels = page.locator("a.tile span:not(.num)").all_inner_texts()
        assert labels[0] == "milestones to report", labels  # what it owes, first
        expect(tile(page, "milestones to report").locator(".num")).to_have_text("2")
        expect(tile(page, "open shipments").locator(".num")).to_have_text("3")
        assert "waiting for documents" not in labels and "on compliance hold" not in labels
        checked(page, f"partner-{width}-dashboard", problems)

        tile(page, "open shipments").click()
        rows = page.locator("main table tbody tr")
        expect(rows).to_have_count(3)
        expect(page.locator("main")).not_to_contain_text(rivals.reference)
        page.go_back()

        tile(page, "milestones to report").click()
        expect(rows).to_have_count(2)
        for shipment in owed:
            expect(page.locator("main table")).to_contain_text(shipment.reference)
        checked(page, f"partner-{width}-owed", problems)

        page.get_by_role("link", name=owed[0].reference).click()
        expect(page.get_by_role("heading", level=1)).to_contain_text(owed[0].reference)
        checked(page, f"partner-{width}-shipment", problems)
        page.get_by_text("Record an event").click()
        form = page.locator("form").filter(has=page.get_by_role("button", name="Record event"))
        form.get_by_label("Code").select_option("picked_up")
        form.get_by_label("Occurred at").fill("2026-12-05T09:30")
        form.get_by_label("Location").fill("QCT Guishan, Taoyuan")
        form.get_by_role("button", name="Record event").click()
        expect(page.locator(".messages")).to_be_visible()
        assert TrackingEvent.objects.filter(shipment=owed[0], code="picked_up").exists()
    assert not problems, "\n".join(problems)
