from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "apps.catalog"
    verbose_name = "Parts catalogue"

    def ready(self) -> None:
        from apps.core import dashboard as board
        from apps.core.demo_steps import register_demo_step

        from . import demo
        from .dashboard import categories, part_tiles

        register_demo_step("catalog", demo.load, after=["accounts"])
        board.tiles(part_tiles, order=50)
        board.panel(categories, order=50)
