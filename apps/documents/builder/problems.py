"""What stops a document being made: every field it needs that the shipment lacks, each with where
to fix it. No half-empty PDF is ever produced: the services ask `document_problems` first."""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse

from apps.compliance.services import latest_check
from apps.shipments import readiness
from apps.shipments.engines.incoterms import rule as incoterm_rule
from apps.shipments.models import PartyRole, Shipment
from apps.shipments.selectors import packing_issues, record_party_needs

from .. import signatures
from ..context import Problem
from ..models import DocumentType
from .shipment import line_compliance, load_shipment, parties_by_role, reserved_invoice_number
from .us_export import US_EXPORT_DOCUMENTS, not_us_export, us_export_problems

# Documents that state the number of packages or a weight: they are made from what was packed.
PACKED_DOCUMENTS = frozenset(
    {
        DocumentType.COMMERCIAL_INVOICE,
        DocumentType.PACKING_LIST,
        DocumentType.CERTIFICATE_OF_ORIGIN,
        DocumentType.SLI,
        DocumentType.EEI_SUMMARY,
        DocumentType.IOR_AUTHORISATION,
        DocumentType.EOR_AUTHORISATION,
    }
)
# Documents that state the invoice value, which includes freight and insurance under the C rules.
INVOICE_VALUE_DOCUMENTS = frozenset(
    {
        DocumentType.COMMERCIAL_INVOICE,
        DocumentType.CERTIFICATE_OF_ORIGIN,
        DocumentType.IOR_AUTHORISATION,
        DocumentType.EOR_AUTHORISATION,
    }
)


def document_problems(shipment: Shipment, doc_type: str) -> list[Problem]:
    """Every field the document needs but the shipment lacks, with where to fix it."""
    shipment = load_shipment(shipment)
    parties = parties_by_role(shipment)
    ship_url = reverse("shipments:shipment-detail", args=[shipment.reference])
    edit_url = reverse("shipments:shipment-update", args=[shipment.reference])
    compliance_url = reverse("compliance:shipment", args=[shipment.reference])
    problems: list[Problem] = []
    lines = list(shipment.lines.all())
    if not lines:
        problems.append(Problem("lines", "The shipment has no lines.", ship_url + "#lines"))
    if doc_type in US_EXPORT_DOCUMENTS and (not_us := not_us_export(shipment, doc_type)):
        problems.append(Problem("origin", f"Not generated: {not_us}", edit_url))
    # The IOR letter is signed by whoever owes import duties under the Incoterm (the seller under DDP).
    needs_seller = (
        doc_type != DocumentType.IOR_AUTHORISATION
        or incoterm_rule(shipment.incoterm).duties_paid_by == "seller"
    )
    if needs_seller and PartyRole.SHIPPER not in parties:
        problems.append(Problem("shipper", "No shipper / exporter is named.", edit_url))
    if PartyRole.CONSIGNEE not in parties:
        problems.append(Problem("consignee", "No consignee is named.", edit_url))
    if doc_type in (
        DocumentType.COMMERCIAL_INVOICE,
        DocumentType.PACKING_LIST,
        DocumentType.CERTIFICATE_OF_ORIGIN,
        DocumentType.SLI,
        DocumentType.EEI_SUMMARY,
    ):
        for line in lines:
            if not line.hs_code:
                problems.append(
                    Problem(
                        f"lines[{line.line_number}].hs_code",
                        f"Line {line.line_number} has no HS code.",
                        ship_url + "#lines",
                    )
                )
            if not line.country_of_origin:
                problems.append(
                    Problem(
                        f"lines[{line.line_number}].country_of_origin",
                        f"Line {line.line_number} has no country of origin.",
                        ship_url + "#lines",
                    )
                )
            if doc_type == DocumentType.COMMERCIAL_INVOICE and line.unit_value <= 0:
                problems.append(
                    Problem(
                        f"lines[{line.line_number}].unit_value",
                        f"Line {line.line_number} has no unit value.",
                        ship_url + "#lines",
                    )
                )
    if doc_type in (
        DocumentType.COMMERCIAL_INVOICE,
        DocumentType.SLI,
        DocumentType.EEI_SUMMARY,
        DocumentType.END_USER_STATEMENT,
    ):
        compliance = line_compliance(shipment)
        if latest_check(shipment) is None:
            problems.append(
                Problem(
                    "compliance_check",
                    "No compliance check has run, so ECCNs and licences are not determined.",
                    compliance_url,
                )
            )
        for line in lines:
            eccn, outcome, licence = compliance.get(line.pk, ("", "", ""))
            if not eccn:
                problems.append(
                    Problem(
                        f"lines[{line.line_number}].eccn",
                        f"Line {line.line_number} ({line.part}) has no ECCN.",
                        reverse("compliance:part", args=[line.part_id]),
                    )
                )
            if outcome == "licence_required" and not licence:
                problems.append(
                    Problem(
                        f"lines[{line.line_number}].licence",
                        f"Line {line.line_number} needs a licence and none is assigned.",
                        reverse("compliance:licences"),
                    )
                )
    if doc_type == DocumentType.COMMERCIAL_INVOICE:
        for need in record_party_needs(shipment):
            if need.role == "importer" and need.needed and PartyRole.IMPORTER_OF_RECORD not in parties:
                problems.append(
                    Problem("importer_of_record", f"{need.reasons[0]} Name an importer of record.", edit_url)
                )
    if doc_type in PACKED_DOCUMENTS:
        for issue in packing_issues(shipment):
            problems.append(Problem(issue.field, issue.message, f"{ship_url}#{issue.section}"))
    if doc_type in INVOICE_VALUE_DOCUMENTS or doc_type == DocumentType.SLI:
        # The charges and cover the Incoterm calls for (the SLI states the insured value too): the
        # rule review already applied (shipments.readiness), read again on today's figures.
        goods = sum((line.line_value for line in lines), Decimal("0"))
        problems += [
            Problem(gap.field, gap.message, edit_url)
            for gap in readiness.terms_problems(shipment, goods_value=goods)
        ]
    if doc_type == DocumentType.CERTIFICATE_OF_ORIGIN and not reserved_invoice_number(shipment):
        problems.append(
            Problem(
                "commercial_invoice",
                "Generate the commercial invoice first: the certificate cites its number.",
                reverse("documents:shipment", args=[shipment.reference]),
            )
        )
    problems += us_export_problems(shipment, doc_type)
    if doc_type == DocumentType.SLI and PartyRole.FREIGHT_FORWARDER not in parties:
        problems.append(Problem("freight_forwarder", "No freight forwarder is named.", edit_url))
    if doc_type == DocumentType.IOR_AUTHORISATION and PartyRole.IMPORTER_OF_RECORD not in parties:
        problems.append(Problem("importer_of_record", "No importer of record is named.", edit_url))
    if doc_type == DocumentType.EOR_AUTHORISATION and PartyRole.EXPORTER_OF_RECORD not in parties:
        problems.append(Problem("exporter_of_record", "No exporter of record is named.", edit_url))
    if doc_type == DocumentType.END_USER_STATEMENT and not shipment.end_use:
        problems.append(
            Problem("end_use", "The shipment does not say what the goods will be used for.", edit_url)
        )
    problems += signatures.signature_problems(shipment, doc_type, parties)
    return problems
