"""The compliance officer lands on their work: shipments on compliance hold, restricted-party hits
to review, compliance answers gone stale, licences running low. Each tile's number is the number
of rows on the page it links to, in a fixed number of queries."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.compliance import services
from apps.compliance.models import ComplianceCheck, Licence
from tests.dashboard_tiles import rows_behind, tiles
from tests.factories import OrganisationFactory

OFFICER_TILES = [
    "on compliance hold",
    "restricted-party hits to review",
    "compliance answers stale",
    "licences running low",
]


@pytest.fixture
def officer_world(submitted, dgx, saudi_customer, saudi_licence, screening_list, compliance_officer):
    """One of each: a held shipment (no licence to Hanoi), an open hit, a stale answer, a licence
    drawn down to one of six, and one licence with room that does not count."""
    hanoi = OrganisationFactory(kind="customer", legal_name="Hanoi AI", country="VN", city="Hanoi")
    held = submitted(hanoi, "VN", "Hanoi", [(dgx, 1)])
    services.compliance_check_run(shipment=held, actor=compliance_officer)
    riyadh = submitted(saudi_customer, "SA", "Riyadh", [(dgx, 5)])
    services.compliance_check_run(shipment=riyadh, actor=compliance_officer)
    ComplianceCheck.objects.filter(shipment=riyadh).update(
        stale_since=timezone.now(), stale_reason="A part changed."
    )
    party = OrganisationFactory(legal_name="Northern Star Shipping LLC", country="AE", city="Dubai")
    services.organisation_screen(organisation=party)
    Licence.objects.create(
        number="ROOMY-1",
        licensee=saudi_licence.licensee,
        eccns="4A090.a",
        destination_countries="SA",
        consignee=saudi_customer,
        permitted_quantity=100,
        permitted_value=100_000_000,
        valid_from=dt.date(2026, 1, 1),
        expires_on=dt.date(2030, 1, 1),
    )
    return {"held": held, "stale": riyadh}


def test_the_officer_lands_on_holds_hits_stale_answers_and_licences_running_low(
    officer_world, compliance_officer, browser_as
):
    client = browser_as(compliance_officer)
    page = client.get("/")
    found = tiles(page)
    assert list(found)[:4] == OFFICER_TILES  # the officer's work first
    assert {label: found[label].count for label in OFFICER_TILES} == dict.fromkeys(OFFICER_TILES, 1)
    for label in OFFICER_TILES:
        assert rows_behind(client, found[label]) == found[label].count, label
    # The rows are the very objects counted.
    held = client.get(found["on compliance hold"].url).context["object_list"]
    assert [s.reference for s in held] == [officer_world["held"].reference]
    stale = client.get(found["compliance answers stale"].url).context["object_list"]
    assert [s.reference for s in stale] == [officer_world["stale"].reference]
    low = client.get(found["licences running low"].url).context["object_list"]
    assert [lic.number for lic in low] == ["D1234567"]  # five of six drawn down


def test_a_licence_ending_soon_runs_low_and_an_expired_one_does_not(
    saudi_licence, compliance_officer, browser_as
):
    today = timezone.localdate()
    Licence.objects.filter(pk=saudi_licence.pk).update(expires_on=today + dt.timedelta(days=10))
    client = browser_as(compliance_officer)
    assert tiles(client.get("/"))["licences running low"].count == 1
    Licence.objects.filter(pk=saudi_licence.pk).update(
        valid_from=today - dt.timedelta(days=20), expires_on=today - dt.timedelta(days=1)
    )
    tile = tiles(client.get("/"))["licences running low"]
    assert tile.count == 0 == rows_behind(client, tile)


def test_a_check_answered_again_is_no_longer_stale(officer_world, compliance_officer, browser_as):
    services.compliance_check_run(shipment=officer_world["stale"], actor=compliance_officer)
    client = browser_as(compliance_officer)
    tile = tiles(client.get("/"))["compliance answers stale"]
    assert tile.count == 0 == rows_behind(client, tile)


def test_the_officers_dashboard_costs_the_same_queries_with_more_work(
    officer_world, submitted, dgx, compliance_officer, browser_as
):
    client = browser_as(compliance_officer)
    client.get("/")
    with CaptureQueriesContext(connection) as before:
        client.get("/")
    for name in ("Hue AI", "Da Nang AI"):
        customer = OrganisationFactory(kind="customer", legal_name=name, country="VN", city="Hanoi")
        services.compliance_check_run(
            shipment=submitted(customer, "VN", "Hanoi", [(dgx, 1)]), actor=compliance_officer
        )
    with CaptureQueriesContext(connection) as after:
        page = client.get("/")
    assert tiles(page)["on compliance hold"].count == 3
    assert len(after) == len(before)


def test_other_roles_do_not_get_the_officers_tiles(officer_world, coordinator, supplier_user, browser_as):
    for user in (coordinator, supplier_user):
        assert not set(OFFICER_TILES) & set(tiles(browser_as(user).get("/")))
