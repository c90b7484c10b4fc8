"""What the documents will need is checked at review, not first at generation.

The C rules' charges and CIP/CIF cover of at least 110 % of the invoice value are terms, fixed in
draft: submitting for review (and approving) refuses a shipment without them, naming the field.
Serial numbers of serialised parts may still come after approval (the warehouse packs picked units
into the shipment): a line without them is flagged when it is added, when the shipment is submitted
and on its page, naming the lines. The document builder reads the same rule.
"""

# ruff: noqa: F811  (the fixtures imported from the compliance and documents tests)

from decimal import Decimal

import pytest

from apps.compliance import services as compliance
from apps.documents import builder
from apps.shipments import readiness, services
from apps.shipments.models import Shipment
from tests.compliance.conftest import (  # noqa: F401  (shared fixtures)
    country_data,
    dgx,
    h100,
    indian_customer,
    screening_list,
    ship,
    sites,
)
from tests.factories import PartFactory

SHORT_COVER = (
    "The insured value (USD 400,000.00) is below 110% of the CIP value: insure at least "
    "USD 425,150.00 (Incoterms 2020, Institute Cargo Clauses (A))."
)


@pytest.fixture
def optic(db):
    return PartFactory(
        part_number="MMA4Z00-NS", name="800G OSFP transceiver", category="optic", hs_code="851762",
        unit_value=Decimal("1200"), is_serialised=True,
    )  # fmt: skip


def _cip(ship, indian_customer, dgx, **charges):
    return ship(
        {"consignee": indian_customer}, "IN", "Chennai", [(dgx, 1)], submit=False, incoterm="CIP", **charges
    )


def test_short_cip_cover_refuses_the_submission_naming_the_field(ship, indian_customer, dgx, coordinator):
    shipment = _cip(
        ship, indian_customer, dgx,
        freight_charge=Decimal("12000"), insurance_charge=Decimal("1500"), insurance_value=Decimal("400000"),
    )  # fmt: skip
    with pytest.raises(services.TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    assert excinfo.value.reasons == [f"{SHORT_COVER} [insurance_value]"]
    assert Shipment.objects.get(pk=shipment.pk).status == "draft"
    # The builder refuses the invoice with the same words: one rule.
    problems = {p.field: p.message for p in builder.document_problems(shipment, "commercial_invoice")}
    assert problems["insurance_value"] == SHORT_COVER
    # The SLI prints the insured value too: it is refused as well.
    assert builder.document_problems(shipment, "sli") and "insurance_value" in {
        p.field for p in builder.document_problems(shipment, "sli")
    }

    services.shipment_update(shipment=shipment, fields={"insurance_value": Decimal("425150")})
    moved = services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    assert moved.status == "compliance_review"


def test_missing_c_rule_charges_refuse_the_submission(ship, indian_customer, dgx, coordinator):
    shipment = _cip(ship, indian_customer, dgx)
    with pytest.raises(services.TransitionRefused) as excinfo:
        services.shipment_transition(shipment=shipment, target="compliance_review", actor=coordinator)
    reasons = excinfo.value.reasons
    assert any(r.endswith("[freight_charge]") and "Under CIP" in r for r in reasons), reasons
    assert any(r.endswith("[insurance_charge]") for r in reasons), reasons


def test_approval_is_refused_on_short_cover(ship, indian_customer, dgx, coordinator):
    """However the shipment reached review, the approval guard reads the same rule."""
    shipment = _cip(
        ship, indian_customer, dgx,
        freight_charge=Decimal("12000"), insurance_charge=Decimal("1500"), insurance_value=Decimal("400000"),
    )  # fmt: skip
    Shipment.objects.filter(pk=shipment.pk).update(status="compliance_review")
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    shipment.refresh_from_db()
    assert shipment.status == "compliance_review"
    assert f"{SHORT_COVER} [insurance_value]" in services.guard_problems(shipment, "approved")


def test_serialised_lines_without_serials_are_flagged_at_submission(
    ship,
    indian_customer,
    dgx,
    optic,
    coordinator,
    api_as,
):
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(dgx, 2), (optic, 8)], submit=False)
    services.serials_set(line=shipment.lines.get(line_number=2), serials=["OS1", "OS2", "OS3"])
    warnings = readiness.review_warnings(shipment)
    assert warnings == [
        "Lines 1–2: serialised parts without a serial number for every unit (line 1: 0 of 2; "
        "line 2: 3 of 8). The packing list and commercial invoice list one per unit: add them on "
        "the lines, or pack picked units from the warehouse, before the documents are generated."
    ]
    body = api_as(coordinator).post(
        f"/api/v1/shipments/{shipment.reference}/transition/", {"to": "compliance_review"}, format="json"
    )
    assert body.status_code == 200, body.content
    assert body.json()["status"] in ("compliance_review", "approved")
    assert body.json()["warnings"] == warnings
    # Complete serials: nothing to flag.
    services_lines = shipment.lines.order_by("line_number")
    Shipment.objects.filter(pk=shipment.pk).update(status="draft")
    services.serials_set(line=services_lines[0], serials=["D1", "D2"])
    services.serials_set(line=services_lines[1], serials=[f"OS{n}" for n in range(1, 9)])
    assert readiness.review_warnings(shipment) == []


def test_the_page_flags_what_documents_will_need(ship, indian_customer, dgx, coordinator, client):
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [(dgx, 1)], submit=False)
    client.force_login(coordinator)
    page = client.get(shipment.get_absolute_url()).content.decode()
    assert 'id="document-readiness"' in page and "Line 1: serialised parts without a serial number" in page
    response = client.post(
        f"/shipments/{shipment.reference}/transition/", {"to": "compliance_review"}, follow=True
    )
    shown = [str(m) for m in response.context["messages"]]
    assert any("Line 1: serialised parts without a serial number" in m for m in shown), shown


def test_adding_a_serialised_line_without_serials_warns_not_refuses(
    ship,
    indian_customer,
    dgx,
    optic,
    coordinator,
    api_as,
    client,
):
    shipment = ship({"consignee": indian_customer}, "IN", "Chennai", [], submit=False)
    api = api_as(coordinator)
    base = f"/api/v1/shipments/{shipment.reference}/lines/"
    answer = api.post(base, {"part": optic.pk, "quantity": 4}, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["warnings"] == [
        "Line 1: 800G OSFP transceiver is serialised and has 0 of 4 serial numbers. The packing list "
        "and commercial invoice list one per unit: add them, or pack picked units from the "
        "warehouse, before the documents are generated."
    ]
    complete = api.post(base, {"part": optic.pk, "quantity": 1, "serials": ["OS-9"]}, format="json")
    assert complete.status_code == 201 and complete.json()["warnings"] == []
    listed = api.get(base).json()["results"]
    assert [len(line["warnings"]) for line in listed] == [1, 0]

    client.force_login(coordinator)
    response = client.post(
        f"/shipments/{shipment.reference}/lines/", {"part": optic.pk, "quantity": 2}, follow=True
    )
    shown = [str(m) for m in response.context["messages"]]
    assert any(
        "Line 3: 800G OSFP transceiver is serialised and has 0 of 2 serial numbers" in m for m in shown
    )
