"""Harmonized System code normalisation and validation (no Django imports).

The first six digits are the international HS subheading; importing countries add two to four
digits of their own (India's ITC-HS uses 8, the US HTS 10).
"""

import re

_SEPARATORS = re.compile(r"[\s.\-]")
# Chapter 77 is reserved for future use in the HS nomenclature.
_VALID_CHAPTERS = {f"{n:02d}" for n in range(1, 98)} - {"77"}


def normalise_hs_code(value: str) -> str:
    """'8471.50.00' → '84715000'."""
    return _SEPARATORS.sub("", value or "")


def hs_code_problem(value: str) -> str | None:
    """A sentence saying what is wrong with an HS code, or None when it is valid."""
    code = normalise_hs_code(value)
    if not code.isdigit():
        return "An HS code has digits only (dots and spaces are ignored), e.g. 847150 or 8471.50.00."
    if len(code) not in (6, 8, 9, 10):
        return (
            f"An HS code has 6 digits, or 8 to 10 with the destination's national extension; "
            f"{code} has {len(code)}."
        )
    if code[:2] not in _VALID_CHAPTERS:
        return f"HS chapter {code[:2]} does not exist (chapters run 01–97, 77 is reserved)."
    return None
