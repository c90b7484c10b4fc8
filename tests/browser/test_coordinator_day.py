"""A coordinator's day, from freight options to a booking, in real Chromium at 1440 and 390 px: lines
pasted in bulk (one row wrong, named by row and field, then fixed), the freight panel's options,
Book on one of them, and the shipment showing one arrival date — the option's, on the panel and
as the ETA. axe-core finds no violation on the pages on the way."""

import datetime as dt
from decimal import Decimal

import pytest

from apps.shipments.models import Leg
from tests.conftest import chromium_path, require
from tests.factories import PASSWORD, PartFactory
from tests.shipments.conftest import tw_in_rates

from .conftest import draft_to_chennai
from .test_catalogue_flow import CHROMIUM_ARGS, SCREENSHOTS
from .test_small_screens import AXE, RUN_AXE

WIDTHS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=sorted(WIDTHS))
def screen(request, live_server):
    require(chromium_path() is not None, "Chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    phone = request.param == "phone"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        context = browser.new_context(
            viewport=WIDTHS[request.param], device_scale_factor=1, is_mobile=phone, has_touch=phone
        )
        page = context.new_page()
        page.set_default_timeout(15_000)
        yield request.param, page
        context.close()
        browser.close()


def _lane():
    """The parts the paste names and the TW → IN rates and tariff the freight panel prices with."""
    PartFactory(
        part_number="DGX-H100",
        name="DGX H100",
        category="server",
        unit_weight_kg=Decimal("130"),
        length_cm=Decimal("130"),
        width_cm=Decimal("85"),
        height_cm=Decimal("110"),
        unit_value=Decimal("373000"),
        hs_code="847150",
        country_of_origin="TW",
    )
    PartFactory(
        part_number="MCP4Y10-N002",
        name="NDR DAC 2 m",
        category="cable",
        unit_weight_kg=Decimal("0.6"),
        length_cm=Decimal("30"),
        width_cm=Decimal("20"),
        height_cm=Decimal("5"),
        unit_value=Decimal("180"),
        hs_code="854442",
        is_serialised=False,
        country_of_origin="CN",
    )
    tw_in_rates(air_service="Air express", air_carrier="Cathay Cargo", valid_to=dt.date(2030, 12, 31))


@pytest.mark.browser
def test_from_bulk_lines_to_a_booked_freight_option(screen, live_server, transactional_db):
    from playwright.sync_api import expect

    name, page = screen
    shipment = draft_to_chennai()  # coordinator "sam"'s draft, Taiwan → Chennai, no lines yet
    _lane()
    base = live_server.url
    axe_source = AXE.read_text(encoding="utf-8")
    problems: list[str] = []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def check(where):
        page.wait_for_load_state("networkidle")  # the freight panel loads after the page
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width[0] > width[1]:
            problems.append(f"{where}: the page scrolls sideways ({width[0]} px wide in {width[1]})")
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.evaluate(axe_source)
        for violation in page.evaluate(RUN_AXE):
            problems.append(f"{where}: axe {violation['id']}: " + " | ".join(violation["nodes"][:3]))
        page.screenshot(path=str(SCREENSHOTS / f"coordinator-{where}-{name}.png"), full_page=True)

    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")

    # Lines in bulk: a paste with one part number mistyped is refused, naming its row and field.
    page.goto(f"{base}{shipment.get_absolute_url()}")
    page.get_by_text("Add lines in bulk").click()
    paste = "part_number,quantity,serials\nDGX-H100,2,QT-1 QT-2\nMCP4Y10-N02,16,\n"
    page.get_by_label("Paste CSV").fill(paste)
    page.get_by_role("button", name="Add lines").click()
    errors = page.locator("#bulk-lines-errors")
    expect(errors).to_contain_text("No line was added")
    expect(errors).to_contain_text("Row 3")
    expect(errors).to_contain_text("part_number")
    expect(errors).to_contain_text("No active part 'MCP4Y10-N02'")
    check("bulk-lines-refused")
    # The paste is kept: fix the one row and send it again.
    field = page.get_by_label("Paste CSV")
    expect(field).to_have_value(paste)
    field.fill(paste.replace("MCP4Y10-N02,", "MCP4Y10-N002,"))
    page.get_by_role("button", name="Add lines").click()
    expect(page.get_by_text("2 lines added (lines 1–2).")).to_be_visible()
    expect(page.locator("#lines tbody tr")).to_have_count(2)

    # The freight panel: each option has a Book button; book the air one.
    panel = page.locator("#freight")
    book = panel.get_by_role("button", name="Book Air express · Cathay Cargo")
    expect(book).to_be_visible()
    check("freight-options")
    book.click()
    expect(page.get_by_text("Booked Air express (Cathay Cargo): leg 1")).to_be_visible()

    # One arrival date: the leg's, the panel's and the shipment's ETA agree.
    leg = Leg.objects.get(shipment=shipment)
    arrival = f"{leg.planned_arrival:%Y-%m-%d}"
    expect(page.locator("#eta")).to_contain_text(arrival)
    expect(panel.locator("#freight-booked-option")).to_contain_text(f"arrives {arrival}")
    expect(panel.locator("tr.chosen")).to_contain_text(arrival)
    expect(page.locator("#legs")).to_contain_text("Cathay Cargo")
    check("booked")
    # Booking again from another option asks first (it would replace leg 1).
    expect(panel.get_by_text("Replace…").first).to_be_visible()

    assert (leg.role, leg.mode, leg.carrier) == ("main", "air", "Cathay Cargo")
    assert not problems, "\n".join(problems)
