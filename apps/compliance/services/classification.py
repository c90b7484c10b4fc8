"""Classify parts: the engine proposes, a compliance officer may override; history is kept."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction

from apps.accounts.models import User
from apps.catalog.models import Part

from ..engines.classification import Classification, PartFigures, classify
from ..models import ClassificationSource, PartClassification
from ..models.licences import normalise_eccn


def part_figures(part: Part, *, _depth: int = 0) -> PartFigures:
    """Adapt a catalogue part to the engine's inputs."""
    attrs = part.attributes or {}
    accelerator = None
    if part.accelerator_id and _depth == 0:
        accelerator = part_figures(part.accelerator, _depth=1)
    return PartFigures(
        name=str(part),
        category=part.category,
        tpp=part.tpp,
        dense_tops={int(bits): Decimal(str(v)) for bits, v in (part.dense_tops or {}).items()},
        die_area_mm2=part.die_area_mm2,
        data_centre=attrs.get("data_centre", True if part.category in ("accelerator", "server") else None),
        accelerator=accelerator,
        accelerator_count=part.gpus_per_server,
        encryption=attrs.get("encryption"),
        mass_market=attrs.get("mass_market"),
        memory_bandwidth_density=(
            Decimal(str(attrs["memory_bandwidth_density"])) if attrs.get("memory_bandwidth_density") else None
        ),
    )


def engine_classification(part: Part) -> Classification:
    return classify(part_figures(part))


def current_classification(part: Part) -> PartClassification | None:
    return PartClassification.objects.filter(part=part, is_current=True).first()


@transaction.atomic
def part_classify(*, part: Part, actor: User | None = None) -> PartClassification:
    """Run the engine. An officer's override stays current; an unchanged answer adds no row."""
    result = engine_classification(part)
    current = PartClassification.objects.select_for_update().filter(part=part, is_current=True).first()
    if current is not None and current.source == ClassificationSource.OFFICER:
        return current
    if current is not None and (current.eccn, current.reasoning, current.rule_version) == (
        result.eccn or "",
        result.reasoning,
        result.rule_version,
    ):
        return current
    return _make_current(
        part,
        current,
        PartClassification(
            part=part,
            eccn=result.eccn or "",
            is_complete=result.status == "classified",
            source=ClassificationSource.ENGINE,
            reasoning=result.reasoning,
            figures_used=result.figures_used,
            missing=result.missing,
            rule_version=result.rule_version,
            created_by=actor,
        ),
    )


@transaction.atomic
def part_classification_override(*, part: Part, eccn: str, reason: str, actor: User) -> PartClassification:
    """A compliance officer's classification; the reason is mandatory and kept with it."""
    eccn = normalise_eccn(eccn or "")
    errors = {}
    if not eccn or not (eccn == "EAR99" or (len(eccn) >= 5 and eccn[0].isdigit() and eccn[1].isalpha())):
        errors["eccn"] = "Give an ECCN such as 4A090.a, 5A992.c or EAR99."
    if not (reason or "").strip():
        errors["reason"] = "Say why the engine's classification is overridden."
    if errors:
        raise ValidationError(errors)
    current = PartClassification.objects.select_for_update().filter(part=part, is_current=True).first()
    engine = engine_classification(part)
    return _make_current(
        part,
        current,
        PartClassification(
            part=part,
            eccn=eccn,
            is_complete=True,
            source=ClassificationSource.OFFICER,
            reasoning=[
                f"Classified {eccn} by {actor.get_full_name() or actor.username}: {reason.strip()}",
                *(f"Engine ({engine.rule_version}) said: {line}" for line in engine.reasoning),
            ],
            figures_used=engine.figures_used,
            missing=[],
            rule_version=engine.rule_version,
            override_reason=reason.strip(),
            created_by=actor,
        ),
    )


def _make_current(
    part: Part, current: PartClassification | None, new: PartClassification
) -> PartClassification:
    if current is not None:
        PartClassification.objects.filter(pk=current.pk).update(is_current=False)
    new.full_clean()
    new.save()
    return new
