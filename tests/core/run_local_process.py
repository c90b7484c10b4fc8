"""`manage.py run_local` (what `make run` starts: runserver and a Celery worker) as a child process
of a test, its output collected; used by local_worker_scenario.py and the browser test of `make
run` (tests/browser/test_make_run_progress.py). Linux: children are found in /proc."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            if f"\nPPid:\t{pid}\n" in status.read_text():
                found.append(int(status.parent.name))
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class RunLocal:
    """`manage.py run_local` on a free port with `env`. No beat: its schedule file is the work
    tree's (var/), and the outbox sweep it sends has nothing to do in a test."""

    def __init__(self, env: dict, *extra: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "run_local", f"127.0.0.1:{self.port}", "--no-beat", *extra],
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
            out = self.output
            if "rackpass-local@" in out and " ready." in out and "Quit the server" in out:
                return
            assert self.process.poll() is None, out
            time.sleep(0.2)
        raise AssertionError("run_local did not start:\n" + self.output)

    def worker_pid(self) -> int:
        for pid in children(self.process.pid):
            if b"celery" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        raise AssertionError("no worker under run_local:\n" + self.output)

    def stop(self) -> int:
        """Ctrl-C, as a person stops `make run`; killed if it does not stop within 30 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=5)
        return self.process.returncode
