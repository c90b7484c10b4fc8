"""One document's data (`DocumentContext`) from a shipment: its parties, lines and packages, the
totals the Incoterm puts on the invoice, who signs; and the DRAFT mark until the shipment's
compliance check has passed."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.utils import timezone

from apps.accounts.models import Organisation, User
from apps.compliance.services import approval_problems
from apps.core.countries import country_name
from apps.shipments.engines.incoterms import CARGO_CLAUSES, IncotermRule
from apps.shipments.engines.incoterms import EDITION as INCOTERMS_EDITION
from apps.shipments.engines.incoterms import rule as incoterm_rule
from apps.shipments.models import PartyRole, Shipment
from apps.shipments.selectors import package_dangerous_goods

from .. import signatures
from ..context import DocPackage, DocumentContext, PartyBlock
from ..models import DocumentType
from .lines import doc_lines, serial_origin
from .shipment import line_compliance, load_shipment, parties_by_role, reserved_invoice_number
from .us_export import US_EXPORT_DOCUMENTS, eei_data, with_us_export_data

DCS = (
    "These items are controlled by the U.S. government and authorized for export only to the country "
    "of ultimate destination for use by the ultimate consignee or end-user(s) herein identified. They "
    "may not be resold, transferred, or otherwise disposed of, to any other country or to any person "
    "other than the authorized ultimate consignee or end-user(s), either in their original form or "
    "after being incorporated into other items, without first obtaining approval from the U.S. "
    "government or as otherwise authorized by U.S. law and regulations."
)


def _party(role_label: str, org: Organisation | None) -> PartyBlock | None:
    if org is None:
        return None
    contact = next(iter(org.contacts.all()), None)
    return PartyBlock(
        role=role_label,
        name=org.legal_name,
        address_lines=tuple(org.address_lines),
        country=org.country,
        country_name=country_name(org.country),
        registrations=tuple(f"{str(r).split(' ', 1)[0]} {r.number}" for r in org.registrations.all()),
        contact=", ".join(p for p in (contact.name, contact.email, contact.phone) if p) if contact else "",
    )


def _requested_by(exporter: Organisation | None, actor: User | None) -> str:
    """The exporter, named with a person of its own: the user generating the document when they
    work for it (the operator, when it is the exporter), else its authorised signatory, else its
    first contact. The operator's user is nobody of another exporter's."""
    if exporter is None:
        return ""
    if actor is not None and actor.organisation_id == exporter.pk:
        person = f"{actor.get_full_name() or actor.username}, {actor.get_role_display()}"
    else:
        contact = signatures.signatory_of(exporter) or next(iter(exporter.contacts.all()), None)
        person = ", ".join(p for p in (contact.name, contact.job_title) if p) if contact else ""
    return f"{exporter.legal_name} ({person})" if person else exporter.legal_name


def _invoice_value_note(rule: IncotermRule) -> str:
    """What the invoice value leaves out under the Incoterm, and why ("" under CIP and CIF)."""
    code = rule.code
    if not rule.freight_on_invoice:
        why = (
            "the buyer pays the main carriage and insures the goods"
            if rule.main_carriage_paid_by == "buyer"
            else "the seller pays them to deliver the goods, and the invoice states the goods value"
        )
        return f"Freight and insurance are not part of the invoice value under {code}: {why}."
    if not rule.insurance_on_invoice:
        return f"Insurance is not part of the invoice value under {code}: the buyer insures the goods."
    return ""


def build_context(
    shipment: Shipment,
    doc_type: str,
    *,
    number: str,
    version: int,
    watermark: str,
    actor: User | None = None,
) -> DocumentContext:
    shipment = load_shipment(shipment)
    parties = parties_by_role(shipment)
    lines = doc_lines(shipment, line_compliance(shipment))
    if doc_type in US_EXPORT_DOCUMENTS and shipment.origin.country == "US":
        lines = with_us_export_data(shipment, lines)
    packages = []
    shipment_lines = {line.pk: line for line in shipment.lines.all()}
    for package in shipment.packages.all():
        items = list(package.items.all())
        # Each packed unit under its own country of origin: a consolidation's package may hold
        # units of one part from several countries.
        by_origin: dict[str, list[str]] = defaultdict(list)
        for serial in package.serials.all():
            by_origin[serial_origin(serial, shipment_lines[serial.line_id])].append(serial.serial)
        serial_origins = tuple((country, tuple(by_origin[country])) for country in sorted(by_origin))
        handling = [
            label
            for flag, label in (
                (package.tilt_indicator, "Tilt indicator"),
                (package.shock_indicator, "Shock indicator"),
                (package.keep_dry, "Keep dry"),
            )
            if flag
        ]
        packages.append(
            DocPackage(
                number=package.number,
                package_type=package.get_package_type_display(),
                length_cm=package.length_cm,
                width_cm=package.width_cm,
                height_cm=package.height_cm,
                volume_m3=package.volume_m3,
                gross_kg=package.gross_kg,
                net_kg=package.net_kg,
                contents=tuple(
                    f"Line {i.line.line_number}: {i.quantity} × {i.line.description}" for i in items
                ),
                serials=tuple(serial for _country, serials in serial_origins for serial in serials),
                serial_origins=serial_origins,
                marks=package.marks,
                # The same classification freight is planned on (`package_dangerous_goods`): UN3480
                # for batteries on their own, PI967 Section II only for small batteries in equipment.
                dangerous_goods=tuple(package_dangerous_goods(package)),
                handling=tuple(handling),
            )
        )
    goods_total = sum((line.line_value for line in lines), Decimal("0"))
    rule = incoterm_rule(shipment.incoterm)
    # The invoice value follows the Incoterm: the C rules add the freight (and CIP/CIF the insurance).
    freight = shipment.freight_charge if rule.freight_on_invoice else None
    insurance = shipment.insurance_charge if rule.insurance_on_invoice else None
    controlled = any(line.eccn and line.eccn != "EAR99" for line in lines)
    return DocumentContext(
        doc_type=doc_type,
        title=DocumentType(doc_type).label,
        number=number,
        version=version,
        issue_date=timezone.localdate(),
        shipment_reference=shipment.reference,
        watermark=watermark,
        seller=_party("Seller / exporter", parties.get(PartyRole.SHIPPER)),
        buyer=_party("Buyer / consignee", parties.get(PartyRole.CONSIGNEE)),
        ship_to=_party(
            "Ship to", parties.get(PartyRole.ULTIMATE_CONSIGNEE) or parties.get(PartyRole.CONSIGNEE)
        ),
        ultimate_consignee=_party(
            "Ultimate consignee",
            parties.get(PartyRole.ULTIMATE_CONSIGNEE) or parties.get(PartyRole.CONSIGNEE),
        ),
        importer_of_record=_party("Importer of record", parties.get(PartyRole.IMPORTER_OF_RECORD)),
        exporter_of_record=_party("Exporter of record", parties.get(PartyRole.EXPORTER_OF_RECORD)),
        forwarder=_party("Freight forwarder", parties.get(PartyRole.FREIGHT_FORWARDER)),
        notify_party=_party("Notify party", parties.get(PartyRole.NOTIFY_PARTY)),
        incoterm=shipment.incoterm,
        incoterm_place=shipment.incoterm_place,
        incoterm_name=rule.name,
        mode=shipment.get_mode_display(),
        origin=f"{shipment.origin.name}, {shipment.origin.city}, {country_name(shipment.origin.country)}",
        destination=f"{shipment.destination.name}, {shipment.destination.city}, "
        f"{country_name(shipment.destination.country)}",
        country_of_export=country_name(shipment.origin.country),
        country_of_destination=country_name(shipment.destination.country),
        currency=shipment.currency,
        reason_for_export=shipment.reason_for_export or "Sale",
        transport_documents=tuple(
            leg.transport_document for leg in shipment.legs.all() if leg.transport_document
        ),
        lines=tuple(lines),
        packages=tuple(packages),
        goods_total=goods_total,
        freight=freight,
        insurance=insurance,
        invoice_total=goods_total + (freight or 0) + (insurance or 0),
        insured_value=shipment.insurance_value if rule.insurance_on_invoice else None,
        insurance_cover=CARGO_CLAUSES[rule.insurance_cover] if rule.insurance_on_invoice else "",
        invoice_value_note=_invoice_value_note(rule),
        total_packages=len(packages),
        total_gross_kg=sum((p.gross_kg for p in packages), Decimal("0")),
        total_net_kg=sum((p.net_kg for p in packages), Decimal("0")),
        total_volume_m3=sum((p.volume_m3 for p in packages), Decimal("0")),
        # 15 CFR 758.6: the statement goes on the invoice of CCL items exported from the US.
        destination_control_statement=DCS if controlled and shipment.origin.country == "US" else "",
        end_use=shipment.end_use,
        eei=eei_data(shipment, parties, lines) if doc_type == DocumentType.EEI_SUMMARY else {},
        # Who signs: the party that makes the declaration, or the operator as its authorised agent.
        signature=signatures.signature_for(shipment, doc_type, parties, actor),
        countersignature=signatures.countersignature_for(shipment, doc_type, parties, actor),
        prepared_by=f"{actor.get_full_name() or actor.username}, {actor.get_role_display()}" if actor else "",
        requested_by=_requested_by(parties.get(PartyRole.SHIPPER), actor),
        incoterm_text=f"{shipment.incoterm} {shipment.incoterm_place}, {INCOTERMS_EDITION}",
        invoice_number=number
        if doc_type == DocumentType.COMMERCIAL_INVOICE
        else reserved_invoice_number(shipment),
        payment_terms=shipment.payment_terms,
        buyer_order_reference=shipment.buyer_order_reference,
        instructions=shipment.instructions,
        licences=tuple(
            dict.fromkeys(line.licence for line in lines if line.licence and line.licence != "NLR")
        ),
        duties_paid_by=rule.duties_paid_by,
        ior_principal=_party(
            "Principal",
            parties.get(PartyRole.SHIPPER if rule.duties_paid_by == "seller" else PartyRole.CONSIGNEE),
        ),
    )


def watermark_for(shipment: Shipment) -> str:
    """DRAFT until the shipment's compliance check (of this version) has passed."""
    return "" if not approval_problems(shipment) else "DRAFT"
