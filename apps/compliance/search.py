"""What the header's search (apps/core/global_search.py) finds of compliance: an export licence
by its number, among the licences the user's organisation holds or is named on. One query."""

from __future__ import annotations

from django.urls import reverse

from apps.core import global_search as search
from apps.core.scoping import VIEW

from .models import Licence


def licences(user, query: search.SearchQuery, limit: int) -> list[search.Hit]:
    rows = search.ranked(
        Licence.objects.visible_to(user, VIEW).select_related("licensee"),
        query,
        ["number"],
        identifiers=["number"],
        tiebreak=["number", "pk"],
    )[: limit + 1]
    return [
        search.hit(
            "licences",
            licence,
            title=licence.number,
            url=reverse("compliance:licence", args=[licence.pk]),
            detail=f"{licence.licensee} · {licence.eccns} → {licence.destination_countries} · "
            f"expires {licence.expires_on:%Y-%m-%d}",
            matched="number",
        )
        for licence in rows
    ]


search.register("licences", "Licences", licences, order=60)
