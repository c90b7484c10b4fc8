"""`make run`: the web server and a Celery worker side by side, stopped together.

    python manage.py run_local [addrport] [--no-beat] [--noreload]

Both run as child processes; their output is interleaved, each line prefixed `web |` or
`worker |`. Ctrl-C (SIGINT) or SIGTERM stops both, and when one of them exits the other is stopped
too, so a worker that cannot start does not leave a web server queueing tasks nobody runs. With
CELERY_TASK_ALWAYS_EAGER=true tasks run inside the request and no worker is started.

Why not honcho (or another Procfile runner): they signal each child's whole process group. Celery's
pool processes must be stopped by their main process (told directly they die mid-task and the main
process logs errors), while runserver's autoreloader child must be stopped with its parent. So the
worker is told alone, runserver as a group.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from django.conf import settings
from django.core.management.base import BaseCommand

# Two task slots are plenty on a laptop: a document renders in about a second, and large ones fork
# their own renderers (apps/documents/renderer.py).
WORKER_CONCURRENCY = 2
# A worker finishing a task on Ctrl-C gets this long (its warm shutdown) before it is killed; a
# second Ctrl-C kills at once.
STOP_WAIT = 10.0


def worker_command(*, concurrency: int = WORKER_CONCURRENCY, beat: bool = True) -> list[str]:
    """The worker `make run` starts. Beat runs inside it (there is one worker): it sends the outbox
    sweep every minute, as beat does in production."""
    command = [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        "--loglevel", "INFO", "--concurrency", str(concurrency), "--hostname", "rackpass-local@%h",
        # A single local worker has no peers to sync or gossip with: it starts at once.
        "--without-mingle", "--without-gossip",
    ]  # fmt: skip
    if beat:
        command += ["--beat", "--schedule", str(settings.BASE_DIR / "var" / "celerybeat-schedule")]
    return command


def web_command(addrport: str, *, reload: bool = True) -> list[str]:
    command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "runserver", addrport]
    return command if reload else [*command, "--noreload"]


class Child:
    """One child process in a session of its own (a terminal's Ctrl-C reaches only the parent,
    which decides how each child is stopped), its output relayed line by line with a prefix."""

    def __init__(self, name: str, argv: list[str], *, stop_group: bool, width: int, out):
        self.name, self.stop_group = name, stop_group
        env = os.environ | {"PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            argv, cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        self.prefix = f"{name:<{width}} | "
        self.relay = threading.Thread(target=self._relay, args=(out,), daemon=True)
        self.relay.start()

    def _relay(self, out) -> None:
        for line in iter(self.process.stdout.readline, b""):
            out.write(self.prefix + line.decode(errors="replace"))
            out.flush()

    def alive(self) -> bool:
        return self.process.poll() is None

    def signal(self, signum: int) -> None:
        if not self.alive():
            return
        try:
            if self.stop_group:
                os.killpg(self.process.pid, signum)
            else:
                self.process.send_signal(signum)
        except ProcessLookupError:
            pass


class Command(BaseCommand):
    help = "Run the development web server and a Celery worker together; Ctrl-C stops both."

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-beat", action="store_true", help="Do not run the periodic outbox sweep.")
        parser.add_argument(
            "--noreload",
            action="store_true",
            help="Do not restart the web server when a source file changes (runserver --noreload).",
        )

    def handle(self, *args, addrport: str, no_beat: bool, noreload: bool, **options):
        commands = {"web": (web_command(addrport, reload=not noreload), True)}
        if settings.CELERY_TASK_ALWAYS_EAGER:
            self.stdout.write(
                "CELERY_TASK_ALWAYS_EAGER is set: tasks run inside requests, no worker started."
            )
        else:
            # Told alone: a warm shutdown (the task in hand finishes, its pool processes stop).
            commands["worker"] = (worker_command(beat=not no_beat), False)
            queue = (
                "files under var/tasks/" if settings.CELERY_BROKER_URL.startswith("filesystem:") else "Redis"
            )
            self.stdout.write(f"Web server on http://{addrport}/ and a Celery worker (task queue: {queue}).")
        self.stdout.flush()

        stop, signals = threading.Event(), []

        def on_signal(signum, _frame):
            signals.append(signum)  # a second Ctrl-C kills what is still stopping
            stop.set()

        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, on_signal)
        children = [
            Child(name, argv, stop_group=group, width=6, out=sys.stdout)
            for name, (argv, group) in commands.items()
        ]
        while not stop.is_set() and all(child.alive() for child in children):
            stop.wait(0.2)
        for child in children:
            if not child.alive():
                self.stdout.write(
                    f"{child.name} exited (status {child.process.returncode}); stopping the rest."
                )
        code = self._stop(children, hurry=lambda: len(signals) > 1)
        sys.exit(0 if stop.is_set() else code or 1)

    def _stop(self, children: list[Child], hurry) -> int:
        """SIGTERM (SIGINT for the worker: the Ctrl-C it knows), then SIGKILL after STOP_WAIT or
        at once when `hurry()` says so."""
        for child in children:
            child.signal(signal.SIGTERM if child.stop_group else signal.SIGINT)
        deadline = time.monotonic() + STOP_WAIT
        while any(child.alive() for child in children) and time.monotonic() < deadline and not hurry():
            time.sleep(0.1)
        for child in children:
            if child.alive():
                self.stdout.write(f"{child.name} did not stop: killed.")
                os.killpg(child.process.pid, signal.SIGKILL)
            child.process.wait()
            child.relay.join(timeout=1)
        return max(abs(child.process.returncode or 0) for child in children)
