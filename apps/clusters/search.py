"""What the header's search (apps/core/global_search.py) finds of cluster planning: a design by
its name, among the designs the user's organisation owns or is the customer of. One query."""

from __future__ import annotations

from django.urls import reverse

from apps.core import global_search as search
from apps.core.scoping import VIEW

from .models import ClusterDesign


def designs(user, query: search.SearchQuery, limit: int) -> list[search.Hit]:
    rows = search.ranked(
        ClusterDesign.objects.visible_to(user, VIEW).select_related("customer"),
        query,
        ["name"],
        fuzzy=["name"],
        labels={"name": "name"},
        tiebreak=["name", "pk"],
    )[: limit + 1]
    return [
        search.hit(
            "designs",
            design,
            title=design.name,
            url=reverse("clusters:design-detail", args=[design.pk]),
            detail=f"for {design.customer}" if design.customer_id else "",
        )
        for design in rows
    ]


search.register("designs", "Cluster designs", designs, order=70)
