"""Save does not move under the pointer when a picker closes: with a long item chosen, opening the
picker (its search box beside the item) and closing it leave the button where it was, at 1440
and 390 px (the box used to wrap onto a second line, 18 px, that vanished on closing)."""

import pytest

from tests.factories import PartFactory

from .conftest import draft_to_chennai
from .days import chromium_at, log_in


@pytest.mark.browser
@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_the_add_button_stays_put_when_the_part_picker_opens_and_closes(width, live_server, transactional_db):
    shipment = draft_to_chennai()
    PartFactory(
        part_number="DGXH-G640F+P2CMI36",
        name="NVIDIA DGX H100 640GB air-cooled system with 8 H100 SXM5 GPUs and ConnectX-7",
    )
    with chromium_at(width) as page:
        log_in(page, live_server.url, "sam")
        page.goto(f"{live_server.url}{shipment.get_absolute_url()}")
        lines = page.locator("#lines")
        lines.get_by_text("Add a line").click()
        picker = lines.get_by_role("combobox", name="Part")
        picker.press_sequentially("DGX H100")
        lines.locator(".ts-dropdown .option", has_text="DGXH-G640F").click()
        button = lines.get_by_role("button", name="Add line")

        def top() -> float:  # in the page, not the viewport: clicking may scroll
            return button.evaluate("b => b.getBoundingClientRect().top + window.scrollY")

        # Picked, the picker still has the focus (its search box shown beside the item) …
        picked = top()
        # … and the next click, elsewhere, closes it: the button must not move meanwhile.
        lines.locator("#id_quantity").click()
        closed = top()
        picker.click()
        picker.press_sequentially("x")  # typing again in the open picker
        typing = top()
        page.get_by_role("heading", level=1).click()  # away, past the open list
        assert picked == closed == typing == top(), (picked, closed, typing)
        width_px = page.evaluate("window.innerWidth")
        box = lines.locator(".ts-wrapper").first.bounding_box()
        assert box["x"] + box["width"] <= width_px, "the picker stays inside the page"
