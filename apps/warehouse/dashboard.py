"""The warehouse operator's part of the dashboard (apps/core/dashboard.py): what is expected at
the warehouses this week or overdue, and the receipts with discrepancies still to resolve (units
in quarantine are the stock tiles', `views/stock.py`). Each tile links to the page that lists
exactly what it counts: "Expected" (`selectors.expected_arrivals`, by the same conditions) and the
receipts filtered to open ones. Three queries, whatever the numbers."""

from __future__ import annotations

import datetime as dt

from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils import timezone

from apps.core.dashboard import Tile
from apps.core.scoping import VIEW
from apps.shipments.models import Leg, Shipment

from .models import Location, Receipt, ReceiptStatus
from .selectors import EXPECTED_AHEAD_DAYS
from .services.receipts import RECEIVABLE


def expected_count(user, today: dt.date) -> int:
    """Inbound legs and shipments not received yet, due at a warehouse `user` sees by a week from
    `today` (overdue included) or not dated: the "Expected" page's rows across its warehouses."""
    horizon = today + dt.timedelta(days=EXPECTED_AHEAD_DAYS)
    sites = Location.objects.visible_to(user, VIEW).filter(is_active=True).values("site")
    shipments = Shipment.objects.visible_to(user, VIEW).filter(status__in=RECEIVABLE)
    legs = Leg.objects.filter(
        destination__in=sites,
        shipment__in=shipments.values("pk"),
    ).filter(
        Q(planned_arrival__lte=horizon) | Q(planned_arrival__isnull=True),
        ~Exists(Receipt.objects.filter(leg=OuterRef("pk"))),
    )
    whole = (
        shipments.filter(destination__in=sites)
        .filter(Q(eta__lte=horizon) | Q(eta__isnull=True))
        .filter(
            # Not the shipments a leg brings there (counted as legs), nor those received.
            ~Exists(Leg.objects.filter(shipment=OuterRef("pk"), destination=OuterRef("destination"))),
            ~Exists(Receipt.objects.filter(shipment=OuterRef("pk"), leg__isnull=True)),
        )
    )
    return legs.count() + whole.count()


def warehouse_tiles(user) -> list[Tile]:
    """For who receives goods (warehouse operators, administrators): their work first."""
    if not user.can("stock.operate"):
        return []
    open_receipts = Receipt.objects.visible_to(user, VIEW).filter(status=ReceiptStatus.OPEN).count()
    return [
        Tile(
            expected_count(user, timezone.localdate()),
            "arrivals expected this week",
            reverse("warehouse:expected"),
        ),
        Tile(
            open_receipts,
            "receipts with discrepancies to resolve",
            reverse("warehouse:receipt-list") + f"?status={ReceiptStatus.OPEN}",
        ),
    ]
