"""Issue 13, Done means, in real Chromium: a warehouse operator receives an advance notice with one
serial missing, resolves it (the box turned up), puts the units away, allocates two of them to an
outbound shipment, picks and packs them; the package carries exactly those serials."""

import pytest

from apps.accounts.roles import Role
from apps.shipments import services as shipments
from apps.shipments.models import Shipment, Site
from apps.warehouse import services as stock
from tests.factories import PASSWORD, OrganisationFactory, PartFactory, UserFactory

from .conftest import draft_to_chennai
from .test_catalogue_flow import SCREENSHOTS, page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_receive_resolve_allocate_pick_and_pack(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    outbound = draft_to_chennai()  # Taiwan → Chennai by the demo coordinator "sam"
    operator = outbound.owner
    UserFactory(username="wendy", role=Role.WAREHOUSE_OPERATOR, organisation=operator)
    hub = Site.objects.create(
        owner=operator, name="Singapore hub", kind="warehouse", city="Singapore", country="SG", is_bonded=True
    )
    Shipment.objects.filter(pk=outbound.pk).update(origin=hub)  # it leaves from the hub
    outbound.refresh_from_db()
    server = PartFactory(part_number="DGX-H100", name="DGX H100")
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
        parties={"shipper": OrganisationFactory(legal_name="Quanta Cloud", country="TW"),
                 "consignee": operator},
    )  # fmt: skip
    shipments.line_add(shipment=inbound, part=server, quantity=3, serials=["QT1", "QT2", "QT3"])
    Shipment.objects.filter(pk=inbound.pk).update(status="in_transit")
    stock.location_create(site=hub, zone="RCV")
    stock.location_create(site=hub, zone="A", aisle="01", rack="01", bin="01")

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("wendy")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    # Receive: QT3 is not in the crate.
    page.goto(f"{live_server.url}/stock/receipts/")
    page.get_by_label("Shipment reference to receive").fill(inbound.reference)
    page.get_by_role("button", name="Receive", exact=True).click()
    expect(page.get_by_role("heading", name=f"Receive {inbound.reference}")).to_be_visible()
    page.locator("#id_location").select_option(label="Singapore hub · RCV")
    page.get_by_label("Customs reference").fill("SG-TWH-2026-0042")
    page.get_by_label("Serials scanned").fill("QT1\nQT2")
    page.get_by_role("button", name="Record receipt").click()
    expect(page.get_by_text("2 of 3 units received; 1 discrepancy to resolve.")).to_be_visible()
    discrepancies = page.locator("#discrepancies")
    expect(discrepancies).to_contain_text("QT3")
    discrepancies.get_by_label("Resolution").fill("Found on the next pallet")
    discrepancies.get_by_label("The unit turned up: receive it now").check()
    discrepancies.get_by_role("button", name="Resolve").click()
    expect(page.get_by_text("resolved.")).to_be_visible()
    expect(page.locator(".pagehead")).to_contain_text("Closed")

    # Put away, allocate two to the outbound line, pick them.
    page.goto(f"{live_server.url}/stock/move/")
    page.get_by_label("Serial numbers").fill("QT1\nQT2\nQT3")
    page.locator("#id_to_location").select_option(label="Singapore hub · A-01-01-01")
    page.locator("form.card button[type=submit], form button.primary").first.click()
    expect(page.locator(".messages")).to_be_visible()
    page.goto(f"{live_server.url}/stock/allocate/")
    page.locator("#id_line").select_option(label=f"{outbound.reference} line 1: 2 × DGX-H100")
    page.get_by_label("Serial numbers").fill("QT1\nQT2")
    page.locator("form button.primary, form.card button[type=submit]").first.click()
    expect(page.locator(".messages")).to_be_visible()
    page.goto(f"{live_server.url}/stock/pick/")
    page.get_by_label("Serial numbers").fill("QT1\nQT2")
    page.locator("form button.primary, form.card button[type=submit]").first.click()
    expect(page.locator(".messages")).to_be_visible()

    # Pack: the picked units are ticked, the box described.
    page.goto(f"{live_server.url}/stock/pack/{outbound.reference}/")
    page.get_by_label("QT1: line 1, DGX-H100, at A-01-01-01").check()
    page.get_by_label("QT2: line 1, DGX-H100, at A-01-01-01").check()
    page.locator("#id_package_type").select_option("crate")
    for name, value in {"length_cm": "130", "width_cm": "90", "height_cm": "120", "gross_kg": "300",
                        "net_kg": "260"}.items():  # fmt: skip
        page.locator(f"#id_{name}").fill(value)
    page.get_by_role("button", name="Pack").click()
    expect(page.get_by_text("packed: 2 units.")).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{live_server.url}{outbound.get_absolute_url()}#packages")
    page.screenshot(path=str(SCREENSHOTS / "warehouse-packed.png"), full_page=True)

    package = outbound.packages.get()
    assert sorted(package.serials.values_list("unit__serial", flat=True)) == ["QT1", "QT2"]
    assert list(out_line.serials.values_list("unit__serial", flat=True).order_by("unit__serial")) == [
        "QT1",
        "QT2",
    ]
