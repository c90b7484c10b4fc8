"""Issue 12, Done means: packing a 9-package shipment with the picker in real Chromium — each
package added from the packages section, which comes back open after every save, quantities
picked and serials ticked, never typed; a refused package keeps the focus on the field in error."""

from decimal import Decimal

import pytest

from apps.shipments import services
from apps.shipments.models import LineSerial, Package
from tests.factories import PASSWORD, PartFactory

from .conftest import draft_to_chennai
from .test_catalogue_flow import SCREENSHOTS, page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_a_coordinator_packs_nine_packages_with_the_picker(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    shipment = draft_to_chennai()
    server = PartFactory(part_number="DGX-H100", name="DGX H100", unit_weight_kg=Decimal("130"))
    cable = PartFactory(
        part_number="MCP4Y10", name="DAC 2 m", is_serialised=False, unit_weight_kg=Decimal("0.6")
    )
    serials = [f"QT{n:04d}" for n in range(1, 10)]
    services.line_add(shipment=shipment, part=server, quantity=9, serials=serials)
    services.line_add(shipment=shipment, part=cable, quantity=90)

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}{shipment.get_absolute_url()}")
    packages = page.locator("#packages")
    sizes = {"length_cm": "130", "width_cm": "90", "height_cm": "120", "gross_kg": "150", "net_kg": "140"}

    def fill_sizes():
        packages.locator("#id_package_type").select_option("crate")
        for name, value in sizes.items():
            packages.locator(f"#id_{name}").fill(value)

    packages.get_by_text("Add a package").click()
    # A refused package (more cables than are left) keeps the page at the field in error.
    fill_sizes()
    packages.locator("#id_qty_2").fill("91")
    packages.get_by_role("button", name="Add package").click()
    expect(packages.locator("#id_qty_2")).to_be_focused()
    for n in range(1, 10):
        if n > 1:  # the section comes back with the form open for the next package
            expect(packages.locator("details").last).to_have_attribute("open", "")
        fill_sizes()
        packages.locator("#id_qty_1").fill("1")
        packages.get_by_label(serials[n - 1]).check()
        packages.locator("#id_qty_2").fill("10")
        packages.get_by_role("button", name="Add package").click()
        expect(page.get_by_text(f"Package {n} (Crate) added.")).to_be_visible()
        assert page.url.endswith("?open=package_form#packages")
    expect(packages.locator("tbody tr")).to_have_count(9)
    expect(packages).not_to_contain_text("left to pack")  # nothing left: no quantity to pick
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "packing-nine-packages.png"), full_page=True)

    assert Package.objects.filter(shipment=shipment).count() == 9
    assert not LineSerial.objects.filter(line__shipment=shipment, package__isnull=True).exists()
    packed = {
        p.number: sorted(p.serials.values_list("unit__serial", flat=True)) for p in Package.objects.all()
    }
    assert packed == {n: [serials[n - 1]] for n in range(1, 10)}
