"""The catalogue's part of the dashboard (apps/core/dashboard.py)."""

from django.db.models import Count
from django.urls import reverse

from apps.core.dashboard import Panel, Tile

from .models import Part, PartCategory


def part_tiles(user) -> list[Tile]:
    total = Part.objects.visible_to(user).count()
    return [Tile(total, "parts in the catalogue", reverse("catalog:part-list"))]


def categories(user) -> Panel:
    labels = dict(PartCategory.choices)
    rows = [
        {
            "category": row["category"],
            "label": labels.get(row["category"], row["category"]),
            "count": row["n"],
        }
        for row in Part.objects.visible_to(user).values("category").annotate(n=Count("id")).order_by("-n")
    ]
    return Panel("Catalogue by category", "catalog/_dashboard_categories.html", {"rows": rows})
