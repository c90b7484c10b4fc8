"""Independent, CPU-bound checks (laying out or reading large PDFs) run in forked processes, one
per core, instead of one after another in the test process: the suite runs on one core, CI has
two. Only what each call returns crosses back (pickled); the test asserts on it as before."""

from __future__ import annotations

import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

TIMEOUT = 900  # seconds all the calls may take: a child stuck on a lock (forked with threads)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def forked_map(func: Callable[[T], Any], items: Iterable[T], processes: int | None = None) -> list:
    """[func(item) for item in items], each call in a forked child, at most `processes` (the
    cores) at a time; in this process if forking would not help. A child's exception is raised
    here with its traceback; no child is left behind."""
    items = list(items)
    processes = min(processes or cores(), len(items))
    if processes < 2 or not hasattr(os, "fork"):
        return [func(item) for item in items]
    results: dict[int, Any] = {}
    running: dict[int, tuple[int, str]] = {}  # pid → (index, result path)
    pending = list(enumerate(items))
    deadline = time.monotonic() + TIMEOUT
    with tempfile.TemporaryDirectory(prefix="rackpass-test-fork-") as directory:
        try:
            while pending or running:
                while pending and len(running) < processes:
                    index, item = pending.pop(0)
                    path = os.path.join(directory, f"{index}.pickle")
                    sys.stdout.flush()
                    sys.stderr.flush()
                    pid = os.fork()
                    if pid == 0:  # the child: never returns
                        status = 1
                        try:
                            signal.signal(signal.SIGINT, signal.SIG_DFL)
                            try:
                                outcome = ("ok", func(item))
                            except BaseException:
                                outcome = ("error", traceback.format_exc())
                            with open(path, "wb") as file:
                                pickle.dump(outcome, file, protocol=pickle.HIGHEST_PROTOCOL)
                            status = 0
                        finally:
                            os._exit(status)
                    running[pid] = (index, path)
                for pid in list(running):
                    finished, _status = os.waitpid(pid, os.WNOHANG)
                    if not finished:
                        continue
                    index, path = running.pop(pid)
                    try:
                        with open(path, "rb") as file:
                            kind, value = pickle.load(file)
                    except FileNotFoundError:
                        raise RuntimeError(f"The process of item {index} died") from None
                    if kind == "error":
                        raise RuntimeError(f"Item {index} failed in its process:\n{value}")
                    results[index] = value
                if running:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"Items {sorted(i for i, _ in running.values())} took too long")
                    time.sleep(0.01)
        finally:
            for pid in running:  # only after an error: end and reap the children left
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
    return [results[index] for index in range(len(items))]
