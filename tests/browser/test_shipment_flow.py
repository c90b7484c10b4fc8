"""In real Chromium: a coordinator creates a shipment, adds lines, sees freight options and moves it along."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.accounts.models import Registration
from apps.accounts.roles import Role
from apps.shipments.models import FreightRate, Shipment, Site
from tests.factories import PASSWORD, OperatorFactory, OrganisationFactory, PartFactory, UserFactory

from .test_catalogue_flow import SCREENSHOTS, page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_coordinator_plans_and_submits_a_shipment(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    operator = OperatorFactory()
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    OrganisationFactory(legal_name="Taiwan Servers Co.", country="TW")
    customer = OrganisationFactory(
        kind="customer", legal_name="Chennai AI Compute", country="IN", city="Chennai"
    )
    for scheme, number in (("iec", "AAKCC5521M"), ("gstin", "33AAKCC5521M1Z2")):
        Registration.objects.create(organisation=customer, scheme=scheme, number=number, country="IN")
    Site.objects.create(owner=operator, name="Guishan factory", kind="factory", city="Taoyuan", country="TW")
    Site.objects.create(owner=operator, name="Siruseri DC1", kind="data_centre", city="Chennai", country="IN")
    h100 = PartFactory(
        part_number="H100-SXM5",
        name="H100 SXM5",
        category="accelerator",
        hs_code="847330",
        dense_tops={"8": "1979"},
        die_area_mm2=Decimal("814"),
    )
    PartFactory(
        part_number="DGX-H100",
        name="DGX H100",
        category="server",
        accelerator=h100,
        gpus_per_server=8,
        unit_weight_kg=Decimal("130"),
        length_cm=Decimal("130"),
        width_cm=Decimal("85"),
        height_cm=Decimal("110"),
        unit_value=Decimal("373000"),
        hs_code="847150",
    )
    valid = {"valid_from": dt.date(2026, 1, 1), "valid_to": dt.date(2027, 12, 31)}
    FreightRate.objects.create(
        origin_country="TW",
        destination_country="IN",
        mode="air",
        service="Air cargo",
        price_per_kg=Decimal("4.20"),
        transit_days=5,
        **valid,
    )
    FreightRate.objects.create(
        origin_country="TW",
        destination_country="IN",
        mode="ocean",
        service="Ocean FCL",
        price_40hc=Decimal("2400"),
        transit_days=18,
        **valid,
    )
    today = timezone.localdate()

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Shipments", exact=True).click()
    page.get_by_role("link", name="New shipment").click()

    page.locator("#id_origin").select_option(label="Guishan factory, Taoyuan")
    page.locator("#id_destination").select_option(label="Siruseri DC1, Chennai")
    page.locator("#id_incoterm").select_option("DAP")
    page.locator("#id_incoterm_place").fill("Siruseri DC1, Chennai")
    page.locator("#id_mode").select_option("air")
    page.locator("#id_ready_date").fill(today.isoformat())
    page.locator("#id_required_by").fill((today + dt.timedelta(days=10)).isoformat())
    page.locator("#id_party_shipper").select_option(label="Taiwan Servers Co.")
    page.locator("#id_party_consignee").select_option(label="Chennai AI Compute")
    page.get_by_role("button", name="Save").click()

    expect(page.get_by_text("created as a draft")).to_be_visible()
    reference = Shipment.objects.get().reference
    expect(page.get_by_role("heading", level=1)).to_contain_text(reference)

    page.get_by_text("Add a line").click()
    page.locator("#id_part").select_option(label="NVIDIA DGX-H100 — DGX H100")
    page.locator("#id_quantity").fill("4")
    page.get_by_role("button", name="Add line").click()
    expect(page.get_by_text("Line 1 added")).to_be_visible()
    expect(page.locator("#lines")).to_contain_text("1,492,000.00")

    # Freight options load into the page through htmx.
    options = page.locator("#freight-options")
    expect(options).to_contain_text("Air cargo")
    expect(options).to_contain_text("3,404.10 USD")  # 810.5 kg chargeable × 4.20, with separators
    expect(page.locator(".recommendation")).to_contain_text("Air cargo")  # 10 days rule out the sea

    page.get_by_role("button", name="Submit for compliance review").click()
    # Entering review runs the compliance check (eagerly here); a clear shipment is approved by it.
    # The flash states the status the page shows (issue 12: it said "compliance review" under an
    # Approved badge).
    expect(page.get_by_text("is now approved")).to_be_visible()
    expect(page.locator("h1 .status")).to_have_text("Approved")
    page.get_by_role("link", name="Compliance").first.click()
    expect(page.locator("main")).to_contain_text("Pass: 1 line and 2 parties clear.")
    expect(page.locator("main")).to_contain_text("4A090.a")  # H100s meet 3A090.a; India (A:5): NLR
    page.locator("#compliance-head").get_by_role("link", name=reference).click()

    page.get_by_label("Reason for put on hold").fill("Awaiting end-user statement")
    page.get_by_role("button", name="Put on hold").click()
    expect(page.locator("h1 .status")).to_have_text("On hold")
    page.get_by_role("button", name="Release hold (back to Approved)").click()
    expect(page.locator("h1 .status")).to_have_text("Approved")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "shipment-detail.png"), full_page=True)
    assert Shipment.objects.get().status == "approved"
