"""Compliance API: classifications, determinations, licences, lists, screenings, hits, checks, tasks."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.compliance import services
from apps.compliance.models import (
    HitStatus,
    PartClassification,
    ScreeningHit,
    ScreeningList,
    ScreeningListEntry,
)
from tests.factories import OrganisationFactory

from .conftest import LIST


def test_classify_and_override_with_history(coordinator, compliance_officer, api_as, h100, switch):
    api = api_as(coordinator)
    run = api.post("/api/v1/classifications/run/", {"part": h100.pk}, format="json")
    assert run.status_code == 200, run.json()
    assert run.json()["eccn"] == "3A090.a"
    assert any("15,832" in line for line in run.json()["reasoning"])
    assert (
        api.post(
            "/api/v1/classifications/", {"part": h100.pk, "eccn": "EAR99", "reason": "x"}, format="json"
        ).status_code
        == 403
    )
    officer = api_as(compliance_officer)
    # The engine first (5A992.c): from there 5A002.a raises control, which one officer decides.
    assert (
        api.post("/api/v1/classifications/run/", {"part": switch.pk}, format="json").json()["eccn"]
        == "5A992.c"
    )
    no_reason = officer.post(
        "/api/v1/classifications/", {"part": switch.pk, "eccn": "5A002.a", "reason": " "}, format="json"
    )
    assert no_reason.status_code == 400 and "reason" in no_reason.json()
    ok = officer.post(
        "/api/v1/classifications/",
        {"part": switch.pk, "eccn": "5a002.A", "reason": "Manufacturer says not mass market"},
        format="json",
    )
    assert ok.status_code == 201 and ok.json()["eccn"] == "5A002.a" and ok.json()["source"] == "officer"
    # The engine does not replace an officer's classification.
    assert (
        api.post("/api/v1/classifications/run/", {"part": switch.pk}, format="json").json()["source"]
        == "officer"
    )
    history = api.get(f"/api/v1/classifications/?part={switch.pk}").json()["results"]
    assert len(history) == 1 or [h["is_current"] for h in history].count(True) == 1


def test_incomplete_part_lists_missing_figures(coordinator, api_as):
    from tests.factories import PartFactory

    part = PartFactory(part_number="GPU-X", category="accelerator")
    body = api_as(coordinator).post("/api/v1/classifications/run/", {"part": part.pk}, format="json").json()
    assert body["eccn"] == "" and body["is_complete"] is False and body["missing"]


@pytest.mark.parametrize(
    "payload, outcome",
    [
        ({"eccn": "4A090.a", "destination": "IN"}, "NLR"),
        ({"eccn": "4A090.a", "destination": "CN"}, "licence_required"),
        ({"eccn": "5A002.a", "destination": "IR"}, "prohibited"),
        (
            {
                "eccn": "EAR99",
                "destination": "IN",
                "entity_list": True,
                "end_user_country": "IN",
                "end_user_name": "Chennai AI Compute",
                "list_entry": "CHENNAI AI COMPUTE PVT. LTD. — Entity List, 91 FR 100",
            },
            "licence_required",
        ),
    ],
)
def test_determination_endpoint(coordinator, api_as, country_data, payload, outcome):
    body = api_as(coordinator).post("/api/v1/determinations/", payload, format="json").json()
    assert body["outcome"] == outcome and body["rules"]


def test_an_entity_list_determination_names_the_party_and_the_entry(coordinator, api_as, country_data):
    api = api_as(coordinator)
    unnamed = api.post(
        "/api/v1/determinations/",
        {"eccn": "EAR99", "destination": "IN", "entity_list": True, "end_user_country": "IN"},
        format="json",
    )
    assert unnamed.status_code == 400 and set(unnamed.json()) == {"end_user_name", "list_entry"}
    named = api.post(
        "/api/v1/determinations/",
        {
            "eccn": "EAR99",
            "destination": "IN",
            "entity_list": True,
            "end_user_name": "Chennai AI Compute",
            "list_entry": "CHENNAI AI COMPUTE PVT. LTD. — Entity List, 91 FR 100",
        },
        format="json",
    ).json()
    text = next(r["text"] for r in named["rules"] if r["code"] == "EL 744.11")
    assert "Chennai AI Compute" in text and "CHENNAI AI COMPUTE PVT. LTD. — Entity List, 91 FR 100" in text


def test_determination_unknown_country(coordinator, api_as, country_data):
    response = api_as(coordinator).post(
        "/api/v1/determinations/", {"eccn": "4A090.a", "destination": "XX"}, format="json"
    )
    assert response.status_code == 400 and "destination" in response.json()


def test_country_groups(coordinator, api_as, country_data):
    body = api_as(coordinator).get("/api/v1/countries/cn/").json()
    assert {"D:1", "D:4", "D:5"} <= set(body["groups"]) and body["as_of"] == "2026-07-23"
    assert api_as(coordinator).get("/api/v1/countries/ZZ/").status_code == 404


def test_licences_crud_and_scoping(compliance_officer, coordinator, saudi_customer, api_as, saudi_licence):
    officer = api_as(compliance_officer)
    body = officer.get("/api/v1/licences/").json()
    assert body["results"][0]["remaining_quantity"] == 6
    bad = officer.post(
        "/api/v1/licences/",
        {
            "number": "X1",
            "eccns": "4A090.a",
            "destination_countries": "QQ",
            "licensee": saudi_customer.pk,
            "consignee": saudi_customer.pk,
            "permitted_quantity": 1,
            "permitted_value": "10",
            "valid_from": "2026-01-01",
            "expires_on": "2026-12-31",
        },
        format="json",
    )
    assert bad.status_code == 400 and "destination_countries" in bad.json()
    assert api_as(coordinator).post("/api/v1/licences/", {}, format="json").status_code == 403
    # A partner sees licences naming its organisation, not others.
    from apps.accounts.roles import Role
    from tests.factories import UserFactory

    other = UserFactory(organisation=OrganisationFactory(legal_name="Other Co"), role=Role.PARTNER)
    assert api_as(other).get("/api/v1/licences/").json()["count"] == 0
    assert api_as(other).get(f"/api/v1/licences/{saudi_licence.pk}/").status_code == 404
    mine = UserFactory(organisation=saudi_customer, role=Role.PARTNER, username="riyadh")
    assert api_as(mine).get(f"/api/v1/licences/{saudi_licence.pk}/").status_code == 200


def test_list_import_is_all_or_nothing(compliance_officer, api_as):
    api = api_as(compliance_officer)
    broken = json.loads(json.dumps(LIST))
    broken["results"][1]["name"] = ""
    broken["results"][3]["addresses"] = [{"country": "XX1"}]
    response = api.post(
        "/api/v1/screening-lists/",
        {
            "name": "CSL",
            "source_format": "csl_json",
            "version": "v2",
            "file": SimpleUploadedFile("csl.json", json.dumps(broken).encode()),
        },
        format="multipart",
    )
    assert response.status_code == 400
    messages = response.json()["file"]
    assert any(m.startswith("Record 2") for m in messages) and any(m.startswith("Record 4") for m in messages)
    assert not ScreeningList.objects.exists() and not ScreeningListEntry.objects.exists()
    ok = api.post(
        "/api/v1/screening-lists/",
        {
            "name": "CSL",
            "source_format": "csl_json",
            "version": "v2",
            "file": SimpleUploadedFile("csl.json", json.dumps(LIST).encode()),
        },
        format="multipart",
    )
    assert ok.status_code == 201 and ok.json()["entry_count"] == 4
    garbage = api.post(
        "/api/v1/screening-lists/",
        {
            "name": "CSL",
            "source_format": "csl_json",
            "version": "v3",
            "file": SimpleUploadedFile("x.json", b"{no"),
        },
        format="multipart",
    )
    assert garbage.status_code == 400 and "file" in garbage.json()


def test_adhoc_screening_for_partners(supplier_user, api_as, screening_list):
    api = api_as(supplier_user)
    body = api.post(
        "/api/v1/screenings/",
        {"name": "Shenzhen Demo A.I. Technology Co Ltd", "country": "CN"},
        format="json",
    ).json()
    assert body["hit_count"] == 1 and body["hits"][0]["entry_name"].startswith("SHENZHEN DEMO AI")
    assert "50 %" in body["note"]
    assert (
        api.post("/api/v1/screenings/", {"name": "Acme Plumbing Supplies"}, format="json").json()["hit_count"]
        == 0
    )
    assert api.get("/api/v1/screenings/").json()["count"] == 2
    bad = api.post("/api/v1/screenings/", {"name": "x", "threshold": "0.2"}, format="json")
    assert bad.status_code == 400 and "threshold" in bad.json()


def test_hit_review_queue(compliance_officer, coordinator, api_as, screening_list):
    party = OrganisationFactory(legal_name="Northern Star Shipping L.L.C.", country="AE", city="Dubai")
    services.organisation_screen(organisation=party)
    hit = ScreeningHit.objects.get()
    assert api_as(coordinator).get("/api/v1/screening-hits/").status_code == 403
    officer = api_as(compliance_officer)
    assert officer.get("/api/v1/screening-hits/?status=open").json()["count"] == 1
    assert (
        officer.post(f"/api/v1/screening-hits/{hit.pk}/clear/", {"reason": ""}, format="json").status_code
        == 400
    )
    response = officer.post(
        f"/api/v1/screening-hits/{hit.pk}/confirm/", {"reason": "Same entity"}, format="json"
    )
    assert response.status_code == 200 and response.json()["status"] == HitStatus.CONFIRMED
    assert party.blocks.get().list_kind == "sanctions"
    again = officer.post(f"/api/v1/screening-hits/{hit.pk}/clear/", {"reason": "oops"}, format="json")
    assert again.status_code == 400


def test_checks_and_task_status_are_scoped(
    submitted, indian_customer, dgx, coordinator, api_as, supplier_user
):
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 1)])
    api = api_as(coordinator)
    started = api.post(f"/api/v1/shipments/{shipment.reference}/compliance-check/")
    assert started.status_code == 202
    task_id = started.json()["task_id"]
    # Eager Celery ran it on commit; the test transaction never commits, so run it as the task would.
    from apps.compliance.tasks import run_compliance_check

    run_compliance_check.apply(
        kwargs={"shipment_id": shipment.pk, "actor_id": coordinator.pk}, task_id=task_id
    )
    status = api.get(f"/api/v1/tasks/{task_id}/").json()
    assert status["state"] == "SUCCESS" and status["percent"] == 100 and status["result"]["result"] == "pass"
    checks = api.get(f"/api/v1/compliance-checks/?shipment__reference={shipment.reference}").json()
    assert checks["count"] == 1 and checks["results"][0]["line_results"][0]["eccn"] == "4A090.a"
    # The shipper (a party) sees the check; an outsider sees neither the check nor the task.
    assert api_as(supplier_user).get("/api/v1/compliance-checks/").json()["count"] == 1
    from apps.accounts.roles import Role
    from tests.factories import UserFactory

    outsider = api_as(
        UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere"), role=Role.PARTNER)
    )
    assert outsider.get("/api/v1/compliance-checks/").json()["count"] == 0
    assert outsider.get(f"/api/v1/tasks/{task_id}/").status_code == 404
    # Partners may not start checks at all (role), so the answer is 403 before any lookup.
    assert outsider.post(f"/api/v1/shipments/{shipment.reference}/compliance-check/").status_code == 403


def test_hold_reason_resolve_api(submitted, dgx, coordinator, compliance_officer, api_as):
    hanoi = OrganisationFactory(kind="customer", legal_name="Hanoi AI", country="VN", city="Hanoi")
    shipment = submitted(hanoi, "VN", "Hanoi", [(dgx, 1)])
    check = services.compliance_check_run(shipment=shipment, actor=coordinator)
    hold = check.hold_reasons.get()
    officer = api_as(compliance_officer)
    assert (
        api_as(coordinator)
        .post(f"/api/v1/hold-reasons/{hold.pk}/resolve/", {"resolution": "x"}, format="json")
        .status_code
        == 403
    )
    words = officer.post(
        f"/api/v1/hold-reasons/{hold.pk}/resolve/", {"resolution": "Licence obtained"}, format="json"
    )
    assert words.status_code == 400 and "licence_number" in words.json()
    unknown = officer.post(
        f"/api/v1/hold-reasons/{hold.pk}/resolve/", {"licence_number": "D1"}, format="json"
    )
    assert unknown.status_code == 400 and "No licence D1" in unknown.json()["licence_number"][0]
    assert hold.__class__.objects.get(pk=hold.pk).resolved_at is None


def test_classification_scoping(supplier_user, forwarder, api_as):
    from tests.factories import PartFactory

    foreign = PartFactory(owner=forwarder, category="rack", part_number="RACK-1")
    services.part_classify(part=foreign)
    api = api_as(supplier_user)
    assert api.get("/api/v1/classifications/").json()["count"] == 0
    assert api.post("/api/v1/classifications/run/", {"part": foreign.pk}, format="json").status_code == 403
    assert PartClassification.objects.count() == 1


def test_load_country_data_command(db, tmp_path):
    from django.core.management import CommandError, call_command

    from apps.compliance.models import CountryDataVersion

    call_command("load_country_data")
    assert CountryDataVersion.objects.get(is_active=True).as_of.isoformat() == "2026-07-23"
    broken = tmp_path / "groups.json"
    broken.write_text(json.dumps({"title": "x", "as_of": "2026-08-01", "groups": {"D:5": ["cn"]}}))
    chart = tmp_path / "chart.json"
    chart.write_text("{}")
    with pytest.raises(CommandError):
        call_command("load_country_data", "--groups", str(broken), "--chart", str(chart))
    assert CountryDataVersion.objects.count() == 1  # nothing half-loaded
