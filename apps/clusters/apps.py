from django.apps import AppConfig


class ClustersConfig(AppConfig):
    """Cluster designs, their sizing runs and bills of materials (issue 14).

    The top app: it reads the catalogue, sites and (later) compliance and shipments, and nothing
    below it imports it. Its sizing engine (`engines/`) is plain Python."""

    name = "apps.clusters"
    label = "clusters"
    verbose_name = "Clusters"

    def ready(self) -> None:
        from apps.core import dashboard as board
        from apps.core.demo_steps import register_demo_step

        from . import demo
        from .views import design_tiles

        register_demo_step("clusters", demo.load, after=["catalog", "shipments"])
        board.tiles(design_tiles, order=30)
