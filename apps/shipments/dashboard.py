"""Shipments' part of the dashboard (apps/core/dashboard.py): open, on hold and late."""

from django.urls import reverse

from apps.core.dashboard import Tile

from .models import Shipment, ShipmentStatus
from .selectors import late_q


def shipment_tiles(user) -> list[Tile]:
    if not user.can("shipments.view"):
        return []
    url = reverse("shipments:shipment-list")
    open_ = Shipment.objects.visible_to(user).exclude(
        status__in=[ShipmentStatus.DELIVERED, ShipmentStatus.CANCELLED]
    )
    return [
        Tile(open_.count(), "open shipments", url),
        Tile(open_.filter(status=ShipmentStatus.ON_HOLD).count(), "on hold", f"{url}?status=on_hold"),
        Tile(open_.filter(late_q()).count(), "late", f"{url}?late=true"),
    ]
