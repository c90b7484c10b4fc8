from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "apps.compliance"
    verbose_name = "Export-control compliance"

    def ready(self) -> None:
        from .services import approvals, checks, holds, stale

        checks.register_hooks()
        approvals.register_hooks()
        holds.register()
        self._register_page_actions()
        stale.register()
        self._register_demo()
        self._register_dashboard()

    @staticmethod
    def _register_dashboard() -> None:
        from apps.core import dashboard as board

        from .dashboard import officer_tiles

        # The officer's work comes first on the dashboard.
        board.tiles(officer_tiles, order=5)

    @staticmethod
    def _register_page_actions() -> None:
        from apps.shipments import hooks

        from .views import shipment_page_actions

        hooks.register_page_action(shipment_page_actions)

    @staticmethod
    def _register_demo() -> None:
        from apps.core.demo_steps import register_demo_step
        from apps.shipments import demo as shipments_demo
        from apps.shipments.models import ShipmentStatus

        from . import demo

        # What the checks read (country data, screening list, classifications) comes before the
        # shipments demo, whose approvals run checks; compliance's own shipments G–I after it.
        register_demo_step(
            "compliance reference", demo.load_reference, after=["accounts", "catalog"], before=["shipments"]
        )
        register_demo_step("compliance shipments", demo.load_shipments, after=["shipments"])
        # The shipments demo approves through a passing check, as in real use.
        shipments_demo.before_entering(ShipmentStatus.APPROVED, demo.approve)
