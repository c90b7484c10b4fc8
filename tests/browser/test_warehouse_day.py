"""The warehouse operator's day in real Chromium, at 1440 and 390 px, with a simulated USB scanner
(it types the serial and Enter): what is expected today, receive it by scanning box by box (each
scan answered at once, a duplicate and an extra named, the running counts, a reload losing
nothing), the receipt recorded once; then pack picked units by scanning them, the weight suggested
from the catalogue. Keyboard only on the scanning screens; axe finds no violation; no sideways
scroll at 390 px."""

from decimal import Decimal

import pytest
from django.utils import timezone

from apps.accounts.roles import Role
from apps.shipments import services as shipments
from apps.shipments.models import Shipment, Site
from apps.warehouse import services as stock
from apps.warehouse.models import Receipt
from tests.conftest import chromium_path, require
from tests.factories import PASSWORD, OrganisationFactory, PartFactory, UserFactory

from .conftest import draft_to_chennai
from .test_catalogue_flow import CHROMIUM_ARGS, SCREENSHOTS
from .test_small_screens import AXE, RUN_AXE

WIDTHS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=sorted(WIDTHS))
def screen(request, live_server):
    require(chromium_path() is not None, "Chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        context = browser.new_context(viewport=WIDTHS[request.param], device_scale_factor=1)
        page = context.new_page()
        page.set_default_timeout(15_000)
        yield request.param, page
        context.close()
        browser.close()


def _world():
    """An inbound shipment of four servers in two crates due at the Singapore hub today, and an
    outbound draft from the hub with a line of two servers."""
    outbound = draft_to_chennai()
    operator = outbound.owner
    wendy = UserFactory(
        username="wendy",
        first_name="Wendy",
        last_name="Tan",
        role=Role.WAREHOUSE_OPERATOR,
        organisation=operator,
    )
    hub = Site.objects.create(
        owner=operator, name="Singapore hub", kind="warehouse", city="Singapore", country="SG", is_bonded=True
    )
    Shipment.objects.filter(pk=outbound.pk).update(origin=hub)
    outbound.refresh_from_db()
    server = PartFactory(part_number="DGX-H100", name="DGX H100", unit_weight_kg=Decimal("130"))
    out_line = shipments.line_add(shipment=outbound, part=server, quantity=2)
    inbound = shipments.shipment_create(
        actor=operator.users.get(username="sam"),
        fields={
            "origin": Site.objects.get(name="Guishan"),
            "destination": hub,
            "incoterm": "DAP",
            "incoterm_place": "Singapore",
            "mode": "air",
            "end_use": "AI training cluster",
            "ready_date": outbound.ready_date,
            "required_by": outbound.required_by,
        },
        parties={
            "shipper": OrganisationFactory(legal_name="Quanta Cloud", country="TW"),
            "consignee": operator,
        },
    )
    serials = ["QT1", "QT2", "QT3", "QT4"]
    line = shipments.line_add(shipment=inbound, part=server, quantity=4, serials=serials)
    for n in (0, 2):
        shipments.package_add(
            shipment=inbound,
            fields={
                "package_type": "crate",
                "length_cm": Decimal("130"),
                "width_cm": Decimal("90"),
                "height_cm": Decimal("120"),
                "gross_kg": Decimal("300"),
                "net_kg": Decimal("260"),
            },
            items=[(line, 2)],
            serials=serials[n : n + 2],
        )
    Shipment.objects.filter(pk=inbound.pk).update(status="in_transit", eta=timezone.localdate())
    stock.location_create(site=hub, zone="RCV")
    stock.location_create(site=hub, zone="A", aisle="01", rack="01", bin="01")
    return wendy, hub, inbound, outbound, out_line


@pytest.mark.browser
def test_the_warehouse_operators_day_with_a_scanner(screen, live_server, transactional_db):
    from playwright.sync_api import expect

    name, page = screen
    wendy, hub, inbound, outbound, out_line = _world()
    base = live_server.url
    axe_source = AXE.read_text(encoding="utf-8")
    problems: list[str] = []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def check(label):
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width[0] > width[1]:
            problems.append(f"{label}: the page scrolls sideways ({width[0]} px wide in {width[1]})")
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.evaluate(axe_source)
        for violation in page.evaluate(RUN_AXE):
            problems.append(f"{label}: axe {violation['id']}: " + " | ".join(violation["nodes"][:3]))
        page.screenshot(path=str(SCREENSHOTS / f"warehouse-day-{label}-{name}.png"), full_page=True)

    def scan(serial):
        page.keyboard.type(serial)
        page.keyboard.press("Enter")

    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill("wendy")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")

    # What is expected today, with a Receive button.
    page.goto(f"{base}/stock/expected/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Expected at Singapore hub")
    today = page.locator("section.expected-today")
    expect(today).to_contain_text(inbound.reference)
    expect(today).to_contain_text("600")  # two crates of 300 kg
    check("expected")
    today.get_by_role("link", name=f"Receive {inbound.reference}").click()

    # Receive by scanning: the scan box has the focus; each scan is answered at once.
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Receive {inbound.reference}")
    expect(page.locator("#id_location")).to_have_value(str(hub.locations.get(zone="RCV").pk))
    expect(page.locator("#scan-input")).to_be_focused()
    expect(page.locator(".scan-panel[data-scan-ready]")).to_have_count(1)  # scan.js answers from here
    answer, line = page.locator(".scan-answer"), page.locator('[data-scan-line="1"]')
    scan("QT1")
    expect(answer).to_contain_text("Expected: QT1: line 1, package 1.")
    expect(line).to_have_text("1 of 4 scanned")
    scan("qt1")
    expect(answer).to_contain_text("Scanned already")
    expect(line).to_have_text("1 of 4 scanned")
    scan("ZZ-UNKNOWN-9")
    expect(answer).to_contain_text("recorded as an extra")
    scan("QT2")
    expect(page.locator('[data-scan-package="1"]')).to_have_text("2 of 2 scanned")
    scan("QT3")
    expect(line).to_have_text("3 of 4 scanned")
    check("receive")

    # A reload loses nothing: the scans come back, the count with them.
    page.reload()
    expect(page.locator('[data-scan-line="1"]')).to_have_text("3 of 4 scanned")
    page.locator("#scan-input").focus()
    scan("QT4")
    expect(page.locator('[data-scan-line="1"]')).to_have_text("4 of 4 scanned")
    expect(page.locator("[data-scan-total]")).to_have_text("4")
    page.get_by_label("Customs reference").fill("SG-TWH-2026-0042")
    page.get_by_role("button", name="Record receipt").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("4 of 4 units received; 1 discrepancy to resolve.")).to_be_visible()
    receipt = Receipt.objects.get(shipment=inbound)
    assert receipt.received_by == wendy
    assert receipt.discrepancies.get().serial == "ZZ-UNKNOWN-9"  # the extra, once

    # Back on "Expected": received, when and by whom; recorded once only.
    page.goto(f"{base}/stock/expected/")
    received = page.locator("section.expected-received")
    expect(received).to_contain_text(receipt.reference)
    expect(received).to_contain_text("by Wendy Tan")
    expect(page.locator("section.expected-today")).to_have_count(0)  # nothing left to receive today
    assert Receipt.objects.filter(shipment=inbound).count() == 1

    # Pack two picked units by scanning them: their boxes ticked, the weight from the catalogue.
    units = list(inbound.lines.get().serials.select_related("unit").order_by("unit__serial"))[:2]
    picked = [row.unit for row in units]
    shelf = hub.locations.get(zone="A")
    for unit in picked:  # put away (the move page is the older flow's: tests/browser/test_warehouse_flow.py)
        stock.unit_move(unit=unit, to_location=shelf, actor=wendy)
    stock.units_allocate(line=out_line, units=[type(u).objects.get(pk=u.pk) for u in picked], actor=wendy)
    stock.units_pick(units=[type(u).objects.get(pk=u.pk) for u in picked], actor=wendy)
    page.goto(f"{base}/stock/pack/{outbound.reference}/")
    expect(page.locator("#scan-input")).to_be_focused()
    expect(page.locator(".scan-panel[data-scan-ready]")).to_have_count(1)
    expect(page.locator("#id_gross_kg")).to_have_value("300.00")  # 2 × 130 kg + a 40 kg crate
    scan("QT3")
    expect(page.locator(".scan-answer")).to_contain_text("pick it")  # in stock, not picked for this one
    scan("QT1")
    scan("QT2")
    expect(page.locator('[data-scan-line="1"]')).to_have_text("2 of 2 ticked")
    expect(page.get_by_label("QT1: line 1", exact=False)).to_be_checked()
    check("pack")
    page.get_by_role("button", name="Pack").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("packed: 2 units.")).to_be_visible()
    package = outbound.packages.get()
    assert sorted(package.serials.values_list("unit__serial", flat=True)) == ["QT1", "QT2"]
    assert package.gross_kg == Decimal("300.00")
    assert not problems, "\n".join(problems)
    from django.db import connections

    connections.close_all()
