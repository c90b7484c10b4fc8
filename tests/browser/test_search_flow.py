"""One search in real Chromium at 1440 and 390 px: "/" puts the cursor in the header's box, a
buyer's order (PO) opens its shipment directly, a party's name lists results grouped by kind that
the arrow keys walk through, the page fits a phone with the box beside the Menu button, axe-core
finds no violation, and another organisation's user finds nothing."""

from __future__ import annotations

import pytest

from apps.accounts.roles import Role
from apps.shipments import services as shipments
from apps.shipments.models import Shipment, Site
from tests.conftest import chromium_path, require
from tests.factories import PASSWORD, OrganisationFactory, UserFactory

from .conftest import draft_to_chennai
from .test_catalogue_flow import CHROMIUM_ARGS, SCREENSHOTS
from .test_small_screens import AXE, RUN_AXE

WIDTHS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
PO = "PO-4500077001"


def _world():
    shipment = draft_to_chennai()
    Shipment.objects.filter(pk=shipment.pk).update(buyer_order_reference=PO)
    hub = Site.objects.create(
        owner=shipment.owner, name="Singapore hub", kind="warehouse", city="Singapore", country="SG"
    )
    shipments.leg_add(
        shipment=shipment,
        fields={
            "role": "main",
            "origin": hub,
            "destination": shipment.destination,
            "mode": "air",
            "transport_document": "618-12345675",
        },
    )
    outsider = OrganisationFactory(legal_name="Elsewhere Freight Ltd.", country="SG")
    UserFactory(username="otto", role=Role.PARTNER, organisation=outsider)
    return shipment


@pytest.fixture
def browser(live_server):
    require(chromium_path() is not None, "Chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


def _log_in(page, base, username):
    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")


@pytest.mark.browser
@pytest.mark.parametrize("width", list(WIDTHS))
def test_search_from_the_header_at_desktop_and_phone_width(browser, live_server, transactional_db, width):
    from playwright.sync_api import expect

    shipment = _world()
    base = live_server.url
    phone = width == "phone"
    context = browser.new_context(viewport=WIDTHS[width], is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(15_000)
    axe_source = AXE.read_text(encoding="utf-8")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []

    def check(name):
        sizes = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if sizes[0] > sizes[1]:
            problems.append(f"{name}: the page scrolls sideways ({sizes[0]} px in {sizes[1]})")
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.evaluate(axe_source)
        for violation in page.evaluate(RUN_AXE):
            problems.append(f"{name}: axe {violation['id']}: " + " | ".join(violation["nodes"][:3]))
        page.screenshot(path=str(SCREENSHOTS / f"search-{width}-{name}.png"), full_page=True)

    try:
        _log_in(page, base, "sam")
        box = page.get_by_role(
            "searchbox", name="Search shipments, serials, parts, documents, licences and designs"
        )
        # In the bar at both widths: on a phone beside the Menu button, not behind it.
        expect(box).to_be_visible()
        # "/" goes to the box from anywhere on the page; a PO names one shipment: straight to it.
        page.locator("h1").click()
        page.keyboard.press("/")
        expect(box).to_be_focused()
        page.keyboard.type(PO)
        page.keyboard.press("Enter")
        page.wait_for_url(f"{base}/shipments/{shipment.reference}/")
        expect(page.get_by_role("heading", level=1)).to_contain_text(shipment.reference)

        # A party's name lists what matches, grouped by kind; the arrow keys walk the results.
        page.goto(f"{base}/search/?q=Chennai")
        expect(page.get_by_role("heading", level=2, name="Shipments")).to_be_visible()
        results = page.locator(".search-hits a")
        expect(results.first).to_have_text(shipment.reference)
        check("results")
        page.get_by_label("Reference, buyer's order").focus()
        page.keyboard.press("ArrowDown")
        expect(results.first).to_be_focused()
        page.keyboard.press("Enter")
        page.wait_for_url(f"{base}/shipments/{shipment.reference}/")

        # The air waybill, with all=1, lists instead of jumping: the results say what matched.
        page.goto(f"{base}/search/?q=618-12345675&all=1")
        expect(page.locator(".search-hits li").first).to_contain_text("AWB 618-12345675")
        check("awb")

        # Another organisation's user finds nothing of it, by PO, AWB or reference.
        context.clear_cookies()
        _log_in(page, base, "otto")
        for text in (PO, "618-12345675", shipment.reference):
            page.goto(f"{base}/search/?q={text}")
            expect(page.get_by_text("Nothing you may see matches")).to_be_visible()
        check("nothing")
    finally:
        context.close()
    assert not problems, "\n".join(problems)
