"""From a shipment to the data of each document — and the list of what is missing when a
document cannot be made. No half-empty PDF is ever produced: `document_problems` comes first."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Prefetch
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import Organisation
from apps.compliance.models import CheckLineResult, PartClassification
from apps.compliance.services import approval_problems, latest_check
from apps.core.countries import country_name
from apps.shipments.engines.incoterms import rule as incoterm_rule
from apps.shipments.models import LineSerial, Package, PackageItem, PartyRole, Shipment, ShipmentLine
from apps.shipments.selectors import UN3481, record_party_needs

from .context import DocLine, DocPackage, DocumentContext, PartyBlock
from .models import DocumentType

DCS = (
    "These items are controlled by the U.S. government and authorized for export only to the country "
    "of ultimate destination for use by the ultimate consignee or end-user(s) herein identified. They "
    "may not be resold, transferred, or otherwise disposed of, to any other country or to any person "
    "other than the authorized ultimate consignee or end-user(s), either in their original form or "
    "after being incorporated into other items, without first obtaining approval from the U.S. "
    "government or as otherwise authorized by U.S. law and regulations."
)
# Destinations whose customs usually ask for a certificate of origin on IT hardware.
CERTIFICATE_OF_ORIGIN_COUNTRIES = frozenset({"SA", "AE", "KW", "QA", "BH", "OM", "EG", "JO"})
EEI_THRESHOLD = Decimal("2500")
EEI_ALWAYS_DESTINATIONS = frozenset({"CN", "RU", "VE"})
ADVANCED_COMPUTING = ("3A090", "4A090")
INCOTERMS_EDITION = "Incoterms 2020"  # the edition of the rules in shipments.engines.incoterms
LICENCE_CODES = {"ACA": "C68", "NAC": "C67", "LPP": "C75"}


@dataclass(frozen=True)
class Problem:
    field: str
    message: str
    fix_url: str


def _shipment(shipment: Shipment) -> Shipment:
    cache = getattr(shipment, "_prefetched_objects_cache", {})
    if {"parties", "lines", "packages", "legs"} <= set(cache):
        return shipment  # the caller (e.g. the shipment page) already loaded everything
    return (
        Shipment.objects.select_related("origin", "destination", "owner")
        .prefetch_related(
            Prefetch(
                "parties__organisation",
                queryset=Organisation.objects.prefetch_related("registrations", "contacts"),
            ),
            # A join, not an IN list of every part: large shipments stay one query (and SQLite-safe).
            Prefetch("lines", queryset=ShipmentLine.objects.select_related("part__manufacturer")),
            Prefetch(
                "packages",
                queryset=Package.objects.prefetch_related(
                    Prefetch("items", queryset=PackageItem.objects.select_related("line__part")),
                    Prefetch("serials", queryset=LineSerial.objects.order_by("serial")),
                ),
            ),
            "legs",
        )
        .get(pk=shipment.pk)
    )


def _parties(shipment: Shipment) -> dict[str, Organisation]:
    return {p.role: p.organisation for p in shipment.parties.all()}


def _line_compliance(shipment: Shipment) -> dict[int, tuple[str, str, str]]:
    """line id → (ECCN, outcome, licence text) from the latest check, else current classification."""
    check = latest_check(shipment)
    found: dict[int, tuple[str, str, str]] = {}
    if check is not None:
        for r in CheckLineResult.objects.filter(compliance_check=check).select_related("licence"):
            licence = (
                r.licence.number
                if r.licence
                else (
                    f"{r.licence_exception} ({LICENCE_CODES[r.licence_exception]})"
                    if r.licence_exception in LICENCE_CODES
                    else r.licence_exception or ("NLR" if r.outcome == "NLR" else "")
                )
            )
            found[r.line_id] = (r.eccn, r.outcome, licence)
    classifications = {
        c.part_id: c.eccn
        for c in PartClassification.objects.filter(part__in=shipment.lines.values("part_id"), is_current=True)
    }
    for line in shipment.lines.all():
        if line.pk not in found and classifications.get(line.part_id):
            found[line.pk] = (classifications[line.part_id], "", "")
    return found


# Documents of the US export system: the USPPI instructs its forwarder (SLI) to file the EEI in AES.
US_EXPORT_DOCUMENTS = frozenset({DocumentType.SLI, DocumentType.EEI_SUMMARY})


def _not_us_export(shipment: Shipment, doc_type: str) -> str:
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


def document_requirements(shipment: Shipment) -> list[tuple[str, bool, str]]:
    """Every document type: (type, required, why it is or is not required)."""
    shipment = _shipment(shipment)
    parties = _parties(shipment)
    compliance = _line_compliance(shipment)
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
    if not_us := _not_us_export(shipment, DocumentType.SLI):
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
    if not_us := _not_us_export(shipment, DocumentType.EEI_SUMMARY):
        found[DocumentType.EEI_SUMMARY] = (False, not_us)
    else:
        required, reasons = _eei_filing(shipment, _doc_lines(shipment, compliance))
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


def document_problems(shipment: Shipment, doc_type: str) -> list[Problem]:
    """Every field the document needs but the shipment lacks, with where to fix it."""
    shipment = _shipment(shipment)
    parties = _parties(shipment)
    ship_url = reverse("shipments:shipment-detail", args=[shipment.reference])
    edit_url = reverse("shipments:shipment-update", args=[shipment.reference])
    compliance_url = reverse("compliance:shipment", args=[shipment.reference])
    problems: list[Problem] = []
    lines = list(shipment.lines.all())
    if not lines:
        problems.append(Problem("lines", "The shipment has no lines.", ship_url + "#lines"))
    if doc_type in US_EXPORT_DOCUMENTS and (not_us := _not_us_export(shipment, doc_type)):
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
        compliance = _line_compliance(shipment)
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
    if doc_type == DocumentType.PACKING_LIST:
        packages = list(shipment.packages.all())
        if not packages:
            problems.append(Problem("packages", "Nothing is packed.", ship_url + "#packages"))
        packed = defaultdict(int)
        for package in packages:
            for item in package.items.all():
                packed[item.line_id] += item.quantity
        for line in lines:
            if packages and packed[line.pk] != line.quantity:
                problems.append(
                    Problem(
                        f"lines[{line.line_number}].packed",
                        f"Line {line.line_number}: {packed[line.pk]} of {line.quantity} units packed.",
                        ship_url + "#packages",
                    )
                )
    if doc_type == DocumentType.CERTIFICATE_OF_ORIGIN and not _invoice_number(shipment):
        problems.append(
            Problem(
                "commercial_invoice",
                "Generate the commercial invoice first: the certificate cites its number.",
                reverse("documents:shipment", args=[shipment.reference]),
            )
        )
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
    return problems


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


def _invoice_number(shipment: Shipment) -> str:
    """The number of the shipment's commercial invoice (every version keeps it), "" before one exists."""
    from .models import Document

    return (
        Document.objects.filter(shipment=shipment, doc_type=DocumentType.COMMERCIAL_INVOICE)
        .values_list("number", flat=True)
        .first()
        or ""
    )


def _doc_lines(shipment: Shipment, compliance: dict[int, tuple[str, str, str]]) -> list[DocLine]:
    lines = []
    for line in shipment.lines.all():
        eccn, _outcome, licence = compliance.get(line.pk, ("", "", ""))
        lines.append(
            DocLine(
                number=line.line_number,
                part_number=line.part.part_number,
                description=line.description,
                quantity=line.quantity,
                unit="pcs",
                unit_value=line.unit_value,
                line_value=line.line_value,
                hs_code=line.hs_code,
                country_of_origin=line.country_of_origin,
                eccn=eccn or "",
                licence=licence,
                net_kg=(line.part.unit_weight_kg * line.quantity).quantize(Decimal("0.01")),
            )
        )
    return lines


def build_context(
    shipment: Shipment, doc_type: str, *, number: str, version: int, watermark: str, signatory: str = ""
) -> DocumentContext:
    shipment = _shipment(shipment)
    parties = _parties(shipment)
    lines = _doc_lines(shipment, _line_compliance(shipment))
    packages = []
    for package in shipment.packages.all():
        items = list(package.items.all())
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
                serials=tuple(s.serial for s in package.serials.all()),
                marks=package.marks,
                dangerous_goods=(UN3481,)
                if any(i.line.part.contains_lithium_batteries for i in items)
                else (),
                handling=tuple(handling),
            )
        )
    goods_total = sum((line.line_value for line in lines), Decimal("0"))
    rule = incoterm_rule(shipment.incoterm)
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
        freight=None,
        insurance=None,
        invoice_total=goods_total,
        total_packages=len(packages),
        total_gross_kg=sum((p.gross_kg for p in packages), Decimal("0")),
        total_net_kg=sum((p.net_kg for p in packages), Decimal("0")),
        total_volume_m3=sum((p.volume_m3 for p in packages), Decimal("0")),
        destination_control_statement=DCS if controlled else "",
        end_use=shipment.end_use,
        eei=_eei(shipment, parties, lines) if doc_type == DocumentType.EEI_SUMMARY else {},
        signatory=signatory,
        incoterm_text=f"{shipment.incoterm} {shipment.incoterm_place}, {INCOTERMS_EDITION}",
        invoice_number=number if doc_type == DocumentType.COMMERCIAL_INVOICE else _invoice_number(shipment),
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


def _schedule_b_rows(lines: list[DocLine]) -> dict[str, dict]:
    by_schedule_b: dict[str, dict] = {}
    for line in lines:
        row = by_schedule_b.setdefault(
            line.hs_code[:6],
            {
                "schedule_b": line.hs_code[:6],
                "quantity": 0,
                "value": Decimal("0"),
                "eccn": line.eccn,
                "licence_code": line.licence or "NLR",
            },
        )
        row["quantity"] += line.quantity
        row["value"] += line.line_value
    return by_schedule_b


def _eei_filing(shipment: Shipment, lines: list[DocLine]) -> tuple[bool, list[str]]:
    """Whether an EEI filing is mandatory (15 CFR 30.2, 30.37(a)), and why."""
    if shipment.origin.country != "US":
        return False, [_not_us_export(shipment, DocumentType.EEI_SUMMARY)]
    reasons = []
    over = [r["schedule_b"] for r in _schedule_b_rows(lines).values() if r["value"] > EEI_THRESHOLD]
    licensed = [line for line in lines if line.licence and line.licence not in ("NLR",)]
    z_items = [line for line in lines if ".z" in line.eccn]
    if over:
        reasons.append(f"Schedule B {', '.join(over)} exceed USD 2,500 per number.")
    if licensed:
        reasons.append("A line is exported under a licence or licence exception.")
    if shipment.destination.country in EEI_ALWAYS_DESTINATIONS and any(
        line.eccn != "EAR99" for line in lines
    ):
        reasons.append(f"CCL items to {shipment.destination.country} are filed whatever the value.")
    if z_items:
        reasons.append(".z items are filed whatever the value.")
    if reasons:
        return True, reasons
    return False, ["No Schedule B number exceeds USD 2,500 and no licence applies: filing not mandatory."]


def _eei(shipment: Shipment, parties: dict, lines: list[DocLine]) -> dict:
    """Whether an EEI filing is mandatory, and the data it needs."""
    by_schedule_b = _schedule_b_rows(lines)
    required, reasons = _eei_filing(shipment, lines)
    shipper = parties.get(PartyRole.SHIPPER)
    ein = next((r.number for r in shipper.registrations.all() if r.scheme == "ein"), "") if shipper else ""
    consignee = parties.get(PartyRole.ULTIMATE_CONSIGNEE) or parties.get(PartyRole.CONSIGNEE)
    return {
        "filing_required": required,
        "reasons": reasons,
        "usppi": f"{shipper.legal_name}{', EIN ' + ein if ein else ''}" if shipper else "",
        "ultimate_consignee": str(consignee) if consignee else "",
        "lines": [r | {"value": f"{r['value']:.2f}"} for r in by_schedule_b.values()],
        "itn_note": "Put the ITN returned by AES on the air waybill / bill of lading before departure. "
        "Keep records for 5 years.",
    }


def watermark_for(shipment: Shipment) -> str:
    """DRAFT until the shipment's compliance check (of this version) has passed."""
    return "" if not approval_problems(shipment) else "DRAFT"
