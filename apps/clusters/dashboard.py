"""The planner's part of the dashboard (apps/core/dashboard.py): cluster designs by how far their
planning has come — not sized yet, sized without a bill of materials, and with an issued bill of
materials (whose coverage, per line on order, in stock, shipped and delivered, is on the design's
page).

Each tile links to the designs list filtered by `stage=` (`filters.DesignFilter`), the same
condition the tile counts with (`STAGES`): one query for the three.
"""

from __future__ import annotations

from django.db.models import Count, Exists, OuterRef, Q
from django.urls import reverse

from apps.core.dashboard import Tile
from apps.core.scoping import VIEW

from .models import BillOfMaterials, BomStatus, ClusterDesign, RunStatus, SizingRun


def _stages() -> dict[str, Q]:
    sized = Exists(SizingRun.objects.filter(design=OuterRef("pk"), status=RunStatus.SUCCEEDED))
    boms = BillOfMaterials.objects.filter(design=OuterRef("pk"))
    return {
        "to_size": ~Q(sized),
        "no_bom": Q(sized) & ~Q(Exists(boms)),
        "bom_issued": Q(Exists(boms.filter(status=BomStatus.ISSUED))),
    }


STAGE_CHOICES = [
    ("to_size", "Not sized yet"),
    ("no_bom", "Sized, no bill of materials"),
    ("bom_issued", "Bill of materials issued"),
]


def stage_q(stage: str) -> Q:
    return _stages()[stage]


def planner_tiles(user) -> list[Tile]:
    """For who plans clusters (coordinators, administrators, partners planning their own)."""
    if not user.can("clusters.plan"):
        return []
    url = reverse("clusters:design-list")
    counts = ClusterDesign.objects.visible_to(user, VIEW).aggregate(
        **{key: Count("pk", filter=q) for key, q in _stages().items()}
    )
    labels = {
        "to_size": "designs to size",
        "no_bom": "sized, no bill of materials",
        "bom_issued": "bills of materials issued (coverage)",
    }
    return [Tile(counts[key], labels[key], f"{url}?stage={key}") for key, _ in STAGE_CHOICES]
