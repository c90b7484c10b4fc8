"""Load the demo organisations, users, catalogue, shipments and their compliance checks and
documents. Running it again adds nothing twice.

Each app registers its own step in its `AppConfig.ready()` (`apps.core.demo_steps`), so this
command, in `core`, imports none of them."""

import os

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.core.demo_steps import load_demo_steps

DEFAULT_PASSWORD = "rackpass-demo"


class Command(BaseCommand):
    help = "Load demo data (idempotent) and print the demo users' logins."

    def add_arguments(self, parser):
        parser.add_argument("--password", default=os.environ.get("RACKPASS_DEMO_PASSWORD", DEFAULT_PASSWORD))

    def handle(self, *args, password, **options):
        with transaction.atomic():
            counts, lines = load_demo_steps(password=password)
        self.stdout.write(
            self.style.SUCCESS(
                "Demo data loaded: " + ", ".join(f"{n} new {what}" for what, n in counts.items())
            )
        )
        for line in lines:
            self.stdout.write(line)
