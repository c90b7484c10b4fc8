"""Trade and tax registration numbers: formats checked before anything is saved (no Django imports)."""

import re
from enum import StrEnum


class Scheme(StrEnum):
    EORI = "eori"
    IEC = "iec"
    GSTIN = "gstin"
    EIN = "ein"
    VAT = "vat"
    UEN = "uen"
    OTHER = "other"


LABELS = {
    Scheme.EORI: "EORI (EU/UK Economic Operators Registration and Identification)",
    Scheme.IEC: "IEC (India Importer-Exporter Code)",
    Scheme.GSTIN: "GSTIN (India GST identification number)",
    Scheme.EIN: "EIN (US Employer Identification Number)",
    Scheme.VAT: "VAT registration number",
    Scheme.UEN: "UEN (Singapore Unique Entity Number)",
    Scheme.OTHER: "Other registration",
}

_FORMATS: dict[Scheme, tuple[re.Pattern[str], str]] = {
    Scheme.EORI: (
        re.compile(r"^[A-Z]{2}[A-Z0-9]{1,15}$"),
        "two-letter country code and up to 15 letters/digits, e.g. DE123456789012345",
    ),
    Scheme.IEC: (re.compile(r"^[A-Z0-9]{10}$"), "10 letters/digits, e.g. AABCR1234C"),
    Scheme.GSTIN: (
        re.compile(r"^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$"),
        "15 characters, e.g. 33AABCR1234C1Z5",
    ),
    Scheme.EIN: (re.compile(r"^\d{2}-\d{7}$"), "NN-NNNNNNN, e.g. 12-3456789"),
    Scheme.VAT: (re.compile(r"^[A-Z0-9]{4,15}$"), "4 to 15 letters/digits"),
    Scheme.UEN: (
        re.compile(r"^[0-9]{8,9}[A-Z]$|^[TSR]\d{2}[A-Z]{2}\d{4}[A-Z]$"),
        "9 or 10 characters, e.g. 201912345K",
    ),
}


def normalise(scheme: str, number: str) -> str:
    number = re.sub(r"\s", "", number or "").upper()
    if scheme == Scheme.EIN and re.fullmatch(r"\d{9}", number):
        number = f"{number[:2]}-{number[2:]}"
    return number


def format_problem(scheme: str, number: str) -> str | None:
    """Why `number` is not a valid number of `scheme`, or None when it is."""
    try:
        fmt = _FORMATS.get(Scheme(scheme))
    except ValueError:
        return f"Unknown registration scheme {scheme!r}."
    if not number:
        return "A registration number is required."
    if fmt and not fmt[0].match(number):
        return f"{number} is not a valid {LABELS[Scheme(scheme)].split(' (')[0]}: expected {fmt[1]}."
    return None
