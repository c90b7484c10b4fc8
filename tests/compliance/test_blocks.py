"""Blocked parties: a confirmed match is undone only by reversing it, by a second officer (four eyes;
the rules common to every four-eyes decision are in test_four_eyes.py)."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from apps.accounts.models import Organisation
from apps.accounts.roles import Role
from apps.compliance import services
from apps.compliance.models import HitStatus, PartyBlock
from apps.compliance.services import holds
from apps.core.models import AuditEvent
from tests.factories import OrganisationFactory, UserFactory


@pytest.fixture
def second_officer(operator):
    return UserFactory(organisation=operator, role=Role.COMPLIANCE_OFFICER, username="compliance-2")


@pytest.fixture
def block(screening_list, compliance_officer):
    party = OrganisationFactory(kind="customer", legal_name="Demo AI Shenzhen", country="CN", city="Shenzhen")
    hit = services.organisation_screen(organisation=party).hits.get()
    services.hit_confirm(hit=hit, actor=compliance_officer, reason="Same address as the EL entry")
    return PartyBlock.objects.get(organisation=party)


@pytest.fixture
def lifted_calls(monkeypatch):
    calls = []
    monkeypatch.setattr(holds, "block_lifted", lambda *, block, actor: calls.append((block.pk, actor)))
    return calls


def _four_eyes(operator, on: bool) -> None:
    # As two officers switching it would leave it (test_four_eyes.py walks that path).
    Organisation.objects.filter(pk=operator.pk).update(compliance_four_eyes=on)


# --- services -------------------------------------------------------------------------------------------


def test_a_lift_needs_a_second_officer(block, compliance_officer, second_officer, lifted_calls):
    assert block.is_active and block.list_kind == "entity_list" and block.list_kind_label == "Entity List"
    with pytest.raises(ValidationError, match="reason"):
        services.block_lift_request(block=block, actor=compliance_officer, reason="  ")
    requested = services.block_lift_request(
        block=block, actor=compliance_officer, reason="Court order: different legal person (ref. 12/2026)"
    )
    assert requested.is_active and requested.lift_requested_by == compliance_officer
    assert lifted_calls == []
    with pytest.raises(PermissionDenied) as refused:
        services.block_lift_approve(block=block, actor=compliance_officer)
    assert "second compliance officer" in str(refused.value) and "four eyes" in str(refused.value)
    with pytest.raises(ValidationError, match="already"):
        services.block_lift_request(block=block, actor=second_officer, reason="again")

    lifted = services.block_lift_approve(block=block, actor=second_officer)
    assert not lifted.is_active and lifted.lifted_by == second_officer and lifted.lifted_at
    hit = lifted.hit
    hit.refresh_from_db()
    assert hit.status == HitStatus.REVERSED
    assert hit.decision_reason == "Court order: different legal person (ref. 12/2026)"
    assert lifted_calls == [(block.pk, second_officer)]
    events = AuditEvent.objects.filter(action="transition", message__startswith="Court order")
    assert {tuple(next(iter(e.changes.values()))) for e in events} >= {
        ("confirmed", "reversed"),
        ("lift_requested", "lifted"),
    }
    with pytest.raises(ValidationError, match="lifted"):
        services.block_lift_approve(block=block, actor=second_officer)


def test_without_four_eyes_one_officer_lifts_at_once(block, operator, compliance_officer, lifted_calls):
    _four_eyes(operator, False)
    lifted = services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    assert not lifted.is_active and lifted.lifted_by == compliance_officer
    assert lifted_calls == [(block.pk, compliance_officer)]


def test_a_request_is_withdrawn_or_refused(block, compliance_officer, second_officer, lifted_calls):
    services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    withdrawn = services.block_lift_withdraw(block=block, actor=compliance_officer)
    assert withdrawn.is_active and withdrawn.lift_requested_by is None and not withdrawn.lift_reason
    services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    with pytest.raises(ValidationError, match="reason"):
        services.block_lift_withdraw(block=block, actor=second_officer)  # refusing needs a reason
    refused = services.block_lift_withdraw(block=block, actor=second_officer, reason="No evidence attached")
    assert refused.is_active and refused.lift_requested_by is None
    with pytest.raises(ValidationError, match="no lift"):
        services.block_lift_approve(block=block, actor=second_officer)
    assert lifted_calls == []


def test_only_compliance_officers_lift(block, coordinator, supplier_user, compliance_officer):
    for user in (coordinator, supplier_user):
        with pytest.raises(PermissionDenied):
            services.block_lift_request(block=block, actor=user, reason="x")
    services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    with pytest.raises(PermissionDenied):
        services.block_lift_approve(block=block, actor=coordinator)


def test_a_failure_after_the_lift_keeps_the_block(block, operator, compliance_officer, monkeypatch):
    def fail(*, block, actor):
        raise RuntimeError("re-check could not be started")

    monkeypatch.setattr(holds, "block_lifted", fail)
    _four_eyes(operator, False)
    with pytest.raises(RuntimeError):
        services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    block.refresh_from_db()
    assert block.is_active and block.lift_requested_by is None
    assert block.hit.status == HitStatus.CONFIRMED


def test_a_reversed_match_counts_as_cleared_until_the_entry_changes(
    block, operator, compliance_officer, lifted_calls
):
    _four_eyes(operator, False)
    services.block_lift_request(block=block, actor=compliance_officer, reason="Different company")
    again = services.organisation_screen(organisation=block.organisation)
    assert [h.status for h in again.hits.all()] == [HitStatus.PREVIOUSLY_CLEARED]


def test_a_confirmed_hit_cannot_be_cleared_by_free_text(block, compliance_officer):
    with pytest.raises(ValidationError, match="already decided"):
        services.hit_clear(hit=block.hit, actor=compliance_officer, reason="Actually fine")


# --- API -------------------------------------------------------------------------------------------------


def test_blocks_api_request_and_approve(
    block,
    compliance_officer,
    second_officer,
    coordinator,
    supplier_user,
    api_as,
    lifted_calls,
    django_assert_num_queries,
):
    assert api_as(coordinator).get("/api/v1/party-blocks/").status_code == 403
    assert api_as(supplier_user).get("/api/v1/party-blocks/").status_code == 403
    first, second = api_as(compliance_officer), api_as(second_officer)
    first.get("/api/v1/me/")
    with django_assert_num_queries(3):  # token, count, page (organisation, hit, entry, users joined)
        listing = first.get("/api/v1/party-blocks/?active=true").json()
    assert listing["count"] == 1
    row = listing["results"][0]
    assert row["organisation"] == block.organisation_id and row["list_kind_label"] == "Entity List"
    assert row["is_active"] and row["lift_requested_by"] is None and row["needs_second_officer"]

    url = f"/api/v1/party-blocks/{block.pk}/"
    assert first.post(f"{url}request-lift/", {"reason": ""}, format="json").status_code == 400
    asked = first.post(f"{url}request-lift/", {"reason": "Listed in error"}, format="json")
    assert asked.status_code == 200 and asked.json()["lift_requested_by"] == compliance_officer.username
    own = first.post(f"{url}approve-lift/", {}, format="json")
    assert own.status_code == 403 and "four eyes" in str(own.json())
    assert api_as(coordinator).post(f"{url}approve-lift/", {}, format="json").status_code == 403
    done = second.post(f"{url}approve-lift/", {}, format="json")
    assert done.status_code == 200 and done.json()["lifted_by"] == second_officer.username
    assert not done.json()["is_active"]
    assert first.get("/api/v1/party-blocks/?active=true").json()["count"] == 0


def test_blocks_api_withdraw(block, compliance_officer, api_as):
    api = api_as(compliance_officer)
    url = f"/api/v1/party-blocks/{block.pk}/"
    api.post(f"{url}request-lift/", {"reason": "Listed in error"}, format="json")
    response = api.post(f"{url}withdraw-lift/", {}, format="json")
    assert response.status_code == 200 and response.json()["lift_requested_by"] is None


def test_organisation_api_shows_the_block(
    block, compliance_officer, coordinator, api_as, django_assert_num_queries
):
    services.block_lift_request(block=block, actor=compliance_officer, reason="Listed in error")
    api = api_as(coordinator)
    api.get("/api/v1/me/")
    with django_assert_num_queries(6):  # token, count, page, registrations, contacts, active blocks
        listing = api.get("/api/v1/organisations/").json()
    rows = {row["id"]: row for row in listing["results"]}
    blocked = rows[block.organisation_id]
    assert blocked["is_blocked"] is True
    assert blocked["blocks"] == [
        {
            "id": block.pk,
            "list_kind": "entity_list",
            "list_kind_label": "Entity List",
            "reason": "Same address as the EL entry",
            "since": blocked["blocks"][0]["since"],
            "lift_requested_by": compliance_officer.username,
            "lift_requested_at": blocked["blocks"][0]["lift_requested_at"],
            "lift_reason": "Listed in error",
        }
    ]
    assert blocked["blocks"][0]["since"] and blocked["blocks"][0]["lift_requested_at"]
    assert all(not row["is_blocked"] for pk, row in rows.items() if pk != block.organisation_id)


def test_a_blocked_partner_sees_that_it_is_blocked_but_not_the_officers_notes(block, api_as):
    partner = UserFactory(organisation=block.organisation, role=Role.PARTNER)
    body = api_as(partner).get(f"/api/v1/organisations/{block.organisation_id}/").json()
    assert body["is_blocked"] is True
    assert body["blocks"][0]["list_kind_label"] == "Entity List"
    assert body["blocks"][0]["reason"] == "" and body["blocks"][0]["lift_reason"] == ""


# --- the four-eyes setting ----------------------------------------------------------------------------------


def test_nobody_changes_the_four_eyes_setting_by_saving_the_organisation(
    operator, coordinator, admin_user, api_as, client
):
    """Two compliance officers change it (test_four_eyes.py); the organisation's API, edit page and
    the Django admin show it and change nothing."""
    assert operator.compliance_four_eyes is True
    url = f"/api/v1/organisations/{operator.pk}/"
    for user in (coordinator, admin_user):
        answer = api_as(user).patch(url, {"compliance_four_eyes": False, "city": "Menlo Park"}, format="json")
        assert answer.status_code == 200 and answer.json()["compliance_four_eyes"] is True
    operator.refresh_from_db()
    assert operator.compliance_four_eyes is True and operator.city == "Menlo Park"
    client.force_login(admin_user)
    assert (
        'name="compliance_four_eyes"'
        not in client.get(f"/organisations/{operator.pk}/edit/").content.decode()
    )
    admin_page = client.get(f"/admin/accounts/organisation/{operator.pk}/change/").content.decode()
    assert 'name="compliance_four_eyes"' not in admin_page


# --- pages ---------------------------------------------------------------------------------------------


def test_organisation_page_shows_the_block_and_lifts_it(
    block, compliance_officer, second_officer, coordinator, browser_as, client, lifted_calls
):
    url = f"/organisations/{block.organisation_id}/"
    page = browser_as(coordinator).get(url).content.decode()
    assert "Blocked — Entity List — Same address as the EL entry — since" in page
    assert "Request a lift" not in page  # coordinators see the banner only

    client.force_login(compliance_officer)
    page = client.get(url).content.decode()
    assert "Request a lift" in page
    lift = f"/compliance/blocks/{block.pk}/lift/"
    response = client.post(lift, {"action": "request", "reason": ""}, follow=True)
    assert "reason" in response.content.decode().lower()
    response = client.post(lift, {"action": "request", "reason": "Listed in error"}, follow=True)
    page = response.content.decode()
    assert "Lift requested by" in page and "a second compliance officer" in page
    assert "Approve the lift" not in page  # not for the officer who asked
    client.post(lift, {"action": "approve"}, follow=True)
    block.refresh_from_db()
    assert block.is_active  # the requester cannot approve

    client.force_login(second_officer)
    page = client.get(url).content.decode()
    assert "Approve the lift" in page
    client.post(lift, {"action": "approve"})
    block.refresh_from_db()
    assert not block.is_active and lifted_calls == [(block.pk, second_officer)]
    assert "Blocked —" not in client.get(url).content.decode()


def test_lift_view_is_for_compliance_officers(block, coordinator, admin_user, browser_as):
    for user in (coordinator, admin_user):  # an administrator is not a compliance officer
        response = browser_as(user).post(
            f"/compliance/blocks/{block.pk}/lift/", {"action": "request", "reason": "x"}
        )
        assert response.status_code == 403


def test_queue_page_links_to_blocked_parties(block, compliance_officer, browser_as):
    page = browser_as(compliance_officer).get("/compliance/").content.decode()
    blocked = page.split('id="blocks"')[1]
    assert f'href="/organisations/{block.organisation_id}/"' in blocked and "Entity List" in blocked
