"""Background work of the core app."""

from celery import shared_task

from . import tasks_outbox


@shared_task(name="core.send_owed_tasks", time_limit=60, soft_time_limit=50)
def send_owed_tasks() -> dict:
    """The outbox sweep (Celery beat, every minute): send tasks still owed after their commit."""
    sent, owed = tasks_outbox.send_owed_tasks()
    return {"sent": sent, "owed": owed}
