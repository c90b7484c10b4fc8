"""In real Chromium: a coordinator logs in, searches the catalogue and opens a part."""

from pathlib import Path

import pytest

from apps.accounts.roles import Role
from tests.conftest import chromium_path, require
from tests.factories import PASSWORD, PartFactory, UserFactory

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture
def page(live_server):
    require(chromium_path() is not None, "Chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        context = browser.new_context(viewport={"width": 1366, "height": 800})
        page = context.new_page()
        page.set_default_timeout(15_000)
        yield page
        context.close()
        browser.close()


@pytest.mark.browser
def test_coordinator_logs_in_searches_and_opens_a_part(page, live_server, transactional_db):
    from playwright.sync_api import expect

    UserFactory(username="sam", role=Role.COORDINATOR)
    PartFactory(
        part_number="MMA4Z00-NS",
        name="800G twin-port OSFP SR8",
        category="optical_transceiver",
        hs_code="851762",
        country_of_origin="TH",
        power_draw_w=15,
    )
    PartFactory(part_number="SN2201", name="Out-of-band Ethernet switch")

    page.goto(f"{live_server.url}/parts/")
    expect(page).to_have_url(f"{live_server.url}/login/?next=/parts/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Parts catalogue")).to_be_visible()
    expect(page.locator("#results")).to_contain_text("SN2201")

    # Typing searches through htmx: the results table is replaced without a page load.
    page.get_by_label("Search parts").fill("osfp")
    expect(page.locator("#results")).not_to_contain_text("SN2201")
    expect(page.locator("#results")).to_contain_text("MMA4Z00-NS")
    expect(page).to_have_url(f"{live_server.url}/parts/?q=osfp&category=&manufacturer=&country_of_origin=")

    page.get_by_role("link", name="MMA4Z00-NS").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("800G twin-port OSFP SR8")
    expect(page.locator("dl.facts").first).to_contain_text("851762")
    expect(page.get_by_text("Audit trail")).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "part-detail.png"), full_page=True)

    page.get_by_role("link", name="Dashboard").click()
    expect(page.get_by_role("heading", name="Dashboard")).to_be_visible()
