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
            help=(
                "Tasks not yet tried are sent once owed for this many seconds (default: %(default)s); "
                "those whose first send failed are sent at once."
            ),
        )

    def handle(self, *args, older_than: float, **options):
        sweep = send_owed_tasks(grace=dt.timedelta(seconds=older_than))
        self.stdout.write(f"Sent {sweep.sent} owed task(s); {sweep.owed} still owed.")
        if sweep.broker_down:
            self.stderr.write("The broker is still unreachable; run this again once it answers.")
