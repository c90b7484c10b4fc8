from django.apps import AppConfig


class ClustersConfig(AppConfig):
    """Cluster designs, their sizing runs and bills of materials, and the planning
    that reads other apps for them: compliance summary, coverage, shipment plan, own or rent.

    The top app: it reads the catalogue, shipments, warehouse and compliance, and nothing below
    it imports it. Its sizing engine (`engines/`) is plain Python."""

    name = "apps.clusters"
    label = "clusters"
    verbose_name = "Clusters"

    def ready(self) -> None:
        from apps.core import dashboard as board
        from apps.core.demo_steps import register_demo_step

        from . import demo
        from .dashboard import planner_tiles
        from .views.designs import design_tiles

        register_demo_step("clusters", demo.load, after=["catalog", "shipments"])
        board.tiles(design_tiles, order=30)
        board.tiles(planner_tiles, order=31)
