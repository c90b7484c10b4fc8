"""Forms that go back to the page they were posted from follow `next` only within this site."""

import pytest

from apps.compliance import services
from apps.compliance.models import ScreeningHit
from tests.factories import OrganisationFactory

FOREIGN = [
    "https://evil.example/",
    "http://evil.example/compliance/",
    "//evil.example",
    "//evil.example/compliance/",
    "/\\evil.example",
    "\\\\evil.example",
    "https:evil.example",
    "javascript:alert(1)",
    " //evil.example",
]


@pytest.fixture
def hit(screening_list):
    party = OrganisationFactory(legal_name="Northern Star Shipping LLC", country="AE", city="Dubai")
    services.organisation_screen(organisation=party)
    return ScreeningHit.objects.get()


def _decide(client, hit, target, **extra):
    data = {"decision": "clear", "reason": "Different LLC in Sharjah", "next": target}
    return client.post(f"/compliance/hits/{hit.pk}/decide/", data, **extra)


@pytest.mark.parametrize("target", FOREIGN)
def test_hit_decision_never_redirects_off_site(hit, compliance_officer, browser_as, target):
    response = _decide(browser_as(compliance_officer), hit, target)
    assert response.status_code == 302
    assert response["Location"] == "/compliance/"


def test_hit_decision_goes_back_to_a_page_of_this_site(hit, compliance_officer, browser_as):
    target = f"/organisations/{hit.organisation_id}/?tab=blocks"
    response = _decide(browser_as(compliance_officer), hit, target)
    assert response["Location"] == target


def test_over_https_next_may_not_drop_to_http(hit, compliance_officer, browser_as):
    client = browser_as(compliance_officer)
    response = _decide(client, hit, "http://testserver/compliance/", secure=True)
    assert response["Location"] == "/compliance/"
    response = _decide(client, hit, "https://testserver/organisations/", secure=True)
    assert response["Location"] == "https://testserver/organisations/"


@pytest.mark.parametrize("target", FOREIGN[:3])
def test_block_lift_never_redirects_off_site(screening_list, compliance_officer, browser_as, target):
    party = OrganisationFactory(legal_name="Demo AI Shenzhen", country="CN", city="Shenzhen")
    hit = services.organisation_screen(organisation=party).hits.get()
    services.hit_confirm(hit=hit, actor=compliance_officer, reason="Same address as the EL entry")
    block = party.blocks.get()
    response = browser_as(compliance_officer).post(
        f"/compliance/blocks/{block.pk}/lift/", {"action": "request", "reason": "x", "next": target}
    )
    assert response.status_code == 302 and response["Location"] == party.get_absolute_url()
