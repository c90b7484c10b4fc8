"""What the role-day browser tests share (test_officer_day.py, test_partner_day.py): Chromium at a
desktop's 1440 px and a phone's 390 px, signing in, and the checks every page of the day passes —
no sideways scroll, no axe-core violation."""

from __future__ import annotations

from contextlib import contextmanager

from tests.conftest import chromium_path, require
from tests.factories import PASSWORD

from .test_catalogue_flow import CHROMIUM_ARGS, SCREENSHOTS
from .test_small_screens import AXE, RUN_AXE

WIDTHS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@contextmanager
def chromium_at(width: str):
    """A page in headless Chromium at `width` ("desktop" or "phone")."""
    require(chromium_path() is not None, "Chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    phone = width == "phone"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        context = browser.new_context(viewport=WIDTHS[width], is_mobile=phone, has_touch=phone)
        page = context.new_page()
        page.set_default_timeout(15_000)
        try:
            yield page
        finally:
            context.close()
            browser.close()


def log_in(page, base: str, username: str) -> None:
    page.context.clear_cookies()
    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")


def checked(page, name: str, problems: list[str]) -> None:
    """The page as it stands: no sideways scroll, axe-core clean, a screenshot kept."""
    page.wait_for_load_state("networkidle")
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    if scroll > inner:
        problems.append(f"{name}: the page scrolls sideways ({scroll} px wide in {inner})")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    for violation in page.evaluate(RUN_AXE):
        problems.append(f"{name}: axe {violation['id']}: " + " | ".join(violation["nodes"][:3]))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def tile(page, label: str):
    """The dashboard tile whose label is `label` (its number is the link's first text)."""
    return page.locator("a.tile").filter(has=page.locator("span", has_text=label))
