"""Answers go stale with their inputs: a list edition, a country-data edition, a classification, a
licence, a party, a line or the terms changed after a check marks the answer stale with the reason
and checks the shipment again; nothing departs on an answer that is not current. A party newly
listed holds a shipment that has not left in the same transaction as the import; a shipment
already gone is named to the officers as an alert."""

import copy
import datetime as dt
import json
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from apps.accounts import services as account_services
from apps.accounts.models import Registration
from apps.catalog import services as catalog_services
from apps.compliance import services
from apps.compliance.models import (
    ComplianceAlert,
    ComplianceCheck,
    HoldKind,
    ImportRequirement,
    Licence,
    PartCertification,
)
from apps.documents.services import documents_issue_required
from apps.shipments import services as shipment_services
from apps.shipments.models import Shipment, Site, TrackingEvent
from apps.shipments.services import TransitionRefused
from tests.admin_forms import admin_form, admin_save, form_errors
from tests.factories import OrganisationFactory
from tests.shipments.conftest import pack_all

from .conftest import LIST

CHENNAI_LISTED = {
    "id": "el-chennai",
    "source": "Entity List (EL) - Bureau of Industry and Security",
    "entity_number": "",
    "type": "Entity",
    "name": "CHENNAI AI COMPUTE PVT. LTD.",
    "alt_names": [],
    "addresses": [{"country": "IN"}],
    "programs": [],
    "license_requirement": "For all items subject to the EAR.",
    "license_policy": "Presumption of denial.",
    "federal_register_notice": "91 FR 100",
    "source_list_url": "",
}


def edition_with_chennai(version="test-2") -> dict:
    data = copy.deepcopy(LIST)
    data["results"].append(CHENNAI_LISTED)
    data["total"] = len(data["results"])
    return data


def import_edition(data: dict, version: str, actor=None):
    return services.screening_list_import(
        name="CSL", source_format="csl_json", data=json.dumps(data).encode(), version=version, actor=actor
    )


def fresh(shipment) -> Shipment:
    return Shipment.objects.get(pk=shipment.pk)


def latest(shipment) -> ComplianceCheck:
    return shipment.compliance_checks.order_by("-finished_at", "-id").first()


@pytest.fixture
def us_site(operator):
    return Site.objects.create(
        owner=operator, name="Santa Clara staging", kind="warehouse", city="Santa Clara", country="US"
    )


@pytest.fixture
def us_shipper(db):
    org = OrganisationFactory(kind="supplier", legal_name="Santa Clara Systems Inc.", country="US")
    Registration.objects.create(organisation=org, scheme="ein", number="94-1234567", country="US")
    return org


@pytest.fixture
def approved(ship, indian_customer, switch, coordinator, us_site, us_shipper, screening_list, forwarder):
    """`approved()`: an approved US → IN shipment to the Chennai customer, a forwarder named."""

    def make():
        shipment = ship(
            {"shipper": us_shipper, "consignee": indian_customer, "freight_forwarder": forwarder},
            "IN",
            "Chennai",
            [(switch, 2)],
            origin=us_site,
        )
        check = services.compliance_check_run(shipment=shipment, actor=coordinator)
        assert check.result == "pass", [h.text for h in check.hold_reasons.all()]
        assert fresh(shipment).status == "approved"
        return fresh(shipment)

    return make


@pytest.fixture
def booked(approved, coordinator, us_site):
    """`booked()`: the same shipment packed, with its main leg and documents, booked."""

    def make():
        shipment = approved()
        pack_all(shipment)
        shipment_services.leg_add(
            shipment=shipment,
            fields={
                "role": "main",
                "origin": us_site,
                "destination": shipment.destination,
                "mode": "air",
                "carrier": "Air India Cargo",
                "planned_departure": timezone.localdate(),
            },
        )
        documents_issue_required(shipment=shipment, actor=coordinator)
        return shipment_services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)

    return make


def depart(shipment, actor):
    return shipment_services.event_record(
        shipment=shipment,
        actor=actor,
        code="departed",
        occurred_at=timezone.now() - dt.timedelta(minutes=5),
        location="SJC",
    )


# --- the reproduction: a booked shipment whose consignee is listed ----------------------------


def test_a_listing_holds_a_booked_shipment_in_the_import_transaction(
    booked, coordinator, compliance_officer, django_capture_on_commit_callbacks
):
    shipment = booked()
    first = latest(shipment)
    # Nothing queued after the import has run yet: the hold is the import's own doing.
    with django_capture_on_commit_callbacks(execute=False):
        import_edition(edition_with_chennai(), "test-2", actor=compliance_officer)
        shipment = fresh(shipment)
        assert shipment.status == "on_hold" and shipment.hold_kind == "compliance", shipment.status
        assert shipment.held_from == "booked" and shipment.hold_reason
        first.refresh_from_db()
        assert first.stale_since is not None and "CSL test-2" in first.stale_reason
        check = latest(shipment)
        assert check.pk != first.pk and check.result == "hold"
        reasons = [h for h in check.hold_reasons.all() if h.resolved_at is None]
        assert [h.kind for h in reasons] == [HoldKind.SCREENING]
        assert "CHENNAI AI COMPUTE PVT. LTD." in reasons[0].text and "Entity List" in reasons[0].text
        assert "Consignee" in reasons[0].text


def test_a_departure_of_a_held_shipment_is_refused_in_the_service_and_the_api(
    booked,
    coordinator,
    compliance_officer,
    forwarder_user,
    api_as,
    client,
    django_capture_on_commit_callbacks,
):
    shipment = booked()
    with django_capture_on_commit_callbacks(execute=True):
        import_edition(edition_with_chennai(), "test-2", actor=compliance_officer)
    assert fresh(shipment).status == "on_hold"
    with pytest.raises(TransitionRefused) as refused:
        depart(shipment, coordinator)
    assert "held for compliance" in refused.value.message.lower()
    response = api_as(forwarder_user).post(
        f"/api/v1/shipments/{shipment.reference}/events/",
        {"code": "departed", "occurred_at": timezone.now().isoformat(), "location": "SJC"},
        format="json",
    )
    assert response.status_code == 409, response.content
    body = response.json()
    assert "held for compliance" in body["detail"].lower() and body["reasons"]
    # The partner reads that a party is under review, never which list entry it matched.
    assert "CHENNAI AI COMPUTE PVT" not in response.content.decode()
    assert not TrackingEvent.objects.filter(shipment=shipment, code="departed").exists()
    assert fresh(shipment).status == "on_hold"


def test_no_departure_while_the_answer_is_stale(
    booked, coordinator, compliance_officer, forwarder_user, api_as, django_capture_on_commit_callbacks
):
    """A change whose re-check has not run yet: the shipment is still booked, its answer stale."""
    shipment = booked()
    with django_capture_on_commit_callbacks(execute=False):
        services.country_data_load(
            **_country_data_edition(dt.date(2026, 11, 30)), loaded_by=compliance_officer.username
        )
        assert fresh(shipment).status == "booked"
        stale = latest(shipment)
        assert stale.stale_since is not None and "2026-11-30" in stale.stale_reason
        with pytest.raises(TransitionRefused) as refused:
            depart(shipment, coordinator)
        assert any("2026-11-30" in r for r in refused.value.reasons)
        response = api_as(forwarder_user).post(
            f"/api/v1/shipments/{shipment.reference}/events/",
            {"code": "departed", "occurred_at": timezone.now().isoformat()},
            format="json",
        )
        assert response.status_code == 409 and "not current" in " ".join(response.json()["reasons"])
        assert fresh(shipment).status == "booked"
    # The re-check ran (on commit, eagerly here): the answer is current again and the goods may leave.
    services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert latest(shipment).stale_since is None and latest(shipment).pk != stale.pk
    depart(shipment, coordinator)
    assert fresh(shipment).status == "in_transit"


def test_an_approved_shipment_is_marked_stale_and_checked_again(
    approved, compliance_officer, django_capture_on_commit_callbacks
):
    shipment = approved()
    first = latest(shipment)
    with django_capture_on_commit_callbacks(execute=True):
        import_edition(edition_with_chennai(), "test-2", actor=compliance_officer)
    first.refresh_from_db()
    assert first.stale_since is not None and first.stale_reason
    check = latest(shipment)
    assert check.pk != first.pk and check.result == "hold"
    assert fresh(shipment).status == "on_hold"


def test_an_unrelated_entry_leaves_the_answer_current(
    approved, compliance_officer, django_capture_on_commit_callbacks
):
    shipment = approved()
    first = latest(shipment)
    data = copy.deepcopy(LIST)
    data["results"].append(dict(CHENNAI_LISTED, id="el-other", name="KARACHI QUANTUM WORKS"))
    data["total"] = len(data["results"])
    with django_capture_on_commit_callbacks(execute=True):
        import_edition(data, "test-2", actor=compliance_officer)
    first.refresh_from_db()
    assert first.stale_since is None and latest(shipment).pk == first.pk
    assert fresh(shipment).status == "approved"


def test_a_shipment_already_gone_is_an_alert_to_the_officers(
    booked, coordinator, compliance_officer, django_capture_on_commit_callbacks
):
    shipment = booked()
    depart(shipment, coordinator)
    assert fresh(shipment).status == "in_transit"
    with django_capture_on_commit_callbacks(execute=True):
        import_edition(edition_with_chennai(), "test-2", actor=compliance_officer)
    assert fresh(shipment).status == "in_transit"  # the goods have left: nothing to stop
    alert = ComplianceAlert.objects.get(shipment=shipment)
    assert alert.acknowledged_at is None
    assert "CHENNAI AI COMPUTE PVT. LTD." in alert.text and shipment.reference in str(alert)
    assert latest(shipment).stale_since is None  # checked again for the record
    # An officer acknowledges it with a note; a note is required.
    with pytest.raises(ValidationError):
        services.alert_acknowledge(alert=alert, actor=compliance_officer, note="")
    services.alert_acknowledge(
        alert=alert, actor=compliance_officer, note="Carrier asked to hold the goods at BOM; BIS informed."
    )
    alert.refresh_from_db()
    assert alert.acknowledged_by == compliance_officer and alert.acknowledged_at is not None


# --- every input, one path ----------------------------------------------------------------------


def _country_data_edition(as_of: dt.date) -> dict:
    groups, chart = (
        json.loads((services.countries.DATA_DIR / name).read_text())
        for name in services.countries.DEFAULT_FILES
    )
    groups, chart = copy.deepcopy(groups), copy.deepcopy(chart)
    for data in (groups, chart):
        data["as_of"] = as_of.isoformat()
    return {"groups_json": groups, "chart_json": chart}


def _licence(shipment, licensee, indian_customer, actor):
    return services.licence_save(
        licence=Licence(),
        fields={
            "number": "D7654321",
            "licensee": licensee,
            "eccns": "5A992.c",
            "destination_countries": "IN",
            "consignee": indian_customer,
            "permitted_quantity": 10,
            "permitted_value": Decimal("100000"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": dt.date(2027, 12, 31),
        },
        actor=actor,
    )


INPUTS = [
    "list",
    "country_data",
    "classification",
    "licence_new",
    "licence_changed",
    "licence_ended",
    "party",
    "registration",
    "part",
    "certification",
    "requirement",
]


@pytest.mark.parametrize("kind", INPUTS)
def test_every_input_marks_the_answer_stale_with_its_reason_and_checks_again(
    kind,
    booked,
    coordinator,
    compliance_officer,
    us_shipper,
    indian_customer,
    switch,
    django_capture_on_commit_callbacks,
):
    shipment = booked()
    if kind == "licence_changed" or kind == "licence_ended":
        licence = _licence(shipment, us_shipper, indian_customer, compliance_officer)
        services.compliance_check_run(shipment=shipment, actor=coordinator)
    first = latest(shipment)
    assert first.stale_since is None
    change = {
        "list": lambda: import_edition(edition_with_chennai(), "test-2", actor=compliance_officer),
        "country_data": lambda: services.country_data_load(**_country_data_edition(dt.date(2026, 11, 30))),
        "classification": lambda: services.part_classification_override(
            part=switch,
            eccn="5A002.a",
            reason="Not mass market after all (vendor letter)",
            actor=compliance_officer,
        ),
        "licence_new": lambda: _licence(shipment, us_shipper, indian_customer, compliance_officer),
        "licence_changed": lambda: services.licence_save(
            licence=licence, fields={"permitted_quantity": 1}, actor=compliance_officer
        ),
        "licence_ended": lambda: services.licence_expire(
            licence=licence, reason="Revoked by BIS on appeal", actor=compliance_officer
        ),
        "party": lambda: account_services.organisation_update(
            organisation=indian_customer, fields={"legal_name": "Chennai AI Compute Pvt. Ltd."}
        ),
        "registration": lambda: account_services.registration_create(
            organisation=indian_customer, fields={"scheme": "ein", "number": "12-3456789", "country": "US"}
        ),
        "part": lambda: catalog_services.part_update(part=switch, fields={"country_of_origin": "TW"}),
        "certification": lambda: services.part_certification_save(
            certification=PartCertification(part=switch, scheme="wpc", country="IN", number="ETA-2026-1")
        ),
        "requirement": lambda: services.import_requirement_save(
            requirement=ImportRequirement(
                country="IN",
                kind="product_registration",
                scheme="wpc",
                name="WPC ETA",
                categories="network_switch",
            )
        ),
    }[kind]
    with django_capture_on_commit_callbacks(execute=False) as queued:
        change()
        stale = ComplianceCheck.objects.get(pk=first.pk)
        assert stale.stale_since is not None and stale.stale_reason, kind
        # Nothing moves the shipment while its answer is not current.
        with pytest.raises(TransitionRefused):
            depart(shipment, coordinator)
        assert fresh(shipment).status in ("booked", "on_hold")
    assert queued, "a re-check is queued"
    for callback in queued:
        callback()
    check = latest(shipment)
    assert check.pk != first.pk and check.stale_since is None, kind
    assert ComplianceCheck.objects.get(pk=first.pk).stale_reason == stale.stale_reason


@pytest.mark.parametrize("edit", ["line", "party", "terms"])
def test_a_draft_edit_marks_its_last_answer_stale(
    edit, ship, indian_customer, switch, coordinator, screening_list, sites
):
    """Lines, parties and terms change only in draft; the last check of a draft (run from its
    compliance page) says it no longer holds, and why; the check runs again on submission."""
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(switch, 2)], submit=False)
    first = services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert fresh(shipment).status == "draft"
    if edit == "line":
        shipment_services.line_update(line=shipment.lines.get(), fields={"quantity": 3}, actor=coordinator)
        words = "line 1"
    elif edit == "party":
        other = indian_customer.__class__.objects.create(
            kind="customer", legal_name="Bengaluru Compute", country="IN", city="Bengaluru"
        )
        shipment_services.party_set(
            shipment=shipment, role="consignee", organisation=other, actor=coordinator
        )
        words = "consignee"
    else:
        _, dc = sites
        shipment_services.shipment_update(shipment=shipment, fields={"destination": dc("SA", "Riyadh")})
        words = "destination"
    first.refresh_from_db()
    assert first.stale_since is not None and words in first.stale_reason.lower(), first.stale_reason


# --- the admin site's doors ---------------------------------------------------------------------
# Operator staff may change the same inputs on the admin site: each change there goes through the
# same services, so it marks the answers resting on it stale with the reason and checks them again.

ADMIN_DOORS = [
    "organisation",
    "registration_added",
    "part",
    "certification_added",
    "certification_deleted",
    "requirement_added",
    "requirement_deleted",
]


@pytest.mark.parametrize("door", ADMIN_DOORS)
def test_every_admin_door_to_an_input_marks_the_answer_stale(
    door, booked, admin_user, indian_customer, switch, client, django_capture_on_commit_callbacks
):
    shipment = booked()
    first = latest(shipment)
    client.force_login(admin_user)
    if door.endswith("_deleted"):
        model = PartCertification if door.startswith("certification") else ImportRequirement
        record = (
            PartCertification.objects.create(part=switch, scheme="wpc", country="IN", number="ETA-9")
            if model is PartCertification
            else ImportRequirement.objects.create(
                country="IN",
                kind="product_registration",
                scheme="wpc",
                name="WPC ETA",
                categories="network_switch",
            )
        )
        services.compliance_check_run(shipment=shipment, actor=admin_user)
        first = latest(shipment)
        assert first.stale_since is None
    organisation_url = f"/admin/accounts/organisation/{indian_customer.pk}/change/"
    with django_capture_on_commit_callbacks(execute=False) as queued:
        if door == "organisation":
            admin_save(client, organisation_url, legal_name="Chennai AI Compute Pvt. Ltd.")
            words = "legal name"
        elif door == "registration_added":
            form = admin_form(client, organisation_url)
            n = int(form["registrations-TOTAL_FORMS"])
            admin_save(
                client,
                organisation_url,
                **{
                    "registrations-TOTAL_FORMS": str(n + 1),
                    f"registrations-{n}-scheme": "ein",
                    f"registrations-{n}-number": "12-3456789",
                    f"registrations-{n}-country": "US",
                },
            )
            words = "registrations"
        elif door == "part":
            admin_save(client, f"/admin/catalog/part/{switch.pk}/change/", country_of_origin="TW")
            words = "country of origin"
        elif door == "certification_added":
            answer = client.post(
                "/admin/compliance/partcertification/add/",
                {"part": switch.pk, "scheme": "wpc", "country": "IN", "number": "ETA-1", "_save": "Save"},
            )
            assert answer.status_code == 302, form_errors(answer)
            words = "certification"
        elif door == "requirement_added":
            form = admin_form(client, "/admin/compliance/importrequirement/add/")
            form.update(
                country="IN",
                kind="product_registration",
                scheme="wpc",
                name="WPC ETA",
                categories="network_switch",
            )
            answer = client.post("/admin/compliance/importrequirement/add/", {**form, "_save": "Save"})
            assert answer.status_code == 302, form_errors(answer)
            words = "import requirement"
        else:
            url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/{record.pk}/delete/"
            assert client.post(url, {"post": "yes"}).status_code == 302
            assert not model.objects.filter(pk=record.pk).exists()
            words = "withdrawn"
        stale = ComplianceCheck.objects.get(pk=first.pk)
        assert stale.stale_since is not None and words in stale.stale_reason.lower(), (
            door,
            stale.stale_reason,
        )
        with pytest.raises(TransitionRefused):
            depart(shipment, admin_user)
    assert queued, "a re-check is queued"


def test_the_admin_site_shows_a_shipment_and_changes_nothing_of_it(booked, admin_user, client):
    """Lines, parties, terms and legs change through the shipment's services (status allowed,
    answer stale, checked again); the admin site would walk past all of that."""
    shipment = booked()
    client.force_login(admin_user)
    url = f"/admin/shipments/shipment/{shipment.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200 and b'name="_save"' not in page.content
    form = admin_form(client, url)
    answer = client.post(url, {**form, "incoterm": "DDP", "_save": "Save"})
    assert answer.status_code == 403
    assert client.post(f"/admin/shipments/shipment/{shipment.pk}/delete/", {"post": "yes"}).status_code == 403
    assert fresh(shipment).incoterm == shipment.incoterm
