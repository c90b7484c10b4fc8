"""In real Chromium: a coordinator generates, issues and downloads the commercial invoice."""

import io

import pytest
from pypdf import PdfReader

from apps.accounts.roles import Role
from apps.compliance import services as compliance
from apps.documents.models import Document
from tests.factories import PASSWORD, UserFactory

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
