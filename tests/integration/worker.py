"""Start a real `celery worker` subprocess against Redis and the test database, and stop it."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

from config.celery import app as celery_app
from tests.conftest import require

ROOT = Path(__file__).resolve().parents[2]


def redis_available() -> bool:
    if not settings.REDIS_URL:
        return False
    import redis

    try:
        return bool(redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


def database_url() -> str:
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class WorkerRun:
    def __init__(self, queue: str):
        self.queue = queue
        self.output = ""
        self.process: subprocess.Popen | None = None


@contextmanager
def celery_worker(
    queue: str | None = None, settings_module: str = "config.settings.test"
) -> Iterator[WorkerRun]:
    """A worker on a queue of its own; tasks sent with `queue=run.queue` go through the broker.

    The worker is another process, so it needs Redis and a server database it can share. Pass
    the `queue` of an earlier run to take over its work; `run.process` can be killed.
    """
    require(redis_available(), "Redis (REDIS_URL)")
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    run = WorkerRun(queue or f"rackpass-test-{uuid.uuid4().hex[:10]}")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"} | {
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.REDIS_URL,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--queues", run.queue, "--pool", "solo",
         "--hostname", f"{run.queue}@%h", "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    run.process = process
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield run
    finally:
        celery_app.conf.task_always_eager = eager
        process.terminate()
        try:
            run.output, _ = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            run.output, _ = process.communicate()
