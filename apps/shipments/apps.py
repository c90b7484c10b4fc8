from django.apps import AppConfig


class ShipmentsConfig(AppConfig):
    name = "apps.shipments"
    verbose_name = "Shipments and freight"

    def ready(self) -> None:
        from apps.core import dashboard as board
        from apps.core.demo_steps import register_demo_step

        from . import demo, hooks
        from .booked_freight import store_on_booking
        from .bulk import CANCEL_DRAFTS
        from .dashboard import shipment_tiles
        from .models import ShipmentStatus

        hooks.on_enter(ShipmentStatus.BOOKED, store_on_booking)
        board.tiles(shipment_tiles, order=10)
        # The shipments list's own bulk action (documents registers its own in its `ready`).
        hooks.bulk_action(CANCEL_DRAFTS)
        # Sites, rate and tariff tables, and demo shipments A–F (compliance and documents prepare
        # their approval and booking: `demo.before_entering`).
        register_demo_step("shipments", demo.load, after=["accounts", "catalog"])
