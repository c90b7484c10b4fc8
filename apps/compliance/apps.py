from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "apps.compliance"
    verbose_name = "Export-control compliance"

    def ready(self) -> None:
        from .services.checks import register_hooks

        register_hooks()
