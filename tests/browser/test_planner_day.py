"""A cluster planner's day in real Chromium, from a template to draft shipments without a dead end:
a new design from the DGX H100 template (the customer left to choose, the required fields
marked), sized, "Make bill of materials" from the design page, the servers' eight-week lead time
set on the bill of materials, and the shipment plan made into drafts — the 64 DGX servers by sea
for a March need, shipped by their supplier — once: the second click, on a phone, makes nothing
and says what was made. Every page at 1440 and 390 px: no sideways scroll on the phone, and
axe-core finds no violation."""

import datetime as dt

import pytest

from apps.accounts.models import OrganisationKind
from apps.accounts.roles import Role
from apps.catalog import demo as catalog_demo
from apps.clusters.models import BomLine, ClusterDesign
from apps.shipments.models import Shipment, ShipmentParty, Site
from tests.clusters import plan_world
from tests.factories import PASSWORD, OperatorFactory, OrganisationFactory, UserFactory

from .test_catalogue_flow import SCREENSHOTS, page  # noqa: F401  (the Chromium fixture)
from .test_cluster_flow import axe_violations
from .test_small_screens import PHONE

DESKTOP = {"width": 1440, "height": 900}
DGX = "DGXH-G640F+P2CMI36"


def march_need(today: dt.date) -> dt.date:
    """The next 31 March at least 100 days away: a need the sea can meet after eight weeks' lead time."""
    need = dt.date(today.year, 3, 31)
    while (need - today).days < 100:
        need = dt.date(need.year + 1, 3, 31)
    return need


def world():
    """The operator's coordinator "sam", the demo catalogue, a Chennai customer and its data
    centre, the Taiwanese server maker's supplier (with its factory), a factory in every other
    country the template's parts come from, and air and ocean rates from each to India."""
    operator = OperatorFactory()
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    catalog_demo.load()
    customer = OrganisationFactory(kind="customer", legal_name="Chennai AI Compute", country="IN")
    dc = Site.objects.create(
        owner=operator, customer=customer, name="Siruseri DC1", kind="data_centre", city="Chennai",
        country="IN", power_mw="12", cooling_air=True, cooling_liquid=True,
    )  # fmt: skip
    quanta = OrganisationFactory(
        kind=OrganisationKind.SUPPLIER, legal_name="Quanta Cloud Technology Inc.", country="TW"
    )
    Site.objects.create(
        owner=quanta, name="QCT Guishan Factory", kind="factory", city="Taoyuan", country="TW"
    )
    for name, city, country in (
        ("Jabil Guadalajara (NVIDIA networking)", "Zapopan", "MX"),
        ("Fabrinet Chonburi (NVIDIA optics)", "Chonburi", "TH"),
        ("LinkX cable assembly Dongguan (NVIDIA cables)", "Dongguan", "CN"),
        ("US makers' warehouse", "Memphis", "US"),
    ):
        Site.objects.create(owner=operator, name=name, kind="factory", city=city, country=country)
    for origin, days in (("TW", 18), ("MX", 35), ("TH", 14), ("CN", 16), ("US", 32)):
        plan_world.air(origin, "IN", "4.20", "250", 5)
        plan_world.ocean(origin, "IN", "65", "45", "150", days)
    return customer, dc, quanta


def fits_the_phone(tab, name: str) -> list[str]:
    width, inner = tab.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    return [] if width <= inner else [f"{name} scrolls sideways on a phone: {width} > {inner}"]


def both_widths(tab, name: str) -> list[str]:
    """axe at 1440 px, then at 390 px with no sideways scroll; back to 1440."""
    problems = axe_violations(tab, f"{name} at 1440 px")
    tab.set_viewport_size(PHONE)
    tab.wait_for_timeout(200)
    problems += fits_the_phone(tab, name) + axe_violations(tab, f"{name} at 390 px")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"planner-{name.replace(' ', '-')}-390.png"), full_page=True)
    tab.set_viewport_size(DESKTOP)
    tab.wait_for_timeout(200)
    return problems


@pytest.mark.browser
def test_planner_from_template_to_drafts_once(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    customer, dc, quanta = world()
    need = march_need(dt.date.today())
    page.set_viewport_size(DESKTOP)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    # New design, from the DGX H100 template: its parts and figures filled in, the customer not.
    page.goto(f"{live_server.url}/clusters/new/")
    page.get_by_label("Start from").select_option("dgx-h100-air")
    page.get_by_role("button", name="Use template").click()
    expect(page.locator("#id_gpus")).to_have_value("512")
    assert page.locator("#id_customer").input_value() == ""
    assert page.locator("#id_customer").get_attribute("aria-required") == "true"
    expect(page.locator("#fs-management")).to_contain_text("Out-of-band management switch")
    expect(page.locator("#fs-racks")).to_contain_text("Rack PDU (power distribution unit)")
    problems = both_widths(page, "design form from a template")
    page.get_by_label("Name").fill("Chennai DGX H100, 512 GPUs")
    page.locator("#id_customer").select_option(str(customer.pk))
    page.locator("#id_site").select_option(str(dc.pk))
    page.locator("#id_required_on_site").fill(need.isoformat())
    page.get_by_role("button", name="Save design").click()
    expect(page.get_by_role("heading", name="Chennai DGX H100, 512 GPUs")).to_be_visible()
    design = ClusterDesign.objects.get()
    assert design.customer == customer and design.system.part_number == DGX

    # Size it, then make the bill of materials from the design page itself.
    page.get_by_role("button", name="Run sizing").click()
    expect(page.locator("#task")).to_contain_text("finished successfully")
    page.reload()
    page.locator("#make-bom").click()
    expect(page.get_by_role("heading", name="Bill of materials v1")).to_be_visible()
    servers = BomLine.objects.get(bom__design=design, role="system")
    assert servers.quantity == 64

    # The supplier quotes eight weeks for the servers: their line's lead time.
    row = page.locator(f"#line-{servers.pk}")
    row.get_by_label(f"Lead time in days of {DGX} (System)").fill("56")
    row.get_by_role("button", name=f"Set lead time of {DGX} (System)").click()
    expect(page.locator(f"#line-{servers.pk} input[type=number]").first).to_have_value("56")
    servers.refresh_from_db()
    assert servers.lead_time_days == 56
    problems += both_widths(page, "bill of materials")

    # The plan: ready in eight weeks, needed in March, so the servers go by sea; made into drafts.
    page.goto(f"{live_server.url}/clusters/{design.pk}/")
    servers_row = page.locator("#proposal-ocean-tw-nvidia")
    expect(servers_row).to_contain_text("Ocean")
    expect(servers_row).to_contain_text("64 ×")
    ready = dt.date.today() + dt.timedelta(days=56)
    expect(servers_row).to_contain_text(f"ready {ready.isoformat()}")
    expect(page.locator("#shipment-plan-proposals tr[id^=proposal-air]")).to_have_count(0)
    page.get_by_role("button", name="Create draft shipments").click()
    expect(page.locator("#shipment-plan-created")).to_contain_text("Draft shipments made: SHP-")
    made = list(Shipment.objects.order_by("reference"))
    assert made and {s.mode for s in made} == {"ocean"}
    by_sea = next(s for s in made if "Proposal ocean-tw-nvidia:" in s.instructions)
    assert by_sea.ready_date == ready and by_sea.required_by == need
    assert ShipmentParty.objects.get(shipment=by_sea, role="shipper").organisation == quanta
    problems += both_widths(page, "design page with the drafts made")

    # On a phone, the second click makes nothing and says what was made.
    page.set_viewport_size(PHONE)
    page.reload()
    page.get_by_role("button", name="Create draft shipments").click()
    already = page.locator("#shipment-plan-already")
    expect(already).to_contain_text("not made again")
    expect(already).to_contain_text(by_sea.reference)
    expect(page.locator("#shipment-plan-created")).not_to_contain_text("Draft shipments made")
    assert Shipment.objects.count() == len(made)
    problems += fits_the_phone(page, "design page after the second click")
    problems += axe_violations(page, "design page after the second click at 390 px")
    page.screenshot(path=str(SCREENSHOTS / "planner-second-click-390.png"), full_page=True)
    assert not problems, "\n".join(problems)
    assert not [line for line in console if "Content Security Policy" in line or "Refused to" in line], (
        console
    )
