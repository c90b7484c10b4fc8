from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"
    verbose_name = "Core"

    def ready(self) -> None:
        from . import audit, celery_signals  # noqa: F401

        audit.connect_signals()
