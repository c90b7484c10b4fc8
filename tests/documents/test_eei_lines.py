"""Issue 10, the EEI summary and the SLI of a US export: one AES line per Schedule B number (10
digits), origin, ECCN and AES licence code, with unit of quantity and shipping weight; the port of
export, carrier and date of export. Each test reads the document's data and the text of its PDF."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from apps.accounts.models import Contact, Organisation
from apps.compliance.models import CheckLineResult
from apps.documents import builder, services
from apps.shipments import services as shipment_services
from apps.shipments.models import Site
from tests.documents.test_issue10 import _pdf_text, _us_export
from tests.factories import OrganisationFactory, PartFactory
from tests.shipments.conftest import pack_all


@pytest.fixture
def cpu_server(db):
    """A US-made CPU-only server: the same Schedule B number as the DGX, another ECCN (4A994)."""
    return PartFactory(
        part_number="R760",
        name="CPU server",
        category="server",
        hs_code="847150",
        schedule_b="8471500150",
        cpu_only=True,
        encryption=False,
        country_of_origin="US",
        unit_value=Decimal("12000.40"),
    )


@pytest.fixture
def us_export(coordinator, indian_customer, dgx, switch, cpu_server, country_data, screening_list):
    dgx.tariff_codes.update(code="8471500150")
    switch.tariff_codes.update(code="8517620090")
    forwarder = OrganisationFactory(legal_name="Meridian Freight Pte. Ltd.", country="SG", city="Singapore")
    shipment = _us_export(
        coordinator,
        indian_customer,
        [(dgx, 1), (cpu_server, 1), (switch, 2)],
        forwarder=forwarder,
        freight_charge=Decimal("12000"),
        insurance_charge=Decimal("1500"),
        insurance_value=Decimal("500000"),  # 110% of 448,500.40 (goods, freight, premium) is 493,350.44
    )
    _usppi_signatory()
    pack_all(shipment)
    return shipment


def _usppi_signatory():
    Contact.objects.get_or_create(
        organisation=Organisation.objects.get(legal_name="US Servers Inc"),
        name="Pat Lee",
        defaults={"job_title": "Export manager", "email": "pat@example.com", "is_signatory": True},
    )


def _main_leg(shipment, **fields):
    sfo = Site.objects.get_or_create(
        owner=shipment.owner, name="SFO cargo", kind="airport", city="San Francisco", country="US",
        iata_code="SFO",
    )[0]  # fmt: skip
    maa = Site.objects.get_or_create(
        owner=shipment.owner, name="MAA cargo", kind="airport", city="Chennai", country="IN", iata_code="MAA"
    )[0]
    return shipment_services.leg_add(
        shipment=shipment,
        fields={"role": "main", "origin": sfo, "destination": maa, "mode": "air"} | fields,
    )


def _eei_context(shipment):
    return builder.build_context(shipment, "eei_summary", number="EEI-T", version=1, watermark="")


def test_one_aes_line_per_schedule_b_origin_eccn_and_licence_code(us_export, coordinator):
    """The DGX (4A090.a, from Taiwan) and the CPU server (4A994, US-made) share HS 847150: two AES
    lines, each with its own ECCN and origin, where one line under the DGX's ECCN was declared."""
    _main_leg(us_export, carrier="Atlas Air", planned_departure=dt.date(2026, 12, 5))
    eei = _eei_context(us_export).eei
    rows = [
        (r["schedule_b"], r["origin"], r["eccn"], r["licence_code"], r["quantity"], r["unit_of_quantity"],
         r["value"], r["lines"])
        for r in eei["lines"]
    ]  # fmt: skip
    assert rows == [
        ("8471.50.0150", "F", "4A090.a", "C33 NLR", "1", "NO", "373000", [1]),
        ("8471.50.0150", "D", "4A994", "C33 NLR", "1", "NO", "12000", [2]),  # whole dollars
        ("8517.62.0090", "F", "5A992.c", "C33 NLR", "2", "NO", "50000", [3]),
    ]
    # The shipping weight is what was packed for the lines (one crate, weighed: the contents' catalogue
    # weight and its tare), in whole kilograms.
    gross = int(us_export.packages.get().gross_kg)
    weights = [int(r["shipping_weight_kg"]) for r in eei["lines"]]
    assert all(weights) and sum(weights) in (gross - 1, gross, gross + 1)
    assert eei["reasons"][0] == "Schedule B 8471.50.0150, 8517.62.0090 exceed USD 2,500 per number."
    assert (eei["port_of_export"], eei["carrier"], eei["export_date"]) == (
        "SFO cargo (SFO), San Francisco",
        "Atlas Air",
        "2026-12-05",
    )
    text = _pdf_text(
        services.document_generate(shipment=us_export, doc_type="eei_summary", actor=coordinator)
    )
    assert text.count("8471.50.0150") >= 2 and "8517.62.0090" in text
    assert "4A994" in text and "4A090.a" in text and "C33 NLR" in text
    assert "373,000" in text and "12,000" in text and "1 NO" in text
    assert "SFO cargo (SFO), San Francisco" in text and "Atlas Air" in text and "2026-12-05" in text


def test_licence_exceptions_print_their_aes_code(us_export, coordinator):
    _main_leg(us_export, carrier="Atlas Air", planned_departure=dt.date(2026, 12, 5))
    CheckLineResult.objects.filter(line__line_number=3).update(
        eccn="5A002.a", outcome="licence_exception", licence_exception="ENC"
    )
    eei = _eei_context(us_export).eei
    assert [(r["eccn"], r["licence_code"]) for r in eei["lines"]][2] == ("5A002.a", "C50 ENC")
    assert "A line is exported under a licence or licence exception." in eei["reasons"]
    text = _pdf_text(
        services.document_generate(shipment=us_export, doc_type="eei_summary", actor=coordinator)
    )
    assert "C50 ENC" in text


def test_the_sli_shows_ten_digit_schedule_b_numbers_and_aes_licence_codes(us_export, coordinator):
    context = builder.build_context(us_export, "sli", number="SLI-T", version=1, watermark="")
    assert [(line.schedule_b, line.aes_licence) for line in context.lines] == [
        ("8471.50.0150", "C33 NLR"),
        ("8471.50.0150", "C33 NLR"),
        ("8517.62.0090", "C33 NLR"),
    ]
    text = _pdf_text(services.document_generate(shipment=us_export, doc_type="sli", actor=coordinator))
    assert "8471.50.0150" in text and "8517.62.0090" in text and "C33 NLR" in text


@pytest.mark.parametrize("doc_type", ["eei_summary", "sli"])
def test_a_line_without_a_schedule_b_number_is_a_problem_linking_to_the_part(
    us_export, coordinator, cpu_server, doc_type
):
    _main_leg(us_export, carrier="Atlas Air", planned_departure=dt.date(2026, 12, 5))
    cpu_server.tariff_codes.all().delete()
    problems = {p.field: p for p in builder.document_problems(us_export, doc_type)}
    problem = problems["lines[2].schedule_b"]
    assert "Line 2" in problem.message and "R760" in problem.message and "Schedule B" in problem.message
    assert problem.fix_url == reverse("catalog:part-detail", args=[cpu_server.pk])
    with pytest.raises(ValidationError) as excinfo:
        services.document_generate(shipment=us_export, doc_type=doc_type, actor=coordinator)
    assert "lines[2].schedule_b" in excinfo.value.message_dict


def test_a_mandatory_filing_needs_the_departure(us_export, coordinator):
    problems = {p.field for p in builder.document_problems(us_export, "eei_summary")}
    assert {"port_of_export", "carrier", "export_date"} <= problems
    _main_leg(us_export, carrier="", planned_departure=None)
    problems = {p.field for p in builder.document_problems(us_export, "eei_summary")}
    assert "port_of_export" not in problems and {"carrier", "export_date"} <= problems
    assert not {"port_of_export", "carrier", "export_date"} & {
        p.field for p in builder.document_problems(us_export, "sli")
    }


def test_without_a_mandatory_filing_the_departure_is_to_be_confirmed(
    coordinator, indian_customer, switch, country_data, screening_list
):
    switch.tariff_codes.update(code="8517620090")
    small = _us_export(coordinator, indian_customer, [(switch, 1)])
    type(small.lines.get()).objects.filter(shipment=small).update(unit_value=Decimal("1000"))
    pack_all(small)
    _usppi_signatory()
    assert not {"port_of_export", "carrier", "export_date"} & {
        p.field for p in builder.document_problems(small, "eei_summary")
    }
    context = _eei_context(small)
    assert not context.eei["filing_required"] and context.eei["port_of_export"] == ""
    text = _pdf_text(services.document_generate(shipment=small, doc_type="eei_summary", actor=coordinator))
    assert "Port of export To be confirmed" in text and "Carrier To be confirmed" in text
