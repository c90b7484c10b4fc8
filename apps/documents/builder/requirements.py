"""Which documents a shipment needs, and why each one is or is not required."""

from __future__ import annotations

from apps.core.countries import country_name
from apps.shipments.engines.incoterms import rule as incoterm_rule
from apps.shipments.models import PartyRole, Shipment

from ..models import DocumentType
from .lines import doc_lines
from .shipment import line_compliance, load_shipment, parties_by_role
from .us_export import eei_filing_required, not_us_export

# Destinations whose customs usually ask for a certificate of origin on IT hardware.
CERTIFICATE_OF_ORIGIN_COUNTRIES = frozenset({"SA", "AE", "KW", "QA", "BH", "OM", "EG", "JO"})
ADVANCED_COMPUTING = ("3A090", "4A090")


def document_requirements(shipment: Shipment) -> list[tuple[str, bool, str]]:
    """Every document type: (type, required, why it is or is not required)."""
    shipment = load_shipment(shipment)
    parties = parties_by_role(shipment)
    compliance = line_compliance(shipment)
    forwarder = parties.get(PartyRole.FREIGHT_FORWARDER)
    found: dict[str, tuple[bool, str]] = {
        DocumentType.COMMERCIAL_INVOICE: (
            True,
            "Every international shipment is declared on a commercial invoice.",
        ),
        DocumentType.PACKING_LIST: (
            True,
            "Customs and the carrier check packages, weights and serial numbers.",
        ),
    }
    if not_us := not_us_export(shipment, DocumentType.SLI):
        found[DocumentType.SLI] = (False, not_us)
    elif forwarder:
        found[DocumentType.SLI] = (
            True,
            f"A US export: the USPPI instructs {forwarder} to file the EEI in AES and book the freight.",
        )
    else:
        found[DocumentType.SLI] = (
            False,
            "No freight forwarder is named, so no one needs the USPPI's instructions.",
        )
    if not_us := not_us_export(shipment, DocumentType.EEI_SUMMARY):
        found[DocumentType.EEI_SUMMARY] = (False, not_us)
    else:
        required, reasons = eei_filing_required(shipment, doc_lines(shipment, compliance))
        found[DocumentType.EEI_SUMMARY] = (
            required,
            ("EEI must be filed in AES: " if required else "") + " ".join(reasons),
        )
    controlled = [
        eccn
        for eccn, outcome, _ in compliance.values()
        if outcome in ("licence_required", "licence_exception") or eccn.startswith(ADVANCED_COMPUTING)
    ]
    found[DocumentType.END_USER_STATEMENT] = (
        (
            True,
            "Lines need a licence or are advanced-computing items (3A090/4A090): collect the end "
            "user's statement.",
        )
        if controlled
        else (False, "No line needs a licence or is an advanced-computing item (3A090/4A090).")
    )
    found[DocumentType.IOR_AUTHORISATION] = (
        (
            True,
            f"{parties[PartyRole.IMPORTER_OF_RECORD]} imports for the "
            f"{incoterm_rule(shipment.incoterm).duties_paid_by} and needs its authorisation.",
        )
        if PartyRole.IMPORTER_OF_RECORD in parties
        else (False, "No importer of record is named.")
    )
    found[DocumentType.EOR_AUTHORISATION] = (
        (
            True,
            f"{parties[PartyRole.EXPORTER_OF_RECORD]} exports for the seller and needs its authorisation.",
        )
        if PartyRole.EXPORTER_OF_RECORD in parties
        else (False, "No exporter of record is named.")
    )
    destination = country_name(shipment.destination.country)
    found[DocumentType.CERTIFICATE_OF_ORIGIN] = (
        (True, f"Customs in {destination} ask for a certificate of origin.")
        if shipment.destination.country in CERTIFICATE_OF_ORIGIN_COUNTRIES
        else (False, f"Customs in {destination} do not usually ask for one on IT hardware.")
    )
    return [(doc_type, *found[doc_type]) for doc_type in DocumentType.values]


def required_documents(shipment: Shipment) -> list[tuple[str, str]]:
    """The documents this shipment needs, each with why."""
    return [(doc_type, why) for doc_type, required, why in document_requirements(shipment) if required]
