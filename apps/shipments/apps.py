from django.apps import AppConfig


class ShipmentsConfig(AppConfig):
    name = "apps.shipments"
    verbose_name = "Shipments and freight"

    def ready(self) -> None:
        from . import hooks
        from .booked_freight import store_on_booking
        from .models import ShipmentStatus

        hooks.on_enter(ShipmentStatus.BOOKED, store_on_booking)
