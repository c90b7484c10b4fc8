"""In real Chromium on a phone-sized screen (issue 12): the main pages fit 390 px with no sideways
scroll, the menu folds behind its button and opens, and axe-core finds no violation on them.

axe-core is vendored in tests/browser/vendor/ (axe.min.js 4.14.1, MPL-2.0; see LICENSE there) and
injected through Playwright, which the page's Content-Security-Policy does not govern.
"""

from pathlib import Path

import pytest
from django.test import Client

from apps.accounts.roles import Role
from apps.compliance import services as compliance
from apps.documents import services as documents
from apps.shipments import services as shipments
from apps.shipments.models import Site
from apps.warehouse import services as warehouse
from tests.conftest import chromium_path, require
from tests.factories import PASSWORD, UserFactory
from tests.shipments.conftest import pack_all

from .test_catalogue_flow import CHROMIUM_ARGS, SCREENSHOTS

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
PHONE = {"width": 390, "height": 844}

RUN_AXE = """async () => {
  const results = await axe.run(document, {resultTypes: ["violations"]});
  return results.violations.map(v => ({
    id: v.id,
    nodes: v.nodes.map(n => n.target.join(" ") + " — " + (n.failureSummary || "").replace(/\\s+/g, " ")),
  }));
}"""


@pytest.fixture
def phone(live_server):
    require(chromium_path() is not None, "Chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.set_default_timeout(15_000)
        yield page
        context.close()
        browser.close()


def _world(request):
    """Two shipments to Chennai: one approved, packed, with three legs and an issued invoice; one
    whose consignee resembles an Entity List entry (held, with a hit in the review queue)."""
    coordinator = request.getfixturevalue("coordinator")
    operator = coordinator.organisation
    dgx, h100 = request.getfixturevalue("dgx"), request.getfixturevalue("h100")
    request.getfixturevalue("screening_list")
    submitted = request.getfixturevalue("submitted")

    shipment = submitted(request.getfixturevalue("indian_customer"), "IN", "Chennai", [(dgx, 2), (h100, 8)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)
    hub = Site.objects.create(
        owner=operator,
        name="Rackpass Bonded Hub Singapore",
        kind="warehouse",
        city="Singapore",
        country="SG",
        is_bonded=True,
    )
    destination = shipment.destination
    for role, origin, to, carrier, awb in (
        ("inbound", shipment.origin, hub, "EVA Air Cargo", "695-12345675"),
        ("main", hub, destination, "Singapore Airlines Cargo", "618-20240500"),
    ):
        shipments.leg_add(
            shipment=shipment,
            fields={
                "role": role,
                "origin": origin,
                "destination": to,
                "mode": "air",
                "carrier": carrier,
                "transport_document": awb,
            },
        )
    invoice = documents.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    documents.document_issue(document=invoice, actor=coordinator)

    held = submitted(request.getfixturevalue("indian_lookalike"), "IN", "Chennai", [(dgx, 1)])
    compliance.compliance_check_run(shipment=held, actor=coordinator)
    held.refresh_from_db()

    UserFactory(username="pat", role=Role.COORDINATOR, organisation=operator)
    UserFactory(username="olga", role=Role.COMPLIANCE_OFFICER, organisation=operator)
    UserFactory(username="wes", role=Role.WAREHOUSE_OPERATOR, organisation=operator)
    return shipment, held, dgx


def _log_in(page, base, username):
    page.context.clear_cookies()
    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")


@pytest.mark.browser
def test_main_pages_fit_a_phone_open_the_menu_and_pass_axe(phone, live_server, transactional_db, request):
    from playwright.sync_api import expect

    page = phone
    shipment, held, dgx = _world(request)
    customer = shipment.parties.get(role="consignee").organisation
    axe_source = AXE.read_text(encoding="utf-8")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    base = live_server.url
    problems: list[str] = []

    def visit(name, path, heading):
        page.goto(f"{base}{path}")
        page.wait_for_load_state("networkidle")  # the freight panel and other htmx loads
        expect(page.get_by_role("heading", level=1)).to_contain_text(heading)
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width[0] > width[1]:
            problems.append(f"{path}: the page scrolls sideways ({width[0]} px wide in {width[1]})")
        page.screenshot(path=str(SCREENSHOTS / f"phone-{name}.png"), full_page=True)

        # The menu is folded behind its button; it opens, shows one current item, and closes.
        menu, nav = page.get_by_role("button", name="Menu"), page.get_by_role("navigation", name="Main")
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(nav).to_be_hidden()
        menu.click()
        expect(menu).to_have_attribute("aria-expanded", "true")
        expect(nav).to_be_visible()
        assert nav.locator("[aria-current=page]").count() <= 1, f"{path}: two current menu items"
        if name == "dashboard":
            page.screenshot(path=str(SCREENSHOTS / "phone-menu-open.png"))

        # axe with the menu open, so its links are checked too.
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.evaluate(axe_source)
        for violation in page.evaluate(RUN_AXE):
            problems.append(f"{path}: axe {violation['id']}: " + " | ".join(violation["nodes"][:3]))
        menu.click()
        expect(nav).to_be_hidden()

    _log_in(page, base, "pat")
    visit("dashboard", "/", "Dashboard")
    visit("shipments", "/shipments/", "Shipments")
    visit("shipment-detail", f"/shipments/{shipment.reference}/", shipment.reference)
    expect(page.locator("#legs tbody tr")).to_have_count(2)
    expect(page.locator("#legs")).to_contain_text("Inbound")
    visit("shipment-held", f"/shipments/{held.reference}/", held.reference)
    visit("documents", f"/shipments/{shipment.reference}/documents/", "Documents")
    visit("parts", "/parts/", "Parts catalogue")
    visit("part-detail", f"/parts/{dgx.pk}/", dgx.name)
    visit("organisations", "/organisations/", "Organisations")
    visit("organisation-detail", f"/organisations/{customer.pk}/", customer.legal_name)

    _log_in(page, base, "olga")
    visit("compliance-queue", "/compliance/", "Compliance review")
    visit("compliance-shipment", f"/compliance/shipments/{held.reference}/", held.reference)
    # /compliance/licences/ is under /compliance/: only Licences is the current item.
    page.goto(f"{base}/compliance/licences/")
    current = page.locator("nav[aria-label=Main] [aria-current=page]")
    expect(current).to_have_count(1)
    expect(current).to_have_text("Licences")

    # A warehouse operator sees the shipments but no button to create one (it would answer 403).
    _log_in(page, base, "wes")
    visit("shipments-warehouse", "/shipments/", "Shipments")
    expect(page.get_by_role("link", name="New shipment")).to_have_count(0)
    # The warehouse (issue 13): the stock list and a unit's page with its history.
    hub = Site.objects.get(name="Rackpass Bonded Hub Singapore")
    location = warehouse.location_create(site=hub, zone="A", aisle="01", rack="02", bin="03")
    [unit] = warehouse.units_receive(
        location=location,
        part=dgx,
        serials=["SN-PHONE-0001"],
        owner=customer,
        actor=None,
        customs_reference="SG-TWH-2026-0042",
    )
    visit("stock", "/stock/", "Stock")
    visit("stock-unit", f"/stock/units/{unit.pk}/", unit.serial)

    assert not problems, "\n".join(problems)


def test_a_csrf_failure_gets_the_sites_own_page(db):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    body = response.content.decode()
    assert "This form has expired" in body
    assert "rackpass.css" in body
