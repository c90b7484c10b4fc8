"""In real Chromium (issue 11): a coordinator builds a two-origin consolidation — Taiwan servers and
Mexican switches meet in the Singapore hub, then fly to Chennai — entirely in the browser."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.accounts.models import Registration
from apps.accounts.roles import Role
from apps.shipments.models import Leg, Shipment, Site
from tests.factories import PASSWORD, OperatorFactory, OrganisationFactory, PartFactory, UserFactory

from .test_catalogue_flow import SCREENSHOTS, page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_coordinator_builds_a_two_origin_consolidation_through_the_hub(
    page,  # noqa: F811
    live_server,
    transactional_db,
):
    from playwright.sync_api import expect

    operator = OperatorFactory()
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    OrganisationFactory(legal_name="Taiwan Servers Co.", country="TW")
    mexican = OrganisationFactory(kind="supplier", legal_name="Guadalajara Switches SA", country="MX")
    customer = OrganisationFactory(
        kind="customer", legal_name="Chennai AI Compute", country="IN", city="Chennai"
    )
    for scheme, number in (("iec", "AAKCC5521M"), ("gstin", "33AAKCC5521M1Z2")):
        Registration.objects.create(organisation=customer, scheme=scheme, number=number, country="IN")
    sites = (
        ("Guishan factory", "factory", "Taoyuan", "TW"),
        ("Guadalajara factory", "factory", "Guadalajara", "MX"),
        ("Rackpass Bonded Hub Singapore", "warehouse", "Singapore", "SG"),
        ("Siruseri DC1", "data_centre", "Chennai", "IN"),
    )
    for name, kind, city, country in sites:
        Site.objects.create(
            owner=operator, name=name, kind=kind, city=city, country=country, is_bonded=kind == "warehouse"
        )
    PartFactory(
        part_number="DGX-H100",
        name="DGX H100",
        category="server",
        unit_weight_kg=Decimal("130"),
        unit_value=Decimal("373000"),
        hs_code="847150",
        country_of_origin="TW",
    )
    PartFactory(
        part_number="MQM9790-NS2F",
        name="Quantum-2 switch",
        category="switch",
        unit_weight_kg=Decimal("15"),
        unit_value=Decimal("32000"),
        hs_code="851762",
        country_of_origin="TW",  # the catalogue's; this lot was made in Mexico
        is_serialised=False,
    )
    today = timezone.localdate()
    main_arrival = today + dt.timedelta(days=9)

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
    page.locator("#id_required_by").fill((today + dt.timedelta(days=14)).isoformat())
    page.locator("#id_party_shipper").select_option(label="Taiwan Servers Co.")
    page.locator("#id_party_consignee").select_option(label="Chennai AI Compute")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("created as a draft")).to_be_visible()

    # Lines from two suppliers: the switches' country of origin is set on the line.
    lines = page.locator("#lines")
    lines.get_by_text("Add a line").click()
    lines.locator("#id_part").select_option(label="NVIDIA DGX-H100 — DGX H100")
    lines.locator("#id_quantity").fill("4")
    lines.get_by_role("button", name="Add line").click()
    expect(page.get_by_text("Line 1 added")).to_be_visible()
    lines.get_by_text("Add a line").click()
    lines.locator("#id_part").select_option(label="NVIDIA MQM9790-NS2F — Quantum-2 switch")
    lines.locator("#id_quantity").fill("2")
    lines.locator("#id_country_of_origin").select_option("MX")
    lines.locator("#id_shipper").select_option(label="Guadalajara Switches SA")  # exports its own lines
    lines.get_by_role("button", name="Add line").click()
    expect(page.get_by_text("Line 2 added")).to_be_visible()
    expect(lines.locator("tbody tr").nth(1)).to_contain_text("MX")
    expect(lines.locator("tbody tr").nth(1)).to_contain_text("Guadalajara Switches SA")

    # Packing is picked, not typed (issue 12): 2 servers of line 1 by quantity, then everything left.
    packages = page.locator("#packages")

    def add_package(picks):
        if packages.locator("details").last.get_attribute("open") is None:  # open after a save
            packages.get_by_text("Add a package").click()
        packages.locator("#id_package_type").select_option("crate")
        sizes = {"length_cm": "130", "width_cm": "90", "height_cm": "85", "gross_kg": "300", "net_kg": "260"}
        for name, value in sizes.items():
            packages.locator(f"#id_{name}").fill(value)
        picks()
        packages.get_by_role("button", name="Add package").click()

    add_package(lambda: packages.locator("#id_qty_1").fill("2"))
    expect(page.get_by_text("Package 1 (Crate) added.")).to_be_visible()
    expect(packages).to_contain_text("2 of 4 left to pack.")
    add_package(lambda: packages.get_by_label("Everything still unpacked").check())
    expect(packages.locator("tbody tr").nth(1)).to_contain_text("2 × line 1, 2 × line 2")

    legs = page.locator("#legs")

    def add_leg(role, origin, destination, carried=(), departure=None, arrival=None):
        legs.get_by_text("Add a leg").click()
        legs.locator("#id_role").select_option(role)
        legs.locator("#id_origin").select_option(label=origin)
        legs.locator("#id_destination").select_option(label=destination)
        legs.locator("#id_mode").select_option("air")
        if carried:
            legs.locator("#id_lines").select_option(label=list(carried))
        if departure:
            legs.locator("#id_planned_departure").fill(departure.isoformat())
        if arrival:
            legs.locator("#id_planned_arrival").fill(arrival.isoformat())
        legs.get_by_role("button", name="Add leg").click()

    hub = "Rackpass Bonded Hub Singapore, Singapore"
    add_leg(
        "inbound", "Guishan factory, Taoyuan", hub, ["Line 1: 4 × DGX-H100 (TW)"],
        today + dt.timedelta(days=1), today + dt.timedelta(days=2),
    )  # fmt: skip
    expect(page.get_by_text("carrying line 1")).to_be_visible()
    add_leg(
        "inbound", "Guadalajara factory, Guadalajara", hub, ["Line 2: 2 × MQM9790-NS2F (MX)"],
        today + dt.timedelta(days=1), today + dt.timedelta(days=5),
    )  # fmt: skip
    expect(page.get_by_text("carrying line 2")).to_be_visible()
    add_leg("main", hub, "Siruseri DC1, Chennai", (), today + dt.timedelta(days=7), main_arrival)
    expect(page.get_by_text("Singapore → Siruseri DC1, Chennai (Air) added")).to_be_visible()

    # A leg back from the destination to a supplier is refused, the reason on its field.
    add_leg("inbound", "Siruseri DC1, Chennai", hub, ["Line 1: 4 × DGX-H100 (TW)"])
    expect(legs).to_contain_text("never starts at the shipment's destination")
    expect(legs).to_contain_text("is carried to the hub by leg 1 already")
    page.goto(f"{live_server.url}/shipments/{Shipment.objects.get().reference}/")  # leave the refused form

    # A milestone on the Taiwan leg.
    timeline = page.locator("#timeline")
    timeline.get_by_text("Record an event").click()
    timeline.locator("#id_code").select_option("picked_up")
    picked_up = timezone.localtime() - dt.timedelta(hours=2)
    timeline.locator("#id_occurred_at").fill(picked_up.strftime("%Y-%m-%dT%H:%M"))
    timeline.locator("#id_leg").select_option(label=f"Leg 1: Guishan factory, Taoyuan → {hub} (Air)")
    timeline.locator("#id_location").fill("Taoyuan")
    timeline.get_by_role("button", name="Record event").click()
    expect(page.get_by_text("Event “Picked up” recorded")).to_be_visible()

    expect(page.locator("#route")).to_have_text(
        f"Guishan factory, Taoyuan + Guadalajara factory, Guadalajara → {hub} → Siruseri DC1, Chennai"
    )
    expect(page.locator("#eta")).to_contain_text(main_arrival.isoformat())
    expect(page.locator("#eta")).to_contain_text("main carriage")
    rows = legs.locator("tbody tr")
    expect(rows.nth(0)).to_contain_text("Line 1")
    expect(rows.nth(1)).to_contain_text("Line 2")
    expect(timeline).to_contain_text("leg 1: Guishan factory → Rackpass Bonded Hub Singapore")
    # The exporter of record is assessed per origin country: the switches leave Mexico exported by
    # their maker, who has an entity there.
    record = page.locator(".record-need")
    expect(record.nth(2)).to_contain_text("Export from MX — line 2")
    expect(record.nth(2)).to_contain_text("Guadalajara Switches SA has an entity in MX")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "shipment-consolidation.png"), full_page=True)

    shipment = Shipment.objects.get()
    assert shipment.eta == main_arrival
    assert [(leg.role, [line.line_number for line in leg.lines.all()]) for leg in shipment.legs.all()] == [
        ("inbound", [1]),
        ("inbound", [2]),
        ("main", []),
    ]
    assert shipment.events.get().leg == Leg.objects.get(sequence=1)
    assert shipment.lines.get(line_number=2).country_of_origin == "MX"
    assert shipment.lines.get(line_number=2).shipper == mexican
