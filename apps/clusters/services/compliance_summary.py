"""A cluster's compliance summary: what its bill of materials needs licensed before anything ships.

For each line: the part's current classification in the compliance app (`PartClassification`),
and the licence determination of that ECCN for the design's site country with the design's
customer as end user — the same engine, with the same inputs (TPP, data-centre reading,
restricted-party facts from the blocks in force), as a shipment line's compliance check
(`apps.compliance.services.line_licences.line_outcome`). Then totals by ECCN and by outcome, with the
value (part unit value × quantity) summed per currency, never across currencies.

A part nobody has classified is "not classified" and needs attention: it is never read as EAR99
or "no licence". The summary reads classifications, it does not make them (running the
classification engine writes part records and re-checks open shipments; that is the compliance
officer's or the shipment check's doing). The engine's proposal is shown beside it as a hint.

The customer is screened against the active restricted-party lists in memory (nothing recorded:
organisations are screened, and their hits reviewed, by the compliance app's own flows); what the
summary says of it to a partner follows `apps.compliance.disclosure`.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import OperationalError, transaction
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from apps.accounts.models import Organisation
from apps.compliance import disclosure
from apps.compliance import services as compliance
from apps.compliance.engines.countries import UnknownCountryError
from apps.compliance.engines.determination import RULE_VERSION as DETERMINATION_RULES
from apps.compliance.engines.determination import EndUser, determine
from apps.compliance.models import (
    ClassificationSource,
    HitStatus,
    PartClassification,
    PartyBlock,
    ScreeningHit,
)
from apps.compliance.services.classification import engine_classification
from apps.compliance.services.screening import default_threshold, find_hits, organisation_names
from apps.core.audit import record_transition
from apps.core.tasks_outbox import enqueue_on_commit

from ..models import BillOfMaterials, BomLine, BomRole, ClusterDesign, ComplianceSummary, SummaryStatus

logger = logging.getLogger(__name__)

Progress = Callable[[int, str], None]

# The Celery task that makes a summary (`tasks.run_compliance_summary`), by its registered name.
SUMMARY_TASK = "clusters.compliance_summary"

NOT_CLASSIFIED = "not_classified"
CANNOT_DETERMINE = "cannot_determine"
# Worst first: the order of the totals by outcome, and of an ECCN's outcomes.
OUTCOMES: dict[str, str] = {
    "prohibited": "Prohibited",
    "licence_required": "Licence required",
    NOT_CLASSIFIED: "Not classified",
    CANNOT_DETERMINE: "Cannot be determined",
    "licence_exception": "Licence exception",
    "NLR": "No licence required (NLR)",
}
# Outcomes that stop the goods until something is done about them.
ATTENTION_OUTCOMES = ("prohibited", "licence_required", NOT_CLASSIFIED, CANNOT_DETERMINE)
NOT_CLASSIFIED_KEY = "Not classified"
# Determination rules about the end user's restricted-party standing: a partner reads that the
# party is under review, not which list (apps.compliance.disclosure).
PARTY_RULE_CODES = ("DPL", "EL 744.11", "MEU 744.21", "UVL 744.15")
# What a partner reads instead of the customer's standing when there is a concern.
PARTNER_REVIEW_TEXT = (
    "The end user is under restricted-party review by Rackpass compliance; the cluster's shipments "
    "wait for the decision."
)
BLOCK_FLAGS = {
    "entity_list": "entity_list",
    "denied_persons": "denied_persons",
    "unverified_list": "unverified_list",
    "military_end_user": "military_end_user",
}


# --- starting and running ------------------------------------------------------------------------


def _design_url(design: ClusterDesign) -> str:
    # The design page belongs to the pages of this app; without it the task box links nowhere.
    try:
        return reverse("clusters:design-detail", args=[design.pk])
    except NoReverseMatch:
        return ""


@transaction.atomic
def compliance_summary_start(
    *, design: ClusterDesign, actor=None, bom: BillOfMaterials | None = None
) -> ComplianceSummary:
    """Queue a compliance summary of `bom` (default: the design's newest version) in the
    background; the summary's `task_id` is what `/api/v1/tasks/{id}/` reports the progress of.
    The task (`tasks.run_compliance_summary`) is named, not imported: it calls back into this
    module."""
    if bom is None:
        bom = design.boms.order_by("-version").first()
    if bom is None:
        raise ValidationError(
            {"bom": f"{design} has no bill of materials yet: size it and make one from the run first."}
        )
    if bom.design_id != design.pk:
        raise ValidationError({"bom": f"Version {bom.version} is not a bill of materials of {design}."})
    actor = actor if getattr(actor, "pk", None) else None
    summary = ComplianceSummary(bom=bom, status=SummaryStatus.QUEUED, requested_by=actor)
    summary.full_clean()
    summary.save()
    task = enqueue_on_commit(
        SUMMARY_TASK,
        kwargs={"summary_id": summary.pk},
        kind="compliance summary",
        actor=actor,
        object_repr=f"{design} BOM v{bom.version}",
        object_url=_design_url(design),
    )
    ComplianceSummary.objects.filter(pk=summary.pk).update(task_id=task.task_id)
    summary.task_id = task.task_id
    return summary


def compliance_summary_execute(
    *, summary: ComplianceSummary, progress: Progress | None = None
) -> ComplianceSummary:
    """Make the summary and store it, or the reason it could not be made. Idempotent: a finished
    summary is returned as it is. Only database outages propagate (the task retries them)."""
    progress = progress or (lambda percent, step: None)
    with transaction.atomic():
        summary = ComplianceSummary.objects.select_for_update().get(pk=summary.pk)
        if summary.status in (SummaryStatus.SUCCEEDED, SummaryStatus.FAILED):
            return summary
        before = summary.status
        summary.status = SummaryStatus.RUNNING
        summary.started_at = timezone.now()
        summary.save(update_fields=["status", "started_at", "updated_at"])
        record_transition(summary, field="status", before=before, after=summary.status)
    result, lines, error = None, [], ""
    try:
        result, lines = compliance_summary_compute(bom=summary.bom, progress=progress)
    except OperationalError:
        raise
    except Exception as exc:  # noqa: BLE001 — a summary ends made or failed with why, never stuck
        logger.exception("Compliance summary %s failed", summary.pk)
        error = f"The summary could not be made: {type(exc).__name__}: {exc}"[:500]
    progress(95, "Recording the summary")
    with transaction.atomic():
        summary = ComplianceSummary.objects.select_for_update().get(pk=summary.pk)
        before = summary.status
        summary.result = result
        summary.bom_lines = lines
        summary.error = error
        summary.status = SummaryStatus.FAILED if error else SummaryStatus.SUCCEEDED
        summary.finished_at = timezone.now()
        summary.save()
        record_transition(summary, field="status", before=before, after=summary.status, reason=error)
    progress(100, (result or {}).get("headline") or error)
    return summary


def compliance_summary_now(*, design: ClusterDesign, actor=None, bom=None) -> ComplianceSummary:
    """A summary made in this process (the demo, a command): no worker needed."""
    with transaction.atomic():
        if bom is None:
            bom = design.boms.order_by("-version").first()
        if bom is None:
            raise ValidationError({"bom": f"{design} has no bill of materials yet."})
        summary = ComplianceSummary.objects.create(
            bom=bom, requested_by=actor if getattr(actor, "pk", None) else None
        )
    return compliance_summary_execute(summary=summary)


# --- the summary itself --------------------------------------------------------------------------


def _money(totals: dict[str, Decimal]) -> dict[str, str]:
    return {currency: str(totals[currency]) for currency in sorted(totals)}


def _customer_standing(customer: Organisation) -> tuple[dict[str, Any], list[PartyBlock]]:
    """The customer's restricted-party standing: blocks in force, hits awaiting review, and
    entries of the active lists its names resemble that nobody has reviewed for it yet."""
    blocks = list(
        PartyBlock.objects.filter(organisation=customer, lifted_at__isnull=True)
        .select_related("hit__entry")
        .order_by("created_at")
    )
    open_hits = ScreeningHit.objects.filter(organisation=customer, status=HitStatus.OPEN).count()
    hits, versions = find_hits(organisation_names(customer), customer.country, default_threshold())
    known = set(
        ScreeningHit.objects.filter(
            organisation=customer, list_entry_id__in=[hit.entry_id for hit in hits]
        ).values_list("list_entry_id", flat=True)
    )
    new = [hit for hit in hits if hit.entry_id not in known]
    if blocks:
        status = "blocked"
        text = f"{customer} is blocked: " + "; ".join(block.list_kind_label for block in blocks) + "."
    elif open_hits or new:
        status = "under_review"
        text = (
            f"{customer} resembles {open_hits + len(new)} restricted-party list entr"
            f"{'y' if open_hits + len(new) == 1 else 'ies'}"
            + (f" ({open_hits} awaiting review)" if open_hits else "")
            + (f" ({len(new)} not yet reviewed for it: screen the organisation)" if new else "")
            + "."
        )
    else:
        status = "clear"
        text = f"{customer} matches no entry of the active lists and is not blocked."
    return (
        {
            "organisation": customer.pk,
            "name": str(customer),
            "country": customer.country,
            "status": status,
            "text": text,
            "blocks": [block.list_kind for block in blocks],
            "open_hits": open_hits,
            "new_matches": [
                {"entry_id": hit.entry_id, "matched_name": hit.matched_name, "score": f"{hit.score:.2f}"}
                for hit in new
            ],
            "list_versions": list(versions),
        },
        blocks,
    )


def _end_user(customer: Organisation, blocks: list[PartyBlock]) -> EndUser:
    kinds = {block.list_kind for block in blocks}
    return EndUser(
        name=customer.legal_name,
        # A determination that the customer is listed names the entries the blocks rest on.
        listed_entry="; ".join(dict.fromkeys(block.hit.entry.as_listed for block in blocks)),
        country=customer.country,
        headquarters_country=customer.country,
        **{flag: kind in kinds for kind, flag in BLOCK_FLAGS.items()},
    )


def _classification(line: BomLine, current: PartClassification | None) -> dict[str, Any]:
    """The line's classification as the compliance app holds it."""
    if current is None:
        proposal = engine_classification(line.part)
        return {
            "status": NOT_CLASSIFIED,
            "eccn": "",
            "source": "",
            "text": "Not classified: no compliance classification of this part yet."
            + (
                f" The classification engine would propose {proposal.eccn}; a compliance officer "
                "classifies the part (or a shipment's compliance check does)."
                if proposal.eccn
                else f" The engine cannot propose one: missing {', '.join(proposal.missing) or 'figures'}."
            ),
            "engine_proposal": proposal.eccn or "",
            "missing": list(proposal.missing),
        }
    base = {
        "eccn": current.eccn,
        "source": current.source,
        "classified_on": current.created_at.date().isoformat() if current.created_at else "",
        "rule_version": current.rule_version,
        "missing": list(current.missing or []),
    }
    if not current.is_complete or not current.eccn:
        return base | {
            "status": NOT_CLASSIFIED,
            "eccn": "",
            "text": "Not classified: the classification is incomplete — missing "
            f"{', '.join(current.missing) or 'figures'}. Add them to the part or have a compliance "
            "officer classify it.",
        }
    if current.needs_confirmation and current.source == ClassificationSource.ENGINE:
        return base | {
            "status": "unconfirmed",
            "text": f"{current.eccn} is the engine's default for the category, not figures checked "
            "against a CCL entry: a compliance officer confirms it before a shipment relies on it.",
        }
    return base | {"status": "classified", "text": f"{current.get_source_display()}: {current.eccn}."}


def _determination(
    line: BomLine, eccn: str, destination: str, end_user: EndUser, country_data
) -> dict[str, Any]:
    part = line.part
    tpp = part.computed_tpp or (part.accelerator.computed_tpp if part.accelerator_id else None)
    data_centre = part.data_centre
    if data_centre is None and part.accelerator_id:
        data_centre = part.accelerator.data_centre
    try:
        answer = determine(
            eccn,
            destination,
            data=country_data,
            end_user=end_user,
            tpp=tpp,
            # Unknown means a data-centre item: the conservative reading (no NAC/ACA for .a items).
            data_centre=True if data_centre is None else data_centre,
        )
    except UnknownCountryError as exc:
        return {
            "outcome": CANNOT_DETERMINE,
            "text": f"{exc} (EAR country data of {country_data.as_of}): correct the site's or the "
            "customer's country, or load country data that covers it.",
        }
    except ValueError as exc:
        return {
            "outcome": CANNOT_DETERMINE,
            "text": f"The ECCN {eccn!r} cannot be assessed — {exc}. Have a compliance officer classify "
            "the part with a valid ECCN.",
        }
    return {
        "outcome": answer.outcome,
        "exception": answer.exception or "",
        "exception_code": answer.exception_code or "",
        "conditions": list(answer.conditions),
        "rules": [{"code": r.code, "text": r.text, "effect": r.effect} for r in answer.rules],
        "text": "; ".join(r.text for r in answer.rules if r.effect in ("prohibited", "licence_required"))
        or OUTCOMES[answer.outcome],
    }


def compliance_summary_compute(
    *, bom: BillOfMaterials, progress: Progress | None = None
) -> tuple[dict[str, Any], list[list[int]]]:
    """The summary of `bom` as it is now (a read: nothing is written), and the (line, part,
    quantity) rows it was made of."""
    progress = progress or (lambda percent, step: None)
    progress(5, "Reading the bill of materials")
    bom = BillOfMaterials.objects.select_related("design__site", "design__customer").get(pk=bom.pk)
    design = bom.design
    lines = list(
        bom.lines.filter(quantity__gt=0)
        .select_related("part__manufacturer", "part__accelerator")
        .order_by("id")
    )
    current = {
        row.part_id: row
        for row in PartClassification.objects.filter(
            part__in={line.part_id for line in lines}, is_current=True
        )
    }
    country_data = compliance.active_country_data()
    destination = design.site.country
    progress(10, "Screening the customer")
    standing, blocks = _customer_standing(design.customer)
    end_user = _end_user(design.customer, blocks)

    rows: list[dict[str, Any]] = []
    by_eccn: dict[str, dict[str, Any]] = {}
    by_outcome: dict[str, dict[str, Any]] = {}
    value_total: dict[str, Decimal] = defaultdict(Decimal)
    for n, line in enumerate(lines, start=1):
        part = line.part
        value = part.unit_value * line.quantity
        classification = _classification(line, current.get(line.part_id))
        eccn = classification["eccn"]
        if classification["status"] == NOT_CLASSIFIED:
            determination: dict[str, Any] = {"outcome": NOT_CLASSIFIED, "text": classification["text"]}
        else:
            determination = _determination(line, eccn, destination, end_user, country_data)
        outcome = determination["outcome"]
        attention = []
        if outcome in ATTENTION_OUTCOMES:
            attention.append(determination["text"] if outcome != NOT_CLASSIFIED else classification["text"])
        if classification["status"] == "unconfirmed":
            attention.append(classification["text"])
        rows.append(
            {
                "line": line.pk,
                "role": line.role,
                "role_label": str(BomRole(line.role).label) if line.role in BomRole.values else line.role,
                "part": part.pk,
                "part_number": part.part_number,
                "part_name": part.name,
                "manufacturer": part.manufacturer.name if part.manufacturer_id else "",
                "quantity": line.quantity,
                "unit_value": str(part.unit_value),
                "currency": part.currency,
                "value": str(value),
                "classification": classification,
                "eccn": eccn,
                "determination": determination,
                "outcome": outcome,
                "outcome_label": OUTCOMES[outcome],
                "attention": attention,
            }
        )
        key = eccn or NOT_CLASSIFIED_KEY
        group = by_eccn.setdefault(
            key, {"eccn": key, "lines": 0, "quantity": 0, "value": defaultdict(Decimal), "outcomes": set()}
        )
        group["lines"] += 1
        group["quantity"] += line.quantity
        group["value"][part.currency] += value
        group["outcomes"].add(outcome)
        bucket = by_outcome.setdefault(
            outcome, {"outcome": outcome, "label": OUTCOMES[outcome], "lines": 0, "quantity": 0,
                      "value": defaultdict(Decimal)},
        )  # fmt: skip
        bucket["lines"] += 1
        bucket["quantity"] += line.quantity
        bucket["value"][part.currency] += value
        value_total[part.currency] += value
        progress(10 + int(80 * n / max(len(lines), 1)), f"Line {n} of {len(lines)}: {part.part_number}")

    order = list(OUTCOMES)
    eccn_totals = [
        group
        | {
            "value": _money(group["value"]),
            "outcomes": sorted(group["outcomes"], key=order.index),
            "outcome_labels": [OUTCOMES[o] for o in sorted(group["outcomes"], key=order.index)],
        }
        for group in sorted(by_eccn.values(), key=lambda g: (g["eccn"] != NOT_CLASSIFIED_KEY, g["eccn"]))
    ]
    outcome_totals = [
        by_outcome[o] | {"value": _money(by_outcome[o]["value"])} for o in order if o in by_outcome
    ]
    attention_lines = sum(1 for row in rows if row["attention"])
    needs_licence = by_outcome.get("licence_required")
    result = {
        "design": design.pk,
        "bom": bom.pk,
        "bom_version": bom.version,
        "destination": destination,
        "destination_name": country_data.names.get(destination, destination),
        "site": str(design.site),
        "customer": standing,
        "rules": {"determination": DETERMINATION_RULES, "country_data_as_of": country_data.as_of.isoformat()},
        "lines": rows,
        "eccn_totals": eccn_totals,
        "outcome_totals": outcome_totals,
        "value_total": _money(value_total),
        "licence_required_value": _money(needs_licence["value"]) if needs_licence else {},
        "attention_lines": attention_lines,
        "attention": attention_lines > 0 or standing["status"] != "clear",
        "headline": _headline(rows, by_outcome, standing, destination, country_data),
    }
    return result, [[line.pk, line.part_id, line.quantity] for line in lines]


def _headline(rows, by_outcome, standing, destination, country_data) -> str:
    if not rows:
        return "The bill of materials has no lines with a quantity: nothing to license."
    place = f"{country_data.names.get(destination, destination)} ({destination})"
    parts = []
    for outcome in ATTENTION_OUTCOMES:
        bucket = by_outcome.get(outcome)
        if bucket:
            value = ", ".join(f"{amount:,.2f} {cur}" for cur, amount in sorted(bucket["value"].items()))
            parts.append(f"{OUTCOMES[outcome].lower()}: {bucket['lines']} line(s), {value}")
    text = (
        f"To {place}: " + "; ".join(parts) + "."
        if parts
        else f"To {place}: no line needs a licence (NLR or a licence exception for all {len(rows)})."
    )
    if standing["status"] != "clear":
        text += " The customer needs restricted-party attention."
    return text


# --- reading ------------------------------------------------------------------------------------


def latest_summary(design: ClusterDesign) -> ComplianceSummary | None:
    """The design's newest summary (of any version of its bill of materials)."""
    return (
        ComplianceSummary.objects.filter(bom__design=design)
        .select_related("bom", "requested_by")
        .order_by("-created_at", "-id")
        .first()
    )


def summary_is_current(summary: ComplianceSummary) -> bool:
    """Whether the summary is of the design's newest version, with its lines as they are now."""
    newest = BillOfMaterials.objects.filter(design_id=summary.bom.design_id).order_by("-version").first()
    if newest is None or newest.pk != summary.bom_id:
        return False
    now = [
        list(row)
        for row in BomLine.objects.filter(bom_id=summary.bom_id, quantity__gt=0)
        .order_by("id")
        .values_list("pk", "part_id", "quantity")
    ]
    return now == summary.bom_lines


def result_for(summary: ComplianceSummary, viewer) -> dict[str, Any] | None:
    """The stored result as `viewer` may read it: operator staff read everything; a partner reads
    the customer's restricted-party standing only as "under review" (which list entry its name
    matched is the operator's, apps.compliance.disclosure), and the party rules likewise."""
    if summary.result is None or not disclosure.is_partner(viewer):
        return summary.result
    result = dict(summary.result)
    standing = result.get("customer") or {}
    concern = standing.get("status", "clear") != "clear"
    result["customer"] = {
        "organisation": standing.get("organisation"),
        "name": standing.get("name", ""),
        "country": standing.get("country", ""),
        "status": "under_review" if concern else "clear",
        "text": PARTNER_REVIEW_TEXT if concern else "No restricted-party concern.",
        "blocks": [],
        "open_hits": 0,
        "new_matches": [],
        "list_versions": [],
    }
    lines = []
    for row in result.get("lines", []):
        determination = dict(row.get("determination") or {})
        rules = determination.get("rules") or []
        if not any(rule["code"] in PARTY_RULE_CODES for rule in rules):
            lines.append(row)
            continue
        said = determination.get("text", "")
        determination["rules"] = [
            rule | {"text": "The end user is under restricted-party review by Rackpass compliance."}
            if rule["code"] in PARTY_RULE_CODES
            else rule
            for rule in rules
        ]
        determination["text"] = OUTCOMES.get(determination.get("outcome", ""), "")
        attention = [determination["text"] if text == said else text for text in row.get("attention", [])]
        lines.append(row | {"determination": determination, "attention": attention})
    result["lines"] = lines
    return result
