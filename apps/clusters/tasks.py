"""Background sizing. Thin: load the run by id and call the service; safe to run twice."""

from celery import shared_task
from django.db import OperationalError

from . import services
from .models import SizingRun


@shared_task(
    bind=True,
    name="clusters.run_sizing",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
    # The engine works in closed form (milliseconds whatever the size); a minute is generous.
    time_limit=60,
    soft_time_limit=50,
)
def run_sizing(self, run_id: int) -> dict:
    """Idempotent: a run that finished is returned as it was (`sizing_run_execute`)."""

    def progress(percent: int, step: str) -> None:
        if self.request.id:
            self.update_state(state="PROGRESS", meta={"percent": percent, "step": step})

    run = services.sizing_run_execute(run=SizingRun.objects.get(pk=run_id), progress=progress)
    return {
        "percent": 100,
        "run": run.number,
        "design": run.design_id,
        "status": run.status,
        "errors": run.errors,
        "summary": f"Run {run.number}: {run.get_status_display().lower()}",
    }
