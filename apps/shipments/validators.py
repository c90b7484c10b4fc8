"""Codes of places and transport documents: UN/LOCODE, IATA airport codes, air waybill numbers."""

from __future__ import annotations

import re
from functools import cache

_LOCODE = re.compile(r"^[A-Z]{2}[A-Z2-9]{3}$")


@cache
def _airports() -> dict[str, dict]:
    import airportsdata

    return airportsdata.load("IATA")


def locode_problem(code: str, country: str) -> str | None:
    if not _LOCODE.match(code):
        return f"{code} is not a UN/LOCODE: two-letter country code and three letters/digits 2–9, e.g. INMAA."
    if country and code[:2] != country:
        return f"UN/LOCODE {code} is in {code[:2]}, but the site is in {country}."
    return None


def iata_problem(code: str, country: str) -> str | None:
    airport = _airports().get(code)
    if airport is None:
        return f"{code} is not a known IATA airport code (e.g. MAA, TPE, SIN)."
    if country and airport["country"] != country:
        return f"IATA {code} is {airport['name']} in {airport['country']}, but the site is in {country}."
    return None


def airport_name(code: str) -> str:
    airport = _airports().get(code)
    return f"{airport['name']}, {airport['city']}" if airport else code


def air_waybill_problem(number: str) -> str | None:
    """IATA air waybill: 3-digit airline prefix + 8-digit serial whose last digit is the first
    seven modulo 7."""
    digits = re.sub(r"[\s-]", "", number)
    if not re.fullmatch(r"\d{11}", digits):
        return "An air waybill number has 11 digits: airline prefix and serial, e.g. 618-12345675."
    serial, check = int(digits[3:10]), int(digits[10])
    if serial % 7 != check:
        return f"Air waybill {number} fails its check digit (expected {serial % 7})."
    return None


# ISO 6346 letter values: A = 10 upwards, skipping the multiples of 11 (11, 22, 33).
_CONTAINER_LETTERS = {
    letter: value
    for letter, value in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [v for v in range(10, 39) if v % 11], strict=True)
}


def container_numbers_split(text: str) -> list[str]:
    """Container numbers as written on a leg (separated by commas or new lines; spaces inside a
    number, as painted on the box, "MSCU 123456 5", are dropped), upper-cased."""
    return [re.sub(r"\s", "", item).upper() for item in re.split(r"[,;\n]", text or "") if item.strip()]


def container_number_problem(number: str) -> str | None:
    """ISO 6346: owner code (3 letters), category (U, J or Z), 6-digit serial, check digit."""
    if not re.fullmatch(r"[A-Z]{3}[UJZ]\d{7}", number):
        return (
            f"{number} is not a container number: 3-letter owner code, U, J or Z, six digits and a "
            "check digit, e.g. MSCU1234566."
        )
    values = [_CONTAINER_LETTERS[c] if c.isalpha() else int(c) for c in number[:10]]
    check = sum(value * 2**position for position, value in enumerate(values)) % 11 % 10
    if check != int(number[10]):
        return f"Container {number} fails its check digit (expected {check})."
    return None
