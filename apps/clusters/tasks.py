"""The clusters app's background tasks: sizing a run and making a compliance summary. Thin: load
the row by id and call its service; safe to run twice (finished work is returned as it was).

The services queue these by their registered names (`services.designs.SIZING_TASK`,
`services.compliance_summary.SUMMARY_TASK`) through the outbox and never import this module."""

from celery import shared_task
from django.db import OperationalError

from .models import ComplianceSummary, SizingRun
from .services.compliance_summary import compliance_summary_execute
from .services.designs import sizing_run_execute


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

    run = sizing_run_execute(run=SizingRun.objects.get(pk=run_id), progress=progress)
    return {
        "percent": 100,
        "run": run.number,
        "design": run.design_id,
        "status": run.status,
        "errors": run.errors,
        "summary": f"Run {run.number}: {run.get_status_display().lower()}",
    }


@shared_task(
    bind=True,
    name="clusters.compliance_summary",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
    # One classification read and one determination per line: seconds for any bill of materials.
    time_limit=2 * 60,
    soft_time_limit=110,
)
def run_compliance_summary(self, summary_id: int) -> dict:
    """Idempotent: a summary that finished is returned as it was (`compliance_summary_execute`)."""

    def progress(percent: int, step: str) -> None:
        if self.request.id:
            self.update_state(state="PROGRESS", meta={"percent": percent, "step": step})

    summary = compliance_summary_execute(
        summary=ComplianceSummary.objects.get(pk=summary_id), progress=progress
    )
    headline = (summary.result or {}).get("headline") or summary.error
    return {
        "percent": 100,
        "summary_id": summary.pk,
        "design": summary.bom.design_id,
        "status": summary.status,
        "summary": headline,
    }
