"""EAR country data: load an edition, read the active one (parsed once per process)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from ..engines.countries import CountryData, CountryDataError, load_country_data
from ..models import CountryDataVersion
from .inputs import InputsChanged, inputs_changed

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "ear"
DEFAULT_FILES = ("country-groups-2026-07-23.json", "country-chart-2026-07-23.json")


@transaction.atomic
def country_data_load(
    *, groups_json: dict, chart_json: dict, activate: bool = True, loaded_by: str = ""
) -> CountryDataVersion:
    """Validate and store an edition of the country groups and chart; optionally make it the active one."""
    try:
        parsed = load_country_data(groups_json, chart_json)
    except CountryDataError as exc:
        raise ValidationError({"file": str(exc)}) from exc
    version = CountryDataVersion.objects.filter(as_of=parsed.as_of).first()
    if version is None:
        version = CountryDataVersion(
            as_of=parsed.as_of,
            source=parsed.source or "",
            groups=groups_json,
            chart=chart_json,
            loaded_by=loaded_by,
        )
        version.full_clean()
        version.save()
    if activate and not version.is_active:
        previous = CountryDataVersion.objects.filter(is_active=True).values_list("as_of", flat=True).first()
        CountryDataVersion.objects.filter(is_active=True).update(is_active=False)
        version.is_active = True
        version.save(update_fields=["is_active", "updated_at"])
        if previous is not None:
            # Every licence determination reads the country groups and chart: every open answer.
            inputs_changed(
                InputsChanged(
                    reason=f"EAR country data of {version.as_of} made active (replacing that of {previous}).",
                    shipments=Q(),
                )
            )
    return version


def country_data_load_default(*, loaded_by: str = "") -> CountryDataVersion:
    groups, chart = (json.loads((DATA_DIR / name).read_text()) for name in DEFAULT_FILES)
    return country_data_load(groups_json=groups, chart_json=chart, loaded_by=loaded_by)


def active_country_data_key() -> tuple[int, object]:
    """(pk, updated_at) of the active edition; a fresh database gets the edition shipped with the
    code, so checks never run blind."""
    row = CountryDataVersion.objects.filter(is_active=True).values_list("pk", "updated_at").first()
    if row is None:
        version = country_data_load_default(loaded_by="automatic")
        row = (version.pk, version.updated_at)
    return row


def active_country_data() -> CountryData:
    """The active edition, parsed once per process (one indexed query to find which)."""
    return _parsed(*active_country_data_key())


@lru_cache(maxsize=4)
def _parsed(pk: int, updated_at) -> CountryData:
    version = CountryDataVersion.objects.get(pk=pk)
    return load_country_data(version.groups, version.chart)
