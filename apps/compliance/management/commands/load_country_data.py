"""Load an edition of the EAR Country Groups and Commerce Country Chart and make it active."""

import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from apps.compliance.services import country_data_load, country_data_load_default


class Command(BaseCommand):
    help = "Load EAR country data (the edition shipped with Rackpass, or the two files given)."

    def add_arguments(self, parser):
        parser.add_argument("--groups", type=Path, help="country-groups JSON file")
        parser.add_argument("--chart", type=Path, help="country-chart JSON file")

    def handle(self, *args, groups=None, chart=None, **options):
        try:
            if groups or chart:
                if not (groups and chart):
                    raise CommandError("Give both --groups and --chart.")
                version = country_data_load(
                    groups_json=json.loads(groups.read_text()),
                    chart_json=json.loads(chart.read_text()),
                    loaded_by="command line",
                )
            else:
                version = country_data_load_default(loaded_by="command line")
        except (ValidationError, json.JSONDecodeError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Active: {version}"))
