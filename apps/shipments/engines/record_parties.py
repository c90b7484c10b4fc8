"""Who can be importer / exporter of record in a country (no Django imports).

A party can act as importer of record (IOR) in a country when it has a registered entity there
and holds the registrations that country's customs require of importers; likewise for the
exporter of record (EOR) at origin. Otherwise the shipment needs a provider that covers the
country.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

EU = frozenset(
    [
        "AT",
        "BE",
        "BG",
        "HR",
        "CY",
        "CZ",
        "DK",
        "EE",
        "FI",
        "FR",
        "DE",
        "GR",
        "HU",
        "IE",
        "IT",
        "LV",
        "LT",
        "LU",
        "MT",
        "NL",
        "PL",
        "PT",
        "RO",
        "SK",
        "SI",
        "ES",
        "SE",
    ]
)

# Registrations customs require of an importer, by destination country.
IMPORTER_REGISTRATIONS: dict[str, tuple[str, ...]] = {
    "IN": ("iec", "gstin"),
    "US": ("ein",),
    "GB": ("eori",),
    "SG": ("uen",),
    **{country: ("eori",) for country in EU},
}
# Registrations required of the exporter (principal party) at origin.
EXPORTER_REGISTRATIONS: dict[str, tuple[str, ...]] = {
    "US": ("ein",),
    "IN": ("iec",),
    "GB": ("eori",),
    **{country: ("eori",) for country in EU},
}

SCHEME_NAMES = {"iec": "IEC", "gstin": "GSTIN", "ein": "EIN", "eori": "EORI", "uen": "UEN", "vat": "VAT"}


@dataclass(frozen=True)
class RegistrationFact:
    scheme: str
    country: str
    valid_until: dt.date | None = None


@dataclass(frozen=True)
class PartyFacts:
    name: str
    country: str
    registrations: tuple[RegistrationFact, ...] = ()


@dataclass
class RecordPartyNeed:
    role: str  # "importer" or "exporter"
    country: str
    candidate: str | None
    needed: bool
    reasons: list[str] = field(default_factory=list)
    # The shipment lines this need concerns (an exporter need is per origin country and shipper of
    # a consolidation); empty for the importer and for a shipment with one origin and no lines.
    lines: tuple[int, ...] = ()


def _evaluate(role: str, country: str, party: PartyFacts | None, required: tuple[str, ...], today: dt.date):
    label = "importer" if role == "importer" else "exporter"
    if party is None:
        return RecordPartyNeed(
            role,
            country,
            None,
            True,
            [
                f"No {'consignee' if role == 'importer' else 'shipper'} "
                f"is named, so an {label} of record is needed."
            ],
        )
    valid = {
        r.scheme
        for r in party.registrations
        if r.country == country and (r.valid_until is None or r.valid_until >= today)
    }
    has_entity = party.country == country or any(r.country == country for r in party.registrations)
    reasons: list[str] = []
    if not has_entity:
        reasons.append(f"{party.name} has no registered entity in {country}.")
    missing = [SCHEME_NAMES.get(s, s.upper()) for s in required if s not in valid]
    if has_entity and missing:
        reasons.append(
            f"{party.name} lacks a valid {' and '.join(missing)} in {country}, required of {label}s there."
        )
    if reasons:
        reasons.append(f"An {label} of record covering {country} is needed.")
        return RecordPartyNeed(role, country, party.name, True, reasons)
    held = ", ".join(SCHEME_NAMES.get(s, s.upper()) for s in required) or "no special registration"
    return RecordPartyNeed(
        role,
        country,
        party.name,
        False,
        [f"{party.name} has an entity in {country} ({held}) and can act as {label} of record."],
    )


def importer_of_record_need(
    destination_country: str, consignee: PartyFacts | None, *, today: dt.date
) -> RecordPartyNeed:
    required = IMPORTER_REGISTRATIONS.get(destination_country, ())
    return _evaluate("importer", destination_country, consignee, required, today)


def exporter_of_record_need(
    origin_country: str, shipper: PartyFacts | None, *, today: dt.date
) -> RecordPartyNeed:
    required = EXPORTER_REGISTRATIONS.get(origin_country, ())
    return _evaluate("exporter", origin_country, shipper, required, today)


def named_party_problem(
    role: str,
    country: str,
    named: PartyFacts,
    covered_countries: frozenset[str] | set[str],
    *,
    today: dt.date,
) -> str | None:
    """Why the importer / exporter of record named cannot act in `country` (None when it can).

    It can when it offers that service there (a provider's coverage) or could itself act as the
    party of record (an entity there with the registrations required). Naming just anyone for
    the role must not satisfy the need: a Taiwanese EOR does not export goods from Mexico."""
    if country in covered_countries:
        return None
    required = (IMPORTER_REGISTRATIONS if role == "importer" else EXPORTER_REGISTRATIONS).get(country, ())
    if not _evaluate(role, country, named, required, today).needed:
        return None
    label = "importer" if role == "importer" else "exporter"
    return (
        f"{named.name}, named {label} of record, neither covers {country} as a provider nor has an "
        f"entity there with the registrations {label}s need; name one that does."
    )
