"""Background work of the warehouse: large serial imports. Each task loads its record by id and
calls the service (`services.imports`); the services never import this module back."""

from celery import shared_task
from django.db import OperationalError

from .models import SerialImport
from .services import imports


@shared_task(
    bind=True,
    name="warehouse.serial_import",
    # Idempotent (`serial_import_run` claims a queued import once), so a redelivery after a lost
    # worker does no harm.
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
    # 200,000 rows take about half a minute on PostgreSQL (docs/benchmarks.md, stock_import).
    # 200,000 rows import in about a minute; the broker's visibility timeout must outlast three.
    time_limit=5 * 60,
    soft_time_limit=4 * 60 + 30,
)
def run_serial_import(self, import_id: int) -> dict:
    """Check and import a stored CSV of serials, reporting progress on the task's record."""

    def progress(percent: int, step: str) -> None:
        if self.request.id:
            self.update_state(state="PROGRESS", meta={"percent": percent, "step": step})

    serial_import = imports.serial_import_run(
        serial_import=SerialImport.objects.get(pk=import_id), progress=progress
    )
    if serial_import.status == "refused":
        summary = f"refused: {serial_import.problem_count:,} problem(s), nothing imported"
    else:
        summary = f"{serial_import.imported:,} of {serial_import.rows:,} serials imported"
    return {
        "percent": 100,
        "import_id": serial_import.pk,
        "status": serial_import.status,
        "imported": serial_import.imported,
        "problem_count": serial_import.problem_count,
        "summary": summary,
    }
