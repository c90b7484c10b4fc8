"""Send the background tasks recorded as owed (their state change committed while the broker was
unreachable). Celery beat does this every minute; run it by hand after an outage, or without beat."""

import datetime as dt

from django.core.management.base import BaseCommand

from apps.core.tasks_outbox import SWEEP_GRACE, send_owed_tasks


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=float,
            default=SWEEP_GRACE.total_seconds(),
            help="Only tasks owed for at least this many seconds (default: %(default)s).",
        )

    def handle(self, *args, older_than: float, **options):
        sent, owed = send_owed_tasks(grace=dt.timedelta(seconds=older_than))
        self.stdout.write(f"Sent {sent} owed task(s); {owed} still owed.")
        if owed:
            self.stderr.write("The broker is still unreachable; run this again once it answers.")
