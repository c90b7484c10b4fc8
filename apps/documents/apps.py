from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "apps.documents"
    verbose_name = "Trade documents"

    def ready(self) -> None:
        from apps.shipments import hooks
        from apps.shipments.models import ShipmentStatus

        from .services import documents_void_on_cancel

        # Cancelling voids the issued documents and supersedes the drafts, in the cancel's transaction.
        hooks.on_enter(ShipmentStatus.CANCELLED, documents_void_on_cancel)
