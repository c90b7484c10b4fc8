"""Load the demo organisations, users and catalogue. Running it again adds nothing twice."""

import os

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.accounts import demo as accounts_demo
from apps.catalog import demo as catalog_demo
from apps.compliance import demo as compliance_demo
from apps.shipments import demo as shipments_demo

DEFAULT_PASSWORD = "rackpass-demo"


class Command(BaseCommand):
    help = "Load demo data (idempotent) and print the demo users' logins."

    def add_arguments(self, parser):
        parser.add_argument("--password", default=os.environ.get("RACKPASS_DEMO_PASSWORD", DEFAULT_PASSWORD))

    def handle(self, *args, password, **options):
        with transaction.atomic():
            counts = accounts_demo.load(password=password)
            counts |= catalog_demo.load()
            counts |= compliance_demo.load_reference()
            counts |= shipments_demo.load()
            counts |= compliance_demo.load_shipments()
        self.stdout.write(
            self.style.SUCCESS(
                "Demo data loaded: " + ", ".join(f"{n} new {what}" for what, n in counts.items())
            )
        )
        self.stdout.write(f"Demo users (password for all: {password}):")
        for username, _first, _last, role, org in accounts_demo.USERS:
            self.stdout.write(f"  {username:<12} {role.label:<24} {org}")
