from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "apps.documents"
    verbose_name = "Trade documents"

    def ready(self) -> None:
        from apps.core import dashboard as board
        from apps.shipments import demo as shipments_demo
        from apps.shipments import hooks
        from apps.shipments.models import ShipmentStatus

        from . import demo
        from .bulk import GENERATE_REQUIRED
        from .dashboard import coordinator_tiles
        from .services import (
            amend_effects,
            booking_problems,
            documents_void_on_amend,
            documents_void_on_cancel,
            missing_documents_labelled,
        )

        # Cancelling voids the issued documents and supersedes the drafts, in the cancel's transaction;
        # so does amending an approved shipment (back to draft).
        hooks.on_enter(ShipmentStatus.CANCELLED, documents_void_on_cancel)
        hooks.on_enter(ShipmentStatus.DRAFT, documents_void_on_amend)
        hooks.report_amend_effects(amend_effects)
        # Booking needs every required document issued; the shipment page lists the missing ones.
        hooks.guard(ShipmentStatus.BOOKED, booking_problems)
        hooks.report_missing_documents(missing_documents_labelled)
        # The shipments list's "Generate required documents" for the ticked shipments.
        hooks.bulk_action(GENERATE_REQUIRED)
        # The demo books as a user would: the required documents issued first.
        shipments_demo.before_entering(ShipmentStatus.BOOKED, demo.issue_required)
        # The coordinator's documents work on the dashboard, beside the shipments' tiles.
        board.tiles(coordinator_tiles, order=12)
