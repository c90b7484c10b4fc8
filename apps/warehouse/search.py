"""What the header's search (apps/core/global_search.py) finds of warehouse stock: a unit by its
serial, read through `selectors.visible_units` (a partner's own units and those held for it, as
on the unit's page). One query, the best few."""

from __future__ import annotations

from django.urls import reverse

from apps.core import global_search as search

from .selectors import visible_units


def units(user, query: search.SearchQuery, limit: int) -> list[search.Hit]:
    rows = search.ranked(
        visible_units(user).select_related("part"),
        query,
        ["serial"],
        identifiers=["serial"],
        tiebreak=["serial", "pk"],
    )[: limit + 1]
    return [
        search.hit(
            "units",
            unit,
            title=unit.serial,
            url=reverse("warehouse:unit-detail", args=[unit.pk]),
            detail=f"{unit.part.part_number} · {unit.get_status_display()}",
            matched="serial",
            thing=f"unit:{unit.pk}",
        )
        for unit in rows
    ]


search.register("units", "Units", units, order=20)
