"""What the header's search (apps/core/global_search.py) finds of the catalogue: a part by its
number or name, among the parts the user sees (its own and the master catalogue). One query."""

from __future__ import annotations

from apps.core import global_search as search
from apps.core.scoping import VIEW

from .models import Part

FIELDS = {"part_number": "part number", "name": "name"}


def parts(user, query: search.SearchQuery, limit: int) -> list[search.Hit]:
    rows = search.ranked(
        Part.objects.visible_to(user, VIEW).select_related("manufacturer"),
        query,
        list(FIELDS),
        identifiers=["part_number"],
        fuzzy=["name"],
        labels=FIELDS,
        tiebreak=["part_number", "pk"],
    )[: limit + 1]
    return [
        search.hit("parts", part, title=str(part), url=part.get_absolute_url(), detail=part.name)
        for part in rows
    ]


search.register("parts", "Parts", parts, order=40)
