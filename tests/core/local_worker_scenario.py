"""Run by test_make_run.py in a process of its own, configured as `make run` is: no Redis (tasks
queued in files under RACKPASS_TASK_DIR), a SQLite file, and `manage.py run_local` (what `make run`
starts: runserver and a Celery worker). Not collected by the suite (its name does not start with
test_)."""

import os
import signal
import socket
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from apps.compliance import services as compliance
from apps.core.models import TaskRecord, TaskState
from apps.documents.models import Document
from tests.shipments.conftest import pack_all

from .run_local_process import RunLocal, alive, children


@pytest.mark.django_db(transaction=True)  # committed: the worker is another process
def test_generate_returns_at_once_and_the_worker_renders(
    submitted, indian_customer, dgx, coordinator, client
):
    assert not settings.CELERY_TASK_ALWAYS_EAGER and settings.CELERY_BROKER_URL.startswith("filesystem:")
    shipment = submitted(indian_customer, "IN", "Chennai", [(dgx, 2)])
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)
    client.force_login(coordinator)

    response = client.post(
        f"/shipments/{shipment.reference}/documents/generate/", {"doc_type": "commercial_invoice"}
    )
    assert response.status_code == 302 and "?task=" in response.url
    task_id = response.url.split("?task=")[1]
    # The request has returned and nothing is rendered: the task waits in the file queue (no
    # worker runs yet, so this is a fact, not a race).
    record = TaskRecord.objects.get(task_id=task_id)
    assert record.state == TaskState.SENT and not Document.objects.exists()
    queued = list(Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_out"]).glob("*.msg"))
    assert queued, "nothing was written to the file queue"
    waiting = client.get(f"/compliance/tasks/{task_id}/?refresh=documents").content.decode()
    assert "waiting for the background worker" in waiting and "hx-get" in waiting

    run = RunLocal(
        {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
        | {
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
        }
    )
    try:
        run.wait_until_started()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            record.refresh_from_db()
            if record.state in (TaskState.SUCCEEDED, TaskState.FAILED):
                break
            time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", run.port), timeout=5):
            pass  # the web server answers too
        child_pids = children(run.process.pid)
        assert len(child_pids) == 2, child_pids  # runserver and the worker
        run.process.send_signal(signal.SIGINT)  # Ctrl-C stops both
        assert run.process.wait(timeout=30) == 0, run.output[-3000:]
    finally:
        if run.process.poll() is None:
            run.process.kill()
        run.reader.join(timeout=5)
    assert record.state == TaskState.SUCCEEDED, run.output[-5000:]
    assert not [pid for pid in child_pids if alive(pid)], run.output[-3000:]
    assert "worker | " in run.output and "web    | " in run.output
    # The worker was told alone (a warm shutdown): its pool processes did not die under it.
    assert "Warm shutdown" in run.output and "ERROR" not in run.output, run.output[-3000:]

    document = Document.objects.get(shipment=shipment, doc_type="commercial_invoice")
    assert document.task_id == task_id and document.page_count >= 1
    assert record.result["summary"] == "1 document generated"
    done = client.get(f"/compliance/tasks/{task_id}/?refresh=documents").content.decode()
    assert "finished successfully: 1 document generated" in done
    assert 'hx-select-oob="#documents"' in done  # the page's list is loaded again
    page = client.get(f"/shipments/{shipment.reference}/documents/").content.decode()
    assert document.number in page
