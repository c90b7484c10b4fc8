"""Trade documents: required set, missing data, PDFs read back, numbering, issue, hash check, void, safety."""

import io
import zipfile
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from pypdf import PdfReader

from apps.compliance import services as compliance
from apps.documents import builder, services
from apps.documents.models import Document
from apps.documents.renderer import StaticOnlyFetcher
from apps.shipments import services as shipment_services
from tests.factories import OrganisationFactory
from tests.shipments.conftest import pack_all


def text_of(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def compact(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def approved(submitted, indian_customer, dgx, switch, coordinator, screening_list):
    """A DGX + switch shipment to Chennai whose compliance check passed, packed in one crate."""
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 2), (switch, 4)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    pack_all(shipment)
    return shipment


def test_required_set_follows_route_parties_and_classifications(approved):
    required = dict(builder.required_documents(approved))
    assert {"commercial_invoice", "packing_list", "end_user_statement"} <= set(required)
    assert "eei_summary" not in required  # not a US export
    assert "4A090" in required["end_user_statement"] or "3A090" in required["end_user_statement"]


def test_commercial_invoice_fields_totals_and_statement(approved, coordinator):
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert document.number.startswith("CI-") and document.version == 1 and document.watermark == ""
    text = compact(text_of(services.document_read(document)))
    assert document.number in text and approved.reference in text
    for expected in ("847150", "851762", "4A090.a", "5A992.c", "DAP", "USD", "Chennai AI Compute"):
        assert expected in text, expected
    # 2 × 373,000 + 4 × 25,000 = 846,000.00
    assert "846,000.00" in text
    # Exported from Taiwan: the Destination Control Statement (15 CFR 758.6) is for US exports.
    assert "authorized for export only to the country of ultimate destination" not in text


def test_draft_mark_until_compliance_passes_and_versions(submitted, dgx, coordinator):
    hanoi = OrganisationFactory(kind="customer", legal_name="Hanoi AI", country="VN", city="Hanoi")
    from apps.compliance.models import Licence

    shipment = submitted(hanoi, "VN", "Hanoi", [(dgx, 1)])
    pack_all(shipment)
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)  # held: licence needed
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert "lines[1].licence" in excinfo.value.message_dict
    Licence.objects.create(
        number="D7654321",
        licensee=shipment.parties.get(role="shipper").organisation,
        eccns="4A090",
        destination_countries="VN",
        consignee=hanoi,
        permitted_quantity=5,
        permitted_value=Decimal("5000000"),
        valid_from="2026-01-01",
        expires_on="2027-12-31",
    )
    type(shipment).objects.filter(pk=shipment.pk).update(
        status="compliance_review", held_from="", hold_kind=""
    )
    check = compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    assert check.result == "pass"
    first = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    second = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert (first.number, second.version) == (second.number, 2)
    first.refresh_from_db()
    assert first.status == "superseded" and services.document_read(first)  # old versions stay readable
    assert "D7654321" in text_of(services.document_read(second))


def test_draft_watermark_before_the_check(submitted, indian_customer, dgx, coordinator):
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 1)])
    pack_all(shipment)
    # A check that held (a missing BIS registration) leaves the documents marked DRAFT.
    from apps.compliance.models import ImportRequirement

    ImportRequirement.objects.create(
        country="IN",
        kind="product_registration",
        scheme="bis_crs",
        name="BIS CRS registration",
        hs_prefixes="8471",
    )
    assert compliance.compliance_check_run(shipment=shipment, actor=coordinator).result == "hold"
    shipment.refresh_from_db()
    document = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert document.watermark == "DRAFT" and "DRAFT" in text_of(services.document_read(document))
    with pytest.raises(ValidationError, match="DRAFT"):
        services.document_issue(document=document, actor=coordinator)


def test_missing_data_lists_every_field_and_creates_nothing(submitted, dgx, coordinator):
    foreign = OrganisationFactory(kind="customer", legal_name="SG Buyer", country="SG", city="Singapore")
    # A draft by hand: a Singapore consignee into India (no IOR), no shipper, a line without HS code.
    draft = shipment_services.shipment_create(
        actor=coordinator,
        fields={
            "origin": dgx_site(coordinator),
            "destination": in_site(coordinator),
            "incoterm": "DAP",
            "incoterm_place": "Chennai",
            "mode": "air",
            "ready_date": "2026-12-02",
            "required_by": "2026-12-30",
        },
        parties={"consignee": foreign},
    )
    line = shipment_services.line_add(shipment=draft, part=dgx, quantity=1)
    type(line).objects.filter(pk=line.pk).update(hs_code="")
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=draft, doc_type="commercial_invoice", actor=coordinator)
    errors = excinfo.value.message_dict
    assert {"shipper", "lines[1].hs_code", "importer_of_record", "compliance_check"} <= set(errors)
    assert "/shipments/" in errors["lines[1].hs_code"][0]
    assert not Document.objects.exists()


def dgx_site(user):
    from apps.shipments.models import Site

    return Site.objects.get_or_create(
        owner=user.organisation, name="Origin TW", kind="factory", city="Taoyuan", country="TW"
    )[0]


def in_site(user):
    from apps.shipments.models import Site

    return Site.objects.get_or_create(
        owner=user.organisation, name="DC IN", kind="data_centre", city="Chennai", country="IN"
    )[0]


def test_issue_freezes_and_every_read_checks_the_hash(approved, coordinator):
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    issued = services.document_issue(document=document, actor=coordinator)
    assert issued.status == "issued" and len(issued.sha256) == 64
    issued = Document.objects.get(pk=issued.pk)
    issued.data = {"rewritten": True}
    with pytest.raises(PermissionError):
        issued.save()
    with pytest.raises(PermissionError):
        Document.objects.get(pk=document.pk).delete()
    # Someone alters the stored file: the read refuses to serve it.
    path = Document.objects.get(pk=document.pk).pdf.path
    with open(path, "r+b") as handle:
        handle.seek(200)
        handle.write(b"tampered")
    with pytest.raises(services.DocumentIntegrityError):
        services.document_read(Document.objects.get(pk=document.pk))
    with pytest.raises(ValidationError, match="already issued|not a draft"):
        services.document_issue(document=document, actor=coordinator)


def test_void_keeps_the_document_and_adds_a_void_copy(approved, coordinator):
    document = services.document_issue(
        document=services.document_generate(
            shipment=approved, doc_type="commercial_invoice", actor=coordinator
        ),
        actor=coordinator,
    )
    with pytest.raises(ValidationError, match="reason"):
        services.document_void(document=document, actor=coordinator, reason="")
    voided = services.document_void(document=document, actor=coordinator, reason="Wrong unit price on line 2")
    assert voided.status == "void" and services.document_read(voided)  # original bytes still verify
    with voided.void_pdf.open("rb") as handle:
        assert "VOID" in text_of(handle.read())
    # A new version can then be issued under the same number.
    again = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert again.number == document.number and again.version == 2
    assert services.document_issue(document=again, actor=coordinator).status == "issued"


def test_packing_list_has_packages_serials_and_dangerous_goods(submitted, indian_customer, dgx, coordinator):
    from tests.shipments.conftest import crate

    shipment = shipment_services.shipment_create(
        actor=coordinator,
        fields={
            "origin": dgx_site(coordinator),
            "destination": in_site(coordinator),
            "incoterm": "DAP",
            "incoterm_place": "Chennai",
            "mode": "air",
            "ready_date": "2026-12-02",
            "required_by": "2026-12-30",
        },
        parties={"shipper": coordinator.organisation, "consignee": indian_customer},
    )
    dgx.contains_lithium_batteries = True
    dgx.save()
    line = shipment_services.line_add(shipment=shipment, part=dgx, quantity=2, serials=["SN-0001", "SN-0002"])
    shipment_services.package_add(
        shipment=shipment, fields=crate(marks="POD2/1"), items=[(line, 2)], serials=["SN-0001", "SN-0002"]
    )
    document = services.document_generate(shipment=shipment, doc_type="packing_list", actor=coordinator)
    text = compact(text_of(services.document_read(document)))
    for expected in ("SN-0001", "SN-0002", "UN3481", "POD2/1", "300.00"):
        assert expected in text, expected


def test_rendering_fetches_nothing_and_shows_hostile_text_literally(approved, coordinator, supplier):
    supplier.legal_name = '<img src="http://127.0.0.1:9/x">'
    supplier.address_line1 = '<link rel="stylesheet" href="file:///etc/passwd">'
    supplier.save()
    fetcher = StaticOnlyFetcher()
    context = builder.build_context(approved, "commercial_invoice", number="CI-TEST", version=1, watermark="")
    from apps.documents.renderer import render_pdf

    pdf, _ = render_pdf(context, fetcher=fetcher)
    assert fetcher.refused == []  # escaped text: nothing even tried to fetch
    text = compact(text_of(pdf))
    assert '<img src="http://127.0.0.1:9/x">' in text
    assert "file:///etc/passwd" in text


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x",
        "file:///etc/passwd",
        "https://example.com/a.css",
        "file:///work/main/static/../manage.py",
    ],
)
def test_the_fetcher_refuses_anything_outside_static(url):
    fetcher = StaticOnlyFetcher()
    with pytest.raises(ValueError, match="Refused"):
        fetcher.fetch(url)
    assert fetcher.refused == [url]


def test_the_fetcher_serves_the_stylesheet():
    from apps.documents.renderer import STYLESHEET

    response = StaticOnlyFetcher().fetch(STYLESHEET.as_uri())
    assert response.read()


def test_eei_summary_for_a_us_export(coordinator, indian_customer, dgx, country_data):
    from apps.shipments.models import Site

    us_site = Site.objects.create(
        owner=coordinator.organisation, name="San Jose", kind="factory", city="San Jose", country="US"
    )
    shipper = OrganisationFactory(legal_name="US Servers Inc", country="US", city="San Jose")
    from apps.accounts.models import Registration

    Registration.objects.create(organisation=shipper, scheme="ein", number="12-3456789", country="US")
    shipment = shipment_services.shipment_create(
        actor=coordinator,
        fields={
            "origin": us_site,
            "destination": in_site(coordinator),
            "incoterm": "CIP",
            "incoterm_place": "MAA",
            "mode": "air",
            "ready_date": "2026-12-02",
            "required_by": "2026-12-30",
        },
        parties={"shipper": shipper, "consignee": indian_customer},
    )
    shipment_services.line_add(shipment=shipment, part=dgx, quantity=1)
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)
    assert "eei_summary" in dict(builder.required_documents(shipment))
    # AES needs where, by whom and when the goods leave the US (issue 10).
    sfo = Site.objects.create(
        owner=coordinator.organisation, name="SFO", kind="airport", city="San Francisco", country="US",
        iata_code="SFO",
    )  # fmt: skip
    shipment_services.leg_add(
        shipment=shipment,
        fields={"role": "main", "origin": sfo, "destination": in_site(coordinator), "mode": "air",
                "carrier": "Atlas Air", "planned_departure": "2026-12-05"},
    )  # fmt: skip
    document = services.document_generate(shipment=shipment, doc_type="eei_summary", actor=coordinator)
    text = compact(text_of(services.document_read(document)))
    # The part's 10-digit Schedule B number, not its 6-digit HS code.
    assert "EIN 12-3456789" in text and "8471.50.0000" in text and "2,500" in text


def test_bundle_zip_and_pdf(approved, coordinator):
    for doc_type in ("commercial_invoice", "end_user_statement"):  # bundles hold issued versions
        document = services.document_generate(shipment=approved, doc_type=doc_type, actor=coordinator)
        services.document_issue(document=document, actor=coordinator)
    with zipfile.ZipFile(io.BytesIO(services.bundle_zip(approved))) as archive:
        names = archive.namelist()
    assert sorted(n for n in names if n.endswith(".pdf")) == sorted(
        f"{d.number}-v1.pdf" for d in Document.objects.all()
    )
    assert "MISSING.txt" in names  # the packing list is required and not issued
    merged = PdfReader(io.BytesIO(services.bundle_pdf(approved)))
    assert len(merged.pages) == sum(d.page_count for d in Document.objects.all())
