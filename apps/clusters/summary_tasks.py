"""The compliance summary's background task. Thin: load the summary by id and call the service;
safe to run twice (a finished summary is returned as it is)."""

from celery import shared_task
from django.db import OperationalError


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
    # Imported here: this module is loaded with the models (summary_models), before the services.
    from .compliance_summary import compliance_summary_execute
    from .summary_models import ComplianceSummary

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
