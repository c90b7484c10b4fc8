"""Reviewing screening hits: one open hit per party and list entry, decisions remembered, the queue.

A hit is keyed by the organisation screened and the list's own id of the entry (`entry_id`), which
stays the same across editions of the list while the entry rows do not.
"""

import copy
import json

import pytest
from django.db import IntegrityError, transaction

from apps.compliance import services
from apps.compliance.models import HitStatus, ScreeningHit
from apps.compliance.services import holds
from apps.shipments.models import Shipment, ShipmentParty
from tests.factories import OrganisationFactory
from tests.four_eyes import clear_with_second_officer

from .conftest import LIST

NORTHERN_STAR = "sdn-1"


def _edition(version: str, *, change_entry: str | None = None) -> None:
    """Import another edition of the test list (optionally with one entry's content changed)."""
    data = copy.deepcopy(LIST)
    for record in data["results"]:
        if record["id"] == change_entry:
            record["programs"] = [*record["programs"], "NEW-PROGRAM"]
    services.screening_list_import(
        name="CSL", source_format="csl_json", data=json.dumps(data).encode(), version=version, rescreen=False
    )


@pytest.fixture
def party(db):
    return OrganisationFactory(legal_name="Northern Star Shipping L.L.C.", country="AE", city="Dubai")


def _statuses(screening) -> list[str]:
    return [hit.status for hit in screening.hits.all()]


# --- recording hits ---------------------------------------------------------------------------------


def test_an_entry_already_open_for_the_party_is_recorded_as_duplicate(party, screening_list):
    first = services.organisation_screen(organisation=party)
    assert _statuses(first) == [HitStatus.OPEN] and first.open_hit_count == 1
    second = services.organisation_screen(organisation=party, trigger="compliance_check")
    assert _statuses(second) == [HitStatus.DUPLICATE] and second.open_hit_count == 0
    # A new edition of the list has new entry rows, but the same entry ids: still one open hit.
    _edition("test-2")
    third = services.organisation_screen(organisation=party, trigger="list_update")
    assert _statuses(third) == [HitStatus.DUPLICATE]
    assert ScreeningHit.objects.filter(status=HitStatus.OPEN).count() == 1


def test_another_party_matching_the_same_entry_gets_its_own_open_hit(party, screening_list):
    twin = OrganisationFactory(legal_name="Northern Star Shipping LLC", country="AE", city="Sharjah")
    services.organisation_screen(organisation=party)
    assert _statuses(services.organisation_screen(organisation=twin)) == [HitStatus.OPEN]


def test_the_database_refuses_a_second_open_hit_for_a_party_and_entry(party, screening_list):
    hit = services.organisation_screen(organisation=party).hits.get()
    again = services.organisation_screen(organisation=party).hits.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        ScreeningHit.objects.filter(pk=again.pk).update(status=HitStatus.OPEN)
    assert hit.organisation_id == party.pk and hit.list_entry_id == NORTHERN_STAR


def test_a_confirmed_entry_is_not_raised_again_even_in_a_new_edition(
    party, screening_list, compliance_officer
):
    hit = services.organisation_screen(organisation=party).hits.get()
    services.hit_confirm(hit=hit, actor=compliance_officer, reason="Same registration number")
    again = services.organisation_screen(organisation=party)
    assert _statuses(again) == [HitStatus.PREVIOUSLY_CONFIRMED] and again.open_hit_count == 0
    # Confirmed is confirmed whatever the entry's wording becomes; only reversing it undoes that.
    _edition("test-2", change_entry=NORTHERN_STAR)
    assert _statuses(services.organisation_screen(organisation=party)) == [HitStatus.PREVIOUSLY_CONFIRMED]


def test_a_cleared_entry_is_remembered_until_it_changes(party, screening_list, compliance_officer):
    hit = services.organisation_screen(organisation=party).hits.get()
    clear_with_second_officer(hit=hit, actor=compliance_officer, reason="Different company in Sharjah")
    _edition("test-2")  # same content, new rows
    assert _statuses(services.organisation_screen(organisation=party)) == [HitStatus.PREVIOUSLY_CLEARED]
    _edition("test-3", change_entry=NORTHERN_STAR)
    assert _statuses(services.organisation_screen(organisation=party)) == [HitStatus.OPEN]


def test_adhoc_hits_are_independent_of_the_review(party, screening_list, supplier_user):
    services.organisation_screen(organisation=party)
    adhoc = services.adhoc_screen(names=["Northern Star Shipping"], country="AE", actor=supplier_user)
    hit = adhoc.hits.get()
    assert hit.organisation_id is None and hit.list_entry_id == NORTHERN_STAR
    assert adhoc.hit_count == 1


def test_open_hits_for_maps_entry_ids_to_the_open_hit(party, screening_list, compliance_officer):
    hit = services.organisation_screen(organisation=party).hits.get()
    services.organisation_screen(organisation=party)  # a duplicate, not returned
    assert services.open_hits_for(party, [NORTHERN_STAR, "el-1"]) == {NORTHERN_STAR: hit}
    assert services.open_hits_for(OrganisationFactory(), [NORTHERN_STAR]) == {}
    clear_with_second_officer(hit=hit, actor=compliance_officer, reason="Different company")
    assert services.open_hits_for(party, [NORTHERN_STAR]) == {}


# --- deciding -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("decide", ["hit_clear", "hit_confirm"])
def test_a_decision_tells_the_compliance_check_in_the_same_transaction(
    party, screening_list, compliance_officer, monkeypatch, decide
):
    calls = []
    monkeypatch.setattr(holds, "hit_decided", lambda *, hit, actor: calls.append((hit.pk, hit.status, actor)))
    # Clearing takes effect when a second officer approves it (four eyes): the effect is the same.
    decide_now = clear_with_second_officer if decide == "hit_clear" else services.hit_confirm
    hit = services.organisation_screen(organisation=party).hits.get()
    decided = decide_now(hit=hit, actor=compliance_officer, reason="Reviewed")
    assert calls == [(hit.pk, decided.status, compliance_officer)]

    # If what the check does fails, the decision is not kept either.
    def fail(*, hit, actor):
        raise RuntimeError("hold reasons could not be updated")

    other = services.organisation_screen(
        organisation=OrganisationFactory(legal_name="Northern Star Shipping LLC", country="AE")
    ).hits.get()
    monkeypatch.setattr(holds, "hit_decided", fail)
    with pytest.raises(RuntimeError):
        decide_now(hit=other, actor=compliance_officer, reason="Reviewed")
    other.refresh_from_db()
    assert other.status == HitStatus.OPEN and not other.screening.organisation.blocks.exists()


def test_adhoc_hits_cannot_be_decided(screening_list, supplier_user, compliance_officer, api_as):
    hit = services.adhoc_screen(names=["Northern Star Shipping"], actor=supplier_user).hits.get()
    with pytest.raises(Exception, match="ad hoc"):
        services.hit_confirm(hit=hit, actor=compliance_officer, reason="x")
    response = api_as(compliance_officer).post(
        f"/api/v1/screening-hits/{hit.pk}/confirm/", {"reason": "x"}, format="json"
    )
    assert response.status_code == 404


# --- the queue ------------------------------------------------------------------------------------------


@pytest.fixture
def queue(party, screening_list, submitted, dgx, supplier, supplier_user, compliance_officer):
    """Two parties with open hits, screened several times; shipments naming them; ad hoc noise."""
    other = OrganisationFactory(
        kind="customer", legal_name="Shenzhen Demo AI Technology Co Ltd", country="CN", city="Shenzhen"
    )
    for _ in range(3):
        services.organisation_screen(organisation=party)
        services.organisation_screen(organisation=other)
    services.adhoc_screen(names=["Northern Star Shipping"], actor=supplier_user)
    services.adhoc_screen(names=["Shenzhen Demo AI"], actor=compliance_officer)
    held = submitted(party, "AE", "Dubai", [(dgx, 1)])
    ShipmentParty.objects.create(shipment=held, role="ultimate_consignee", organisation=party)
    done = submitted(party, "AE", "Dubai", [(dgx, 1)])
    Shipment.objects.filter(pk=done.pk).update(status="delivered")
    return {"party": party, "other": other, "held": held, "done": done}


def test_queue_api_shows_each_party_and_entry_once_with_its_shipments(
    queue, compliance_officer, api_as, django_assert_num_queries
):
    api = api_as(compliance_officer)
    api.get("/api/v1/me/")  # touch the token first so the counts below are steady
    with django_assert_num_queries(4):  # token, count, page, the page's shipments with their parties
        body = api.get("/api/v1/screening-hits/").json()
    assert body["count"] == 2
    rows = {row["organisation"]: row for row in body["results"]}
    assert set(rows) == {"Northern Star Shipping L.L.C.", "Shenzhen Demo AI Technology Co Ltd"}
    assert all(row["status"] == HitStatus.OPEN for row in rows.values())
    northern = rows["Northern Star Shipping L.L.C."]
    assert northern["organisation_id"] == queue["party"].pk and northern["list_entry_id"] == NORTHERN_STAR
    held = queue["held"]
    assert northern["shipments"] == [
        {
            "reference": held.reference,
            "status": "compliance_review",
            "roles": ["consignee", "ultimate_consignee"],
            "url": f"http://testserver/api/v1/shipments/{held.reference}/",
        }
    ]  # the delivered shipment is left out
    assert rows["Shenzhen Demo AI Technology Co Ltd"]["shipments"] == []

    # More parties, hits and shipments: the same number of queries.
    more = OrganisationFactory(legal_name="Blue Lotus Electronics Trading", country="HK", city="Hong Kong")
    services.organisation_screen(organisation=more)
    with django_assert_num_queries(4):
        assert api.get("/api/v1/screening-hits/").json()["count"] == 3


def test_queue_api_other_statuses_once_per_party_and_entry(queue, compliance_officer, api_as):
    api = api_as(compliance_officer)
    duplicates = api.get(f"/api/v1/screening-hits/?status={HitStatus.DUPLICATE}").json()
    assert duplicates["count"] == 2  # four duplicate rows, two parties × one entry
    assert all(row["organisation_id"] for row in duplicates["results"])


def test_queue_api_is_for_compliance_officers(queue, coordinator, supplier_user, api_as):
    assert api_as(coordinator).get("/api/v1/screening-hits/").status_code == 403
    assert api_as(supplier_user).get("/api/v1/screening-hits/").status_code == 403


def test_queue_page_shows_each_hit_once_with_shipments(
    queue, compliance_officer, browser_as, django_assert_num_queries
):
    client = browser_as(compliance_officer)
    client.get("/compliance/")
    with django_assert_num_queries(9):
        # session, user, hits, their shipments, hold reasons, shipments waiting, blocks, four-eyes requests,
        # open alerts
        page = client.get("/compliance/").content.decode()
    hits = page.split('id="hits"')[1]
    assert hits.count("NORTHERN STAR SHIPPING LLC</strong>") == 1
    assert hits.count("SHENZHEN DEMO AI TECHNOLOGY CO., LTD.</strong>") == 1
    held, done = queue["held"], queue["done"]
    assert f"/compliance/shipments/{held.reference}/" in hits
    assert "Consignee, Ultimate consignee / end user" in hits
    assert done.reference not in hits
    assert f'href="/organisations/{queue["party"].pk}/"' in hits
    # Ad hoc screenings (the partner's and the officer's) stay out of the queue.
    assert hits.count("Decide</button>") == 2

    more = OrganisationFactory(legal_name="Blue Lotus Electronics Trading", country="HK", city="Hong Kong")
    services.organisation_screen(organisation=more)
    with django_assert_num_queries(9):
        assert client.get("/compliance/").content.decode().count("Decide</button>") == 3


# --- the ad hoc screening API ---------------------------------------------------------------------------


def test_adhoc_screening_api_writes_in_two_inserts_and_reads_nothing_back(
    screening_list, supplier_user, api_as, django_assert_num_queries
):
    from apps.compliance.api.serializers import ScreeningSerializer
    from apps.compliance.models import Screening

    api = api_as(supplier_user)
    api.post("/api/v1/screenings/", {"name": "warm up the index and the token"}, format="json")
    payload = {"name": "Northern Star Shipping", "aliases": ["Shenzhen Demo AI"], "country": "AE"}
    # the request's savepoint (a write and its response are one transaction), token, active lists,
    # the service's savepoint, the screening, its hits (one insert), release both savepoints
    with django_assert_num_queries(8):
        response = api.post("/api/v1/screenings/", payload, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["hit_count"] == 2 and body["open_hit_count"] == 2
    # What was answered from memory is what the database holds.
    stored = Screening.objects.prefetch_related("hits__entry").get(pk=body["id"])
    assert json.loads(json.dumps(ScreeningSerializer(stored).data, default=str)) == body
