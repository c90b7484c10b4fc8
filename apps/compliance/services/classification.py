"""Classify parts: the engine proposes, a compliance officer may override; history is kept.

An officer's classification is a compliance decision: `services.part_classification_override`
(apps.compliance.services.approvals) decides whether it needs a second officer (four eyes) and
calls `officer_classification_record` here once it takes effect."""

from __future__ import annotations

import logging
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from apps.accounts.models import User
from apps.catalog.models import Part

from ..engines.classification import Classification, FigureError, PartFigures, cite, classify
from ..engines.eccn import eccn_problem, is_known_eccn, normalise_eccn
from ..models import ClassificationSource, PartClassification
from .inputs import InputsChanged, inputs_changed

logger = logging.getLogger(__name__)


def part_figures(part: Part, *, _depth: int = 0) -> PartFigures:
    """Adapt a catalogue part to the engine's inputs. Raises ``FigureError`` naming a bad figure.

    ``data_centre`` is passed as stored: the engine reads "unknown" as a data-centre item (the
    conservative reading of the note to 3A090) and says so in its reasoning.
    """
    accelerator = None
    if part.accelerator_id and _depth == 0:
        try:
            accelerator = part_figures(part.accelerator, _depth=1)
        except FigureError as exc:
            raise type(exc)(f"accelerator.{exc.figure}", f"accelerator: {exc}") from exc
    return PartFigures(
        name=str(part),
        category=part.category,
        tpp=part.tpp,
        dense_tops=_dense_tops(part.dense_tops),
        die_area_mm2=part.die_area_mm2,
        data_centre=part.data_centre,
        accelerator=accelerator,
        accelerator_count=part.gpus_per_server,
        encryption=part.encryption,
        mass_market=part.mass_market,
        memory_bandwidth_density=part.memory_bandwidth_density,
        cpu_only=part.cpu_only,
    )


def _dense_tops(value: object) -> dict[int, Decimal]:
    if not value:
        return {}
    if not isinstance(value, dict):
        raise FigureError("dense_tops", f"dense_tops is not an object of bit length to figure: {value!r}")
    try:
        return {int(bits): Decimal(str(tops)) for bits, tops in value.items()}
    except (ValueError, TypeError, InvalidOperation) as exc:
        raise FigureError("dense_tops", f"dense_tops holds a value that is not a number: {value!r}") from exc


def engine_classification(part: Part) -> Classification:
    """The engine's answer; a stored figure it cannot use gives an incomplete answer naming it."""
    try:
        return classify(part_figures(part))
    except (ValueError, TypeError, ArithmeticError) as exc:
        # Validation keeps bad figures out today, but rows stored before it (or written around it)
        # must hold a shipment for a person to fix, not crash the check.
        figure = getattr(exc, "figure", "") or "a stored figure"
        logger.warning("Part %s: classification refused figure %s: %s", part.pk, figure, exc)
        return Classification(
            eccn=None,
            status="incomplete",
            reasoning=[f"{figure}: {exc} — correct it on the part; the engine cannot use it"],
            figures_used={"category": part.category},
            missing=[figure],
        )


def current_classification(part: Part) -> PartClassification | None:
    return PartClassification.objects.filter(part=part, is_current=True).first()


@transaction.atomic
def part_classify(*, part: Part, actor: User | None = None) -> PartClassification:
    """Run the engine. An officer's override stays current; an unchanged answer adds no row."""
    result = engine_classification(part)
    current = PartClassification.objects.select_for_update().filter(part=part, is_current=True).first()
    if current is not None and current.source == ClassificationSource.OFFICER:
        return current
    new = PartClassification(
        part=part,
        eccn=result.eccn or "",
        is_complete=result.status == "classified",
        needs_confirmation=result.needs_confirmation,
        source=ClassificationSource.ENGINE,
        reasoning=result.reasoning,
        figures_used=result.figures_used,
        missing=result.missing,
        rule_version=result.rule_version,
        created_by=actor,
    )
    if current is not None and _same_answer(current, new):
        return current
    # No person's name in texts every party of a shipment reads (stale reasons): who ran it is
    # `created_by` and the audit log (docs/security.md).
    by = f"the classification engine ({result.rule_version})"
    return _make_current(part, current, new, actor=actor, by=by)


def override_problems(eccn: str, reason: str) -> dict[str, str]:
    """Why an officer's classification of `eccn` for `reason` is refused (empty when it is not).

    The ECCN must have the real structure (``engines.eccn.eccn_problem``). One outside the entries
    Rackpass's rules know (``KNOWN_ECCNS``) is accepted — the CCL is larger than what Rackpass
    ships, and the officer is the authority — but the row says so, and the licence determination
    treats an entry it has no reasons for control for as "licence required" until checked.
    """
    errors = {}
    if problem := eccn_problem(normalise_eccn(eccn or "")):
        errors["eccn"] = problem
    if not (reason or "").strip():
        errors["reason"] = "Say why the engine's classification is overridden."
    return errors


@transaction.atomic
def officer_classification_record(
    *, part: Part, eccn: str, reason: str, actor: User, decided: str = ""
) -> PartClassification:
    """Make a compliance officer's classification current; the reason is mandatory and kept with
    it. Only the four-eyes decision (services.approvals) calls this: it has decided that the change
    may take effect. `decided` says how, for the texts every party reads (no person's name)."""
    if errors := override_problems(eccn, reason):
        raise ValidationError(errors)
    eccn = normalise_eccn(eccn)
    current = PartClassification.objects.select_for_update().filter(part=part, is_current=True).first()
    engine = engine_classification(part)
    reasoning = [f"Classified {eccn} by a Rackpass compliance officer: {reason.strip()}"]
    if decided:
        reasoning.append(decided)
    if not is_known_eccn(eccn):
        reasoning.append(
            f"Note: {eccn} is not one of the entries Rackpass's rules know; the licence determination "
            f"may ask for a licence until its requirements are checked by hand {cite(eccn)}"
        )
    reasoning += [f"Engine ({engine.rule_version}) said: {line}" for line in engine.reasoning]
    return _make_current(
        part,
        current,
        PartClassification(
            part=part,
            eccn=eccn,
            is_complete=True,
            needs_confirmation=False,  # the officer's classification is the confirmation
            source=ClassificationSource.OFFICER,
            reasoning=reasoning,
            figures_used=engine.figures_used,
            missing=[],
            rule_version=engine.rule_version,
            override_reason=reason.strip(),
            created_by=actor,
        ),
        actor=actor,
        by=f"a Rackpass compliance officer ({reason.strip()}{'; ' + decided if decided else ''})",
    )


def _same_answer(current: PartClassification, new: PartClassification) -> bool:
    fields = (
        "eccn",
        "is_complete",
        "needs_confirmation",
        "reasoning",
        "missing",
        "figures_used",
        "rule_version",
    )
    return all(getattr(current, name) == getattr(new, name) for name in fields)


def _decision(row: PartClassification) -> str:
    if not row.is_complete or not row.eccn:
        return "incomplete" + (f" (missing {', '.join(row.missing)})" if row.missing else "")
    return row.eccn + (" (a default — needs an officer's confirmation)" if row.needs_confirmation else "")


def _make_current(
    part: Part, current: PartClassification | None, new: PartClassification, *, actor: User | None, by: str
) -> PartClassification:
    if current is not None:
        PartClassification.objects.filter(pk=current.pk).update(is_current=False)
    new.full_clean()
    new.save()
    decided = ("eccn", "is_complete", "needs_confirmation")
    if current is not None and any(getattr(current, f) != getattr(new, f) for f in decided):
        part_classification_changed(
            part=part,
            actor=actor,
            reason=f"The export classification of {part} changed from {_decision(current)} to "
            f"{_decision(new)}, by {by}.",
        )
    return new


def part_classification_changed(*, part: Part, actor: User | None, reason: str) -> None:
    """Call inside the transaction that made a new current classification of `part` with a different
    answer: the checks of open shipments containing it go stale and run again (`services.stale`
    listens to `services.inputs`)."""
    inputs_changed(InputsChanged(reason=reason, shipments=Q(lines__part=part), actor=actor))
