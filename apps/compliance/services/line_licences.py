"""Each line of a shipment: its classification, the licence position the EAR rules determine
for its destination and end user, the licence held that covers it (with room left), and what
the destination's import requirements ask of the importer and the products. Everything found
that stops a line is a hold reason saying what to fix; nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.utils import timezone

from apps.accounts.models import Organisation
from apps.shipments.models import Shipment

from ..engines.countries import UnknownCountryError
from ..engines.determination import EndUser, determine
from ..models import (
    ClassificationSource,
    HoldKind,
    ImportRequirement,
    Licence,
    PartCertification,
    RequirementKind,
)
from .classification import engine_classification
from .fingerprint import Roles, all_candidates
from .licences import remaining

LICENCE_OUTCOMES = ("licence_required",)


@dataclass
class LineOutcome:
    line: object
    eccn: str = ""
    source: str = ""
    determination: object = None
    licence: Licence | None = None
    reasons: list[str] = field(default_factory=list)
    # (kind, text, licence concerned)
    holds: list[tuple[str, str, Licence | None]] = field(default_factory=list)


def end_user_facts(org: Organisation, blocks: dict) -> EndUser:
    block = blocks.get(org.pk)
    kind = block.list_kind if block else ""
    return EndUser(
        name=org.legal_name,
        # The confirmed match the block rests on: the determination names the entry, not only a list.
        listed_entry=block.hit.entry.as_listed if block else "",
        country=org.country,
        headquarters_country=org.country,
        entity_list=kind == "entity_list",
        denied_persons=kind == "denied_persons",
        unverified_list=kind == "unverified_list",
        military_end_user=kind == "military_end_user",
    )


def line_outcome(shipment, line, classification, end_user, country_data, as_of) -> LineOutcome:
    outcome = LineOutcome(line=line)
    if classification is None:
        result = engine_classification(line.part)
        eccn, complete, source = result.eccn or "", result.status == "classified", ClassificationSource.ENGINE
        missing, needs_confirmation = result.missing, result.needs_confirmation
        outcome.reasons.extend(result.reasoning)
    else:
        eccn, complete, source = classification.eccn, classification.is_complete, classification.source
        missing, needs_confirmation = classification.missing, classification.needs_confirmation
        outcome.reasons.append(
            f"{classification.get_source_display()} classification {eccn or '(incomplete)'} "
            f"of {classification.created_at:%Y-%m-%d}."
        )
    outcome.eccn, outcome.source = eccn, source
    if not complete or not eccn:
        outcome.holds.append(
            (
                HoldKind.CLASSIFICATION,
                f"Line {line.line_number} ({line.part}): cannot classify — missing {', '.join(missing)}. "
                "Add the figures to the part or have a compliance officer classify it.",
                None,
            )
        )
        return outcome
    if needs_confirmation and source == ClassificationSource.ENGINE:
        outcome.holds.append(
            (
                HoldKind.UNCONFIRMED,
                f"Line {line.line_number} ({line.part}): {eccn} is the engine's default for the category, "
                "not a result of figures checked against a CCL entry. A compliance officer confirms it "
                "(the manufacturer's classification) before the shipment relies on it.",
                None,
            )
        )
    part = line.part
    tpp = part.computed_tpp or (part.accelerator.computed_tpp if part.accelerator_id else None)
    data_centre = getattr(part, "data_centre", None)
    if data_centre is None and part.accelerator_id:
        data_centre = getattr(part.accelerator, "data_centre", None)
    try:
        determination = determine(
            eccn,
            shipment.destination.country,
            data=country_data,
            end_user=end_user,
            end_use_flags=list(shipment.end_use_flags or []),
            tpp=tpp,
            # Unknown means a data-centre item: the conservative reading (no NAC/ACA for .a items).
            data_centre=True if data_centre is None else data_centre,
        )
    except UnknownCountryError as exc:
        outcome.holds.append(
            (
                HoldKind.CHECK_ERROR,
                f"Line {line.line_number} ({eccn}): the licence position cannot be determined — {exc} "
                f"(EAR country data of {as_of}). Load country data that covers it, or correct the "
                "destination or the end user's country.",
                None,
            )
        )
        return outcome
    except ValueError as exc:
        outcome.holds.append(
            (
                HoldKind.CHECK_ERROR,
                f"Line {line.line_number}: the ECCN {eccn!r} cannot be assessed — {exc}. "
                "Have a compliance officer classify the part with a valid ECCN.",
                None,
            )
        )
        return outcome
    outcome.determination = determination
    outcome.reasons.extend(rule.text for rule in determination.rules)
    if determination.outcome == "prohibited":
        # Quote the rule that made the line prohibited, not the last rule the engine evaluated.
        deciding = [r for r in determination.rules if r.effect == "prohibited"]
        outcome.holds.append(
            (
                HoldKind.PROHIBITED,
                f"Line {line.line_number} ({eccn}) to {shipment.destination.country}: prohibited — "
                + "; ".join(f"{r.code}: {r.text}" for r in deciding),
                None,
            )
        )
    return outcome


def licence_unusable(
    licence: Licence, eccn: str, quantity: int, value: Decimal, left: tuple[int, Decimal], today
) -> str | None:
    """Why `licence` cannot cover a line (None when it can)."""
    if not licence.covers_eccn(eccn):
        return f"licence {licence.number} does not cover {eccn} (it covers {', '.join(licence.eccn_list)})"
    if not licence.valid_from <= today <= licence.expires_on:
        return (
            f"licence {licence.number} is not valid today "
            f"(valid {licence.valid_from} to {licence.expires_on})"
        )
    if left[0] < quantity or left[1] < value:
        return (
            f"licence {licence.number} has only {left[0]} units and {left[1]:,.2f} {licence.currency} left; "
            f"the line needs {quantity} units worth {value:,.2f}"
        )
    return None


def assign_licences(
    shipment: Shipment, outcomes: list[LineOutcome], roles: Roles, by_line: dict[int, list[Licence]]
) -> None:
    """Give each line that needs a licence one of its exporter's licences with room for it.

    The room left does not count this shipment's own earlier drawdowns: a re-check replaces them."""
    needing = [
        o for o in outcomes if o.determination is not None and o.determination.outcome in LICENCE_OUTCOMES
    ]
    if not needing:
        return
    left = remaining(all_candidates(by_line), exclude_shipment=shipment)
    today = timezone.localdate()
    destination = shipment.destination.country
    for outcome in needing:
        line, value = outcome.line, outcome.line.unit_value * outcome.line.quantity
        candidates = by_line.get(line.pk, [])
        exporter = line_exporter(line, roles)
        problems = []
        for licence in candidates:
            problem = licence_unusable(licence, outcome.eccn, line.quantity, value, left[licence.pk], today)
            if problem is None:
                left[licence.pk] = (left[licence.pk][0] - line.quantity, left[licence.pk][1] - value)
                outcome.licence = licence
                break
            problems.append((licence, problem))
        if outcome.licence is not None:
            continue
        covering = [(lic, p) for lic, p in problems if lic.covers_eccn(outcome.eccn)]
        if covering:
            licence, problem = covering[0]
            text = f"Line {line.line_number} ({outcome.eccn}) to {destination}: licence required — {problem}."
        else:
            licence = None
            text = (
                f"Line {line.line_number} ({outcome.eccn}) to {destination}: a licence is required and none "
                f"held by the exporter ({exporter or 'not named'}) for consignee "
                f"{roles.consignee or '(not named)'} and end user {roles.end_user or '(not named)'} covers "
                "this ECCN and destination."
            )
        outcome.holds.append((HoldKind.LICENCE, text, licence))


def line_exporter(line, roles: Roles) -> Organisation | None:
    """The line's own exporter (its exporter of record, else its shipper), else the shipment's."""
    if line.shipper_id:
        return line.exporter_of_record or line.shipper
    return line.exporter_of_record or roles.exporter


def import_requirements(shipment: Shipment, roles: Roles, lines) -> list[tuple[str, str, object]]:
    """What the destination needs of the importer and of the products, and what is missing."""
    country = shipment.destination.country
    requirements = list(ImportRequirement.objects.filter(country=country))
    if not requirements:
        return []
    importer = roles.importer
    today = timezone.localdate()
    holds = []
    valid_schemes = set()
    if importer is not None:
        valid_schemes = {
            r.scheme
            for r in importer.registrations.all()
            if r.country == country and (r.valid_until is None or r.valid_until >= today)
        }
    certs = {}
    for cert in PartCertification.objects.filter(part__in=shipment.lines.values("part_id"), country=country):
        certs[(cert.part_id, cert.scheme)] = cert
    for req in requirements:
        if req.kind == RequirementKind.IMPORTER_REGISTRATION:
            if importer is None:
                holds.append((HoldKind.IMPORT, f"No importer is named to hold the {req.name}.", None))
            elif req.scheme not in valid_schemes:
                holds.append(
                    (HoldKind.IMPORT, f"{importer} has no valid {req.name} for imports into {country}.", None)
                )
            continue
        for line in lines:
            if not req.applies_to(hs_code=line.hs_code, category=line.part.category):
                continue
            cert = certs.get((line.part_id, req.scheme))
            if cert is None:
                holds.append(
                    (
                        HoldKind.IMPORT,
                        f"Line {line.line_number} ({line.part}): no {req.name} on record for {country}.",
                        line,
                    )
                )
            elif cert.valid_until and cert.valid_until < today:
                holds.append(
                    (
                        HoldKind.IMPORT,
                        f"Line {line.line_number} ({line.part}): {req.name} {cert.number} expired on "
                        f"{cert.valid_until}.",
                        line,
                    )
                )
    return holds
