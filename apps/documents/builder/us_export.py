"""US exports: whether an EEI filing in AES is mandatory, the Schedule B commodity lines of the
shipper's letter of instruction (SLI) and the EEI summary, and what those two need of a shipment.
Shipments are adapted here to the pure engine in `documents/engines/eei.py`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from django.urls import reverse

from apps.catalog.models import PartTariffCode
from apps.compliance.models import CheckLineResult
from apps.compliance.services import latest_check
from apps.core.countries import country_name
from apps.shipments.models import Leg, PartyRole, Shipment

from ..context import DocLine, Problem
from ..engines import eei
from ..models import DocumentType
from .lines import doc_lines
from .shipment import line_compliance

# Documents of the US export system: the USPPI instructs its forwarder (SLI) to file the EEI in AES.
US_EXPORT_DOCUMENTS = frozenset({DocumentType.SLI, DocumentType.EEI_SUMMARY})


def not_us_export(shipment: Shipment, doc_type: str) -> str:
    """Why a US export document does not apply to this export ("" when exported from the US)."""
    country = shipment.origin.country
    if country == "US":
        return ""
    name = country_name(country)
    what = (
        "the shipper's letter of instruction is how a US principal party in interest (USPPI) "
        "instructs its forwarder to file in AES"
        if doc_type == DocumentType.SLI
        else "EEI is filed in the US Automated Export System (AES) for exports from the US"
    )
    return (
        f"Exported from {name}, not the US: {what}. The export is declared to the customs of "
        f"{name} under its own rules, by the exporter or its customs broker, from the commercial "
        "invoice and packing list."
    )


@dataclass(frozen=True)
class _USLineFacts:
    """What the US export documents need of a line beyond its DocLine."""

    part_id: int
    part: str
    schedule_b: str  # "" when the part has no US tariff code extending the line's HS code
    tariff_code: str  # the part's US code, even one not matching the line's HS code
    unit_of_quantity: str
    outcome: str
    licence_exception: str
    licence_number: str


def _us_line_facts(shipment: Shipment) -> dict[int, _USLineFacts]:
    """line number → its Schedule B number and licence determination (two or three queries)."""
    lines = list(shipment.lines.all())
    codes = {
        t.part_id: t
        for t in PartTariffCode.objects.filter(part_id__in={line.part_id for line in lines}, country="US")
    }
    check = latest_check(shipment)
    found = CheckLineResult.objects.filter(compliance_check=check).select_related("licence") if check else []
    results = {r.line_id: r for r in found}
    facts = {}
    for line in lines:
        tariff = codes.get(line.part_id)
        result = results.get(line.pk)
        facts[line.line_number] = _USLineFacts(
            part_id=line.part_id,
            part=str(line.part),
            schedule_b=tariff.code if tariff and tariff.code.startswith(line.hs_code[:6]) else "",
            tariff_code=tariff.code if tariff else "",
            unit_of_quantity=tariff.unit_of_quantity if tariff else eei.NUMBER,
            outcome=result.outcome if result else "",
            licence_exception=result.licence_exception if result else "",
            licence_number=result.licence.number if result and result.licence else "",
        )
    return facts


def _eei_lines(shipment: Shipment, lines: list[DocLine]) -> list[eei.EEILine]:
    facts = _us_line_facts(shipment)
    eei_lines = []
    for line in lines:
        fact = facts.get(line.number)
        eei_lines.append(
            eei.EEILine(
                number=line.number,
                hs_code=line.hs_code,
                schedule_b=fact.schedule_b if fact else "",
                quantity=line.quantity,
                value=line.line_value,
                country_of_origin=line.country_of_origin,
                eccn=line.eccn,
                outcome=fact.outcome if fact else "",
                licence_exception=fact.licence_exception if fact else "",
                licence_number=fact.licence_number if fact else "",
                unit_of_quantity=fact.unit_of_quantity if fact else eei.NUMBER,
                net_kg=line.net_kg,
                gross_kg=line.gross_kg,
            )
        )
    return eei_lines


def with_us_export_data(shipment: Shipment, lines: list[DocLine]) -> list[DocLine]:
    """The lines with their Schedule B number and AES licence code (SLI and EEI summary)."""
    return [
        replace(line, schedule_b=eei.format_schedule_b(e.schedule_b), aes_licence=e.licence.text)
        for line, e in zip(lines, _eei_lines(shipment, lines), strict=True)
    ]


def _schedule_b_rows(lines: list[eei.EEILine]) -> list[dict]:
    """The AES commodity lines as the EEI summary prints them (and its data keeps them)."""
    return [
        {
            "schedule_b": row.schedule_b_text,
            "origin": row.origin,
            "eccn": row.eccn,
            "licence_code": row.licence.text,
            "licence_number": row.licence.number,
            "quantity": str(row.quantity),
            "unit_of_quantity": row.unit_of_quantity,
            "value": str(row.value),
            "shipping_weight_kg": "" if row.shipping_weight_kg is None else str(row.shipping_weight_kg),
            "lines": list(row.lines),
            "line_ranges": row.line_ranges,
        }
        for row in eei.eei_rows(lines)
    ]


def eei_filing_required(shipment: Shipment, lines: list[DocLine]) -> tuple[bool, list[str]]:
    """Whether an EEI filing is mandatory (15 CFR 30.2, 30.37(a)), and why."""
    if shipment.origin.country != "US":
        return False, [not_us_export(shipment, DocumentType.EEI_SUMMARY)]
    filing = eei.eei_filing(
        origin_country=shipment.origin.country,
        destination_country=shipment.destination.country,
        lines=_eei_lines(shipment, lines),
    )
    return filing.required, list(filing.reasons)


@dataclass(frozen=True)
class _Departure:
    port_of_export: str
    carrier: str
    export_date: dt.date | None


def _departure(shipment: Shipment) -> _Departure:
    """Where, how and when the goods leave the US: the leg leaving the country, else the main carriage."""
    legs = list(
        Leg.objects.filter(shipment=shipment).select_related("origin", "destination").order_by("sequence")
    )
    leaving = [leg for leg in legs if leg.origin.country == "US" and leg.destination.country != "US"]
    main = [leg for leg in legs if leg.role == "main"]
    leg = (leaving or main or [None])[0]
    if leg is None:
        return _Departure("", "", None)
    site = leg.origin
    code = site.iata_code or site.unlocode
    port = f"{site.name} ({code}), {site.city}" if code else f"{site.name}, {site.city}"
    departure = leg.actual_departure.date() if leg.actual_departure else leg.planned_departure
    return _Departure(port, leg.carrier, departure)


def us_export_problems(shipment: Shipment, doc_type: str) -> list[Problem]:
    """What the SLI and the EEI summary need of a US export beyond the other documents: a Schedule B
    number per line; for a mandatory filing, the packed weights, the departure and US dollars."""
    if doc_type not in US_EXPORT_DOCUMENTS or shipment.origin.country != "US":
        return []
    ship_url = reverse("shipments:shipment-detail", args=[shipment.reference])
    problems = []
    facts = _us_line_facts(shipment)
    for number, fact in sorted(facts.items()):
        if fact.schedule_b:
            continue
        message = (
            f"Line {number} ({fact.part}): its US tariff code {fact.tariff_code} does not extend the "
            "line's HS code; correct the part's Schedule B number."
            if fact.tariff_code
            else f"Line {number} ({fact.part}) has no 10-digit Schedule B number: record the part's US "
            "tariff code."
        )
        problems.append(
            Problem(
                f"lines[{number}].schedule_b", message, reverse("catalog:part-detail", args=[fact.part_id])
            )
        )
    if doc_type != DocumentType.EEI_SUMMARY:
        return problems
    lines = doc_lines(shipment, line_compliance(shipment))
    required, _reasons = eei_filing_required(shipment, lines)
    if not required:
        return problems  # what is missing prints as "to be confirmed"
    for line in lines:
        if line.gross_kg is None:
            problems.append(
                Problem(
                    f"lines[{line.number}].shipping_weight",
                    f"Line {line.number}: no shipping weight; pack the line so AES gets its weight.",
                    ship_url + "#packages",
                )
            )
    departure = _departure(shipment)
    for field, value, what in (
        ("port_of_export", departure.port_of_export, "the port of export (where the goods leave the US)"),
        ("carrier", departure.carrier, "the carrier"),
        ("export_date", departure.export_date, "the date of export"),
    ):
        if not value:
            problems.append(
                Problem(field, f"AES needs {what}: plan the main carriage leg with it.", ship_url + "#legs")
            )
    if shipment.currency != "USD":
        problems.append(
            Problem(
                "currency",
                f"Values are in {shipment.currency}: AES reports US dollars; invoice in USD.",
                reverse("shipments:shipment-update", args=[shipment.reference]),
            )
        )
    return problems


def eei_data(shipment: Shipment, parties: dict, lines: list[DocLine]) -> dict:
    """Whether an EEI filing is mandatory, and the data it needs."""
    eei_lines = _eei_lines(shipment, lines)
    required, reasons = eei_filing_required(shipment, lines)
    shipper = parties.get(PartyRole.SHIPPER)
    ein = next((r.number for r in shipper.registrations.all() if r.scheme == "ein"), "") if shipper else ""
    consignee = parties.get(PartyRole.ULTIMATE_CONSIGNEE) or parties.get(PartyRole.CONSIGNEE)
    departure = _departure(shipment)
    return {
        "filing_required": required,
        "reasons": reasons,
        "usppi": f"{shipper.legal_name}{', EIN ' + ein if ein else ''}" if shipper else "",
        "ultimate_consignee": str(consignee) if consignee else "",
        "port_of_export": departure.port_of_export,
        "carrier": departure.carrier,
        "export_date": departure.export_date.isoformat() if departure.export_date else "",
        "lines": _schedule_b_rows(eei_lines),
        "itn_note": "Put the ITN returned by AES on the air waybill / bill of lading before departure. "
        "Keep records for 5 years.",
    }
