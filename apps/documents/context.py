"""What a trade document shows, and what stops one being made (`Problem`), as plain data (no Django
imports).

The builder (`builder/`) fills these from a shipment; the templates under
`templates/documents/pdf/` render them. Money and quantities are Decimal; text is the raw
value — the templates escape it.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class Problem:
    """Something a document needs that the shipment lacks: the field (as the API names it), what
    is wrong, and the page where it is fixed. A document with problems is not generated."""

    field: str
    message: str
    fix_url: str


@dataclass(frozen=True)
class PartyBlock:
    role: str  # e.g. "Seller / exporter", "Consignee", "Importer of record"
    name: str
    address_lines: tuple[str, ...]
    country: str  # ISO code
    country_name: str
    registrations: tuple[str, ...] = ()  # e.g. ("EIN 84-2711935", "IEC AAKCC5521M", "GSTIN 33AAKCC5521M1Z2")
    contact: str = ""  # "Name, email, phone"


@dataclass(frozen=True)
class SignatureBlock:
    """Who signs a document, and in what capacity (see `signatures.py`).

    The PDF leaves the signature line blank for a wet-ink or electronic signature by the person
    named; an empty name or title is filled in by hand."""

    party: str  # the legal name of the party that makes the declaration (or gives the authorisation)
    name: str  # the person who signs
    title: str  # their job title
    capacity: str  # "Authorised signatory of X" / "Y, as authorised agent of X (… authorisation …)"
    mode: str = "sign"  # "sign": a person of the party signs; "agent": the operator signs as its agent
    authority: str = ""  # agent mode: the authorisation the agent signs under, e.g. "EOR authorisation EA-…"


@dataclass(frozen=True)
class DocOrigin:
    """The units of one line from one country of origin, when the line's units come from several
    (a consolidation: the same server from two factories). A customs entry declares
    origin per item, so the invoice states each share as its own row; the shares add up to the
    line's quantity and value."""

    label: str  # "1.1", "1.2": the line's number and the share's
    country: str  # ISO code
    quantity: int
    value: Decimal  # quantity × the line's unit value
    serials: tuple[str, ...]  # the packed units of this origin (fewer than `quantity` if some are not)


@dataclass(frozen=True)
class DocLine:
    number: int
    part_number: str
    description: str  # make, model, part number in trade terms
    quantity: int
    unit: str  # "pcs"
    unit_value: Decimal
    line_value: Decimal
    hs_code: str
    country_of_origin: str
    eccn: str  # "4A090.a" or "EAR99"
    licence: str  # licence number, exception symbol ("NLR", "ENC", "ACA (C68)") or ""
    net_kg: Decimal | None = None
    gross_kg: Decimal | None = None
    # US exports (SLI, EEI): the part's 10-digit Schedule B / HTS number ("" when it has none) and
    # the AES licence code with its symbol or licence number ("C33 NLR", "C68 ACA", "C30 D1234567").
    schedule_b: str = ""
    aes_licence: str = ""
    # Set only when the line's units come from more than one country (then `country_of_origin`
    # names them all, "MX, TW"): one share per country, in country order.
    origins: tuple[DocOrigin, ...] = ()


@dataclass(frozen=True)
class DocPackage:
    number: int
    package_type: str
    length_cm: Decimal
    width_cm: Decimal
    height_cm: Decimal
    volume_m3: Decimal
    gross_kg: Decimal
    net_kg: Decimal
    contents: tuple[str, ...]  # "Line 1: 1 × DGX H100 (P/N …)"
    serials: tuple[str, ...]
    marks: str
    dangerous_goods: tuple[str, ...]  # ("UN3481 … PI967 Section II",)
    handling: tuple[str, ...]  # ("Tilt indicator", "Keep dry")
    # The same serials grouped by each unit's country of origin: (("MX", ("MT1", …)), ("TW", (…))).
    serial_origins: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class DocumentContext:
    """Everything any of the documents needs; each template uses what applies to it."""

    doc_type: str  # commercial_invoice, packing_list, sli, eei_summary, end_user_statement,
    # ior_authorisation, eor_authorisation, certificate_of_origin
    title: str
    number: str  # e.g. "CI-2026-000123"
    version: int
    issue_date: dt.date
    shipment_reference: str
    watermark: str  # "" or "DRAFT" or "VOID"
    seller: PartyBlock | None
    buyer: PartyBlock | None  # consignee
    ship_to: PartyBlock | None
    ultimate_consignee: PartyBlock | None
    importer_of_record: PartyBlock | None
    exporter_of_record: PartyBlock | None
    forwarder: PartyBlock | None
    notify_party: PartyBlock | None
    incoterm: str  # "DAP"
    incoterm_place: str
    incoterm_name: str  # "Delivered at Place"
    mode: str  # "Air"
    origin: str  # "QCT Guishan Factory, Taoyuan, Taiwan"
    destination: str
    country_of_export: str
    country_of_destination: str
    currency: str
    reason_for_export: str
    transport_documents: tuple[str, ...]  # AWB / B/L numbers
    lines: tuple[DocLine, ...]
    packages: tuple[DocPackage, ...]
    goods_total: Decimal
    freight: Decimal | None
    insurance: Decimal | None
    invoice_total: Decimal
    total_packages: int
    total_gross_kg: Decimal
    total_net_kg: Decimal
    total_volume_m3: Decimal
    destination_control_statement: str  # "" when every line is EAR99
    end_use: str
    eei: dict = field(
        default_factory=dict
    )  # EEI summary data: filing_required (bool), reasons (list[str]), …
    signature: SignatureBlock | None = None  # the declarant's (or principal's) signature
    countersignature: SignatureBlock | None = None  # the purchaser's, or the IOR's/EOR's acceptance
    prepared_by: str = ""  # "Name, role" of the operator's user who generated the document
    # The exporter asking for an end-user statement, through its own person: "Exporter Ltd (Name,
    # title)" — never the operator's user who generated it, unless the operator is the exporter.
    requested_by: str = ""
    notes: tuple[str, ...] = ()
    incoterm_text: str = ""  # "DAP Chennai, Incoterms 2020"
    duties_paid_by: str = ""  # "seller" or "buyer": who owes import duties and taxes under the Incoterm
    ior_principal: PartyBlock | None = None  # who appoints the importer of record: the party owing duties
    invoice_number: str = ""  # the commercial invoice's number, cited by the other documents
    # CIP/CIF: the cover the seller takes out (Incoterms 2020: at least 110% of the invoice value)
    insured_value: Decimal | None = None
    insurance_cover: str = ""  # CIP/CIF: "Institute Cargo Clauses (A)" (CIP) or "(C)" (CIF)
    invoice_value_note: str = ""  # what the invoice value leaves out under the Incoterm, and why
    payment_terms: str = ""  # "30 days net from invoice date"
    buyer_order_reference: str = ""  # the buyer's purchase order number
    instructions: str = ""  # the shipment's handling and delivery instructions
    licences: tuple[str, ...] = ()  # licence numbers / exceptions the lines are exported under

    @property
    def split_by_origin(self) -> bool:
        """Whether a line is shown per country of origin of its units."""
        return any(line.origins for line in self.lines)

    @property
    def serials_by_origin(self) -> bool:
        """Whether the packages' serials are listed under their units' countries of origin."""
        return any(package.serial_origins for package in self.packages)

    @property
    def marks_summary(self) -> tuple[str, ...]:
        """The packages' shipping marks as a broker reads them: see `summarise_marks`."""
        return summarise_marks([(p.number, p.marks) for p in self.packages])


_NUMBERED_MARK = re.compile(r"^(.*?)(\d+)$")


def _span(first: int, last: int) -> str:
    return f"package {first}" if first == last else f"packages {first}–{last}"


def summarise_marks(packages: list[tuple[int, str]]) -> tuple[str, ...]:
    """Shipping marks, one entry per run: ("packages 1–250: BENCH/1 to BENCH/250",
    "package 251: FRAGILE", "packages 252–260: N/M"). Consecutive packages whose marks share a
    prefix and count up by one form a run, as do consecutive packages without marks (N/M, "no
    marks", as on a bill of lading). A package's number is never printed as its mark."""
    if not packages:
        return ()
    if not any(marks for _number, marks in packages):
        return ("N/M (the packages carry no marks)",)
    runs: list[list[tuple[int, str]]] = []
    for number, marks in sorted(packages):
        if runs:
            last_number, last_marks = runs[-1][-1]
            if number == last_number + 1 and _continues(last_marks, marks):
                runs[-1].append((number, marks))
                continue
        runs.append([(number, marks)])
    out = []
    for run in runs:
        (first, first_marks), (last, last_marks) = run[0], run[-1]
        if not first_marks:
            out.append(f"{_span(first, last)}: N/M")
        elif first == last or first_marks == last_marks:
            out.append(f"{_span(first, last)}: {first_marks}")
        else:
            out.append(f"{_span(first, last)}: {first_marks} to {last_marks}")
    return tuple(out)


def _continues(previous: str, marks: str) -> bool:
    """Whether `marks` follows `previous` in a run: both empty, the same, or PREFIX/n then PREFIX/n+1."""
    if previous == marks:
        return True
    a, b = _NUMBERED_MARK.match(previous), _NUMBERED_MARK.match(marks)
    return bool(a and b and a.group(1) == b.group(1) and int(b.group(2)) == int(a.group(2)) + 1)
