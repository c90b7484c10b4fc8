"""Background work of the core app."""

from celery import shared_task

from . import export_files, tasks_outbox


@shared_task(name="core.send_owed_tasks", time_limit=60, soft_time_limit=50)
def send_owed_tasks() -> dict:
    """The outbox sweep (Celery beat, every minute): send tasks still owed after their commit."""
    sweep = tasks_outbox.send_owed_tasks()
    return {"sent": sweep.sent, "owed": sweep.owed}


@shared_task(
    bind=True,
    name="core.write_export_file",
    # The default limits: a million rows take about two minutes (docs/benchmarks.md, exports), and
    # the broker redelivers a lost message after 3 × the default limit, which must outlast any task.
    time_limit=5 * 60,
    soft_time_limit=4 * 60 + 30,
)
def write_export_file(self, list_name: str, query: str, user_id: int, export_format: str) -> dict:
    """Write a long list's export to a file, reporting progress on the task's record."""

    def progress(percent: int, step: str) -> None:
        if self.request.id:
            self.update_state(state="PROGRESS", meta={"percent": percent, "step": step})

    return export_files.export_file_write(
        task_id=self.request.id,
        list_name=list_name,
        query=query,
        user_id=user_id,
        export_format=export_format,
        progress=progress,
    )
