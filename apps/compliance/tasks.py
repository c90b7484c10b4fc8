"""Background compliance work. Tasks load by id and call a service; they are safe to run twice."""

from celery import shared_task
from django.db import OperationalError

from apps.accounts.models import User
from apps.shipments.models import Shipment

from . import services


def _actor(actor_id):
    return User.objects.filter(pk=actor_id).select_related("organisation").first() if actor_id else None


@shared_task(
    bind=True,
    name="compliance.run_check",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
    # Seconds in practice; 5 minutes keeps the broker's visibility timeout short (settings).
    time_limit=5 * 60,
    soft_time_limit=4 * 60 + 30,
)
def run_compliance_check(
    self, shipment_id: int, actor_id: int | None = None, only_in_review: bool = False
) -> dict:
    """Idempotent: the check is keyed by the shipment's version and written in one transaction,
    so a retry after a killed worker either finds the finished check or writes it once."""

    def progress(percent: int, step: str) -> None:
        if self.request.id:
            self.update_state(state="PROGRESS", meta={"percent": percent, "step": step})

    shipment = Shipment.objects.get(pk=shipment_id)
    if only_in_review and shipment.status != "compliance_review":
        # Queued when the shipment entered review, but it has moved on since (checked meanwhile).
        return {
            "percent": 100,
            "skipped": True,
            "summary": f"{shipment} is no longer in compliance review",
            "shipment": shipment.reference,
        }
    check = services.compliance_check_run(
        shipment=shipment, actor=_actor(actor_id), task_id=self.request.id or "", progress=progress
    )
    return {
        "percent": 100,
        "check_id": check.pk,
        "result": check.result,
        "summary": check.summary,
        "shipment": shipment.reference,
    }


@shared_task(
    bind=True,
    name="compliance.rescreen_parties",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
    # 10,000 parties take 3–4 s (docs/benchmarks.md); see the visibility timeout in settings.
    time_limit=5 * 60,
    soft_time_limit=4 * 60 + 30,
)
def rescreen_parties(self, actor_id: int | None = None) -> dict:
    """Re-screen every active organisation after a list import."""

    def progress(percent: int, step: str) -> None:
        if self.request.id:
            self.update_state(state="PROGRESS", meta={"percent": percent, "step": step})

    count = services.rescreen_all(actor=_actor(actor_id), progress=progress)
    return {"percent": 100, "screened": count}
