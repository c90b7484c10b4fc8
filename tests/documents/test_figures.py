"""Issue 10, figures that reconcile: documents stating packages and weights need everything packed,
line weights come from the packages and add up to the totals, and the invoice value follows the
Incoterm (freight and insurance shown and totalled under CIP/CIF). Each test reads the document's
data and the text of its PDF."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from apps.compliance import services as compliance
from apps.documents import builder, services
from apps.documents.models import Document
from apps.shipments import services as shipment_services
from tests.documents.test_documents import compact, text_of
from tests.documents.test_issue10 import _us_export
from tests.factories import OrganisationFactory
from tests.shipments.conftest import crate, pack_all

# Every document that states the number of packages or a weight.
WEIGHED = (
    "commercial_invoice",
    "packing_list",
    "certificate_of_origin",
    "sli",
    "eei_summary",
    "ior_authorisation",
    "eor_authorisation",
)


def _pdf_text(document) -> str:
    return compact(text_of(services.document_read(document)))


def _problems(shipment, doc_type) -> dict[str, builder.Problem]:
    return {p.field: p for p in builder.document_problems(shipment, doc_type)}


@pytest.fixture
def approved(submitted, indian_customer, dgx, switch, coordinator, screening_list):
    """A DGX (2) + switch (4) shipment to Chennai whose compliance check passed; nothing packed."""
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 2), (switch, 4)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "approved"
    return shipment


# --- 1. Packing is a precondition of every document stating packages or weights ------------------


def test_nothing_packed_refuses_every_document_that_states_weights(approved, coordinator):
    packages_url = reverse("shipments:shipment-detail", args=[approved.reference]) + "#packages"
    for doc_type in WEIGHED:
        problems = _problems(approved, doc_type)
        assert problems["packages"].message == "Nothing is packed yet.", doc_type
        assert problems["packages"].fix_url == packages_url
        assert problems["lines[2].packed"].message == "Line 2: 0 of 4 units packed."
        assert problems["lines[1].serials"].message == "Line 1: 0 serial numbers for 2 units."
    # The end-user statement states no weights: packing is not its business.
    assert "packages" not in _problems(approved, "end_user_statement")
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert {"packages", "lines[1].packed", "lines[2].packed"} <= set(excinfo.value.message_dict)
    assert "#packages" in excinfo.value.message_dict["packages"][0]
    assert not Document.objects.exists()


def test_part_packed_or_serials_missing_names_each_line(approved, coordinator):
    dgx_line, switch_line = approved.lines.order_by("line_number")
    shipment_services.serials_set(line=dgx_line, serials=["D1"])  # one of two
    shipment_services.serials_set(line=switch_line, serials=["S1", "S2", "S3", "S4"])
    shipment_services.package_add(
        shipment=approved, fields=crate(), items=[(dgx_line, 2), (switch_line, 2)], serials=["D1", "S1", "S2"]
    )
    for doc_type in ("commercial_invoice", "certificate_of_origin", "packing_list"):
        problems = _problems(approved, doc_type)
        assert "packages" not in problems
        assert problems["lines[2].packed"].message == "Line 2: 2 of 4 units packed."
        assert problems["lines[1].serials"].message == "Line 1: 1 serial numbers for 2 units."
        assert problems["lines[1].serials"].fix_url.endswith("#lines")
        assert problems["lines[2].serials"].message == "Line 2: 2 serial numbers not in a package."
        assert problems["lines[2].serials"].fix_url.endswith("#packages")
        assert "lines[1].packed" not in problems
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert {"lines[2].packed", "lines[1].serials"} <= set(excinfo.value.message_dict)

    # Every unit packed and every serial recorded, but one serial in no package.
    shipment_services.serials_set(line=dgx_line, serials=["D1", "D2"])
    shipment_services.package_add(
        shipment=approved, fields=crate(gross_kg=Decimal("80"), net_kg=Decimal("60")),
        items=[(switch_line, 2)], serials=["S3", "S4"],
    )  # fmt: skip
    problems = _problems(approved, "commercial_invoice")
    assert problems["lines[1].serials"].message == "Line 1: 1 serial numbers not in a package."
    assert set(problems) == {"lines[1].serials"}

    # Packed in full, with every serial: the invoice states what was packed.
    approved.packages.get(number=1).delete()
    shipment_services.package_add(
        shipment=approved, fields=crate(), items=[(dgx_line, 2), (switch_line, 2)],
        serials=["D1", "D2", "S1", "S2"],
    )  # fmt: skip
    assert _problems(approved, "commercial_invoice") == {}
    invoice = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert invoice.data["total_packages"] == 2
    assert "Number of packages 2" in _pdf_text(invoice)


# --- 2. Line weights come from the packages and add up to the totals ------------------------------


def test_apportioning_is_exact_and_never_negative():
    assert builder.apportion(Decimal("100.00"), [Decimal(1)] * 3) == [
        Decimal("33.34"), Decimal("33.33"), Decimal("33.33"),
    ]  # fmt: skip
    assert builder.apportion(Decimal("0.02"), [Decimal(1)] * 3) == [
        Decimal("0.01"), Decimal("0.01"), Decimal("0.00"),
    ]  # fmt: skip
    shares = builder.apportion(Decimal("110.00"), [Decimal("58"), Decimal("43.5")])
    assert shares == [Decimal("62.86"), Decimal("47.14")] and sum(shares) == Decimal("110.00")
    # Parts without a catalogue weight: shared by quantity.
    assert builder.apportion(Decimal("10.00"), [Decimal(0), Decimal(0)], fallback=[3, 1]) == [
        Decimal("7.50"), Decimal("2.50"),
    ]  # fmt: skip


@pytest.fixture
def us_packed(coordinator, indian_customer, dgx, switch, country_data, screening_list):
    """A US export (CIP, charges set) of 2 DGX (130 kg each in the catalogue) and 4 switches
    (14.5 kg): crate 1 holds both DGX and one switch (net 260, gross 300), crate 2 three
    switches (net 40, gross 50)."""
    forwarder = OrganisationFactory(legal_name="Meridian Freight Pte. Ltd.", country="SG", city="Singapore")
    shipment = _us_export(
        coordinator,
        indian_customer,
        [(dgx, 2), (switch, 4)],
        forwarder=forwarder,
        freight_charge=Decimal("24000"),
        insurance_charge=Decimal("2400"),
        insurance_value=Decimal("960000"),  # 110% of 872,400 is 959,640
    )
    dgx_line, switch_line = shipment.lines.order_by("line_number")
    shipment_services.serials_set(line=dgx_line, serials=["D1", "D2"])
    shipment_services.serials_set(line=switch_line, serials=["S1", "S2", "S3", "S4"])
    shipment_services.package_add(
        shipment=shipment,
        fields=crate(gross_kg=Decimal("300"), net_kg=Decimal("260")),
        items=[(dgx_line, 2), (switch_line, 1)],
        serials=["D1", "D2", "S1"],
    )
    shipment_services.package_add(
        shipment=shipment,
        fields=crate(gross_kg=Decimal("50"), net_kg=Decimal("40")),
        items=[(switch_line, 3)],
        serials=["S2", "S3", "S4"],
    )
    return shipment


def test_line_weights_are_the_packages_shared_out_and_add_up(us_packed, coordinator):
    context = builder.build_context(us_packed, "sli", number="SLI-T", version=1, watermark="")
    # Crate 1's 260 kg net shared 260 : 14.5 between the DGX and the switch; crate 2 is all switch.
    dgx_line, switch_line = context.lines
    assert (dgx_line.net_kg, dgx_line.gross_kg) == (Decimal("246.27"), Decimal("284.15"))
    assert (switch_line.net_kg, switch_line.gross_kg) == (Decimal("53.73"), Decimal("65.85"))
    assert (context.total_net_kg, context.total_gross_kg) == (Decimal("300.00"), Decimal("350.00"))
    for line in context.lines:  # no line outweighs what carries it
        assert line.net_kg <= line.gross_kg

    # Every document whose PDF prints line weights: the data and the PDF add up to the totals.
    invoice = services.document_generate(shipment=us_packed, doc_type="commercial_invoice", actor=coordinator)
    printed = {
        "sli": ("246.27", "53.73", "net 300.00 kg"),
        "certificate_of_origin": ("246.27 / 284.15", "53.73 / 65.85", "300.00 / 350.00"),
    }
    documents = [invoice] + [
        services.document_generate(shipment=us_packed, doc_type=doc_type, actor=coordinator)
        for doc_type in ("packing_list", *printed, "end_user_statement")
    ]
    for document in documents:
        data = document.data
        for weight, total in (("net_kg", "total_net_kg"), ("gross_kg", "total_gross_kg")):
            assert sum(Decimal(line[weight]) for line in data["lines"]) == Decimal(data[total]), (
                document.doc_type
            )
        text = _pdf_text(document)
        for expected in printed.get(document.doc_type, ()):
            assert expected in text, (document.doc_type, expected)


# --- 3. The invoice value follows the Incoterm ----------------------------------------------------


def _cip(ship, indian_customer, dgx, coordinator, incoterm="CIP", submit=True, **fields):
    shipment = ship(
        {"consignee": indian_customer},
        "IN",
        "Chennai",
        [(dgx, 1)],
        incoterm=incoterm,
        mode="ocean" if incoterm in ("CIF", "CFR", "FOB") else "air",
        submit=submit,
        **fields,
    )
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)
    return shipment


@pytest.mark.parametrize(
    ("incoterm", "clauses"),
    [("CIP", "Institute Cargo Clauses (A)"), ("CIF", "Institute Cargo Clauses (C)")],
)
def test_cip_and_cif_invoices_add_freight_and_insurance(
    ship, indian_customer, dgx, coordinator, screening_list, incoterm, clauses
):
    shipment = _cip(
        ship, indian_customer, dgx, coordinator, incoterm,
        freight_charge=Decimal("12000"), insurance_charge=Decimal("1500"), insurance_value=Decimal("430000"),
    )  # fmt: skip
    context = builder.build_context(shipment, "commercial_invoice", number="CI-T", version=1, watermark="")
    assert (context.goods_total, context.freight, context.insurance) == (
        Decimal("373000"), Decimal("12000"), Decimal("1500"),
    )  # fmt: skip
    assert context.invoice_total == Decimal("386500")
    assert context.insured_value == Decimal("430000") and context.insurance_cover == clauses
    invoice = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert invoice.data["invoice_total"] == "386500.00"
    text = _pdf_text(invoice)
    for expected in (
        "Goods total USD 373,000.00",
        "Freight USD 12,000.00",
        "Insurance USD 1,500.00",
        "Invoice total USD 386,500.00",
        f"Insured value USD 430,000.00 (111% of the invoice value), {clauses}",
    ):
        assert expected in text, expected


def test_cpt_invoice_adds_freight_only(ship, indian_customer, dgx, coordinator, screening_list):
    shipment = _cip(
        ship, indian_customer, dgx, coordinator, "CPT",
        freight_charge=Decimal("12000"), insurance_charge=Decimal("1500"),
    )  # fmt: skip
    invoice = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert (invoice.data["freight"], invoice.data["insurance"]) == ("12000.00", None)
    assert invoice.data["invoice_total"] == "385000.00"
    text = _pdf_text(invoice)
    assert "Freight USD 12,000.00" in text and "Invoice total USD 385,000.00" in text
    assert "Insurance USD" not in text
    assert "Insurance is not part of the invoice value under CPT" in text


@pytest.mark.parametrize("incoterm", ["FCA", "DAP", "DPU"])
def test_other_terms_invoice_the_goods_only_and_say_so(
    ship, indian_customer, dgx, coordinator, screening_list, incoterm
):
    # Charges recorded on the shipment (the seller's costs) do not enter these invoices.
    shipment = _cip(
        ship, indian_customer, dgx, coordinator, incoterm,
        freight_charge=Decimal("12000"), insurance_charge=Decimal("1500"),
    )  # fmt: skip
    assert _problems(shipment, "commercial_invoice") == {}
    invoice = services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert (invoice.data["freight"], invoice.data["insurance"]) == (None, None)
    assert invoice.data["invoice_total"] == invoice.data["goods_total"] == "373000.00"
    text = _pdf_text(invoice)
    assert "Invoice total USD 373,000.00" in text and "Freight USD" not in text
    assert f"Freight and insurance are not part of the invoice value under {incoterm}" in text


def test_cip_without_charges_or_with_short_cover_is_refused(
    ship, indian_customer, dgx, coordinator, screening_list
):
    # Review refuses such a shipment (tests/shipments/test_document_readiness.py): checked in draft.
    shipment = _cip(ship, indian_customer, dgx, coordinator, submit=False)
    edit_url = reverse("shipments:shipment-update", args=[shipment.reference])
    for doc_type in ("commercial_invoice", "ior_authorisation", "eor_authorisation"):
        problems = _problems(shipment, doc_type)
        assert problems["freight_charge"].fix_url == edit_url, doc_type
        assert problems["insurance_charge"].fix_url == edit_url
        assert "CIP" in problems["freight_charge"].message
    assert "freight_charge" not in _problems(shipment, "packing_list")

    # Charges set, but the cover is below 110% of the CIP value (373,000 + 12,000 + 1,500 = 386,500).
    type(shipment).objects.filter(pk=shipment.pk).update(
        freight_charge=Decimal("12000"), insurance_charge=Decimal("1500"), insurance_value=Decimal("400000")
    )
    problems = _problems(shipment, "commercial_invoice")
    assert set(problems) == {"insurance_value"}
    assert problems["insurance_value"].message == (
        "The insured value (USD 400,000.00) is below 110% of the CIP value: insure at least "
        "USD 425,150.00 (Incoterms 2020, Institute Cargo Clauses (A))."
    )
    assert problems["insurance_value"].fix_url == edit_url
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    assert set(excinfo.value.message_dict) == {"insurance_value"}
    type(shipment).objects.filter(pk=shipment.pk).update(insurance_value=Decimal("425150"))
    assert _problems(shipment, "commercial_invoice") == {}


def test_freight_and_insurance_charges_are_shipment_fields(ship, indian_customer, dgx, coordinator, client):
    from apps.shipments.api.serializers import ShipmentSerializer, ShipmentWriteSerializer
    from apps.shipments.forms import ShipmentForm
    from apps.shipments.models import Shipment

    for name in ("freight_charge", "insurance_charge"):
        assert name in Shipment.EDITABLE_FIELDS
        assert name in ShipmentWriteSerializer().fields and name in ShipmentForm.base_fields
        assert name in ShipmentSerializer().fields
        field = Shipment._meta.get_field(name)
        assert field.null and field.blank and field.decimal_places == 2

    shipment = ship(
        {"consignee": indian_customer}, "IN", "Chennai", [(dgx, 1)], submit=False, incoterm="CIP",
        freight_charge=Decimal("12000"), insurance_charge=Decimal("1500"),
    )  # fmt: skip
    client.force_login(coordinator)
    page = compact(client.get(shipment.get_absolute_url()).content.decode())
    assert "Freight charge</dt><dd>12,000.00 USD" in page
    assert "Insurance charge</dt><dd>1,500.00 USD" in page


def test_the_c_rules_put_freight_and_cip_cif_insurance_on_the_invoice():
    from apps.shipments.engines.incoterms import RULES

    assert {code for code, r in RULES.items() if r.freight_on_invoice} == {"CPT", "CIP", "CFR", "CIF"}
    assert {code for code, r in RULES.items() if r.insurance_on_invoice} == {"CIP", "CIF"}
