"""Issue 14 in real Chromium: on a cluster's design page the shipment plan loads (servers from
Taiwan and switches from Mexico consolidated in Singapore, racks from the US by sea), a proposal is
made into a draft shipment; own or rent draws its chart for the price typed, marks the break-even
month, names a bad price on its field and redraws with htmx. No CSP violation on the way."""

import datetime as dt

import pytest

from apps.accounts.roles import Role
from apps.clusters import services
from apps.clusters.models import ClusterDesign
from apps.shipments.models import Shipment, Site
from tests.clusters import plan_world
from tests.clusters.builders import cluster_parts, design_fields
from tests.factories import PASSWORD, OperatorFactory, OrganisationFactory, UserFactory

from .test_catalogue_flow import page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_shipment_plan_drafts_and_own_or_rent_chart(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    operator = OperatorFactory()
    sam = UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    customer = OrganisationFactory(kind="customer", legal_name="Chennai Speech AI", country="IN")
    dc = Site.objects.create(
        owner=operator, customer=customer, name="Siruseri DC1", kind="data_centre", city="Chennai",
        country="IN", power_mw="12", cooling_air=True, cooling_liquid=True,
    )  # fmt: skip
    design = services.design_create(
        owner=operator,
        fields=design_fields(
            cluster_parts(operator, prefix="CH"), customer=customer, site=dc, name="Speech AI"
        ),
        actor=sam,
    )
    ClusterDesign.objects.filter(pk=design.pk).update(
        required_on_site=dt.date.today() + dt.timedelta(days=90)
    )
    plan_world.rates()
    plan_world.hub(operator)
    plan_world.factories(operator)
    plan_world.india_taxes()
    plan_world.bom(design, plan_world.plan_parts(operator))
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/clusters/{design.pk}/")

    # The plan loads into its card: the consolidation through Singapore, priced; the racks by sea.
    proposals = page.locator("#shipment-plan-proposals")
    expect(proposals.locator("#proposal-air-via-sg")).to_contain_text("2,646.40 USD")
    expect(proposals.locator("#proposal-ocean-us-schneider-electric")).to_contain_text("Ocean")
    page.locator("#make-ocean-us-schneider-electric").uncheck()
    page.get_by_role("button", name="Create draft shipments").click()
    expect(page.locator("#shipment-plan-created")).to_contain_text("Draft shipments made: SHP-")
    shipment = Shipment.objects.get()
    assert shipment.mode == "air" and shipment.legs.count() == 3
    expect(page.locator("#shipment-plan-made")).to_contain_text(shipment.reference)

    # Own or rent: a price draws the chart with the break-even marked; a bad one is named.
    panel = page.locator("#own-or-rent-panel")
    panel.get_by_label("Rent price per GPU-hour").fill("2")
    panel.get_by_role("button", name="Compare").click()
    chart = page.locator("#own-or-rent-panel svg.own-rent-chart")
    expect(chart).to_have_count(1)
    expect(chart.locator("g.break-even text")).to_contain_text("Break-even: month")
    expect(chart.locator("title").first).to_contain_text("Own or rent: cumulative cost over 60 months (USD)")
    expect(page.locator("#own-or-rent-verdict")).to_contain_text("Owning breaks even in month")
    panel = page.locator("#own-or-rent-panel")
    panel.get_by_label("Rent price per GPU-hour").fill("0")
    panel.get_by_role("button", name="Compare").click()
    expect(page.locator("#id_oor-gpu_hour_price-error")).to_have_text(
        "The price per GPU-hour must be greater than 0."
    )
    expect(page.locator("#own-or-rent-panel svg")).to_have_count(0)
    assert not [line for line in console if "Content Security Policy" in line or "Refused to" in line], (
        console
    )
