"""Licence determination: NLR, licence exception, licence required or prohibited (EAR, US export).

No Django imports. Inputs are an ECCN, a destination, the loaded Country Groups/Chart and, when
known, the end user and end-use flags; the output lists every rule that fired, in the order the
engine checked them:

1. Denied Persons List → prohibited (no dealings).
2. Comprehensive embargoes (Cuba, Iran, North Korea, Syria; Part 746) → prohibited: Part 746
   requires a licence with a general policy of denial, which this engine treats as prohibited.
3. Russia/Belarus (746.8) → licence required, no exceptions applied.
4. Entity List (744.11) → licence required for all items subject to the EAR, no exceptions.
5. Military End-User list (744.21) → licence required, no exceptions (conservative).
6. Unverified List (744.15) → no licence exceptions; UVL statement required.
7. End-use flags (Part 744) → licence required, each flag named, no exceptions.
8. The ECCN: EAR99 needs no licence on its own; 3A090/4A090/.z follow 742.6(a)(6) (rule set
   ``advanced-computing-destinations``); every other ECCN follows the Commerce Country Chart
   column by column, plus EI (742.15) for 5A002.
9. Licence exceptions for the requirements that allow them: NAC (C67) / ACA (C68) for the
   advanced-computing requirement, ENC for 5A002, TMP for temporary exports.

"Destination" here is checked together with the end user's own country when it differs (the
ultimate destination), and Hong Kong uses China's row and groups.

Conservative choices, documented where they are made: TMP is never used for 3A090/4A090/.z
items; a .z item is treated as 3A090.a-level (its processor may meet .a) for NAC/ACA; an ECCN
outside ``REASONS_FOR_CONTROL`` gives "licence required" until a compliance officer checks it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Literal

from .classification import fmt
from .countries import (
    CountryData,
    UnknownCountryError,
    chart_marks_for,
    chart_row,
    embargo_note,
    groups_of,
    require_known,
)
from .eccn import eccn_problem

__all__ = [
    "REASONS_FOR_CONTROL",
    "RULE_SETS",
    "RULE_VERSION",
    "Determination",
    "EndUser",
    "RuleFired",
    "RuleSet",
    "UnknownCountryError",
    "determine",
]

RULE_VERSION = "ear-2026-07-23.1"

Outcome = Literal["NLR", "licence_exception", "licence_required", "prohibited"]
Effect = Literal["licence_required", "prohibited", "exception_available", "no_licence", "note"]

# Commerce Country Chart columns named by each ECCN's "License Requirements" (Part 774, Supp. 1,
# as of the 2026-07-23 eCFR snapshot). RS for 3A090/4A090 is not a chart column: its destinations
# are written in 742.6(a)(6) and handled by the advanced-computing rule set below. EI for 5A002
# (742.15) is likewise not a column and is handled by ``EI_ECCNS``.
REASONS_FOR_CONTROL: dict[str, list[str]] = {
    "3A090": ["AT 1"],  # RS (742.6(a)(6)) and AT
    "4A090": ["AT 1"],  # RS (742.6(a)(6)) and AT
    "5A002": ["NS 1", "AT 1"],  # NS 1, AT 1, EI (742.15)
    "5A992": ["AT 1"],  # AT only; mass-market status under 740.17(b)
    "5A991": ["AT 1"],  # AT only
    "4A994": ["AT 1"],  # AT only
}
# 742.15(a): encryption items need a licence to all destinations except Canada (EI).
EI_ECCNS = {"5A002": frozenset({"CA"})}
# Bases whose .z paragraph covers items that also meet 3A090/4A090.
Z_BASES = frozenset({"3A001", "4A003", "4A004", "4A005", "5A002", "5A004", "5A992"})
ADVANCED_BASES = frozenset({"3A090", "4A090"})
RUSSIA_BELARUS = frozenset({"RU", "BY"})  # 746.8
MACAU = "MO"
CHINA_MACAU_ROWS = frozenset({"CN", "MO"})  # HK uses CN's row
CASE_BY_CASE_TPP = Decimal(21000)

# The paragraph is one letter (eccn.py checks the whole structure): "4A090.zz" is no ECCN and must
# not be read as a .z item that could use ACA.
_ECCN = re.compile(r"^(?P<base>\d[A-E]\d{3})(?:\.(?P<paragraph>[a-z])(?:\.(?:[0-9]+|[a-z]))*)?$")


@dataclass(frozen=True)
class RuleSet:
    """A dated body of rules the engine can switch on or off without forgetting it."""

    key: str
    title: str
    citation: str
    enabled: bool
    dates: dict[str, date]
    note: str


RULE_SETS: dict[str, RuleSet] = {
    rs.key: rs
    for rs in (
        RuleSet(
            key="advanced-computing-destinations",
            title="3A090/4A090/.z: licence to D:1, D:4, D:5 (unless also A:5/A:6), Macau, and to "
            "entities headquartered (or whose ultimate parent is) in D:5 or Macau",
            citation="EAR 742.6(a)(6); licence exceptions NAC/ACA (740.8)",
            enabled=True,
            dates={"verified_in_force": date(2026, 7, 23)},
            note="The enforced baseline as of 2026. NAC (C67): Macau/D:5 or D:5-headquartered, prior "
            "notification, 25-day review. ACA (C68): D:1/D:4 not Macau/D:5, no notification. Neither "
            "for data-centre 3A090.a-level items.",
        ),
        RuleSet(
            key="ai-diffusion",
            title="Framework for Artificial Intelligence Diffusion (worldwide licence for .a items, "
            "country tiers, exceptions AIA/ACM/LPP (C75))",
            citation="90 FR 4544 (interim final rule)",
            enabled=False,
            dates={
                "effective": date(2025, 1, 13),
                "published": date(2025, 1, 15),
                "not_enforced_announced": date(2025, 5, 13),
                "compliance_date_never_reached": date(2025, 5, 15),
            },
            note="Still in the codified text, but BIS announced on 2025-05-13 that it would not be "
            "enforced and would be rescinded; no replacement had been published by mid-2026. Kept "
            "switched off, not deleted. If switched on, this engine does not implement the tiers: it "
            "requires a licence for .a-level items everywhere and asks for review.",
        ),
        RuleSet(
            key="china-macau-case-by-case-2026",
            title="Case-by-case review for exports from the US to China/Macau of chips with TPP < "
            "21,000 and total DRAM bandwidth < 6,500 GB/s (e.g. H200, MI325X)",
            citation="BIS final rule, January 2026 (licence review policy, 742.6(b))",
            enabled=True,
            dates={"effective": date(2026, 1, 15)},
            note="Changes the review policy only: a licence is still required. Reexports and in-country "
            "transfers stay under a presumption of denial.",
        ),
    )
}


@dataclass(frozen=True)
class _Exception:
    name: str
    eei_code: str | None
    citation: str
    conditions: tuple[str, ...]


# EEI codes are given only where the reference records them (C67, C68); ENC and TMP are left
# without a code rather than guessed.
NAC = _Exception(
    "NAC",
    "C67",
    "740.8",
    (
        "Notify BIS before export (NAC) and wait for the 25-day review to end without objection",
        "Cite licence exception code C67 on the EEI",
    ),
)
ACA = _Exception(
    "ACA", "C68", "740.8", ("Cite licence exception code C68 on the EEI; no prior notification",)
)
ENC = _Exception(
    "ENC",
    None,
    "740.17",
    (
        "Item classified under 740.17(b) (self-classification report or classification request as the "
        "paragraph requires)",
        "Not to Country Group E:1/E:2 and not for a prohibited end use or end user",
        "Check 740.17(e) for sales reporting",
    ),
)
TMP = _Exception(
    "TMP",
    None,
    "740.9",
    (
        "Return to the United States within 1 year of export",
        "Remains under the exporter's effective control while abroad",
    ),
)


@dataclass(frozen=True)
class EndUser:
    """The party that will use the item. ``country`` is where it is located."""

    name: str
    country: str
    headquarters_country: str | None = None
    parent_headquarters_country: str | None = None
    entity_list: bool = False
    denied_persons: bool = False
    unverified_list: bool = False
    military_end_user: bool = False
    # The list entry a listing rests on, as listed ("HUAWEI TECHNOLOGIES CO., LTD. — Entity List,
    # 84 FR 22961"): a determination that a party is listed names the party and the entry.
    listed_entry: str = ""

    def listing_problems(self) -> list[str]:
        """Why this end user cannot be determined on: a listed party without a name, or an Entity
        List party without the entry its listing rests on."""
        problems = []
        listed = self.entity_list or self.denied_persons or self.unverified_list or self.military_end_user
        if listed and not self.name.strip():
            problems.append("an end user on a restricted-party list must be named")
        if self.entity_list and not self.listed_entry.strip():
            problems.append("an Entity List determination must name the list entry it rests on")
        return problems

    def as_listed(self) -> str:
        """The party, and the entry its listing rests on when known."""
        entry = self.listed_entry.strip()
        return f"{self.name} (listed as {entry})" if entry else self.name


@dataclass(frozen=True)
class RuleFired:
    code: str
    text: str
    effect: Effect


@dataclass
class Determination:
    """The outcome and every rule behind it, in the order the engine checked them."""

    outcome: Outcome
    exception: str | None
    exception_code: str | None
    conditions: list[str]
    rules: list[RuleFired]
    eccn: str
    destination: str
    rule_version: str = RULE_VERSION


@dataclass
class _Requirement:
    """A licence requirement that the listed exceptions (in preference order) may overcome."""

    code: str
    exceptions: list[_Exception] = field(default_factory=list)


@dataclass
class _Work:
    data: CountryData
    rules: list[RuleFired] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)
    prohibited: bool = False
    blocking: list[str] = field(default_factory=list)  # licence required, no exceptions
    no_exceptions: list[str] = field(default_factory=list)  # why exceptions are barred
    requirements: list[_Requirement] = field(default_factory=list)

    def fire(self, code: str, text: str, effect: Effect) -> None:
        self.rules.append(RuleFired(code, text, effect))
        if effect == "prohibited":
            self.prohibited = True

    def block(self, code: str, text: str, *, no_exceptions_because: str) -> None:
        self.fire(code, text, "licence_required")
        self.blocking.append(code)
        self.no_exceptions.append(no_exceptions_because)

    def name(self, country: str) -> str:
        return f"{self.data.name_of(country)} ({country})"


def _parse_eccn(eccn: str) -> tuple[str, str | None]:
    if eccn == "EAR99":
        return "EAR99", None
    match = _ECCN.match(eccn)
    if not match or eccn_problem(eccn):
        raise ValueError(f"malformed ECCN {eccn!r}: expected e.g. '3A090.a', '5A992.c' or 'EAR99'")
    return match["base"], match["paragraph"]


def determine(
    eccn: str,
    destination: str,
    *,
    data: CountryData,
    end_user: EndUser | None = None,
    end_use_flags: Sequence[str] = (),
    temporary: bool = False,
    tpp: Decimal | None = None,
    data_centre: bool | None = True,
    rule_sets: Mapping[str, RuleSet] | None = None,
) -> Determination:
    """Determine the licence position for one ECCN to one destination (and end user).

    ``tpp`` feeds the China/Macau case-by-case note; ``data_centre`` (default True, the
    conservative reading) decides whether a 3A090.a-level item may use NAC/ACA. ``rule_sets``
    defaults to ``RULE_SETS``. Raises ``UnknownCountryError`` for a code the data does not know
    and ``ValueError`` for a malformed ECCN or a listed end user without a name (or, on the Entity
    List, without the entry its listing rests on).
    """
    rule_sets = RULE_SETS if rule_sets is None else rule_sets
    dest = destination.strip().upper()
    require_known(data, dest)
    if end_user is not None:
        if problems := end_user.listing_problems():
            raise ValueError("; ".join(problems))
        require_known(data, end_user.country, "end user's")
        for hq in (end_user.headquarters_country, end_user.parent_headquarters_country):
            if hq is not None:
                require_known(data, hq, "headquarters")
    eccn = eccn.strip()
    base, paragraph = _parse_eccn(eccn)
    if isinstance(end_use_flags, str):  # one flag passed bare must not become one flag per letter
        end_use_flags = [end_use_flags]

    w = _Work(data)
    places = [dest]
    if end_user is not None and end_user.country != dest:
        places.append(end_user.country)
        w.fire(
            "ULTIMATE DESTINATION",
            f"the end user is in {w.name(end_user.country)}, not the ship-to {w.name(dest)}: "
            "both are checked",
            "note",
        )
    if dest in data.chart_row_for:
        w.fire(
            "CCC 738.3",
            f"{w.name(dest)} has no entry of its own: it uses {w.name(data.chart_row_for[dest])}'s row",
            "note",
        )

    _parties(w, end_user, places, base, end_use_flags)

    advanced = base in ADVANCED_BASES or (paragraph == "z" and base in Z_BASES)
    if base == "EAR99":
        w.fire(
            "EAR99",
            "EAR99: subject to the EAR but on no CCL entry, so no Commerce Country Chart requirement; "
            "NLR only where no embargo, end-user or end-use rule applies",
            "no_licence",
        )
    else:
        if advanced:
            _advanced_computing(w, rule_sets, places, end_user, paragraph, tpp, data_centre)
        if base in REASONS_FOR_CONTROL:
            _country_chart(w, base, places, temporary=temporary, advanced=advanced)
        else:
            w.block(
                "CCL",
                f"{eccn}: this engine has no reasons-for-control entry for {base} (it knows "
                f"{', '.join(sorted(REASONS_FOR_CONTROL))}) → licence required until a compliance "
                "officer checks the ECCN's licence requirements",
                no_exceptions_because="ECCN not assessed",
            )
    return _resolve(w, eccn, dest)


def _parties(
    w: _Work, end_user: EndUser | None, places: list[str], base: str, end_use_flags: Sequence[str]
) -> None:
    if end_user is not None and end_user.denied_persons:
        w.fire(
            "DPL",
            f"{end_user.as_listed()} is on the Denied Persons List: no dealings in any item subject to "
            "the EAR",
            "prohibited",
        )
    for place in places:
        note = embargo_note(w.data, place)
        if note is not None:
            w.fire(
                "EMBARGO 746",
                f"{w.name(place)} is under a comprehensive embargo: {note} Part 746 requires a licence "
                "with a general policy of denial; treated here as prohibited",
                "prohibited",
            )
    for place in places:
        if place in RUSSIA_BELARUS:
            if base == "EAR99":
                text = (
                    f"{w.name(place)}: Part 746.8 sanctions require a licence for many EAR99 items listed "
                    "in the Part 746 supplements — review the item against them; treated as licence required"
                )
            else:
                text = (
                    f"{w.name(place)}: Part 746.8 sanctions require a licence for all items on the CCL; "
                    "general policy of denial"
                )
            w.block("EMBARGO 746.8", text, no_exceptions_because="Russia/Belarus sanctions (746.8)")
    if end_user is not None:
        _listed_parties(w, end_user)
    for flag in end_use_flags:
        if flag.strip():
            w.block(
                "END-USE 744",
                f"end use flagged: {flag.strip()} → licence required under the Part 744 end-use controls",
                no_exceptions_because=f"end use: {flag.strip()}",
            )


def _listed_parties(w: _Work, end_user: EndUser) -> None:
    if end_user.entity_list:
        w.block(
            "EL 744.11",
            f"{end_user.as_listed()} is on the Entity List: licence required for all items subject to "
            "the EAR, "
            "generally a presumption of denial; no licence exceptions",
            no_exceptions_because="Entity List party",
        )
    if end_user.military_end_user:
        w.block(
            "MEU 744.21",
            f"{end_user.as_listed()} is on the Military End-User List: licence required (744.21); "
            "treated as "
            "applying to this item and without licence exceptions — review",
            no_exceptions_because="Military End-User List party",
        )
    if end_user.unverified_list:
        w.fire(
            "UVL 744.15",
            f"{end_user.as_listed()} is on the Unverified List: no licence exceptions; a UVL statement "
            "from the "
            "consignee is required before any shipment",
            "note",
        )
        w.no_exceptions.append("Unverified List party")
        w.conditions.append("UVL statement required from the consignee before shipping (744.15(b))")


def _advanced_computing(
    w: _Work,
    rule_sets: Mapping[str, RuleSet],
    places: list[str],
    end_user: EndUser | None,
    paragraph: str | None,
    tpp: Decimal | None,
    data_centre: bool | None,
) -> None:
    """742.6(a)(6) for 3A090/4A090/.z, the NAC/ACA choice and the two dated rule sets."""
    main = rule_sets.get("advanced-computing-destinations")
    # .z items and a bare 3A090/4A090 may carry a 3A090.a-level IC: treat them as .a (conservative).
    a_level = paragraph in (None, "a", "z")
    triggered: list[str] = []
    d5_or_macau = False
    if main is not None and main.enabled:
        for place in places:
            groups = groups_of(w.data, place)
            d_groups = [g for g in ("D:1", "D:4", "D:5") if g in groups]
            a_groups = [g for g in ("A:5", "A:6") if g in groups]
            if chart_row(w.data, place) == MACAU:
                triggered.append(f"{w.name(place)}: Macau, which the EAR names separately from D:5")
                d5_or_macau = True
            elif d_groups and not a_groups:
                triggered.append(f"{w.name(place)} is in {'/'.join(d_groups)} and not in A:5/A:6")
                d5_or_macau = d5_or_macau or "D:5" in d_groups
            elif d_groups:
                w.fire(
                    "EAR 742.6(a)(6)",
                    f"{w.name(place)} is in {'/'.join(d_groups)} but also in {'/'.join(a_groups)} → excluded",
                    "note",
                )
        if end_user is not None:
            for label, hq in (
                ("is headquartered in", end_user.headquarters_country),
                ("has its ultimate parent headquartered in", end_user.parent_headquarters_country),
            ):
                if hq is not None and (hq == MACAU or "D:5" in groups_of(w.data, hq)):
                    triggered.append(f"{end_user.name} {label} {w.name(hq)} (D:5/Macau), wherever located")
                    d5_or_macau = True
        if triggered:
            w.fire(
                "EAR 742.6(a)(6)",
                "3A090/4A090/.z item: licence required because " + "; ".join(triggered),
                "licence_required",
            )
            requirement = _Requirement("EAR 742.6(a)(6)")
            w.requirements.append(requirement)
            chosen = NAC if d5_or_macau else ACA
            if a_level and data_centre is not False:
                w.fire(
                    f"LE {chosen.name} {chosen.citation}",
                    f"{chosen.name} ({chosen.eei_code}) not available: data-centre 3A090.a-level item"
                    + (" (.z items are treated as .a-level)" if paragraph == "z" else ""),
                    "note",
                )
            else:
                if a_level:
                    w.fire(
                        "NOTE 3A090",
                        "not designed or marketed for data centres: items with TPP ≥ 4,800 stay "
                        "controlled but may use NAC/ACA",
                        "note",
                    )
                requirement.exceptions.append(chosen)
        else:
            w.fire(
                "EAR 742.6(a)(6)",
                "no destination in D:1/D:4/D:5 (outside A:5/A:6) or Macau, and no D:5/Macau-headquartered "
                "party → no licence under 742.6(a)(6)",
                "no_licence",
            )

    china = rule_sets.get("china-macau-case-by-case-2026")
    if (
        china is not None
        and china.enabled
        and triggered
        and tpp is not None
        and tpp < CASE_BY_CASE_TPP
        and any(chart_row(w.data, p) in CHINA_MACAU_ROWS for p in places)
    ):
        w.fire(
            "NOTE BIS 2026-01 CN/MO",
            f"TPP {fmt(tpp)} < 21,000: exports from the United States to China/Macau of chips with total "
            "DRAM bandwidth < 6,500 GB/s are reviewed case by case under strict conditions (effective "
            "2026-01-15); a licence is still required, and reexports stay under a presumption of denial",
            "note",
        )

    diffusion = rule_sets.get("ai-diffusion")
    if diffusion is not None and a_level:
        if diffusion.enabled:
            w.block(
                "RULESET ai-diffusion",
                f"{diffusion.title} is switched on: licence required for .a-level items; this engine does "
                "not implement its tiers or AIA/ACM/LPP — review",
                no_exceptions_because="AI diffusion framework not implemented",
            )
        else:
            w.fire(
                "RULESET ai-diffusion (disabled)",
                f"AI diffusion framework ({diffusion.citation}) not applied: switched off because BIS "
                "announced on 2025-05-13 that it would not be enforced; re-check if it is reinstated "
                "or replaced",
                "note",
            )


def _country_chart(w: _Work, base: str, places: list[str], *, temporary: bool, advanced: bool) -> None:
    """Commerce Country Chart (738.4(a)(2)) and EI (742.15) for the ECCN's reasons for control."""
    columns = REASONS_FOR_CONTROL[base]
    if temporary and advanced:
        w.fire("LE TMP 740.9", "TMP is not used for 3A090/4A090/.z items (conservative choice)", "note")
    for place in places:
        if embargo_note(w.data, place) is not None:
            continue  # Embargoed rows carry no marks; Part 746 has already spoken.
        if chart_row(w.data, place) not in w.data.chart_marks:
            w.fire("CCC", f"{w.name(place)} has no Commerce Country Chart row; no marks to apply", "note")
        marks = chart_marks_for(w.data, place)
        hits = [col for col in columns if col in marks]
        candidates: list[_Exception] = []
        if temporary and not advanced:
            candidates.append(TMP)
        if base in EI_ECCNS:
            if "E:1" in groups_of(w.data, place):
                w.fire("LE ENC 740.17", f"ENC not available to {w.name(place)} (Country Group E:1)", "note")
            else:
                candidates.append(ENC)
        for col in hits:
            w.fire(
                f"CCC {col}",
                f"{base}: X in column {col} for {w.name(place)} → licence required unless an "
                "exception applies",
                "licence_required",
            )
            w.requirements.append(_Requirement(f"CCC {col}", list(candidates)))
        if base in EI_ECCNS and place not in EI_ECCNS[base]:
            w.fire(
                "EI 742.15",
                f"{base}: encryption items need a licence to all destinations except Canada → "
                f"{w.name(place)} unless an exception applies",
                "licence_required",
            )
            w.requirements.append(_Requirement("EI 742.15", list(candidates)))
            hits.append("EI")
        if not hits:
            w.fire(
                f"CCC {'/'.join(columns)}",
                f"{base}: no X in {', '.join(columns)} for {w.name(place)} → no licence for these reasons. "
                + (w.data.no_mark_caveat or "No X is not a clearance."),
                "no_licence",
            )


def _resolve(w: _Work, eccn: str, dest: str) -> Determination:
    def result(outcome: Outcome, chosen: list[_Exception] | None = None) -> Determination:
        chosen = chosen or []
        codes = [e.eei_code for e in chosen if e.eei_code]
        return Determination(
            outcome=outcome,
            exception=" + ".join(e.name for e in chosen) or None,
            exception_code=" + ".join(codes) or None,
            conditions=w.conditions,
            rules=w.rules,
            eccn=eccn,
            destination=dest,
        )

    if w.prohibited:
        return result("prohibited")

    chosen: list[_Exception] = []
    alternatives: dict[str, tuple[_Exception, _Exception]] = {}
    uncovered = False
    for requirement in w.requirements:
        if not requirement.exceptions:
            uncovered = True
            continue
        pick = requirement.exceptions[0]
        if pick not in chosen:
            chosen.append(pick)
        for other in requirement.exceptions[1:]:
            alternatives.setdefault(other.name, (other, pick))
    for other, pick in alternatives.values():
        if other not in chosen:
            w.fire(
                f"LE {other.name} {other.citation}",
                f"{other.name} would also apply; {pick.name} is used",
                "note",
            )

    if w.no_exceptions and chosen:
        for exc in chosen:
            w.fire(
                f"LE {exc.name} {exc.citation}",
                f"{exc.name}{f' ({exc.eei_code})' if exc.eei_code else ''} would otherwise be available, but "
                f"no licence exceptions apply: {'; '.join(dict.fromkeys(w.no_exceptions))}",
                "note",
            )
        return result("licence_required")
    if w.blocking or uncovered:
        return result("licence_required")
    if not w.requirements:
        return result("NLR")
    for exc in chosen:
        w.fire(
            f"LE {exc.name} {exc.citation}",
            f"licence exception {exc.name}{f' ({exc.eei_code})' if exc.eei_code else ''} available",
            "exception_available",
        )
        w.conditions.extend(exc.conditions)
    return result("licence_exception", chosen)
