"""Issue 14 in real Chromium: a planner designs the 512-GPU Chennai cluster in the grouped form
(a GPU count that is not whole servers is named on its field), runs the sizing (the task box
follows it and the page fills in), sees the charts — power by component, switches per tier, the
rack elevations — as SVG with their labels, moves the what-if select, reads a figure's formula,
makes the bill of materials and edits a quantity with its reason. No CSP violation on the way."""

import pytest

from apps.accounts.roles import Role
from apps.clusters.models import BomLine, ClusterDesign, RunStatus
from apps.shipments.models import Site
from tests.clusters.builders import cluster_parts
from tests.factories import PASSWORD, OperatorFactory, OrganisationFactory, UserFactory

from .test_catalogue_flow import SCREENSHOTS, page  # noqa: F401  (the Chromium fixture)
from .test_small_screens import AXE, PHONE, RUN_AXE


def axe_violations(page, name: str) -> list[str]:  # noqa: F811
    """axe-core's violations on the page as it is now (the charts' SVG included)."""
    page.wait_for_load_state("networkidle")  # the panels the design page loads with htmx
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    return [f"{name}: axe {v['id']}: " + " | ".join(v["nodes"][:3]) for v in page.evaluate(RUN_AXE)]


@pytest.mark.browser
def test_design_size_chart_and_bill_of_materials(page, live_server, transactional_db):  # noqa: F811
    from playwright.sync_api import expect

    operator = OperatorFactory()
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=operator)
    customer = OrganisationFactory(kind="customer", legal_name="Chennai Speech AI", country="IN")
    dc = Site.objects.create(
        owner=operator, customer=customer, name="Siruseri DC1", kind="data_centre", city="Chennai",
        country="IN", power_mw="12", cooling_air=True, cooling_liquid=True,
    )  # fmt: skip
    parts = cluster_parts(operator, prefix="CH")
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Clusters").click()
    expect(page.get_by_role("heading", name="Cluster designs")).to_be_visible()
    page.get_by_role("link", name="New design").click()

    # The grouped form: system, compute fabric, storage, management, racks, facility, training.
    page.get_by_label("Name").fill("Speech AI, Chennai")
    page.locator("#id_customer").select_option(str(customer.pk))
    page.locator("#id_site").select_option(str(dc.pk))
    page.locator("#id_system").select_option(str(parts["system"].pk))
    page.get_by_label("GPUs (accelerators)").fill("500")
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
    page.get_by_role("button", name="Save design").click()
    # 500 GPUs are not whole DGX servers: named on the field, nothing saved.
    expect(page.locator("#id_gpus-error")).to_contain_text("not a multiple of 8")
    assert not ClusterDesign.objects.exists()
    page.get_by_label("GPUs (accelerators)").fill("512")
    page.get_by_role("button", name="Save design").click()
    expect(page.get_by_role("heading", name="Speech AI, Chennai")).to_be_visible()
    design = ClusterDesign.objects.get()

    # Size it: the task box follows the run, the results fill the page without a reload.
    page.get_by_role("button", name="Run sizing").click()
    expect(page.locator("#task")).to_contain_text("finished successfully")
    expect(page.locator("#runs")).to_contain_text("Succeeded")
    latest = page.locator("#latest")
    power = latest.locator("svg.bar-chart").filter(has_text="IT power by component")
    expect(power).to_have_count(1)
    expect(power.locator("g.bar[data-label='Systems'] text.bar-value")).to_have_text("652.8 kW")
    switches = latest.locator("svg.bar-chart").filter(has_text="Switches per tier")
    expect(switches.locator("g.bar[data-label='Compute leaf'] text.bar-value")).to_have_text("16 switches")
    expect(switches.locator("g.bar[data-label='Compute spine'] text.bar-value")).to_have_text("8 switches")
    compute_racks = latest.locator("svg.rack-elevation[data-kind='compute'][data-count='10']")
    expect(compute_racks.locator("text.rack-count")).to_have_text("× 10 racks")
    expect(compute_racks.locator("g.rack-slot")).to_have_count(6)  # six 8U DGX in 48U
    assert design.runs.get().status == RunStatus.SUCCEEDED

    # What if it were smaller or bigger: the select re-sizes in place.
    what_if = page.locator("#what-if")
    expect(what_if.locator("tr[data-gpus='16384']")).to_have_count(1)
    what_if.get_by_label("Sizes from 256 GPUs up to").select_option(label="1,024 GPUs")
    expect(what_if.locator("tr[data-gpus='16384']")).to_have_count(0)
    expect(what_if.locator("tr[data-gpus='1024']")).to_have_count(1)
    expect(what_if.locator("tr.this-design")).to_contain_text("512")
    expect(what_if.locator("svg g.bar")).to_have_count(3)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "cluster-design.png"), full_page=True)
    problems = axe_violations(page, "design page")
    # On a phone the page does not scroll sideways: charts scale, tables scroll inside their card.
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(200)
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the design page scrolls sideways on a phone: {widths}"
    # Each chart fits its card: it scales down, it does not scroll inside it.
    overflowing = page.evaluate(
        """[...document.querySelectorAll('svg.chart')].filter(svg => {
             const card = svg.closest('.chart-card') || svg.parentElement;
             return svg.getBoundingClientRect().width > card.clientWidth + 1;
           }).length"""
    )
    assert overflowing == 0, f"{overflowing} charts wider than their card on a phone"
    page.screenshot(path=str(SCREENSHOTS / "phone-cluster-design.png"), full_page=True)
    problems += axe_violations(page, "design page on a phone")
    page.set_viewport_size({"width": 1366, "height": 800})

    # Every figure with its formula, then the bill of materials.
    page.get_by_role("link", name="Every figure with its formula").click()
    expect(page.locator("#section-compute_fabric")).to_contain_text("leaves = 8 rails × 1 per SU × 2 SU = 16")
    page.screenshot(path=str(SCREENSHOTS / "cluster-run.png"), full_page=True)
    problems += axe_violations(page, "run page")
    page.get_by_role("button", name="Make bill of materials").click()
    expect(page.get_by_role("heading", name="Bill of materials v1")).to_be_visible()
    leaves = BomLine.objects.get(bom__design=design, role="compute_leaf")
    row = page.locator(f"#line-{leaves.pk}")
    row.get_by_label("Quantity of CH-QM9700 (Compute leaf switch)").fill("18")
    row.get_by_role("button", name="Save").click()
    expect(page.locator(f"#line-{leaves.pk}")).to_contain_text("Say why the quantity differs")
    row = page.locator(f"#line-{leaves.pk}")
    row.get_by_label("Quantity of CH-QM9700 (Compute leaf switch)").fill("18")
    row.get_by_label("Why, for CH-QM9700 (Compute leaf switch)").fill("two spares")
    row.get_by_role("button", name="Save").click()
    expect(page.locator(f"#line-{leaves.pk} td.qty")).to_contain_text("18")
    expect(page.locator("#quantity-changes")).to_contain_text("16 → 18")
    page.screenshot(path=str(SCREENSHOTS / "cluster-bom.png"), full_page=True)
    problems += axe_violations(page, "bill of materials")
    assert not problems, "\n".join(problems)
    leaves.refresh_from_db()
    assert (leaves.quantity, leaves.engine_quantity, leaves.note) == (18, 16, "two spares")
    assert not [line for line in console if "Content Security Policy" in line or "Refused to" in line], (
        console
    )
