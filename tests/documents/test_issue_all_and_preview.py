""" "Issue all required" asks first, naming each draft that becomes final (and what it leaves
unissued), and issues exactly those, all or none; a draft previews inside the page: its PDF is
served inline, marked DRAFT, and may be framed by the site's own pages only."""

import pytest

from apps.documents import services
from apps.documents.models import Document

pytestmark = pytest.mark.django_db


@pytest.fixture
def drafts(approved, coordinator):
    invoice = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    packing = services.document_generate(shipment=approved, doc_type="packing_list", actor=coordinator)
    return approved, invoice, packing


def page(browser, shipment):
    return browser.get(f"/shipments/{shipment.reference}/documents/").content.decode()


def test_the_confirmation_names_every_draft_that_becomes_final(drafts, coordinator, browser_as):
    shipment, invoice, packing = drafts
    text = page(browser_as(coordinator), shipment)
    assert "Issue all required…" in text
    assert f"<strong>{invoice.number} v1</strong>" in text and f"<strong>{packing.number} v1</strong>" in text
    assert "Each becomes final" in text
    ready, left = services.issuable_drafts(shipment)
    assert {d.pk for d in ready} == {invoice.pk, packing.pk}
    for label, _why in left:  # what it leaves unissued is named too
        assert label in text


def test_issue_all_issues_exactly_the_drafts_named(drafts, coordinator, browser_as):
    shipment, invoice, packing = drafts
    browser = browser_as(coordinator)
    response = browser.post(
        f"/shipments/{shipment.reference}/documents/issue-all/", {"document": [invoice.pk, packing.pk]}
    )
    assert response.status_code == 302
    assert set(Document.objects.filter(pk__in=[invoice.pk, packing.pk]).values_list("status", flat=True)) == {
        "issued"
    }


def test_a_changed_set_is_refused_and_nothing_issued(drafts, coordinator, browser_as):
    shipment, invoice, packing = drafts
    # A new version of the invoice was generated after the page asked.
    newer = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    response = browser_as(coordinator).post(
        f"/shipments/{shipment.reference}/documents/issue-all/",
        {"document": [invoice.pk, packing.pk]},
        follow=True,
    )
    assert "changed since you were asked" in response.content.decode()
    assert not Document.objects.filter(shipment=shipment, status="issued").exists()
    assert Document.objects.get(pk=newer.pk).status == "draft"


def test_a_partner_may_not_issue_all(drafts, supplier_user, browser_as):
    shipment, invoice, packing = drafts
    response = browser_as(supplier_user).post(
        f"/shipments/{shipment.reference}/documents/issue-all/", {"document": [invoice.pk, packing.pk]}
    )
    assert response.status_code == 403
    assert not Document.objects.filter(shipment=shipment, status="issued").exists()


def test_a_draft_previews_inline_and_only_the_site_may_frame_it(drafts, coordinator, browser_as):
    shipment, invoice, _packing = drafts
    browser = browser_as(coordinator)
    assert f'src="/documents/{invoice.pk}/preview/"' in page(browser, shipment)
    response = browser.get(f"/documents/{invoice.pk}/preview/")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert (
        response["Content-Disposition"].startswith("inline;") and "DRAFT" in response["Content-Disposition"]
    )
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self'" in response["Content-Security-Policy"]
    # Every other page still refuses to be framed.
    other = browser.get(f"/shipments/{shipment.reference}/documents/")
    assert "frame-ancestors 'none'" in other["Content-Security-Policy"]


def test_issued_documents_and_partners_get_no_preview(drafts, coordinator, supplier_user, browser_as):
    shipment, invoice, _packing = drafts
    services.document_issue(document=invoice, actor=coordinator)
    assert browser_as(coordinator).get(f"/documents/{invoice.pk}/preview/").status_code == 404
    _shipment, _invoice, packing = drafts
    assert browser_as(supplier_user).get(f"/documents/{packing.pk}/preview/").status_code == 404
