"""What a destination asks of the goods and what the parts hold: the import requirements of a
country (an importer's registration, a product certification) and the parts' certifications.

Operator staff keep both (the admin site). A check reads them, so every change goes through
here: saved or deleted in one transaction with the open shipments it concerns marked stale and
checked again (`services.inputs`), whichever country or part the record named before the change."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from ..models import ImportRequirement, PartCertification
from .inputs import InputsChanged, inputs_changed


@transaction.atomic
def import_requirement_save(*, requirement: ImportRequirement, actor=None) -> ImportRequirement:
    before = _countries_before(requirement)
    requirement.full_clean()
    requirement.save()
    _requirements_changed(requirement, before | {requirement.country}, actor, "changed")
    return requirement


@transaction.atomic
def import_requirement_delete(*, requirement: ImportRequirement, actor=None) -> None:
    countries = _countries_before(requirement) | {requirement.country}
    requirement.delete()
    _requirements_changed(requirement, countries, actor, "was withdrawn")


@transaction.atomic
def part_certification_save(*, certification: PartCertification, actor=None) -> PartCertification:
    before = (
        set(PartCertification.objects.filter(pk=certification.pk).values_list("part_id", flat=True))
        if certification.pk
        else set()
    )
    certification.full_clean()
    certification.save()
    _certifications_changed(certification, before | {certification.part_id}, actor, "changed")
    return certification


@transaction.atomic
def part_certification_delete(*, certification: PartCertification, actor=None) -> None:
    parts = {certification.part_id}
    certification.delete()
    _certifications_changed(certification, parts, actor, "was withdrawn")


def _countries_before(requirement: ImportRequirement) -> set[str]:
    if not requirement.pk:
        return set()
    return set(ImportRequirement.objects.filter(pk=requirement.pk).values_list("country", flat=True))


def _requirements_changed(requirement, countries: set[str], actor, what: str) -> None:
    inputs_changed(
        InputsChanged(
            reason=f"An import requirement of {', '.join(sorted(countries))} ({requirement.name}) {what}.",
            shipments=Q(destination__country__in=countries),
            actor=actor,
        )
    )


def _certifications_changed(certification, part_ids: set[int], actor, what: str) -> None:
    inputs_changed(
        InputsChanged(
            reason=f"A product certification of a part on this shipment ({certification.scheme.upper()}, "
            f"{certification.country}) {what}.",
            shipments=Q(lines__part_id__in=part_ids),
            actor=actor,
        )
    )
