"""Issue 10, the right signatory: a declaration is signed by a person of the party that makes it
(its authorised signatory, named, for a wet-ink or electronic signature), never by the operator's
user who generated it; the operator signs only as the party's agent, under the party's issued
EOR authorisation appointing it. Each test reads the document's data and the text of its PDF."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from apps.accounts.models import Contact, ServiceCoverage
from apps.compliance import services as compliance
from apps.documents import builder, services
from apps.documents.models import Document
from tests.documents.test_documents import compact, text_of
from tests.factories import OrganisationFactory, SignatoryFactory
from tests.shipments.conftest import pack_all


def _pdf_text(document) -> str:
    return compact(text_of(services.document_read(document)))


@pytest.fixture
def india(ship, indian_customer, dgx, switch, coordinator, screening_list):
    """`india(**parties)`: a DGX + switch shipment to Chennai from the supplier, checked and packed."""

    def make(incoterm="DAP", **parties):
        shipment = ship(
            {"consignee": indian_customer, **parties},
            "IN",
            "Chennai",
            [(dgx, 1), (switch, 2)],
            incoterm=incoterm,
        )
        compliance.compliance_check_run(shipment=shipment, actor=coordinator)
        shipment.refresh_from_db()
        pack_all(shipment)
        return shipment

    return make


def _signatory(organisation) -> Contact:
    return organisation.contacts.get(is_signatory=True)


def test_the_sellers_signatory_signs_its_declarations_not_the_coordinator(india, supplier, coordinator):
    shipment = india()
    seller = _signatory(supplier)
    for doc_type in ("commercial_invoice", "packing_list", "certificate_of_origin"):
        document = services.document_generate(shipment=shipment, doc_type=doc_type, actor=coordinator)
        assert document.data["signature"] == {
            "party": "Taiwan Servers Co., Ltd.",
            "name": seller.name,
            "title": "Export Compliance Manager",
            "capacity": "Authorised signatory of Taiwan Servers Co., Ltd.",
            "mode": "sign",
            "authority": "",
        }, doc_type
        text = _pdf_text(document)
        assert "For and on behalf of Taiwan Servers Co., Ltd." in text, doc_type
        assert seller.name in text and "Export Compliance Manager" in text, doc_type
        assert coordinator.get_full_name() not in text and "Logistics coordinator" not in text, doc_type


def test_a_declaration_without_a_signatory_is_refused_saying_where_to_name_one(india, supplier, coordinator):
    shipment = india()
    _signatory(supplier).delete()
    # A contact who is not an authorised signatory does not sign.
    Contact.objects.create(organisation=supplier, name="Sales Desk", job_title="Sales", email="s@x.example")
    problems = {p.field: p for p in builder.document_problems(shipment, "commercial_invoice")}
    problem = problems["shipper.signatory"]
    assert problem.message.startswith("Name an authorised signatory of Taiwan Servers Co., Ltd.")
    assert "job title" in problem.message
    assert problem.fix_url == reverse("accounts:organisation-detail", args=[supplier.pk])
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert problem.fix_url in excinfo.value.message_dict["shipper.signatory"][0]
    assert not Document.objects.exists()
    # Named: the invoice is made, signed by them.
    SignatoryFactory(organisation=supplier, name="Wen-Li Chang", job_title="Head of Export Compliance")
    document = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert "Wen-Li Chang" in _pdf_text(document)


def test_the_end_user_statement_is_signed_by_the_end_user_and_the_purchaser(
    india, indian_customer, supplier, coordinator
):
    end_user = OrganisationFactory(
        kind="customer", legal_name="Siruseri Research Lab", country="IN", city="Chennai"
    )
    shipment = india(ultimate_consignee=end_user)
    document = services.document_generate(shipment=shipment, doc_type="end_user_statement", actor=coordinator)
    signature, purchaser = document.data["signature"], document.data["countersignature"]
    assert (signature["party"], signature["name"]) == ("Siruseri Research Lab", _signatory(end_user).name)
    assert (purchaser["party"], purchaser["name"]) == ("Chennai AI Compute", _signatory(indian_customer).name)
    text = _pdf_text(document)
    assert _signatory(end_user).name in text and _signatory(indian_customer).name in text
    # The exporter asks for it through its own signatory: the operator's coordinator who generated
    # it is nobody of the exporter's, so is named nowhere on the statement.
    exporter = _signatory(supplier)
    assert f"Requested by {supplier.legal_name} ({exporter.name}, {exporter.job_title})" in text
    assert coordinator.get_full_name() not in text
    # The purchaser signs too: without a signatory it is named as a problem.
    _signatory(indian_customer).delete()
    problems = {p.field for p in builder.document_problems(shipment, "end_user_statement")}
    assert "consignee.signatory" in problems and "ultimate_consignee.signatory" not in problems


@pytest.mark.parametrize(("incoterm", "principal"), [("DDP", "supplier"), ("DAP", "indian_customer")])
def test_the_ior_letter_is_signed_by_the_party_owing_duties(india, incoterm, principal, request, coordinator):
    ior = OrganisationFactory(
        kind="ior_provider", legal_name="Coromandel IOR Pvt. Ltd.", country="IN", city="Chennai"
    )
    ServiceCoverage.objects.create(organisation=ior, service="ior", country="IN")
    shipment = india(incoterm=incoterm, importer_of_record=ior)
    party = request.getfixturevalue(principal)
    document = services.document_generate(shipment=shipment, doc_type="ior_authorisation", actor=coordinator)
    assert document.data["signature"]["party"] == party.legal_name
    assert document.data["signature"]["name"] == _signatory(party).name
    assert document.data["countersignature"]["name"] == _signatory(ior).name
    text = _pdf_text(document)
    assert f"SIGNED BY THE PRINCIPAL For and on behalf of {party.legal_name}" in text
    assert _signatory(party).name in text and _signatory(ior).name in text
    # An acceptance without a named signatory is left to be filled in by hand, not refused.
    _signatory(ior).delete()
    assert not [p for p in builder.document_problems(shipment, "ior_authorisation") if "signatory" in p.field]


def test_the_operator_signs_as_agent_only_under_the_sellers_issued_eor_authorisation(
    india, supplier, operator, coordinator
):
    ServiceCoverage.objects.create(organisation=operator, service="eor", country="TW")  # acts in Taiwan
    shipment = india(exporter_of_record=operator)
    seller = _signatory(supplier)
    # Before the seller's letter appointing the operator is issued, the seller signs.
    invoice = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert invoice.data["signature"]["mode"] == "sign" and invoice.data["signature"]["name"] == seller.name
    # The letter cites the invoice by number, so that invoice is issued before the letter can be.
    invoice = services.document_issue(document=invoice, actor=coordinator)

    letter = services.document_generate(shipment=shipment, doc_type="eor_authorisation", actor=coordinator)
    assert letter.data["signature"]["name"] == seller.name  # the Principal signs its authorisation
    accepted = letter.data["countersignature"]  # the operator accepts, by its user
    assert (accepted["party"], accepted["name"]) == (operator.legal_name, coordinator.get_full_name())
    assert "sign for the Principal, as its authorised agent, the commercial invoice" in _pdf_text(letter)
    letter = services.document_issue(document=letter, actor=coordinator)

    # From then on the operator's user signs the export declarations as the seller's agent.
    _signatory(supplier).delete()  # and no longer needs the seller's signatory for them
    services.document_void(document=invoice, actor=coordinator, reason="Signed by the agent")
    authority = f"EOR authorisation {letter.number} v1"
    for doc_type in ("commercial_invoice", "packing_list"):
        document = services.document_generate(shipment=shipment, doc_type=doc_type, actor=coordinator)
        assert document.data["signature"] == {
            "party": "Taiwan Servers Co., Ltd.",
            "name": coordinator.get_full_name(),
            "title": "Logistics coordinator",
            "capacity": f"{operator.legal_name}, for and on behalf of Taiwan Servers Co., Ltd. as its "
            "authorised agent",
            "mode": "agent",
            "authority": authority,
        }, doc_type
        text = _pdf_text(document)
        assert "For and on behalf of Taiwan Servers Co., Ltd., by its authorised agent" in text, doc_type
        assert coordinator.get_full_name() in text and authority in text, doc_type
    # The end user's statement is never signed by an agent.
    assert (
        builder.build_context(
            shipment, "end_user_statement", number="EUS-T", version=1, watermark="", actor=coordinator
        ).signature.party
        == "Chennai AI Compute"
    )

    # Voided, the letter authorises nothing: the seller must sign again.
    services.document_void(document=letter, actor=coordinator, reason="Revoked by the seller")
    assert "shipper.signatory" in {p.field for p in builder.document_problems(shipment, "commercial_invoice")}


def test_an_eor_that_is_not_the_operator_gives_the_operator_no_authority(india, supplier, coordinator):
    eor = OrganisationFactory(kind="eor_provider", legal_name="Formosa EOR Co.", country="TW")
    ServiceCoverage.objects.create(organisation=eor, service="eor", country="TW")
    shipment = india(exporter_of_record=eor)
    letter = services.document_generate(shipment=shipment, doc_type="eor_authorisation", actor=coordinator)
    services.document_issue(document=letter, actor=coordinator)
    context = builder.build_context(
        shipment, "commercial_invoice", number="CI-T", version=1, watermark="", actor=coordinator
    )
    assert context.signature.mode == "sign" and context.signature.name == _signatory(supplier).name


def test_long_names_and_titles_wrap_in_the_signature_box(india, supplier, coordinator):
    _signatory(supplier).delete()
    name = "Maximiliana Alexandra Fitzgerald-Montgomery-Ravichandran Venkataraman"
    title = "Senior Vice President, Global Trade Compliance, Export Controls and Customs Operations"
    SignatoryFactory(organisation=supplier, name=name, job_title=title)
    document = services.document_generate(shipment=india(), doc_type="commercial_invoice", actor=coordinator)
    text = _pdf_text(document)
    # Every word is printed (wrapped, not cut off at the box's edge).
    for word in (name + " " + title).replace(",", "").split():
        assert word in text, word
