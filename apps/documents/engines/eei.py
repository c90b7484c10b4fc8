"""Electronic export information (EEI, filed in the US Automated Export System): whether a filing is
mandatory, and its commodity lines (no Django imports; `builder/us_export.py` adapts shipments to it).

AES reports one commodity line per combination of the fields it keys on: the 10-digit Schedule B /
HTS number, domestic or foreign origin, ECCN, licence code and licence number. Two lines of the
same HS subheading under different ECCNs or licences are two AES lines, never one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

# 15 CFR 30.37(a): no filing when each Schedule B number's value is at most USD 2,500.
EEI_THRESHOLD = Decimal("2500")
# 15 CFR 30.2(a)(1)(iv)(D): items on the CCL to these destinations are filed whatever the value.
EEI_ALWAYS_DESTINATIONS = frozenset({"CN", "RU", "VE"})

# AES licence codes (AESTIR Appendix F, "License and License Exemption Type Codes", Table A: BIS).
# Only codes confirmed by a public source are listed; any other exception prints its symbol with
# "AES code to be confirmed" rather than a guessed code:
# - C30: licence issued by BIS, the licence number reported (AESTIR Appendix F, Table A);
# - C33: NLR, for EAR99 and for CCL items needing no licence to the destination, since C32 was
#   withdrawn on 1 October 2016 (Census AES broadcast of 9 June 2016);
# - C50: ENC (BIS AES edit of 15 October 2013 on 5A002/5B002/5D002/5E002 filed as NLR);
# - C67: NAC (notification required) and C68: ACA (no notification) — Census AES notices of
#   March 2024 and CSMS 61882672 (August 2024);
# - C75: LPP, as recorded in the compliance reference (docs export-control, licence exceptions).
NLR_CODE = "C33"
BIS_LICENCE_CODE = "C30"
LICENCE_EXCEPTION_CODES = {"ENC": "C50", "NAC": "C67", "ACA": "C68", "LPP": "C75"}

# Units of quantity AES accepts that a catalogue part can be counted in (AESTIR Appendix H).
NUMBER, KILOGRAMS, NO_QUANTITY = "NO", "KG", "X"

WHOLE = Decimal("1")
LICENSED = ("licence_required", "licence_exception")
NOT_MANDATORY = "No Schedule B number exceeds USD 2,500 and no licence applies: filing not mandatory."


@dataclass(frozen=True)
class AESLicence:
    """The authorisation one AES line is exported under."""

    code: str  # "C33", "C30", "C68"; "" when not known (see `known`)
    symbol: str  # "NLR", "ACA", "ENC", "LIC" for a BIS licence; "" when nothing is determined
    number: str = ""  # the licence number, for a licence (C30)

    @property
    def known(self) -> bool:
        return bool(self.code)

    @property
    def text(self) -> str:
        """As the documents print it: "C33 NLR", "C68 ACA", "C30 D1234567", or for an exception
        whose code is not recorded, "TMP (AES code to be confirmed)"."""
        if self.code == BIS_LICENCE_CODE:
            return f"{self.code} {self.number}"
        if self.code:
            return f"{self.code} {self.symbol}"
        return f"{self.symbol} (AES code to be confirmed)" if self.symbol else ""


def aes_licence(*, outcome: str, licence_exception: str = "", licence_number: str = "") -> AESLicence:
    """The AES licence code of a line from its licence determination.

    `outcome` is the compliance check's: "NLR", "licence_exception", "licence_required" or
    "prohibited" ("" when no check ran)."""
    if licence_number:
        return AESLicence(BIS_LICENCE_CODE, "LIC", licence_number)
    if outcome == "NLR":
        return AESLicence(NLR_CODE, "NLR")
    if outcome == "licence_exception" and licence_exception:
        symbol = licence_exception.strip().upper()
        return AESLicence(LICENCE_EXCEPTION_CODES.get(symbol, ""), symbol)
    return AESLicence("", "")


@dataclass(frozen=True)
class EEILine:
    """One shipment line, as the EEI needs it. Values are in US dollars."""

    number: int
    hs_code: str  # the line's HS code (6 digits or more)
    schedule_b: str  # the part's 10-digit Schedule B / HTS number; "" when the part has none
    quantity: int
    value: Decimal
    country_of_origin: str
    eccn: str  # "4A090.a", "EAR99"; "" when not classified
    outcome: str = ""  # "NLR", "licence_exception", "licence_required", "prohibited" or ""
    licence_exception: str = ""  # "ACA", "ENC" …
    licence_number: str = ""
    unit_of_quantity: str = NUMBER  # the Schedule B number's unit: "NO", "KG" or "X"
    net_kg: Decimal | None = None
    gross_kg: Decimal | None = None  # the shipping weight: what was packed for the line

    @property
    def licence(self) -> AESLicence:
        return aes_licence(
            outcome=self.outcome, licence_exception=self.licence_exception, licence_number=self.licence_number
        )

    @property
    def origin(self) -> str:
        """AES: "D" for domestic (US-origin) goods, "F" for foreign goods exported unchanged."""
        return "D" if self.country_of_origin == "US" else "F"

    @property
    def commodity(self) -> str:
        """What the threshold adds up by: the Schedule B number, else the 6-digit HS subheading."""
        return self.schedule_b or self.hs_code[:6]


@dataclass(frozen=True)
class EEIRow:
    """One AES commodity line: the shipment lines sharing every field AES keys on."""

    schedule_b: str  # 10 digits
    origin: str  # "D" or "F"
    eccn: str
    licence: AESLicence
    unit_of_quantity: str
    quantity: Decimal  # in `unit_of_quantity`; 0 for "X"
    value: int  # whole US dollars, as AES reports it
    shipping_weight_kg: int | None  # whole kilograms; None when a line's packed weight is unknown
    lines: tuple[int, ...]  # the shipment line numbers

    @property
    def schedule_b_text(self) -> str:
        return format_schedule_b(self.schedule_b)

    @property
    def line_ranges(self) -> str:
        return number_ranges(self.lines)


def number_ranges(numbers: Iterable[int]) -> str:
    """Line numbers as a reader scans them: runs of consecutive numbers as ranges, thousands
    grouped: (1, 2, 3, 5, 7, 8, 1000) → "1–3, 5, 7–8, 1,000". A 1,000-line row reads "1–1,000"
    instead of a thousand numbers."""
    ordered = sorted(set(numbers))
    runs: list[list[int]] = []
    for n in ordered:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{a:,}" if a == b else f"{a:,}–{b:,}" for a, b in runs)


@dataclass(frozen=True)
class Filing:
    required: bool
    reasons: tuple[str, ...]


def format_schedule_b(code: str) -> str:
    """'8471500150' → '8471.50.0150'; 6 or 8 digits → '8471.50' / '8471.50.00'."""
    if len(code) < 6 or not code.isdigit():
        return code
    return ".".join(part for part in (code[:4], code[4:6], code[6:]) if part)


def whole(amount: Decimal) -> int:
    """Rounded to a whole number, halves up (AES reports whole dollars and kilograms)."""
    return int(amount.quantize(WHOLE, rounding=ROUND_HALF_UP))


def _whole_kg(kg: Decimal) -> int:
    # A package lighter than half a kilogram still weighs something: AES refuses a zero weight.
    return max(whole(kg), 1) if kg > 0 else 0


def eei_rows(lines: Iterable[EEILine]) -> list[EEIRow]:
    """The AES commodity lines, in the order their first shipment line appears.

    Lines without a Schedule B number are left out: they cannot be declared (the builder reports
    them as problems)."""
    groups: dict[tuple, list[EEILine]] = {}
    for line in lines:
        if not line.schedule_b:
            continue
        licence = line.licence
        key = (line.schedule_b, line.origin, line.eccn, licence.code, licence.symbol, licence.number)
        groups.setdefault(key, []).append(line)
    rows = []
    for (schedule_b, origin, eccn, *_), members in groups.items():
        unit = members[0].unit_of_quantity
        if unit == KILOGRAMS:
            net = [m.net_kg for m in members]
            quantity = Decimal(_whole_kg(sum(net, Decimal("0")))) if None not in net else Decimal("0")
        elif unit == NO_QUANTITY:
            quantity = Decimal("0")
        else:
            quantity = Decimal(sum(m.quantity for m in members))
        weights = [m.gross_kg for m in members]
        rows.append(
            EEIRow(
                schedule_b=schedule_b,
                origin=origin,
                eccn=eccn,
                licence=members[0].licence,
                unit_of_quantity=unit,
                quantity=quantity,
                value=whole(sum((m.value for m in members), Decimal("0"))),
                shipping_weight_kg=None if None in weights else _whole_kg(sum(weights, Decimal("0"))),
                lines=tuple(m.number for m in members),
            )
        )
    return rows


def eei_filing(*, origin_country: str, destination_country: str, lines: Sequence[EEILine]) -> Filing:
    """Whether an EEI filing is mandatory for an export from the US (15 CFR 30.2, 30.37(a)), and why.

    The USD 2,500 exemption is per Schedule B number, whatever the ECCNs and licences under it; a
    line whose part has no Schedule B number counts under its 6-digit HS subheading (the larger sum,
    so never a filing wrongly skipped)."""
    if origin_country != "US":
        return Filing(False, ("Not an export from the US: no EEI is filed in AES.",))
    reasons = []
    by_commodity: dict[str, Decimal] = {}
    for line in lines:
        by_commodity[line.commodity] = by_commodity.get(line.commodity, Decimal("0")) + line.value
    over = [format_schedule_b(code) for code, value in by_commodity.items() if value > EEI_THRESHOLD]
    if over:
        reasons.append(f"Schedule B {', '.join(over)} exceed USD 2,500 per number.")
    if any(line.outcome in LICENSED or line.licence_number for line in lines):
        reasons.append("A line is exported under a licence or licence exception.")
    if destination_country in EEI_ALWAYS_DESTINATIONS and any(
        line.eccn and line.eccn != "EAR99" for line in lines
    ):
        reasons.append(f"CCL items to {destination_country} are filed whatever the value.")
    if any(".z" in line.eccn for line in lines):
        reasons.append(".z items are filed whatever the value.")
    if reasons:
        return Filing(True, tuple(reasons))
    return Filing(False, (NOT_MANDATORY,))
