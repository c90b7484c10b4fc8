"""Compliance decisions that cannot be walked past: licences only for their holder, blocked parties
stay blocked, re-checks that never crash or double-count, reasons that quote the deciding rule."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from apps.accounts.models import ServiceCoverage
from apps.accounts.roles import Role
from apps.compliance import services
from apps.compliance.models import (
    ComplianceCheck,
    HitStatus,
    HoldKind,
    Licence,
    LicenceDrawdown,
    ScreeningHit,
)
from apps.shipments.models import Shipment
from apps.shipments.services import TransitionRefused, shipment_transition
from tests.factories import OrganisationFactory, UserFactory
from tests.four_eyes import clear_with_second_officer

from .conftest import LIST


def status_of(shipment) -> str:
    return Shipment.objects.get(pk=shipment.pk).status


def active_drawdowns(licence) -> list[LicenceDrawdown]:
    return list(LicenceDrawdown.objects.filter(licence=licence, released_at__isnull=True))


# --- licences belong to their holder ------------------------------------------------------


@pytest.mark.parametrize("role", ["notify_party", "importer_of_record", "freight_forwarder"])
def test_a_licence_is_not_used_because_its_consignee_plays_another_role(
    ship, saudi_customer, saudi_licence, dgx, coordinator, role
):
    mallory = OrganisationFactory(kind="customer", legal_name="Mallory Compute", country="SA", city="Riyadh")
    shipment = ship({"consignee": mallory, role: saudi_customer}, "SA", "Riyadh", [(dgx, 4)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert check.result == "hold" and status_of(shipment) == "on_hold"
    assert [h.kind for h in check.hold_reasons.all()] == [HoldKind.LICENCE]
    assert "D1234567" not in check.hold_reasons.get().text
    assert not active_drawdowns(saudi_licence)


def test_a_licence_is_used_only_when_its_licensee_is_the_exporter(
    ship, saudi_customer, saudi_licence, dgx, coordinator
):
    other_exporter = OrganisationFactory(kind="eor_provider", legal_name="Other Exporter Inc.", country="US")
    # An exporter of record must be able to act at the origin (issue 11): it covers Taiwan.
    ServiceCoverage.objects.create(organisation=other_exporter, service="eor", country="TW")
    shipment = ship(
        {"consignee": saudi_customer, "exporter_of_record": other_exporter}, "SA", "Riyadh", [(dgx, 1)]
    )
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "hold"
    assert not active_drawdowns(saudi_licence)


def test_a_licence_states_its_end_user(ship, saudi_customer, saudi_licence, dgx, coordinator):
    elsewhere = OrganisationFactory(kind="customer", legal_name="Jeddah AI", country="SA", city="Jeddah")
    shipment = ship(
        {"consignee": saudi_customer, "ultimate_consignee": elsewhere}, "SA", "Riyadh", [(dgx, 1)]
    )
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "hold"
    saudi_licence.end_user = elsewhere
    saudi_licence.save()
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "pass"


def test_a_partner_cannot_spend_a_licence_it_does_not_hold(
    ship, saudi_customer, saudi_licence, dgx, supplier, coordinator
):
    """Naming the licensee as shipper and its consignee as consignee on one's own shipment is not
    enough: only shipments of the licensee (or of the operator acting for it) draw on it."""
    mallory = OrganisationFactory(kind="customer", legal_name="Mallory Holdings", country="SA")
    partner = UserFactory(organisation=mallory, role=Role.PARTNER, username="mallory")
    # Since issue 9 a partner names only organisations it is connected with; even connected with
    # both, its shipment does not draw on their licence.
    from apps.accounts.services import connection_create

    connection_create(actor=coordinator, organisation=mallory, other=supplier)
    connection_create(actor=coordinator, organisation=mallory, other=saudi_customer)
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 4)], actor=partner)
    assert shipment.owner_id == mallory.pk
    check = services.compliance_check_run(shipment=shipment, actor=partner)
    assert check.result == "hold" and not active_drawdowns(saudi_licence)
    assert services.remaining([saudi_licence])[saudi_licence.pk][0] == 6


def test_partners_do_not_learn_another_organisations_licence_from_a_check(
    ship, saudi_customer, saudi_licence, dgx, coordinator, forwarder, forwarder_user, api_as, browser_as
):
    shipment = ship({"consignee": saudi_customer, "freight_forwarder": forwarder}, "SA", "Riyadh", [(dgx, 4)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert check.result == "pass"
    body = api_as(forwarder_user).get(f"/api/v1/compliance-checks/{check.pk}/").json()
    text = json.dumps(body)
    assert "D1234567" not in text and body["line_results"][0]["licence"] == "held by the exporter"
    page = browser_as(forwarder_user).get(f"/compliance/shipments/{shipment.reference}/").content.decode()
    assert "D1234567" not in page
    # The licence's own parties do see it.
    riyadh = UserFactory(organisation=saudi_customer, role=Role.PARTNER, username="riyadh-api")
    assert "D1234567" in json.dumps(api_as(riyadh).get(f"/api/v1/compliance-checks/{check.pk}/").json())


# --- re-checks that never crash and never double-count --------------------------------------


def test_a_recheck_after_a_licence_edit_replaces_its_own_drawdown(
    ship, saudi_customer, saudi_licence, dgx, coordinator
):
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 4)])
    first = services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert first.result == "pass" and status_of(shipment) == "approved"
    services.licence_save(licence=saudi_licence, fields={"conditions": "End-user visit within 6 months."})
    again = services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert again.pk != first.pk and again.result == "pass", [h.text for h in again.hold_reasons.all()]
    assert [d.compliance_check_id for d in active_drawdowns(saudi_licence)] == [again.pk]
    assert services.remaining([saudi_licence])[saudi_licence.pk] == (
        2,
        Decimal("3000000") - 4 * dgx.unit_value,
    )
    assert status_of(shipment) == "approved"


def test_the_fingerprint_ignores_what_the_answer_does_not_depend_on(
    ship, saudi_customer, saudi_licence, indian_customer, dgx, coordinator, supplier, screening_list
):
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 1)])
    before = services.shipment_fingerprint(shipment)
    # Another organisation's licence edited; a new list edition that finds nothing new for these parties.
    services.licence_save(
        licence=Licence(),
        fields={
            "number": "D999",
            "licensee": supplier,
            "eccns": "4A090.a",
            "destination_countries": "IN",
            "consignee": indian_customer,
            "permitted_quantity": 1,
            "permitted_value": Decimal("1"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": dt.date(2027, 1, 1),
        },
    )
    services.screening_list_import(
        name="CSL", source_format="csl_json", data=json.dumps(LIST).encode(), version="test-2", rescreen=False
    )
    assert services.shipment_fingerprint(shipment) == before
    services.licence_save(licence=saudi_licence, fields={"permitted_quantity": 8})
    assert services.shipment_fingerprint(shipment) != before


def test_cancelling_releases_the_licence(ship, saudi_customer, saudi_licence, dgx, coordinator):
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 4)])
    services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert services.remaining([saudi_licence])[saudi_licence.pk][0] == 2
    shipment_transition(shipment=shipment, target="cancelled", actor=coordinator, reason="Customer withdrew")
    assert services.remaining([saudi_licence])[saudi_licence.pk] == (6, Decimal("3000000"))
    released = LicenceDrawdown.objects.get()
    assert released.released_at is not None and "cancelled" in released.released_reason


def test_a_held_shipment_moves_on_when_its_recheck_passes(ship, saudi_customer, dgx, coordinator, supplier):
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 2)])
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "hold"
    assert status_of(shipment) == "on_hold"
    services.licence_save(
        licence=Licence(),
        fields={
            "number": "D42",
            "licensee": supplier,
            "eccns": "4A090",
            "destination_countries": "SA",
            "consignee": saudi_customer,
            "permitted_quantity": 2,
            "permitted_value": Decimal("1000000"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": dt.date(2027, 12, 31),
        },
    )
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "pass"
    assert status_of(shipment) == "approved"


def test_releasing_a_hold_applies_the_check_of_that_version(
    ship, indian_customer, dgx, coordinator, compliance_officer
):
    from apps.compliance.models import ImportRequirement

    ImportRequirement.objects.create(
        country="IN", kind="product_registration", scheme="bis_crs", name="BIS CRS", hs_prefixes="8471"
    )
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(dgx, 1)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    hold = check.hold_reasons.get()
    assert hold.kind == HoldKind.IMPORT and status_of(shipment) == "on_hold"
    with pytest.raises(ValidationError):
        services.hold_reason_resolve(hold=hold, actor=compliance_officer, resolution="ok")
    services.hold_reason_resolve(
        hold=hold, actor=compliance_officer, resolution="BIS CRS R-41001234 seen on the importer's filing"
    )
    assert status_of(shipment) == "approved"
    assert ComplianceCheck.objects.filter(shipment=shipment).count() == 1


# --- a blocked party stays blocked ---------------------------------------------------------


@pytest.fixture
def chinese_lookalike(db):
    return OrganisationFactory(
        kind="customer",
        legal_name="Shenzhen Demo AI Technology Company Limited",
        country="CN",
        city="Shenzhen",
    )


def test_a_confirmed_match_cannot_be_typed_away(
    ship,
    chinese_lookalike,
    dgx,
    coordinator,
    compliance_officer,
    screening_list,
    django_capture_on_commit_callbacks,
):
    shipment = ship({"consignee": chinese_lookalike}, "CN", "Shenzhen", [(dgx, 2)])
    first = services.compliance_check_run(shipment=shipment, actor=coordinator)
    hit = ScreeningHit.objects.get(status=HitStatus.OPEN, screening__organisation=chinese_lookalike)
    services.hit_confirm(hit=hit, actor=compliance_officer, reason="Same entity: address and officers match")
    # The possible-match reason of the held check now says the party is blocked; it stays open.
    reason = first.hold_reasons.get(kind=HoldKind.BLOCKED)
    assert reason.resolved_at is None and "confirmed match" in reason.text
    check = services.compliance_check_run(shipment=shipment, actor=compliance_officer)
    kinds = {h.kind for h in check.hold_reasons.all()}
    assert HoldKind.BLOCKED in kinds and HoldKind.LICENCE in kinds
    assert HoldKind.SCREENING not in kinds  # a confirmed hit is not raised again as "possible"
    for hold in check.hold_reasons.all():
        with pytest.raises(ValidationError):
            services.hold_reason_resolve(hold=hold, actor=compliance_officer, resolution="ok")
    assert not check.hold_reasons.filter(resolved_at__isnull=False).exists()
    with pytest.raises(TransitionRefused):
        shipment_transition(shipment=shipment, target="approved", actor=compliance_officer)
    # Nor does releasing the hold: one officer cannot (four eyes: test_four_eyes.py), and released
    # by two, the check of this version holds it again.
    with pytest.raises(TransitionRefused, match="compliance page"):
        shipment_transition(shipment=shipment, target="release", actor=compliance_officer)
    from tests.four_eyes import second_officer_of

    asked = services.compliance_hold_release_request(
        shipment=shipment, actor=compliance_officer, reason="Released to see it held again"
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.approval_approve(approval=asked, actor=second_officer_of(compliance_officer))
    assert status_of(shipment) == "on_hold"


def test_clearing_a_hit_resolves_the_reasons_it_raised(
    ship, dgx, coordinator, compliance_officer, screening_list, indian_lookalike
):
    lookalike = indian_lookalike
    shipment = ship({"consignee": lookalike}, "IN", "Chennai", [(dgx, 1)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    reason = check.hold_reasons.get()
    assert reason.kind == HoldKind.SCREENING and reason.hit is not None
    with pytest.raises(ValidationError):
        services.hold_reason_resolve(
            hold=reason, actor=compliance_officer, resolution="Not the same company at all"
        )
    clear_with_second_officer(
        hit=reason.hit, actor=compliance_officer, reason="Indian company, different registration"
    )
    reason.refresh_from_db()
    assert reason.resolved_at is not None and reason.resolved_via == "hit_cleared"
    assert status_of(shipment) == "approved"


# --- reasons that quote the rule that decided ------------------------------------------------


def test_a_prohibited_line_quotes_the_embargo_and_cannot_be_resolved(
    ship, dgx, coordinator, compliance_officer
):
    tehran = OrganisationFactory(kind="customer", legal_name="Tehran Compute", country="IR", city="Tehran")
    shipment = ship({"consignee": tehran}, "IR", "Tehran", [(dgx, 1)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    prohibited = check.hold_reasons.get(kind=HoldKind.PROHIBITED)
    assert "EMBARGO 746" in prohibited.text and "comprehensive embargo" in prohibited.text
    assert "Viet" not in prohibited.text and "742.6" not in prohibited.text
    with pytest.raises(ValidationError, match="cannot be resolved"):
        services.hold_reason_resolve(
            hold=prohibited, actor=compliance_officer, resolution="Approved by management anyway"
        )


# --- accepted input never crashes a check ----------------------------------------------------


def test_a_destination_missing_from_the_country_data_holds_with_a_reason(
    ship, coordinator, dgx, api_as, django_capture_on_commit_callbacks
):
    station = OrganisationFactory(kind="customer", legal_name="Polar Station", country="AQ", city="McMurdo")
    shipment = ship({"consignee": station}, "AQ", "McMurdo", [(dgx, 1)], submit=False)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_as(coordinator).post(
            f"/api/v1/shipments/{shipment.reference}/transition/", {"to": "compliance_review"}, format="json"
        )
    assert response.status_code == 200, response.content
    check = ComplianceCheck.objects.get(shipment=shipment)
    reason = check.hold_reasons.get(kind=HoldKind.CHECK_ERROR)
    assert "AQ" in reason.text and status_of(shipment) == "on_hold"


def test_an_engine_failure_holds_the_shipment_instead_of_a_500(
    ship, indian_customer, dgx, coordinator, monkeypatch, api_as, django_capture_on_commit_callbacks
):
    from apps.compliance.services import line_licences

    def broken(*args, **kwargs):
        raise RuntimeError("rule table unreadable")

    monkeypatch.setattr(line_licences, "determine", broken)
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(dgx, 1)], submit=False)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_as(coordinator).post(
            f"/api/v1/shipments/{shipment.reference}/transition/", {"to": "compliance_review"}, format="json"
        )
    assert response.status_code == 200
    check = ComplianceCheck.objects.get(shipment=shipment)
    assert check.hold_reasons.get().kind == HoldKind.CHECK_ERROR
    assert "rule table unreadable" in check.hold_reasons.get().text
    assert status_of(shipment) == "on_hold"
    monkeypatch.undo()
    # Running it again computes afresh (an error is never the cached answer for a version).
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "pass"
    assert status_of(shipment) == "approved"


# --- licence figures that are right in every process -----------------------------------------


def test_licence_detail_is_fresh_in_a_long_running_process(
    compliance_officer, api_as, saudi_licence, saudi_customer, supplier
):
    api = api_as(compliance_officer)
    assert api.get(f"/api/v1/licences/{saudi_licence.pk}/").json()["remaining_quantity"] == 6
    second = services.licence_save(
        licence=Licence(),
        fields={
            "number": "D2",
            "licensee": supplier,
            "eccns": "4A090",
            "destination_countries": "SA",
            "consignee": saudi_customer,
            "permitted_quantity": 9,
            "permitted_value": Decimal("10"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": dt.date(2027, 1, 1),
        },
    )
    services.licence_save(licence=saudi_licence, fields={"permitted_quantity": 7})
    assert api.get(f"/api/v1/licences/{second.pk}/").json()["remaining_quantity"] == 9
    assert api.get(f"/api/v1/licences/{saudi_licence.pk}/").json()["remaining_quantity"] == 7
    patched = api.patch(f"/api/v1/licences/{saudi_licence.pk}/", {"permitted_quantity": 5}, format="json")
    assert patched.json()["remaining_quantity"] == 5


def test_licence_write_answers_show_what_is_left_after_drawdowns(
    ship, saudi_customer, saudi_licence, dgx, coordinator, compliance_officer, api_as, supplier
):
    """A POST or PATCH answers with the licence as it stands: permitted less what shipments drew."""
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 4)])
    services.compliance_check_run(shipment=shipment, actor=coordinator)
    api = api_as(compliance_officer)
    patched = api.patch(f"/api/v1/licences/{saudi_licence.pk}/", {"permitted_quantity": 10}, format="json")
    assert patched.status_code == 200, patched.json()
    assert patched.json()["remaining_quantity"] == 10 - 4
    assert (
        patched.json()["remaining_value"]
        == api.get(f"/api/v1/licences/{saudi_licence.pk}/").json()["remaining_value"]
    )
    created = api.post(
        "/api/v1/licences/",
        {
            "number": "D77",
            "licensee": supplier.pk,
            "eccns": "4A090.a",
            "destination_countries": "SA",
            "consignee": saudi_customer.pk,
            "permitted_quantity": 3,
            "permitted_value": "100.00",
            "valid_from": "2026-01-01",
            "expires_on": "2027-01-01",
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert (created.json()["remaining_quantity"], created.json()["remaining_value"]) == (3, "100.00")


def test_visible_to_never_hands_back_a_shared_queryset(compliance_officer, saudi_licence):
    base = Licence.objects.all()
    list(base)  # evaluated and cached, as a class attribute would be
    assert base.visible_to(compliance_officer) is not base
    assert base.visible_to(compliance_officer)._result_cache is None


# --- classification changes and defaults -----------------------------------------------------


def test_an_override_makes_open_shipments_stale_and_sends_an_approved_one_back(
    ship, switch, coordinator, compliance_officer, django_capture_on_commit_callbacks
):
    hanoi = OrganisationFactory(kind="customer", legal_name="Hanoi AI", country="VN", city="Hanoi")
    shipment = ship({"consignee": hanoi}, "VN", "Hanoi", [(switch, 2)])
    first = services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert first.result == "pass" and status_of(shipment) == "approved"
    with django_capture_on_commit_callbacks(execute=True):
        services.part_classification_override(
            part=switch,
            eccn="4A090.a",
            reason="Its DPU meets 3A090.a (supplier's letter)",
            actor=compliance_officer,
        )
    first.refresh_from_db()
    assert first.stale_since is not None and "4A090.a" in first.stale_reason
    latest = shipment.compliance_checks.order_by("-finished_at", "-id").first()
    assert latest.pk != first.pk and latest.result == "hold"
    assert status_of(shipment) == "on_hold"
    from apps.core.models import AuditEvent

    moves = [e.changes["status"] for e in AuditEvent.objects.for_object(shipment).filter(action="transition")]
    assert ["approved", "compliance_review"] in moves and ["compliance_review", "on_hold"] in moves


def test_a_category_default_needs_an_officers_confirmation(
    ship, indian_customer, coordinator, compliance_officer
):
    from tests.factories import PartFactory

    pdu = PartFactory(part_number="PDU-1", name="Rack PDU", category="pdu", hs_code="853710")
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(pdu, 4)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    hold = check.hold_reasons.get()
    assert hold.kind == HoldKind.UNCONFIRMED and "EAR99" in hold.text and status_of(shipment) == "on_hold"
    with pytest.raises(ValidationError):
        services.hold_reason_resolve(hold=hold, actor=compliance_officer, resolution="ok")
    asked = services.hold_reason_resolve(
        hold=hold, actor=compliance_officer, resolution="Vendor datasheet states EAR99 (rev. 2026-03)"
    )
    # Confirming a default is a four-eyes decision (test_four_eyes.py): a second officer approves.
    from tests.four_eyes import second_officer_of

    services.approval_approve(approval=asked.pending_approval, actor=second_officer_of(compliance_officer))
    current = services.current_classification(pdu)
    assert current.source == "officer" and current.eccn == "EAR99" and not current.needs_confirmation
    # The confirmation is a new classification: the shipment's check of the new version passes.
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "pass"
    assert status_of(shipment) == "approved"


def test_a_licence_reason_resolved_with_a_licence_draws_on_it(
    ship, saudi_customer, saudi_licence, dgx, coordinator, compliance_officer, monkeypatch
):
    """The licence starts tomorrow: held today; tomorrow the officer names it and the line draws on it."""
    from apps.compliance.services import holds

    today = timezone.localdate()
    Licence.objects.filter(pk=saudi_licence.pk).update(valid_from=today + dt.timedelta(days=1))
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 2)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    hold = check.hold_reasons.get()
    assert hold.kind == HoldKind.LICENCE and "not valid today" in hold.text
    # The shipment's own hold reason, which every party reads, does not name the licence.
    assert "D1234567" not in Shipment.objects.get(pk=shipment.pk).hold_reason
    with pytest.raises(ValidationError, match="not valid today"):
        services.hold_reason_resolve(hold=hold, actor=compliance_officer, licence_number="D1234567")
    monkeypatch.setattr(holds.timezone, "localdate", lambda: today + dt.timedelta(days=1))
    services.hold_reason_resolve(hold=hold, actor=compliance_officer, licence_number="d1234567")
    hold.refresh_from_db()
    assert hold.resolved_via == "licence" and hold.licence_id == saudi_licence.pk
    assert [d.quantity for d in active_drawdowns(saudi_licence)] == [2]
    assert check.line_results.get().licence_id == saudi_licence.pk
    assert status_of(shipment) == "approved"
    from apps.core.models import AuditEvent

    shipment_history = " ".join(AuditEvent.objects.for_object(shipment).values_list("message", flat=True))
    assert "D1234567" not in shipment_history
    assert "SHP-" in " ".join(AuditEvent.objects.for_object(saudi_licence).values_list("message", flat=True))


@pytest.mark.parametrize("country, city", [("VN", "Hanoi"), ("CN", "Shanghai")])
def test_a_server_saved_without_its_accelerator_never_passes(ship, coordinator, country, city):
    from tests.factories import PartFactory

    b200 = PartFactory(part_number="DGXB-G1440+P2EDI36", name="DGX B200", category="server", hs_code="847150")
    consignee = OrganisationFactory(kind="customer", legal_name=f"{city} AI", country=country, city=city)
    shipment = ship({"consignee": consignee}, country, city, [(b200, 1)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    assert check.result == "hold" and status_of(shipment) == "on_hold"
    reason = check.hold_reasons.get(kind=HoldKind.CLASSIFICATION)
    assert "accelerator" in reason.text and "4A994" not in check.line_results.get().eccn


def test_a_string_flag_in_attributes_is_refused_at_input_not_a_500_later(coordinator, api_as, h100):
    part = api_as(coordinator).get(f"/api/v1/parts/{h100.pk}/").json()
    response = api_as(coordinator).patch(
        f"/api/v1/parts/{h100.pk}/", {"attributes": {"data_centre": "false"}}, format="json"
    )
    assert response.status_code == 400 and "attributes" in response.json(), part
    ok = api_as(coordinator).patch(f"/api/v1/parts/{h100.pk}/", {"data_centre": False}, format="json")
    assert ok.status_code == 200 and ok.json()["data_centre"] is False
    assert (
        api_as(coordinator).post("/api/v1/classifications/run/", {"part": h100.pk}, format="json").status_code
        == 200
    )


def test_the_check_reads_the_parts_data_centre_flag(ship, coordinator):
    from tests.factories import PartFactory

    workstation_gpu = PartFactory(
        part_number="RTX-X",
        name="Workstation GPU",
        category="accelerator",
        hs_code="847330",
        tpp=Decimal("5000"),
        die_area_mm2=Decimal("600"),
        data_centre=False,
    )
    hanoi = OrganisationFactory(kind="customer", legal_name="Hanoi Studio", country="VN", city="Hanoi")
    shipment = ship({"consignee": hanoi}, "VN", "Hanoi", [(workstation_gpu, 1)])
    line = services.compliance_check_run(shipment=shipment, actor=coordinator).line_results.get()
    assert line.eccn == "3A090.a" and line.outcome == "licence_exception" and line.licence_exception == "ACA"


def test_reversing_a_confirmed_match_takes_two_officers_and_then_the_shipment_moves_on(
    ship,
    dgx,
    coordinator,
    compliance_officer,
    screening_list,
    indian_lookalike,
    django_capture_on_commit_callbacks,
):
    from apps.compliance.models import PartyBlock

    lookalike = indian_lookalike
    shipment = ship({"consignee": lookalike}, "IN", "Chennai", [(dgx, 1)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    services.hit_confirm(
        hit=check.hold_reasons.get().hit, actor=compliance_officer, reason="Looks like the same"
    )
    held = services.compliance_check_run(shipment=shipment, actor=compliance_officer)
    # Blocked, and as an Entity List party it needs a licence for everything.
    assert {h.kind for h in held.hold_reasons.all()} == {HoldKind.BLOCKED, HoldKind.LICENCE}
    block = PartyBlock.objects.get(organisation=lookalike, lifted_at__isnull=True)
    services.block_lift_request(
        block=block, actor=compliance_officer, reason="Different CIN; Indian start-up"
    )
    with pytest.raises(PermissionDenied):
        services.block_lift_approve(block=block, actor=compliance_officer)  # not the same officer
    assert status_of(shipment) == "on_hold"
    second = UserFactory(
        organisation=compliance_officer.organisation, role=Role.COMPLIANCE_OFFICER, username="o2"
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.block_lift_approve(block=block, actor=second)
    assert held.hold_reasons.get(kind=HoldKind.BLOCKED).resolved_via == "block_lifted"
    # The facts are back to those of the first check (no block; the hit reversed, which counts as
    # cleared), whose one reason the lift resolved: that check applies and the shipment moves on.
    assert services.approval_problems(shipment) == []
    assert status_of(shipment) == "approved"


def test_a_licence_added_in_the_admin_moves_a_waiting_shipment_on(
    ship, saudi_customer, dgx, coordinator, supplier, admin_user, client, django_capture_on_commit_callbacks
):
    shipment = ship({"consignee": saudi_customer}, "SA", "Riyadh", [(dgx, 1)])
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "hold"
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/compliance/licence/add/",
            {
                "number": "D555",
                "issuing_authority": "US Department of Commerce, BIS",
                "eccns": "4a090.A",
                "destination_countries": "SA",
                "licensee": supplier.pk,
                "consignee": saudi_customer.pk,
                "permitted_quantity": 2,
                "permitted_value": "1000000",
                "currency": "USD",
                "valid_from": "2026-01-01",
                "expires_on": "2027-12-31",
            },
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Licence.objects.get(number="D555").eccns == "4A090.a"
    assert status_of(shipment) == "approved"


def test_licence_figures_and_resolution_notes_are_bounded(
    compliance_officer, api_as, saudi_customer, supplier, ship, indian_customer, dgx, coordinator
):
    body = {
        "number": "DX",
        "licensee": supplier.pk,
        "eccns": "4A090.a",
        "destination_countries": "SA",
        "consignee": saudi_customer.pk,
        "permitted_quantity": 10_000_001,
        "permitted_value": "99999999999999.99",
        "valid_from": "2026-01-01",
        "expires_on": "2026-12-31",
    }
    response = api_as(compliance_officer).post("/api/v1/licences/", body, format="json")
    assert response.status_code == 400 and {"permitted_quantity", "permitted_value"} <= set(response.json())
    from apps.compliance.models import ImportRequirement

    ImportRequirement.objects.create(
        country="IN", kind="product_registration", scheme="bis_crs", name="BIS CRS", hs_prefixes="8471"
    )
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(dgx, 1)])
    hold = services.compliance_check_run(shipment=shipment, actor=coordinator).hold_reasons.get()
    with pytest.raises(ValidationError) as excinfo:
        services.hold_reason_resolve(
            hold=hold, actor=compliance_officer, resolution="BIS CRS R-4100 seen \u202eon the filing"
        )
    assert "resolution" in excinfo.value.message_dict
