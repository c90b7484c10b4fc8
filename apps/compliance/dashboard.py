"""The compliance officer's part of the dashboard (apps/core/dashboard.py): shipments on a
compliance hold, restricted-party hits open in the review queue, shipments whose compliance
answer went stale, and licences running low.

Each tile links to the list that shows exactly what it counts, filtered by the same condition:
the shipments list's `needs=compliance_hold` / `needs=stale_check` (the stale condition is
registered here, `shipments.hooks.need_condition`), the review queue's hits, the licence list's
`running_low=true`. Four queries, whatever the numbers.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q
from django.urls import reverse

from apps.core.dashboard import Tile
from apps.shipments import hooks as shipment_hooks
from apps.shipments.models import Shipment
from apps.shipments.selectors import need_counts

from .models import ComplianceCheck, Licence
from .services.checks import OPEN_STATUSES
from .services.licences import running_low
from .services.screening import review_queue


def stale_check_q(user=None) -> Q:
    """Open shipments whose compliance answer went stale (an input changed) and which have no
    current answer yet: a check of them is owed (queued, or waiting for submission)."""
    checks = ComplianceCheck.objects.filter(shipment=OuterRef("pk"))
    return (
        Q(status__in=OPEN_STATUSES)
        & Q(Exists(checks.filter(stale_since__isnull=False)))
        & ~Q(Exists(checks.filter(stale_since__isnull=True)))
    )


shipment_hooks.need_condition("stale_check", stale_check_q)


def officer_tiles(user) -> list[Tile]:
    """For who reviews compliance (officers, administrators): their work first on the dashboard."""
    if not user.can("compliance.review"):
        return []
    shipments = reverse("shipments:shipment-list")
    counts = need_counts(
        Shipment.objects.visible_to(user),
        {
            "holds": shipment_hooks.need_q("compliance_hold", user),
            "stale": stale_check_q(user),
        },
    )
    hits = review_queue().count()
    low = running_low(Licence.objects.visible_to(user)).count()
    return [
        Tile(counts["holds"], "on compliance hold", f"{shipments}?needs=compliance_hold"),
        Tile(hits, "restricted-party hits to review", reverse("compliance:queue") + "#hits"),
        Tile(counts["stale"], "compliance answers stale", f"{shipments}?needs=stale_check"),
        Tile(low, "licences running low", reverse("compliance:licences") + "?running_low=true"),
    ]
