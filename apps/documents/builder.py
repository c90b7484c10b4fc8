"""From a shipment to the data of each document — and the list of what is missing when a
document cannot be made. No half-empty PDF is ever produced: `document_problems` comes first."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, replace
from decimal import ROUND_DOWN, Decimal

from django.db.models import Prefetch
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import Organisation, User
from apps.compliance.models import CheckLineResult, PartClassification
from apps.compliance.services import approval_problems, latest_check
from apps.core.countries import country_name
from apps.shipments import readiness
from apps.shipments.engines.incoterms import CARGO_CLAUSES, IncotermRule
from apps.shipments.engines.incoterms import EDITION as INCOTERMS_EDITION
from apps.shipments.engines.incoterms import rule as incoterm_rule
from apps.shipments.models import LineSerial, Package, PackageItem, PartyRole, Shipment, ShipmentLine
from apps.shipments.selectors import package_dangerous_goods, packing_issues, record_party_needs

from . import eei, signatures
from .context import DocLine, DocOrigin, DocPackage, DocumentContext, PartyBlock
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
ADVANCED_COMPUTING = ("3A090", "4A090")
LICENCE_CODES = eei.LICENCE_EXCEPTION_CODES  # symbol → AES code, as the invoice shows it: "ACA (C68)"
EEI_THRESHOLD, EEI_ALWAYS_DESTINATIONS = eei.EEI_THRESHOLD, eei.EEI_ALWAYS_DESTINATIONS


@dataclass(frozen=True)
class Problem:
    field: str
    message: str
    fix_url: str


def load_shipment(shipment: Shipment) -> Shipment:
    """The shipment with everything the documents read (parties, lines, packages, serials, legs),
    in a fixed number of queries; a page asking about several document types loads it once."""
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
                    Prefetch(
                        "serials", queryset=LineSerial.objects.select_related("unit").order_by("unit__serial")
                    ),
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
CENT = Decimal("0.01")


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
    shipment = load_shipment(shipment)
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
    shipment = load_shipment(shipment)
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
    if doc_type == DocumentType.CERTIFICATE_OF_ORIGIN and not _invoice_number(shipment):
        problems.append(
            Problem(
                "commercial_invoice",
                "Generate the commercial invoice first: the certificate cites its number.",
                reverse("documents:shipment", args=[shipment.reference]),
            )
        )
    problems += _us_export_problems(shipment, doc_type)
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


def _invoice_number(shipment: Shipment) -> str:
    """The number reserved for the shipment's commercial invoice (every version carries it), "" until
    a version of the invoice exists."""
    from .models import DocumentNumber

    invoice = DocumentType.COMMERCIAL_INVOICE
    reserved = DocumentNumber.objects.filter(
        shipment=shipment, doc_type=invoice, shipment__documents__doc_type=invoice
    )
    return reserved.values_list("number", flat=True).first() or ""


def apportion(total: Decimal, weights: list[Decimal], *, fallback: list[int] | None = None) -> list[Decimal]:
    """`total` (in cents) shared out in proportion to `weights`, or to `fallback` when the weights are
    all zero, so that the shares add up to `total` exactly: each share is rounded down to the cent,
    and the cents left over go one each to the shares that rounding cut most (the largest first on
    a tie). No share is negative or more than a cent from its exact value."""
    if not any(weights):
        weights = (
            [Decimal(n) for n in fallback] if fallback and any(fallback) else [Decimal(1)] * len(weights)
        )
    whole = sum(weights, Decimal("0"))
    exact = [total * weight / whole for weight in weights]
    shares = [value.quantize(CENT, rounding=ROUND_DOWN) for value in exact]
    left = int(((total - sum(shares, Decimal("0"))) / CENT).to_integral_value())
    by_cut = sorted(range(len(shares)), key=lambda i: (exact[i] - shares[i], weights[i]), reverse=True)
    for i in by_cut[:left]:
        shares[i] += CENT
    return shares


def _line_weights(shipment: Shipment) -> tuple[dict[int, Decimal], dict[int, Decimal]]:
    """line id → (net kg, gross kg) packed: each package's weights shared among the lines it holds,
    by the catalogue weight of their units (by units when the parts have no weight). The lines'
    weights therefore add up to the packages'."""
    net: dict[int, Decimal] = defaultdict(Decimal)
    gross: dict[int, Decimal] = defaultdict(Decimal)
    for package in shipment.packages.all():
        items = list(package.items.all())
        weights = [item.line.part.unit_weight_kg * item.quantity for item in items]
        units = [item.quantity for item in items]
        net_shares = apportion(package.net_kg, weights, fallback=units)
        gross_shares = apportion(package.gross_kg, weights, fallback=units)
        for item, net_kg, gross_kg in zip(items, net_shares, gross_shares, strict=True):
            net[item.line_id] += net_kg
            gross[item.line_id] += gross_kg
    return net, gross


def _serial_origin(serial: LineSerial, line: ShipmentLine) -> str:
    """A packed unit's country of origin: the unit's own (recorded from the inbound line it arrived
    on, issue 13), else the origin its line declares."""
    return serial.unit.country_of_origin or line.country_of_origin


def _packed_origins(shipment: Shipment) -> dict[int, dict[str, list[str]]]:
    """line id → country of origin → the serials of that origin packed, in package order. Read from
    the packages already loaded: the packed documents are only made once every serial is packed."""
    lines = {line.pk: line for line in shipment.lines.all()}
    found: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for package in shipment.packages.all():
        for serial in package.serials.all():
            found[serial.line_id][_serial_origin(serial, lines[serial.line_id])].append(serial.serial)
    return found


def _line_origins(line: ShipmentLine, packed: dict[str, list[str]]) -> tuple[str, tuple[DocOrigin, ...]]:
    """The line's country of origin as the documents state it, and its shares per country when its
    units come from several. Units without a packed serial (a lot part's pieces) are of the origin
    the line declares; the shares' quantities and values add up to the line's."""
    counts = {country: len(serials) for country, serials in packed.items()}
    rest = line.quantity - sum(counts.values())
    if rest > 0:
        counts[line.country_of_origin] = counts.get(line.country_of_origin, 0) + rest
    countries = sorted(country for country, count in counts.items() if count > 0)
    if len(countries) <= 1:
        return (countries[0] if countries else line.country_of_origin), ()
    origins = tuple(
        DocOrigin(
            label=f"{line.line_number}.{i}",
            country=country,
            quantity=counts[country],
            value=line.unit_value * counts[country],
            serials=tuple(packed.get(country, ())),
        )
        for i, country in enumerate(countries, start=1)
    )
    return ", ".join(countries), origins


def _doc_lines(shipment: Shipment, compliance: dict[int, tuple[str, str, str]]) -> list[DocLine]:
    lines = []
    net, gross = _line_weights(shipment)
    packed = _packed_origins(shipment)
    for line in shipment.lines.all():
        eccn, _outcome, licence = compliance.get(line.pk, ("", "", ""))
        country_of_origin, origins = _line_origins(line, packed.get(line.pk, {}))
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
                country_of_origin=country_of_origin,
                eccn=eccn or "",
                licence=licence,
                net_kg=net.get(line.pk),
                gross_kg=gross.get(line.pk),
                origins=origins,
            )
        )
    return lines


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
    parties = _parties(shipment)
    lines = _doc_lines(shipment, _line_compliance(shipment))
    if doc_type in US_EXPORT_DOCUMENTS and shipment.origin.country == "US":
        lines = _with_us_export_data(shipment, lines)
    packages = []
    shipment_lines = {line.pk: line for line in shipment.lines.all()}
    for package in shipment.packages.all():
        items = list(package.items.all())
        # Each packed unit under its own country of origin: a consolidation's package may hold
        # units of one part from several countries (issue 13).
        by_origin: dict[str, list[str]] = defaultdict(list)
        for serial in package.serials.all():
            by_origin[_serial_origin(serial, shipment_lines[serial.line_id])].append(serial.serial)
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
                # The same classification freight is planned on (issue 11): UN3480 for batteries
                # on their own, PI967 Section II only for small batteries in equipment.
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
        eei=_eei(shipment, parties, lines) if doc_type == DocumentType.EEI_SUMMARY else {},
        # Who signs: the party that makes the declaration, or the operator as its authorised agent.
        signature=signatures.signature_for(shipment, doc_type, parties, actor),
        countersignature=signatures.countersignature_for(shipment, doc_type, parties, actor),
        prepared_by=f"{actor.get_full_name() or actor.username}, {actor.get_role_display()}" if actor else "",
        requested_by=_requested_by(parties.get(PartyRole.SHIPPER), actor),
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


# --- US exports: the EEI (AES) and the SLI's commodity lines, from the pure engine in eei.py ------


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
    from apps.catalog.models import PartTariffCode

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


def _with_us_export_data(shipment: Shipment, lines: list[DocLine]) -> list[DocLine]:
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


def _eei_filing(shipment: Shipment, lines: list[DocLine]) -> tuple[bool, list[str]]:
    """Whether an EEI filing is mandatory (15 CFR 30.2, 30.37(a)), and why."""
    if shipment.origin.country != "US":
        return False, [_not_us_export(shipment, DocumentType.EEI_SUMMARY)]
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
    from apps.shipments.models import Leg

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


def _us_export_problems(shipment: Shipment, doc_type: str) -> list[Problem]:
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
    lines = _doc_lines(shipment, _line_compliance(shipment))
    required, _reasons = _eei_filing(shipment, lines)
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


def _eei(shipment: Shipment, parties: dict, lines: list[DocLine]) -> dict:
    """Whether an EEI filing is mandatory, and the data it needs."""
    eei_lines = _eei_lines(shipment, lines)
    required, reasons = _eei_filing(shipment, lines)
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


def watermark_for(shipment: Shipment) -> str:
    """DRAFT until the shipment's compliance check (of this version) has passed."""
    return "" if not approval_problems(shipment) else "DRAFT"
