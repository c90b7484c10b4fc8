"""Issue 10: documents follow the export country's rules, the Incoterm, and cite the references
a trade document needs. Each test reads the document's data and the text of its PDF."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import Organisation, Registration, ServiceCoverage
from apps.compliance import services as compliance
from apps.documents import builder, services
from apps.documents.models import Document
from apps.shipments import services as shipment_services
from apps.shipments.models import Site
from tests.documents.test_documents import compact, in_site, text_of
from tests.factories import OrganisationFactory, SignatoryFactory
from tests.shipments.conftest import pack_all as _pack_all


@pytest.fixture
def freight_forwarder(db):
    return OrganisationFactory(legal_name="Meridian Freight Pte. Ltd.", country="SG", city="Singapore")


def _requirements(shipment) -> dict[str, tuple[bool, str]]:
    return {doc_type: (required, why) for doc_type, required, why in builder.document_requirements(shipment)}


def _pdf_text(document) -> str:
    return compact(text_of(services.document_read(document)))


def _us_export(coordinator, consignee, lines, *, forwarder=None, **fields):
    """A shipment from a US factory by a US seller (EIN 12-3456789), compliance check run."""
    us_site = Site.objects.get_or_create(
        owner=coordinator.organisation, name="San Jose", kind="factory", city="San Jose", country="US"
    )[0]
    shipper, created = Organisation.objects.get_or_create(
        legal_name="US Servers Inc", defaults={"country": "US", "city": "San Jose"}
    )
    if created:
        Registration.objects.create(organisation=shipper, scheme="ein", number="12-3456789", country="US")
        SignatoryFactory(organisation=shipper)
    parties = {"shipper": shipper, "consignee": consignee}
    if forwarder:
        parties["freight_forwarder"] = forwarder
    shipment = shipment_services.shipment_create(
        actor=coordinator,
        fields={
            "origin": us_site,
            "destination": in_site(coordinator),
            "incoterm": "CIP",
            "incoterm_place": "MAA",
            "mode": "air",
            "end_use": "AI training cluster",
            "ready_date": "2026-12-02",
            "required_by": "2026-12-30",
            **fields,
        },
        parties=parties,
    )
    for part, quantity in lines:
        shipment_services.line_add(shipment=shipment, part=part, quantity=quantity)
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    return shipment


# --- 1. US export documents only for US exports --------------------------------------------------


def test_taiwan_export_needs_no_us_sli_or_eei_and_says_why(
    ship, indian_customer, dgx, switch, freight_forwarder, coordinator, screening_list
):
    shipment = ship(
        {"consignee": indian_customer, "freight_forwarder": freight_forwarder}, "IN", "Chennai", [(dgx, 1)]
    )
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    requirements = _requirements(shipment)
    required = dict(builder.required_documents(shipment))
    assert "sli" not in required and "eei_summary" not in required
    assert "commercial_invoice" in required and "packing_list" in required
    # Every document type is listed, with why it is or is not required.
    assert set(requirements) == {
        "commercial_invoice", "packing_list", "sli", "eei_summary", "end_user_statement",
        "ior_authorisation", "eor_authorisation", "certificate_of_origin",
    }  # fmt: skip
    sli_required, sli_why = requirements["sli"]
    eei_required, eei_why = requirements["eei_summary"]
    assert not sli_required and "US" in sli_why and "Taiwan" in sli_why
    assert not eei_required and "AES" in eei_why and "Taiwan" in eei_why
    assert all(why for _required, why in requirements.values())
    # Asking for them anyway is refused, and nothing is created.
    for doc_type in ("sli", "eei_summary"):
        with pytest.raises(ValidationError) as excinfo:
            services.document_generate(shipment=shipment, doc_type=doc_type, actor=coordinator)
        assert "origin" in excinfo.value.message_dict
        assert "Taiwan" in excinfo.value.message_dict["origin"][0]
    assert not Document.objects.filter(doc_type__in=("sli", "eei_summary")).exists()


def test_us_export_needs_the_sli_with_a_forwarder_and_the_eei_when_mandatory(
    coordinator, indian_customer, dgx, switch, freight_forwarder, country_data, screening_list
):
    shipment = _us_export(
        coordinator,
        indian_customer,
        [(dgx, 1)],
        forwarder=freight_forwarder,
        freight_charge=Decimal("12000"),
        insurance_charge=Decimal("1500"),
        insurance_value=Decimal("430000"),  # 110% of 386,500 (goods, freight, premium) is 425,150
    )
    requirements = _requirements(shipment)
    assert requirements["sli"][0] and "USPPI" in requirements["sli"][1]
    assert requirements["eei_summary"][0] and "2,500" in requirements["eei_summary"][1]
    _pack_all(shipment)
    document = services.document_generate(shipment=shipment, doc_type="sli", actor=coordinator)
    text = _pdf_text(document)
    assert "US Servers Inc" in text and "EIN 12-3456789" in text and "Meridian Freight" in text

    # A low-value, licence-free export: no EEI filing is mandatory, so no EEI summary is required.
    small = _us_export(coordinator, indian_customer, [(switch, 1)])
    line = small.lines.get()
    type(line).objects.filter(pk=line.pk).update(unit_value=Decimal("1000"))
    requirements = _requirements(small)
    assert requirements["eei_summary"] == (
        False,
        "No Schedule B number exceeds USD 2,500 and no licence applies: filing not mandatory.",
    )
    assert "eei_summary" not in dict(builder.required_documents(small))
    assert not requirements["sli"][0] and "forwarder" in requirements["sli"][1]


# --- 2. The IOR letter follows the Incoterm -------------------------------------------------------


@pytest.fixture
def ior_provider(db):
    org = OrganisationFactory(legal_name="Coromandel IOR Services Pvt. Ltd.", country="IN", city="Chennai")
    ServiceCoverage.objects.create(organisation=org, service="ior", country="IN")  # it acts in India
    return org


@pytest.mark.parametrize(
    ("incoterm", "principal", "other"),
    [("DDP", "Taiwan Servers Co., Ltd.", "Chennai AI Compute"), ("DAP", "Chennai AI Compute", None)],
)
def test_ior_letter_names_the_party_that_owes_duties_under_the_incoterm(
    ship, indian_customer, dgx, ior_provider, coordinator, incoterm, principal, other
):
    shipment = ship(
        {"consignee": indian_customer, "importer_of_record": ior_provider},
        "IN",
        "Chennai",
        [(dgx, 1)],
        incoterm=incoterm,
    )
    _pack_all(shipment)
    context = builder.build_context(shipment, "ior_authorisation", number="IOR-T", version=1, watermark="")
    assert context.ior_principal.name == principal
    assert context.duties_paid_by == ("seller" if incoterm == "DDP" else "buyer")
    document = services.document_generate(shipment=shipment, doc_type="ior_authorisation", actor=coordinator)
    text = _pdf_text(document)
    assert f"{principal} (“the Principal”)" in text
    assert (
        f"Under {incoterm} Chennai, Incoterms 2020, import duties and taxes (such as IGST) are owed" in text
    )
    if incoterm == "DDP":
        assert "owed by the seller" in text
        assert f"SIGNED BY THE PRINCIPAL For and on behalf of {principal}" in text
    else:
        assert "owed by the buyer" in text


# --- 3. References every document must cite -----------------------------------------------------


@pytest.fixture
def riyadh(submitted, saudi_customer, saudi_licence, dgx, coordinator, screening_list):
    """A licensed DGX shipment to Riyadh with commercial terms, packed, its check passed."""
    shipment = submitted(
        saudi_customer,
        "SA",
        "Riyadh",
        [(dgx, 2)],
        payment_terms="30 days net from invoice date",
        buyer_order_reference="PO-RC-2026-0415",
        instructions="Deliver to dock 3; call the site 24 hours ahead.",
    )
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    _pack_all(shipment)
    return shipment


def test_terms_order_reference_and_instructions_are_shipment_fields():
    from apps.shipments.api.serializers import ShipmentWriteSerializer
    from apps.shipments.forms import ShipmentForm
    from apps.shipments.models import Shipment

    for name in ("payment_terms", "buyer_order_reference"):
        assert name in Shipment.EDITABLE_FIELDS
        assert name in ShipmentWriteSerializer().fields and name in ShipmentForm.base_fields
        assert Shipment._meta.get_field(name).blank  # optional


def test_invoice_states_incoterms_edition_payment_terms_order_and_instructions(riyadh, coordinator):
    context = builder.build_context(riyadh, "commercial_invoice", number="CI-T", version=1, watermark="")
    assert context.incoterm_text == "DAP Riyadh, Incoterms 2020"
    assert (context.payment_terms, context.buyer_order_reference) == (
        "30 days net from invoice date",
        "PO-RC-2026-0415",
    )
    assert context.instructions == "Deliver to dock 3; call the site 24 hours ahead."
    for doc_type in ("commercial_invoice", "packing_list"):
        text = _pdf_text(services.document_generate(shipment=riyadh, doc_type=doc_type, actor=coordinator))
        assert "DAP Riyadh, Incoterms 2020" in text, doc_type
        assert "PO-RC-2026-0415" in text, doc_type
        assert "Deliver to dock 3; call the site 24 hours ahead." in text, doc_type
    invoice = Document.objects.get(doc_type="commercial_invoice")
    assert "30 days net from invoice date" in _pdf_text(invoice)


def test_end_user_statement_cites_the_licence(riyadh, coordinator):
    context = builder.build_context(riyadh, "end_user_statement", number="EUS-T", version=1, watermark="")
    assert context.licences == ("D1234567",)
    text = _pdf_text(
        services.document_generate(shipment=riyadh, doc_type="end_user_statement", actor=coordinator)
    )
    assert "Licence D1234567" in text


def test_certificate_of_origin_cites_the_invoice_number(riyadh, coordinator):
    # No invoice yet: the certificate has nothing to cite, so it is refused.
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=riyadh, doc_type="certificate_of_origin", actor=coordinator)
    assert "commercial_invoice" in excinfo.value.message_dict
    invoice = services.document_generate(shipment=riyadh, doc_type="commercial_invoice", actor=coordinator)
    certificate = services.document_generate(
        shipment=riyadh, doc_type="certificate_of_origin", actor=coordinator
    )
    assert certificate.data["invoice_number"] == invoice.number
    context = builder.build_context(riyadh, "certificate_of_origin", number="CO-T", version=1, watermark="")
    assert context.invoice_number == invoice.number
    text = _pdf_text(certificate)
    assert f"Commercial invoice {invoice.number}" in text
    assert "DAP Riyadh, Incoterms 2020" in text
