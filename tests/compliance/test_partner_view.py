"""Issue 9: what a partner reads of the operator's compliance work and audit trail.

Partners see a check's result, its summary and the goods' classification; not which list entry a
party's name matched, not the officers' notes, not the staff's names, and only their own
organisation's party result."""

import json

import pytest

from apps.accounts.roles import Role
from apps.compliance import services
from apps.compliance.models import HoldKind
from tests.factories import OrganisationFactory, UserFactory
from tests.four_eyes import clear_with_second_officer

ENTRY = "NORTHERN STAR SHIPPING LLC"
OFFICER_NOTE = "Different company: Dubai trade licence 778812 checked"


@pytest.fixture
def party(db):
    return OrganisationFactory(legal_name="Northern Star Shipping L.L.C.", country="AE", city="Dubai")


@pytest.fixture
def held(ship, party, forwarder, dgx, screening_list, coordinator):
    shipment = ship({"consignee": party, "freight_forwarder": forwarder}, "AE", "Dubai", [(dgx, 1)])
    check = services.latest_check(shipment) or services.compliance_check_run(
        shipment=shipment, actor=coordinator
    )
    assert check.hold_reasons.filter(kind=HoldKind.SCREENING).exists()
    return shipment


def _cleared(held, compliance_officer):
    from apps.compliance.models import ScreeningHit

    hit = ScreeningHit.objects.get(organisation__legal_name="Northern Star Shipping L.L.C.", status="open")
    clear_with_second_officer(hit=hit, actor=compliance_officer, reason=OFFICER_NOTE)
    return held


def test_the_shipments_hold_reason_names_no_list_entry(held, forwarder_user, api_as):
    held.refresh_from_db()
    assert held.status == "on_hold"
    body = api_as(forwarder_user).get(f"/api/v1/shipments/{held.reference}/").json()
    assert ENTRY not in json.dumps(body)
    assert "restricted-party" in body["hold_reason"]


def test_the_check_api_for_a_partner(held, compliance_officer, forwarder, forwarder_user, api_as):
    _cleared(held, compliance_officer)
    check = services.latest_check(held)
    checks = api_as(forwarder_user).get(f"/api/v1/compliance-checks/?shipment__reference={held.reference}")
    text = json.dumps(checks.json())
    for secret in (ENTRY, "Specially Designated Nationals", OFFICER_NOTE, compliance_officer.get_full_name()):
        assert secret not in text
    first = api_as(forwarder_user).get(f"/api/v1/compliance-checks/{check.pk}/").json()
    # Its own party result, without the screening's reasoning; not the other parties'.
    assert {(p["role"], p["organisation"]) for p in first["party_results"]} <= {
        ("freight_forwarder", forwarder.legal_name)
    }
    assert all(p["reasons"] == [] and p["screening"] is None for p in first["party_results"])
    screening = [
        h for row in checks.json()["results"] for h in row["hold_reasons"] if h["kind"] == "screening"
    ]
    assert screening and all(h["organisation"] is None and h["hit"] is None for h in screening)
    assert all(h["resolved_by"] in (None, "Rackpass staff") for h in screening)
    # The goods' classification stays readable: a supplier needs it to fix missing figures.
    assert first["line_results"][0]["eccn"]


def test_operator_staff_read_everything(held, compliance_officer, coordinator, api_as):
    _cleared(held, compliance_officer)
    text = json.dumps(api_as(coordinator).get("/api/v1/compliance-checks/").json())
    assert ENTRY in text and OFFICER_NOTE in text


def test_the_compliance_page_for_a_partner(held, compliance_officer, forwarder_user, browser_as):
    _cleared(held, compliance_officer)
    page = browser_as(forwarder_user).get(f"/compliance/shipments/{held.reference}/").content.decode()
    for secret in (
        ENTRY,
        OFFICER_NOTE,
        compliance_officer.get_full_name(),
        "Northern Star Shipping L.L.C.: possible",
    ):
        assert secret not in page
    assert "Rackpass staff" in page


def test_the_shipments_history_for_a_partner(held, compliance_officer, coordinator, forwarder_user, api_as):
    _cleared(held, compliance_officer)
    rows = api_as(forwarder_user).get(f"/api/v1/shipments/{held.reference}/history/").json()["results"]
    text = json.dumps(rows)
    assert coordinator.get_full_name() not in text and compliance_officer.get_full_name() not in text
    assert ENTRY not in text and OFFICER_NOTE not in text
    assert {r["actor"] for r in rows} <= {"Rackpass staff", ""}
    staff_rows = api_as(coordinator).get(f"/api/v1/shipments/{held.reference}/history/").json()["results"]
    assert any(coordinator.get_full_name() in r["actor"] for r in staff_rows)


def test_the_shipment_page_trail_for_a_partner(
    held, compliance_officer, coordinator, forwarder_user, browser_as
):
    _cleared(held, compliance_officer)
    page = browser_as(forwarder_user).get(f"/shipments/{held.reference}/").content.decode()
    assert coordinator.get_full_name() not in page and OFFICER_NOTE not in page and ENTRY not in page
    assert "Rackpass staff" in page


def test_a_partner_does_not_read_the_screening_decisions_on_its_own_organisation(
    held, compliance_officer, party, api_as, browser_as
):
    _cleared(held, compliance_officer)
    user = UserFactory(organisation=party, role=Role.PARTNER)
    rows = api_as(user).get(f"/api/v1/organisations/{party.pk}/history/").json()["results"]
    assert OFFICER_NOTE not in json.dumps(rows) and not any("screening hit" in json.dumps(r) for r in rows)
    page = browser_as(user).get(f"/organisations/{party.pk}/").content.decode()
    assert OFFICER_NOTE not in page


def test_events_posted_by_staff_read_as_rackpass_staff(held, coordinator, forwarder_user, api_as):
    import datetime as dt

    from django.utils import timezone

    from apps.shipments import services as shipment_services

    shipment_services.event_record(
        shipment=held, actor=coordinator, code="picked_up", occurred_at=timezone.now() - dt.timedelta(hours=2)
    )
    rows = api_as(forwarder_user).get(f"/api/v1/shipments/{held.reference}/events/").json()["results"]
    assert [r["posted_by"] for r in rows] == ["Rackpass staff"]
    staff_rows = api_as(coordinator).get(f"/api/v1/shipments/{held.reference}/events/").json()["results"]
    assert [r["posted_by"] for r in staff_rows] == [coordinator.username]


def test_a_parts_classification_history_names_no_officer(
    h100, compliance_officer, supplier_user, api_as, browser_as
):
    services.part_classification_override(
        part=h100, eccn="3A090.a", reason="Manufacturer's classification", actor=compliance_officer
    )
    rows = api_as(supplier_user).get(f"/api/v1/classifications/?part={h100.pk}").json()["results"]
    assert {r["created_by"] for r in rows} <= {None, "Rackpass staff"}
    page = browser_as(supplier_user).get(f"/compliance/parts/{h100.pk}/").content.decode()
    assert compliance_officer.get_full_name() not in page and compliance_officer.username + "<" not in page
