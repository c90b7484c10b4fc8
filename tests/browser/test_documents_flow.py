"""In real Chromium: a coordinator generates, issues and downloads the commercial invoice."""

import io
import zipfile

import pytest
from pypdf import PdfReader

from apps.accounts.roles import Role
from apps.compliance import services as compliance
from apps.documents.models import Document
from tests.factories import PASSWORD, UserFactory
from tests.shipments.conftest import pack_all

from .test_catalogue_flow import page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_generate_issue_and_download_the_invoice(page, live_server, transactional_db, request):  # noqa: F811
    from playwright.sync_api import expect

    submitted = request.getfixturevalue("submitted")
    shipment = submitted(
        request.getfixturevalue("indian_customer"), "IN", "Chennai", [(request.getfixturevalue("dgx"), 2)]
    )
    coordinator = request.getfixturevalue("coordinator")
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=coordinator.organisation)

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/shipments/{shipment.reference}/")
    page.get_by_role("link", name="Documents").first.click()

    invoice = page.locator("#doc-commercial_invoice")
    expect(invoice).to_contain_text("not issued")
    invoice.get_by_role("button", name="Generate it").click()
    # Generation runs as a task; the page shows its progress, then the new version.
    expect(page.locator("#task")).to_contain_text("success", timeout=30_000)
    page.goto(f"{live_server.url}/shipments/{shipment.reference}/documents/")
    invoice = page.locator("#doc-commercial_invoice")
    expect(invoice).to_contain_text("CI-")
    invoice.get_by_role("button", name="Issue").click()
    expect(page.get_by_text("issued; its bytes are now final")).to_be_visible()

    with page.expect_download() as download_info:
        page.locator("#doc-commercial_invoice").get_by_role("link", name="Download").first.click()
    download = download_info.value
    with open(download.path(), "rb") as handle:
        data = handle.read()
    document = Document.objects.get(doc_type="commercial_invoice")
    assert document.status == "issued" and download.suggested_filename == f"{document.number}-v1.pdf"
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
    assert document.number in text and "847150" in text


def _log_in(tab, live_server, username):
    tab.goto(f"{live_server.url}/login/")
    tab.get_by_label("Username").fill(username)
    tab.get_by_label("Password").fill(PASSWORD)
    tab.get_by_role("button", name="Log in").click()


@pytest.mark.browser
def test_issue_void_reissue_and_the_partner_bundle_holds_the_issued_versions(
    page,  # noqa: F811
    live_server,
    transactional_db,
    request,
):
    """Issue 10: a coordinator issues, voids and re-issues the invoice; the shipper's partner user
    downloads the bundle and gets exactly the issued version (not the void one, no draft)."""
    from playwright.sync_api import expect

    from apps.documents import services

    submitted = request.getfixturevalue("submitted")
    shipment = submitted(
        request.getfixturevalue("indian_customer"), "IN", "Chennai", [(request.getfixturevalue("dgx"), 2)]
    )
    coordinator = request.getfixturevalue("coordinator")
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=coordinator.organisation)
    UserFactory(username="pat", role=Role.PARTNER, organisation=request.getfixturevalue("supplier"))
    documents_url = f"{live_server.url}/shipments/{shipment.reference}/documents/"

    _log_in(page, live_server, "sam")
    page.goto(documents_url)
    page.locator("#doc-commercial_invoice").get_by_role("button", name="Generate it").click()
    expect(page.locator("#task")).to_contain_text("success", timeout=30_000)
    page.goto(documents_url)
    page.locator("#doc-commercial_invoice").get_by_role("button", name="Issue").click()
    expect(page.get_by_text("issued; its bytes are now final")).to_be_visible()
    first = Document.objects.get(doc_type="commercial_invoice", version=1)
    invoice = page.locator("#doc-commercial_invoice")
    invoice.get_by_label(f"Reason to void {first}").fill("Wrong unit price on line 1")
    invoice.get_by_role("button", name="Void").click()
    expect(page.get_by_text(f"{first} voided.")).to_be_visible()
    page.locator("#doc-commercial_invoice").get_by_role("button", name="Generate a new version").click()
    expect(page.locator("#task")).to_contain_text("success", timeout=30_000)
    page.goto(documents_url)
    page.locator("#doc-commercial_invoice").get_by_role("button", name="Issue").click()
    expect(page.get_by_text("issued; its bytes are now final")).to_be_visible()
    second = Document.objects.get(doc_type="commercial_invoice", version=2)
    first.refresh_from_db()
    assert (first.status, second.status) == ("void", "issued") and first.number == second.number

    page.context.clear_cookies()  # a new session: the partner's
    _log_in(page, live_server, "pat")
    page.goto(documents_url)
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Bundle (ZIP)").click()
    with open(download_info.value.path(), "rb") as handle:
        archive = zipfile.ZipFile(io.BytesIO(handle.read()))
    pdfs = [n for n in archive.namelist() if n.endswith(".pdf")]
    assert pdfs == [f"{second.number}-v2.pdf"]
    data = archive.read(pdfs[0])
    assert data == services.document_read(second)
    text = " ".join("".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages).split())
    assert second.number in text and "Version 2" in text and "VOID" not in text and "DRAFT" not in text
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Bundle (one PDF)").click()
    with open(download_info.value.path(), "rb") as handle:
        merged = PdfReader(io.BytesIO(handle.read()))
    assert len(merged.pages) == second.page_count
    assert "VOID" not in "".join(p.extract_text() for p in merged.pages)
    # The voided version reaches the partner only as its VOID copy.
    void_copy = page.request.get(f"{live_server.url}/documents/{first.pk}/download/")
    assert void_copy.ok and void_copy.headers["content-disposition"].endswith('-VOID.pdf"')
    assert "VOID" in "".join(p.extract_text() for p in PdfReader(io.BytesIO(void_copy.body())).pages)
