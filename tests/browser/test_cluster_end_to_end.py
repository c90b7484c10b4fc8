"""Issue 14 end to end in real Chromium: a coordinator designs the 512-GPU Chennai cluster in the
form (customer, site and system picked by typing), runs the sizing (the task box follows it),
makes the bill of materials, starts the compliance summary from the design page and reads it when
its task ends (ECCN totals, the line that needs a licence for India, the unclassified optic
flagged), makes the draft shipments from the shipment plan, finds them in the shipments list with
their lines, and the coverage panel counts their pieces as on order. No CSP violation on the way.

Celery runs eagerly under the test settings (`CELERY_TASK_ALWAYS_EAGER`): the sizing and the
summary run when their request commits, and the page's task box reads their finished record, as
in tests/browser/test_cluster_flow.py."""

import datetime as dt
import re
from decimal import Decimal

import pytest

from apps.accounts.roles import Role
from apps.clusters.models import BomLine, ClusterDesign, ComplianceSummary, RunStatus, SummaryStatus
from apps.compliance import services as compliance
from apps.shipments.models import Shipment, Site
from tests.clusters import plan_world
from tests.clusters.builders import cluster_parts
from tests.factories import PASSWORD, OperatorFactory, OrganisationFactory, UserFactory
from tests.four_eyes import classify_with_second_officer

from .test_catalogue_flow import page  # noqa: F401  (the Chromium fixture)

# The officer's classifications; the node optic is left unclassified. 4A003.b needs a licence to
# India in the EAR data the compliance app ships (4A090.a and 5A992.c do not).
ECCNS = {
    "system": "4A090.a",
    "switch": "5A992.c",
    "inband": "5A992.c",
    "oob": "EAR99",
    "storage": "4A003.b",
    "fibre": "EAR99",
    "rack": "EAR99",
    "pdu": "EAR99",
    "cdu": "EAR99",
}


def _world():
    """The operator, its coordinator "sam", the Chennai customer and data centre, the catalogue
    (systems from Taiwan, racks from the US, the rest from Mexico) classified by an officer, and
    the plan world: rates, the Singapore hub, factories, India's taxes."""
    operator = OperatorFactory()
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    officer = UserFactory(username="cora", role=Role.COMPLIANCE_OFFICER, organisation=operator)
    customer = OrganisationFactory(kind="customer", legal_name="Chennai Speech AI", country="IN")
    dc = Site.objects.create(
        owner=operator, customer=customer, name="Siruseri DC1", kind="data_centre", city="Chennai",
        country="IN", power_mw="12", cooling_air=True, cooling_liquid=True,
    )  # fmt: skip
    parts = cluster_parts(operator, prefix="CH")
    for key, origin, kg, dims in (
        ("system", "TW", "130", ("90", "48", "36")),
        ("rack", "US", "170", ("120", "60", "225")),
    ):
        part = parts[key]
        part.country_of_origin, part.unit_weight_kg = origin, Decimal(kg)
        part.length_cm, part.width_cm, part.height_cm = (Decimal(side) for side in dims)
        part.save()
    compliance.country_data_load_default()
    for key, eccn in ECCNS.items():
        classify_with_second_officer(
            part=parts[key], eccn=eccn, reason="Manufacturer's classification on file", actor=officer
        )
    plan_world.rates()
    plan_world.hub(operator)
    plan_world.factories(operator)
    plan_world.india_taxes()
    return operator, customer, dc, parts


@pytest.mark.browser
def test_design_size_bom_compliance_summary_drafts_and_coverage(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    _operator, customer, dc, parts = _world()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Clusters").click()
    page.get_by_role("link", name="New design").click()

    # The form: customer, site and system are pickers, searched as the coordinator types.
    page.get_by_label("Name").fill("Speech AI, Chennai")

    def pick(label: str, field: str, typed: str, option: str) -> None:
        page.get_by_role("combobox", name=label, exact=True).press_sequentially(typed)
        # The option in this field's own dropdown (tom-select names it after the select).
        choice = page.locator(f"#id_{field}-ts-dropdown .option", has_text=option)
        expect(choice).to_have_count(1)
        if not choice.is_visible():
            # Seen once on a loaded CI machine: the option was listed in a dropdown already closed
            # (the answer came after Tom Select had shut it). A person opens the box again.
            page.get_by_role("combobox", name=label, exact=True).click()
            expect(choice).to_be_visible()
        choice.click()

    pick("Customer", "customer", "chennai", "Chennai Speech AI")
    pick("Site", "site", "siruseri", "Siruseri DC1")
    pick("System", "system", "DGX", "CH-DGX-H100")
    assert page.locator("#id_customer").input_value() == str(customer.pk)
    assert page.locator("#id_site").input_value() == str(dc.pk)
    assert page.locator("#id_system").input_value() == str(parts["system"].pk)
    page.get_by_label("GPUs (accelerators)").fill("512")
    for field, part in {
        "compute_switch": "switch", "compute_node_optic": "optic", "compute_switch_optic": "optic",
        "compute_cable": "fibre", "storage_appliance": "storage", "storage_switch": "switch",
        "inband_switch": "inband", "oob_switch": "oob", "rack": "rack", "pdu": "pdu", "cdu": "cdu",
    }.items():  # fmt: skip
        page.locator(f"#id_{field}").select_option(str(parts[part].pk))
    page.get_by_label("Usable capacity (TB)").fill("2000")
    page.get_by_label("Power limit per rack (kW)").fill("130")
    page.get_by_label("Pdus per rack").fill("4")
    page.locator("#id_cooling").select_option("liquid")
    page.get_by_label("PUE").fill("1.20")
    page.get_by_label("Per-GPU MTBF (hours)").fill("50000")
    page.get_by_label("Chosen checkpoint interval (minutes)").fill("30")
    required = dt.date.today() + dt.timedelta(days=90)
    page.locator("#id_required_on_site").fill(required.isoformat())
    page.get_by_role("button", name="Save design").click()
    expect(page.get_by_role("heading", name="Speech AI, Chennai")).to_be_visible()
    design = ClusterDesign.objects.get()
    assert (design.customer, design.site, design.required_on_site) == (customer, dc, required)
    design_url = page.url

    # No bill of materials yet: the summary and coverage panels say what comes first.
    expect(page.locator("#compliance-summary-panel")).to_contain_text("make a bill of materials first")
    expect(page.locator("#coverage-panel")).to_contain_text("make a bill of materials first")

    # Size it: the task box follows the run to its end.
    page.get_by_role("button", name="Run sizing").click()
    expect(page.locator("#task")).to_contain_text("finished successfully")
    expect(page.locator("#runs")).to_contain_text("Succeeded")
    assert design.runs.get().status == RunStatus.SUCCEEDED

    # The bill of materials, from the run's page.
    page.get_by_role("link", name="Every figure with its formula").click()
    page.get_by_role("button", name="Make bill of materials").click()
    expect(page.get_by_role("heading", name="Bill of materials v1")).to_be_visible()
    lines = list(BomLine.objects.filter(bom__design=design, quantity__gt=0).select_related("part"))
    by_role = {line.role: line for line in lines}
    assert by_role["system"].quantity == 64 and by_role["system"].part == parts["system"]
    assert by_role["storage_appliance"].part == parts["storage"]

    # The compliance summary, started from the design page: its task box, then the result.
    page.goto(design_url)
    panel = page.locator("#compliance-summary-panel")
    expect(panel).to_contain_text("No compliance summary yet")
    panel.get_by_role("button", name="Make the compliance summary").click()
    panel = page.locator("#compliance-summary-panel")
    expect(panel.get_by_role("button", name="Make the summary again")).to_be_visible()
    expect(panel.locator("h3", has_text="By ECCN")).to_be_visible()
    summary = ComplianceSummary.objects.get()
    assert summary.status == SummaryStatus.SUCCEEDED and summary.requested_by.username == "sam"
    expect(panel.locator(".pagehead .badge")).to_have_text("Needs attention")
    expect(panel).to_contain_text("to India (IN)")
    # ECCN totals: the 64 systems under 4A090.a at 373,000 USD each.
    eccn_rows = panel.locator("table").nth(1).locator("tbody tr")
    systems = eccn_rows.filter(has_text="4A090.a")
    expect(systems.locator("td").nth(1)).to_have_text("No licence required (NLR)")
    expect(systems.locator("td").nth(3)).to_have_text("64")
    expect(systems.locator("td").nth(4)).to_have_text("23,872,000.00 USD")
    storage = eccn_rows.filter(has_text="4A003.b")
    expect(storage.locator("td").nth(1)).to_have_text("Licence required")
    expect(storage.locator("td").nth(3)).to_have_text(str(by_role["storage_appliance"].quantity))
    optics = [line for line in lines if line.part == parts["optic"]]  # node and switch side
    unclassified = eccn_rows.filter(has_text="Not classified")
    expect(unclassified.locator("td").nth(2)).to_have_text(str(len(optics)))
    expect(unclassified.locator("td").nth(3)).to_have_text(f"{sum(line.quantity for line in optics):,}")
    expect(panel).to_contain_text("licence required: 1 line(s)")
    # Per line: the storage appliance needs a licence for India, the optic is not classified
    # (never read as EAR99), the systems need none.
    line_rows = panel.locator("table").nth(2).locator("tbody tr")
    expect(line_rows).to_have_count(len(lines))
    needs_licence = line_rows.filter(
        has=page.locator("td:nth-child(5) .badge", has_text=re.compile("^Licence required$"))
    )
    expect(needs_licence).to_have_count(1)
    expect(needs_licence).to_contain_text("CH-AI400X2")
    optic = line_rows.filter(has_text="Compute transceiver, node side")
    expect(optic.locator("td").nth(1)).to_contain_text("CH-OSFP-800-SR8")
    expect(optic.locator("td").nth(3)).to_contain_text("Not classified")
    expect(optic.locator("td").nth(4)).to_have_text("Not classified")
    expect(optic.locator("td").nth(6)).to_contain_text("Not classified")  # why: needs attention
    expect(line_rows.filter(has_text="CH-DGX-H100").locator("td").nth(4)).to_have_text(
        "No licence required (NLR)"
    )

    # The shipment plan: every proposal ticked, made into drafts in one go.
    proposals = page.locator("#shipment-plan-proposals")
    expect(proposals.locator("#proposal-air-via-sg")).to_contain_text("Air, through Bonded Hub Singapore")
    keys = proposals.locator("input[name=proposals]")
    assert keys.count() >= 2
    for n in range(keys.count()):
        expect(keys.nth(n)).to_be_checked()
    page.get_by_role("button", name="Create draft shipments").click()
    expect(page.locator("#shipment-plan-created")).to_contain_text("Draft shipments made: SHP-")
    shipments = list(Shipment.objects.order_by("reference"))
    assert len(shipments) == keys.count()
    assert {s.status for s in shipments} == {"draft"}
    assert sorted((line.part_id, line.quantity) for s in shipments for line in s.lines.all()) == sorted(
        (line.part_id, line.quantity) for line in lines
    )
    for shipment in shipments:
        expect(page.locator("#shipment-plan-created")).to_contain_text(shipment.reference)

    # The drafts in the shipments list, each with its lines.
    page.get_by_role("link", name="Shipments", exact=True).click()
    listed = page.locator("main table tbody")
    for shipment in shipments:
        row = listed.locator("tr", has=page.get_by_role("link", name=shipment.reference, exact=True))
        expect(row).to_contain_text("Draft")
        expect(row.locator("td.num")).to_have_text(str(shipment.lines.count()))
    racks = next(s for s in shipments if s.mode == "ocean")
    page.get_by_role("link", name=racks.reference, exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(racks.reference)
    rack_row = page.locator("#lines tbody tr", has_text="CH-RACK-48U")
    expect(rack_row.locator("td.num").first).to_have_text(str(by_role["rack"].quantity))
    expect(page.locator("#lines tbody tr")).to_have_count(racks.lines.count())

    # Coverage: every piece of the bill of materials is on order on those drafts.
    page.goto(design_url)
    coverage = page.locator("#coverage-panel")
    expect(coverage.locator("p .badge").first).to_have_text("Covered")
    total = sum(line.quantity for line in lines)
    footer = coverage.locator("tfoot td")
    expect(footer.nth(0)).to_have_text(f"{total:,}")  # needed
    expect(footer.nth(1)).to_have_text(f"{total:,}")  # on order
    expect(footer.nth(5)).to_have_text("0")  # still to order
    systems_row = coverage.locator("tbody tr", has_text="CH-DGX-H100")
    expect(systems_row.locator("td").nth(3)).to_have_text("64")
    for shipment in shipments:
        expect(coverage.get_by_role("link", name=shipment.reference, exact=True)).to_be_visible()
    assert not [line for line in console if "Content Security Policy" in line or "Refused to" in line], (
        console
    )

    # An administrator of another organisation finds neither the design nor its drafts.
    forwarder = OrganisationFactory(kind="freight_forwarder", legal_name="Bravo Freight", country="SG")
    UserFactory(username="bravo-admin", role=Role.ADMIN, organisation=forwarder)
    page.context.clear_cookies()
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("bravo-admin")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log in")).to_have_count(0)
    assert page.goto(design_url).status == 404
    assert page.goto(f"{live_server.url}{racks.get_absolute_url()}").status == 404
