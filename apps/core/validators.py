"""Input sanity shared by every app: text without invisible controls, bounded free text, business
dates, bounded searches. Each check says what is wrong and where, so the API names the field.

Why these bounds:
- Free text (descriptions, remarks, instructions, notes) is at most 5,000 characters: a page of
  text, several times anything the demo or a trade document holds, and small enough to render.
- Business dates lie in 2000–2100: nothing Rackpass records happened before 2000, and a date past
  2100 is a typo or a placeholder (9999-12-31) that breaks date arithmetic (an ETA plus transit
  days overflows Python's dates near year 9999).
- Invisible characters: bidirectional embeddings, overrides and isolates (U+202A–U+202E,
  U+2066–U+2069) make text display in another order than it is stored ("Trojan Source"), so a
  part number or a remark can read as something it is not; other control and format characters
  (NUL, BEL, zero-width spaces, soft hyphens, marks) hide differences between look-alike
  identifiers and break exports. Free text keeps newlines and tabs; names keep the zero-width
  joiners (U+200C, U+200D) that Indic and Persian scripts need; identifiers keep neither.
- A search has at most 10 terms of at most 100 characters: every term is one more condition
  over several columns, and thousands of them took seconds on PostgreSQL and overflowed SQLite's
  expression depth.
"""

from __future__ import annotations

import datetime as dt
import unicodedata

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

FREE_TEXT_MAX_LENGTH = 5_000
BUSINESS_DATE_MIN = dt.date(2000, 1, 1)
BUSINESS_DATE_MAX = dt.date(2100, 12, 31)
MAX_SEARCH_TERMS = 10
MAX_SEARCH_TERM_LENGTH = 100

BIDI_CONTROLS = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
JOINERS = frozenset("\u200c\u200d")
FREE_TEXT_WHITESPACE = frozenset("\n\r\t")


def _describe(char: str, position: int) -> str:
    name = unicodedata.name(char, "unnamed")
    return f"U+{ord(char):04X} {name} at position {position + 1}"


def _refused_in_identifier(char: str) -> bool:
    # Letters, digits, punctuation, symbols and the plain space only: no control, format,
    # separator or surrogate character, no non-breaking or other unusual space.
    return char != " " and unicodedata.category(char)[0] in "CZ"


def _refused_in_line(char: str) -> bool:
    if char in BIDI_CONTROLS:
        return True
    category = unicodedata.category(char)
    if category == "Cf":
        return char not in JOINERS
    return category in ("Cc", "Cs", "Zl", "Zp")


def _refused_in_free_text(char: str) -> bool:
    if char in BIDI_CONTROLS:
        return True
    category = unicodedata.category(char)
    return (category == "Cc" and char not in FREE_TEXT_WHITESPACE) or category == "Cs"


_RULES = {
    "identifier": (_refused_in_identifier, "an identifier"),
    "line": (_refused_in_line, "a single line of text"),
    "free_text": (_refused_in_free_text, "text"),
}


def text_problem(value: str, kind: str = "line") -> str | None:
    """Why `value` is refused as `kind` ("identifier", "line" or "free_text"), or None."""
    refused, what = _RULES[kind]
    for position, char in enumerate(value):
        if refused(char):
            if char in BIDI_CONTROLS:
                return (
                    f"Contains a bidirectional control character ({_describe(char, position)}) that "
                    "makes the text display in another order than it is stored; remove it."
                )
            return (
                f"Contains an invisible or control character ({_describe(char, position)}) that is "
                f"not allowed in {what}; remove it."
            )
    return None


@deconstructible
class TextValidator:
    """A field validator refusing invisible controls; `kind` as for `text_problem`."""

    def __init__(self, kind: str = "line"):
        if kind not in _RULES:
            raise ValueError(f"Unknown text kind {kind!r}")
        self.kind = kind

    def __call__(self, value) -> None:
        if isinstance(value, str) and (problem := text_problem(value, self.kind)):
            raise ValidationError(problem, code="invalid_characters")

    def __eq__(self, other) -> bool:
        return isinstance(other, TextValidator) and other.kind == self.kind


def business_date_problem(value) -> str | None:
    if value is None:
        return None
    day = value.date() if isinstance(value, dt.datetime) else value
    if not BUSINESS_DATE_MIN <= day <= BUSINESS_DATE_MAX:
        return (
            f"{day.isoformat()} is outside the dates Rackpass records "
            f"({BUSINESS_DATE_MIN.year}–{BUSINESS_DATE_MAX.year}); check the year."
        )
    return None


def validate_business_date(value) -> None:
    """A date or date-time between 2000-01-01 and 2100-12-31."""
    if problem := business_date_problem(value):
        raise ValidationError(problem, code="date_out_of_range")


def search_terms_problem(terms: list[str]) -> str | None:
    if len(terms) > MAX_SEARCH_TERMS:
        return f"Search for at most {MAX_SEARCH_TERMS} terms at once ({len(terms)} given)."
    long = next((t for t in terms if len(t) > MAX_SEARCH_TERM_LENGTH), None)
    if long is not None:
        return f"A search term has at most {MAX_SEARCH_TERM_LENGTH} characters ({len(long)} given)."
    return None


def input_problems(instance, exclude=()) -> dict[str, str]:
    """The text and date checks every business model applies in `clean_fields`.

    Every CharField (without choices) is a single line of text — an identifier when named in the
    model's `identifier_fields`, free text when named in its `free_text_fields` —, every TextField
    is free text of at most its `max_length` (else 5,000) characters, and every editable date is a
    business date. Applied here once rather than
    field by field, so that a field added later is checked too.

    A value as it was loaded from the database is not judged again: a row stored before a rule
    (or by the system, like a hold reason) must not stop people changing its other fields.
    """
    from django.db import models

    identifiers = set(getattr(instance, "identifier_fields", ()))
    free_text = set(getattr(instance, "free_text_fields", ()))
    loaded = getattr(instance, "_audit_loaded", None) or {}
    problems: dict[str, str] = {}
    for field in instance._meta.concrete_fields:
        if field.name in exclude or field.attname in exclude:
            continue
        value = getattr(instance, field.attname, None)
        if value is None or value == "":
            continue
        if field.attname in loaded and loaded[field.attname] == value:
            continue
        problem = None
        if isinstance(field, models.TextField) and isinstance(value, str):
            limit = field.max_length or FREE_TEXT_MAX_LENGTH
            if len(value) > limit:
                problem = f"At most {limit:,} characters ({len(value):,} given)."
            else:
                problem = text_problem(value, "free_text")
        elif isinstance(field, models.CharField) and not field.choices and isinstance(value, str):
            kind = (
                "identifier"
                if field.name in identifiers
                else "free_text"
                if field.name in free_text
                else "line"
            )
            problem = text_problem(value, kind)
        elif (
            isinstance(field, models.DateField)
            and field.editable
            and not (field.auto_now or field.auto_now_add)
            and isinstance(value, dt.date)
        ):
            problem = business_date_problem(value)
        if problem:
            problems[field.name] = problem
    return problems
