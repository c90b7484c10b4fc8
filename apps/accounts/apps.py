from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    verbose_name = "Organisations and users"

    def ready(self):
        from apps.core import dashboard as board
        from apps.core.demo_steps import register_demo_step

        from . import demo, signals  # noqa: F401  (signals connects the sign-in receivers)
        from .dashboard import account_tiles

        register_demo_step("accounts", demo.load, report=demo.logins)
        board.tiles(account_tiles, order=60)
