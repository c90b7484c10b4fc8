"""Documents through the API: required set, generation task, issue/void, scoped downloads, bundles."""

import io
import zipfile

import pytest

from apps.accounts.roles import Role
from apps.compliance import services as compliance
from apps.documents import services
from apps.documents.models import Document
from apps.documents.tasks import generate_documents
from tests.factories import OrganisationFactory, UserFactory
from tests.shipments.conftest import pack_all


@pytest.fixture
def unpacked(submitted, indian_customer, dgx, coordinator):
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 1)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    return shipment


@pytest.fixture
def approved(unpacked):
    pack_all(unpacked)
    return unpacked


def test_required_documents_and_generation_task(unpacked, coordinator, api_as):
    approved = unpacked
    api = api_as(coordinator)
    required = api.get(f"/api/v1/shipments/{approved.reference}/documents/").json()["required"]
    assert {r["doc_type"] for r in required} >= {"commercial_invoice", "packing_list", "end_user_statement"}
    packing = next(r for r in required if r["doc_type"] == "packing_list")
    assert packing["problems"] and packing["problems"][0]["field"] == "packages"
    started = api.post(
        f"/api/v1/shipments/{approved.reference}/documents/",
        {"doc_types": ["end_user_statement", "packing_list"]},
        format="json",
    )
    assert started.status_code == 202
    task_id = started.json()["task_id"]
    result = generate_documents.apply(
        kwargs={
            "shipment_id": approved.pk,
            "actor_id": coordinator.pk,
            "doc_types": ["end_user_statement", "packing_list"],
        },
        task_id=task_id,
    ).get()
    assert len(result["documents"]) == 1 and "packing_list" in result["refused"]
    status = api.get(f"/api/v1/tasks/{task_id}/").json()
    assert status["state"] == "SUCCESS" and status["result"]["refused"]["packing_list"]
    bad = api.post(
        f"/api/v1/shipments/{approved.reference}/documents/", {"doc_types": ["passport"]}, format="json"
    )
    assert bad.status_code == 400 and "doc_types" in bad.json()


def test_issue_void_download_and_partner_scoping(approved, coordinator, api_as, supplier_user):
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    api = api_as(coordinator)
    assert api_as(supplier_user).post(f"/api/v1/documents/{document.pk}/issue/").status_code == 403
    issued = api.post(f"/api/v1/documents/{document.pk}/issue/").json()
    assert issued["status"] == "issued" and issued["sha256"] == document.sha256
    # The shipper's user (a partner) downloads its own shipment's document…
    download = api_as(supplier_user).get(f"/api/v1/documents/{document.pk}/download/")
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"
    assert download.content[:5] == b"%PDF-"
    # …another organisation's user cannot even see it.
    outsider = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere"), role=Role.PARTNER)
    assert api_as(outsider).get(f"/api/v1/documents/{document.pk}/download/").status_code == 404
    assert (
        api_as(outsider).get(f"/api/v1/shipments/{approved.reference}/documents/bundle/").status_code == 404
    )
    no_reason = api.post(f"/api/v1/documents/{document.pk}/void/", {"reason": ""}, format="json")
    assert no_reason.status_code == 400 and "reason" in no_reason.json()
    voided = api.post(
        f"/api/v1/documents/{document.pk}/void/", {"reason": "Superseded by amended invoice"}, format="json"
    )
    assert voided.json()["status"] == "void"
    assert api.delete(f"/api/v1/documents/{document.pk}/").status_code == 405
    assert Document.objects.filter(pk=document.pk).exists()


def test_tampered_file_is_refused_on_download(approved, coordinator, api_as):
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    with open(document.pdf.path, "ab") as handle:
        handle.write(b"% appended")
    response = api_as(coordinator).get(f"/api/v1/documents/{document.pk}/download/")
    assert response.status_code == 409 and "SHA-256" in response.json()["detail"]


def test_bundle_endpoints(approved, coordinator, api_as):
    for doc_type in ("commercial_invoice", "end_user_statement"):  # bundles hold issued versions
        document = services.document_generate(shipment=approved, doc_type=doc_type, actor=coordinator)
        services.document_issue(document=document, actor=coordinator)
    api = api_as(coordinator)
    zipped = api.get(f"/api/v1/shipments/{approved.reference}/documents/bundle/?as=zip")
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as archive:
        assert len([n for n in archive.namelist() if n.endswith(".pdf")]) == 2
    merged = api.get(f"/api/v1/shipments/{approved.reference}/documents/bundle/?as=pdf")
    assert merged.content[:5] == b"%PDF-"


def test_list_is_scoped_with_constant_queries(approved, coordinator, api_as, django_assert_num_queries):
    for doc_type in ("commercial_invoice", "end_user_statement"):
        services.document_generate(shipment=approved, doc_type=doc_type, actor=coordinator)
    api = api_as(coordinator)
    api.get("/api/v1/me/")
    with django_assert_num_queries(3):
        body = api.get("/api/v1/documents/").json()
    assert body["count"] == 2
