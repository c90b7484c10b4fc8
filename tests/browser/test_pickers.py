"""Issue 12, "pick, don't type": an object field is a search box in real Chromium. A long catalogue
is searched on the server as the user types (apps/core/pickers.py); a short list in the page."""

import pytest

from tests.factories import PASSWORD, PartFactory

from .conftest import draft_to_chennai
from .test_catalogue_flow import SCREENSHOTS, page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_a_coordinator_finds_a_part_by_typing_and_picks_a_leg_from_the_list(
    page,  # noqa: F811
    live_server,
    transactional_db,
    settings,
):
    from playwright.sync_api import expect

    settings.PICKER_INLINE_LIMIT = 3  # the catalogue below is "long": searched on the server
    shipment = draft_to_chennai()
    for n in range(6):
        PartFactory(part_number=f"CBL-{n}", name=f"Cable {n}", is_serialised=False)
    switch = PartFactory(part_number="MQM9790-NS2F", name="Quantum-2 switch", is_serialised=False)

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}{shipment.get_absolute_url()}")

    lines = page.locator("#lines")
    lines.get_by_text("Add a line").click()
    # The page carries no part options: they come from the server as the user types.
    expect(lines.locator("select#id_part option")).to_have_count(1)  # the empty choice
    with page.expect_response(lambda r: "/pick/part/" in r.url) as answer:
        lines.get_by_role("combobox", name="Part").press_sequentially("quantum 2")
    assert answer.value.ok
    option = lines.locator(".ts-dropdown .option", has_text="MQM9790-NS2F")
    expect(option).to_have_text("NVIDIA MQM9790-NS2F — Quantum-2 switch")
    expect(lines.locator(".ts-dropdown .option")).to_have_count(1)  # "CBL-…" do not match
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    lines.screenshot(path=str(SCREENSHOTS / "part-picker.png"))
    option.click()
    lines.locator("#id_quantity").fill("4")
    lines.get_by_role("button", name="Add line").click()
    expect(page.get_by_text("Line 1 added")).to_be_visible()
    assert shipment.lines.get().part == switch

    # A short list (the shipment's legs, here its sites) is searched in the page, no request.
    legs = page.locator("#legs")
    legs.get_by_text("Add a leg").click()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    legs.get_by_role("combobox", name="Origin").press_sequentially("guish")
    expect(legs.locator(".ts-dropdown .option", has_text="Guishan")).to_be_visible()
    assert not [url for url in requests if "/pick/" in url]
