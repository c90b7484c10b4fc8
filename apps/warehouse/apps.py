from django.apps import AppConfig


class WarehouseConfig(AppConfig):
    """Stock in our warehouses: locations, units and lots, and the movement ledger.

    It sits above `shipments` (outbound stock is allocated to shipment lines) and below
    `compliance` and `documents`, which it never imports."""

    name = "apps.warehouse"
    label = "warehouse"
    verbose_name = "Warehouse"

    def ready(self) -> None:
        from apps.core import dashboard as board
        from apps.core.demo_steps import register_demo_step
        from apps.shipments import demo as shipments_demo
        from apps.shipments import hooks as shipment_hooks
        from apps.shipments.models import ShipmentStatus

        from . import demo
        from .dashboard import warehouse_tiles
        from .services import release_for_cancelled
        from .views.stock import shipment_page_actions, stock_tiles

        board.tiles(warehouse_tiles, order=4)  # the operator's work: expected, discrepancies
        board.tiles(stock_tiles, order=20)
        # A cancelled shipment's allocated and picked stock goes back on the shelf.
        shipment_hooks.on_enter(ShipmentStatus.CANCELLED, release_for_cancelled)
        # "Receive at warehouse", "Allocate stock", "Pick", "Pack" on the shipment's page.
        shipment_hooks.register_page_action(shipment_page_actions)
        # Demo B's goods pass through the Singapore hub while it is in transit; then the stock.
        shipments_demo.at_hub(demo.through_hub)
        register_demo_step("warehouse", demo.load, after=["shipments"])
