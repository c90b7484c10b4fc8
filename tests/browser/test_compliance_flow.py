"""In real Chromium: a compliance officer asks to clear a screening hit, a second approves it on the
four-eyes page, and the held shipment moves on."""

import pytest

from apps.accounts.roles import Role
from apps.compliance import services
from apps.compliance.models import HitStatus, ScreeningHit
from apps.shipments.models import Shipment
from tests.factories import PASSWORD, OrganisationFactory, UserFactory

from .test_catalogue_flow import page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_officer_clears_a_hit_and_releases_the_shipment(page, live_server, transactional_db, request):  # noqa: F811
    from playwright.sync_api import expect

    request.getfixturevalue("screening_list")
    lookalike = request.getfixturevalue("indian_lookalike")
    coordinator = request.getfixturevalue("coordinator")
    shipment = request.getfixturevalue("submitted")(
        lookalike, "IN", "Chennai", [(request.getfixturevalue("dgx"), 1)]
    )
    services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert Shipment.objects.get(pk=shipment.pk).status == "on_hold"
    UserFactory(username="ines", role=Role.COMPLIANCE_OFFICER, organisation=coordinator.organisation)
    UserFactory(username="omar", role=Role.COMPLIANCE_OFFICER, organisation=coordinator.organisation)

    def log_in(username):
        page.context.clear_cookies()
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()

    log_in("ines")
    page.get_by_role("link", name="Compliance", exact=True).click()
    hits = page.locator("#hits")
    expect(hits).to_contain_text("SHENZHEN DEMO AI TECHNOLOGY CO., LTD.")
    hits.get_by_label("Reason").fill("Indian start-up, different CIN; no link to the listed entity")
    hits.get_by_role("button", name="Decide").click()
    expect(page.locator(".messages")).to_contain_text("a second compliance officer approves it")
    # Asked, not decided: the hit stays open and the shipment held until a second officer agrees.
    assert ScreeningHit.objects.get().status == HitStatus.OPEN
    assert Shipment.objects.get(pk=shipment.pk).status == "on_hold"

    log_in("omar")
    page.goto(f"{live_server.url}/compliance/")  # the review queue: "Awaiting second officer"
    request_row = page.locator(".approval").filter(has_text="clear the possible match")
    expect(request_row).to_contain_text("Indian start-up, different CIN")
    request_row.get_by_role("button", name="Approve").click()
    expect(page.locator(".messages")).to_contain_text("Approved")
    assert ScreeningHit.objects.get().status == HitStatus.CLEARED

    # Deciding the hit resolved the reason it raised: nothing to write twice, the shipment moved on.
    assert Shipment.objects.get(pk=shipment.pk).status == "approved"
    page.goto(f"{live_server.url}/compliance/shipments/{shipment.reference}/")
    expect(page.locator("main")).to_contain_text("Screening hit cleared")
    expect(page.locator("h1 .status")).to_have_text("Approved")


@pytest.mark.browser
def test_officer_cannot_approve_a_shipment_with_a_confirmed_match(
    page,  # noqa: F811
    live_server,
    transactional_db,
    request,
):
    from playwright.sync_api import expect

    request.getfixturevalue("screening_list")
    lookalike = OrganisationFactory(
        kind="customer",
        legal_name="Shenzhen Demo AI Technology Company Limited",
        country="CN",
        city="Shenzhen",
    )
    coordinator = request.getfixturevalue("coordinator")
    shipment = request.getfixturevalue("submitted")(
        lookalike, "CN", "Shenzhen", [(request.getfixturevalue("dgx"), 2)]
    )
    services.compliance_check_run(shipment=shipment, actor=coordinator)
    officer = UserFactory(
        username="ines", role=Role.COMPLIANCE_OFFICER, organisation=coordinator.organisation
    )
    services.hit_confirm(
        hit=ScreeningHit.objects.get(status=HitStatus.OPEN),
        actor=officer,
        reason="Same entity: registered address and officers match",
    )
    services.compliance_check_run(shipment=shipment, actor=officer)

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("ines")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/compliance/shipments/{shipment.reference}/")
    main = page.locator("main")
    expect(main).to_contain_text("Blocked party")
    expect(main).to_contain_text("only by reversing the match decision")
    # No free-text box is offered for the blocked party, the licence or the prohibited reasons.
    expect(page.get_by_role("textbox", name="Resolution for hold")).to_have_count(0)
    licence_box = page.get_by_role("textbox", name="Licence for hold").first
    licence_box.fill("ok")
    page.get_by_role("button", name="Apply licence").first.click()
    expect(page.locator(".messages")).to_contain_text("No licence ok")
    # No hurried release from the shipment page: a compliance hold is released by a four-eyes
    # decision on the compliance page, which the shipment page links to.
    page.goto(f"{live_server.url}{shipment.get_absolute_url()}")
    expect(page.get_by_role("button", name="Release hold")).to_have_count(0)
    page.get_by_role("link", name="Release compliance hold (four eyes)").click()
    page.get_by_label("Reason for releasing the compliance hold").fill("In a hurry")
    page.get_by_role("button", name="Ask to release the compliance hold").click()
    expect(page.locator(".messages")).to_contain_text("Awaiting second officer")
    assert Shipment.objects.get(pk=shipment.pk).status == "on_hold"
    assert not Shipment.objects.filter(pk=shipment.pk, status="approved").exists()
