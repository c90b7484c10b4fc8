"""A worker killed outright (SIGKILL of its main process: OOM, node loss) in the middle of a task:
the task shows as running until its lease runs out (nobody renews it), then as stalled; the broker
redelivers it after the visibility timeout, and the delivery that finds the dead worker's lease
still holding comes back when it runs out, so another worker finishes it, once."""

import datetime as dt
import signal
import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from apps.compliance.services import compliance_check_run
from apps.core import tasks_outbox
from apps.core.models import TaskRecord, TaskState
from apps.documents.models import Document
from apps.documents.services import document_generate_start
from apps.shipments.models import Shipment
from tests.shipments.conftest import pack_all

from .worker import celery_worker


def _wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _lock_waiters() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return cursor.fetchone()[0]


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_task_whose_worker_is_killed_is_stalled_then_redelivered_and_done_once(
    request, coordinator, monkeypatch
):
    submitted = request.getfixturevalue("submitted")
    shipment = submitted(request.getfixturevalue("indian_customer"), "IN", "Chennai",
                         [(request.getfixturevalue("dgx"), 1)])  # fmt: skip
    compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)  # an invoice states packages and weights: packing comes first
    # Someone holds the shipment's row: the task renders, then waits for it to write.
    locked, unlock = threading.Event(), threading.Event()

    def hold_the_row():
        with transaction.atomic():
            Shipment.objects.select_for_update().get(pk=shipment.pk)
            locked.set()
            unlock.wait(60)
        connection.close()

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    assert locked.wait(10)
    try:
        with celery_worker() as first:
            monkeypatch.setattr(
                tasks_outbox, "publish",
                lambda task, *, kwargs, task_id: task.apply_async(
                    kwargs=kwargs, task_id=task_id, queue=first.queue, retry=False
                ),
            )  # fmt: skip
            with transaction.atomic():
                task_id = document_generate_start(
                    shipment=shipment, doc_types=["commercial_invoice"], actor=coordinator
                )
            _wait_for(lambda: _lock_waiters() >= 1, 90, "the worker to wait for the row lock")
            record = TaskRecord.objects.get(task_id=task_id)
            assert record.state == TaskState.STARTED and "Rendering" in record.step
            first.process.send_signal(signal.SIGKILL)
            first.process.wait(10)
    finally:
        unlock.set()
        holder.join(10)
    # Nobody runs it now: it reads as running until its lease runs out, then as stalled.
    record = TaskRecord.objects.get(task_id=task_id)
    assert tasks_outbox.task_progress(record)["state"] == "STARTED"
    later = timezone.now() + dt.timedelta(seconds=record.time_limit + 1)
    stalled = tasks_outbox.task_progress(record, now=later)
    assert stalled["state"] == "STALLED" and "run it again" in stalled["message"]
    # Its message is still unacknowledged: past the visibility timeout, another worker takes it.
    with celery_worker(queue=first.queue, settings_module="tests.integration.settings_quick_redelivery"):
        _wait_for(
            lambda: TaskRecord.objects.filter(task_id=task_id, state=TaskState.SUCCEEDED).exists(),
            90,
            "the redelivered task to finish",
        )
    assert Document.objects.filter(shipment=shipment, doc_type="commercial_invoice").count() == 1
    assert Document.objects.get(shipment=shipment).number.endswith(
        "-000001"
    )  # the killed run's number rolled back
