from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    verbose_name = "Organisations and users"

    def ready(self):
        from . import signals  # noqa: F401  (connects the sign-in receivers)
