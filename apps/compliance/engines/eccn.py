"""ECCNs: normalise what people type, check it against the real structure, list the known ones.

No Django imports. An Export Control Classification Number (15 CFR 738.2(d)) is five
characters — the category (a digit 0–9), the product group (A–E) and three digits, e.g. 4A090 —
optionally followed by paragraphs: a single lower-case letter after a dot, then sub-paragraphs of
digits or single letters (3A090.a.1, 3A001.b.2.a, 5A992.c, 4A090.z). Items subject to the EAR on
no CCL entry are EAR99.

Normalising fixes case only (4a090.A → 4A090.a); it never invents a dot, so "5A992c" stays
wrong and ``eccn_problem`` says so, rather than being stored as the non-ECCN "5A992C".

``KNOWN_ECCNS`` lists the entries Rackpass's rules deal in (the classification engine's answers,
the reference's table and the determination engine's reasons for control), with a short title
for pickers. A structurally valid ECCN outside it is still an ECCN: the CCL is far larger than
what an AI-cluster logistics business ships, so callers decide whether to warn or refuse.
"""

from __future__ import annotations

import re

__all__ = ["KNOWN_ECCNS", "WHOLE_ENTRIES", "eccn_base", "eccn_problem", "is_known_eccn", "normalise_eccn"]

EXAMPLES = "4A090.a, 5A992.c or EAR99"

KNOWN_ECCNS: tuple[tuple[str, str], ...] = (
    ("EAR99", "Subject to the EAR, on no CCL entry"),
    ("3A090.a", "ICs: TPP ≥ 4,800, or TPP ≥ 1,600 with PD ≥ 5.92"),
    ("3A090.b", "ICs: TPP 2,400–4,800 with PD 1.6–5.92, or TPP ≥ 1,600 with PD 3.2–5.92"),
    ("3A090.c", "High-bandwidth memory, bandwidth density > 2 GB/s per mm²"),
    ("3A001.z", "3A001 electronic items that also meet 3A090"),
    ("4A090.a", "Computers and assemblies containing ICs meeting 3A090.a"),
    ("4A090.b", "Computers and assemblies containing ICs meeting 3A090.b"),
    ("4A003.z", "4A003 digital computers that also meet 3A090/4A090"),
    ("4A004.z", "4A004 computers that also meet 3A090/4A090"),
    ("4A005.z", "4A005 systems that also meet 3A090/4A090"),
    ("4A994", "Other computers and assemblies (AT only)"),
    ("5A002.a", "Information security items, not mass market (NS, AT, EI; ENC)"),
    ("5A002.z", "5A002 items that also meet 3A090/4A090"),
    ("5A004.z", "5A004 items that also meet 3A090/4A090"),
    ("5A991", "Telecommunications equipment (AT only)"),
    ("5A992.c", "Mass-market encryption items (AT only)"),
    ("5A992.z", "5A992 items that also meet 3A090/4A090"),
)

# Entries whose every paragraph Rackpass's determination handles (its REASONS_FOR_CONTROL); for
# the others only the listed paragraphs are known (e.g. 3A001.z, not 3A001.a).
WHOLE_ENTRIES = frozenset({"3A090", "4A090", "4A994", "5A002", "5A991", "5A992"})

_ENTRY = re.compile(r"^[0-9][A-E][0-9]{3}$")
_PARAGRAPH = re.compile(r"^[a-z]$")
_SUB_PARAGRAPH = re.compile(r"^(?:[0-9]+|[a-z])$")


def normalise_eccn(value: str) -> str:
    """'4a090.A' → '4A090.a': the entry in capitals, paragraphs in lower case (EAR99 stays)."""
    head, dot, rest = (value or "").strip().partition(".")
    return head.upper() + (f".{rest.lower()}" if dot else "")


def eccn_base(value: str) -> str:
    """'4A090.a.1' → '4A090'; 'ear99' → 'EAR99'."""
    return normalise_eccn(value).partition(".")[0]


def eccn_problem(value: str) -> str | None:
    """Why ``value`` is not an ECCN (after normalising its case), or None when it is one."""
    eccn = normalise_eccn(value)
    if not eccn:
        return f"Give an ECCN such as {EXAMPLES}."
    head, dot, rest = eccn.partition(".")
    shown = (value or "").strip()
    if head.startswith("EAR"):
        if eccn == "EAR99":
            return None
        return f"{shown!r} is not an ECCN: the only EAR designation outside the CCL is EAR99."
    if len(head) == 6 and _ENTRY.match(head[:5]) and head[5].isalpha() and not dot:
        fixed = f"{head[:5]}.{head[5].lower()}"
        return f"{shown!r} is not an ECCN: a paragraph follows a dot — did you mean {fixed}?"
    if len(head) != 5:
        return (
            f"{shown!r} is not an ECCN: the entry is 5 characters (a category digit, a product group "
            f"A–E, three digits) before any paragraph, e.g. {EXAMPLES}."
        )
    if not head[0].isdigit():
        return f"{shown!r} is not an ECCN: the first character is the category, a digit 0–9."
    if head[1] not in "ABCDE":
        return f"{shown!r} is not an ECCN: the second character is the product group, A–E."
    if not head[2:].isdigit() or not head[2:].isascii():
        return f"{shown!r} is not an ECCN: the entry ends in three digits, e.g. 4A090."
    if not dot:
        return None
    paragraph, *subs = rest.split(".")
    if not _PARAGRAPH.match(paragraph):
        return (
            f"{shown!r} is not an ECCN: the paragraph after the entry is a single letter, "
            f"e.g. {head}.a (got {paragraph!r})."
        )
    for sub in subs:
        if not _SUB_PARAGRAPH.match(sub):
            return (
                f"{shown!r} is not an ECCN: a sub-paragraph is a number or a single letter, "
                f"e.g. 3A090.a.1 or 3A001.b.2.a (got {sub!r})."
            )
    return None


def is_known_eccn(value: str) -> bool:
    """Whether Rackpass's rules deal in ``value``: a listed entry, a paragraph under one, a bare entry
    one is listed under, or any paragraph of a ``WHOLE_ENTRIES`` entry."""
    eccn = normalise_eccn(value)
    if eccn_problem(eccn) is not None:
        return False
    if eccn_base(eccn) in WHOLE_ENTRIES:
        return True
    return any(eccn == known or eccn.startswith(known + ".") for known, _ in KNOWN_ECCNS)
