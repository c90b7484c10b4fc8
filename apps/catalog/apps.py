from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "apps.catalog"
    verbose_name = "Parts catalogue"

    def ready(self) -> None:
        from apps.core.demo_steps import register_demo_step

        from . import demo

        register_demo_step("catalog", demo.load, after=["accounts"])
