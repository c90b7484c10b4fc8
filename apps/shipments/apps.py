from django.apps import AppConfig


class ShipmentsConfig(AppConfig):
    name = "apps.shipments"
    verbose_name = "Shipments and freight"
