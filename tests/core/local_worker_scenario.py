"""Run by test_make_run.py in a process of its own, configured as `make run` is: no Redis (tasks
queued in files under RACKPASS_TASK_DIR), a SQLite file, and `manage.py run_local` (what `make run`
starts: runserver and a Celery worker). Not collected by the suite (its name does not start with
test_)."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from apps.compliance import services as compliance
from apps.core.models import TaskRecord, TaskState
from apps.documents.models import Document
from tests.shipments.conftest import pack_all

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _children(pid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            if f"\nPPid:\t{pid}\n" in status.read_text():
                found.append(int(status.parent.name))
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class RunLocal:
    """`manage.py run_local` on the test database, its output collected."""

    def __init__(self):
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"} | {
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
        }
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "run_local", f"127.0.0.1:{self.port}", "--no-beat"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self.reader = threading.Thread(
            target=lambda: self.lines.extend(iter(self.process.stdout.readline, "")), daemon=True
        )
        self.reader.start()

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_until_started(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (
                "rackpass-local@" in self.output
                and " ready." in self.output
                and "Quit the server" in self.output
            ):
                return
            assert self.process.poll() is None, self.output
            time.sleep(0.2)
        raise AssertionError("run_local did not start:\n" + self.output)


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

    run = RunLocal()
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
        children = _children(run.process.pid)
        assert len(children) == 2, children  # runserver and the worker
        run.process.send_signal(signal.SIGINT)  # Ctrl-C stops both
        assert run.process.wait(timeout=30) == 0, run.output[-3000:]
    finally:
        if run.process.poll() is None:
            run.process.kill()
        run.reader.join(timeout=5)
    assert record.state == TaskState.SUCCEEDED, run.output[-5000:]
    assert not [pid for pid in children if _alive(pid)], run.output[-3000:]
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
