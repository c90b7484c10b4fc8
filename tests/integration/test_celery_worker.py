"""A real `celery worker` subprocess takes a task from Redis and stores its result there."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from celery.result import AsyncResult
from django.conf import settings
from django.db import connection

from apps.catalog.tasks import catalogue_summary
from config.celery import app as celery_app
from tests.conftest import require
from tests.factories import PartFactory

ROOT = Path(__file__).resolve().parents[2]


def _redis_available() -> bool:
    if not settings.REDIS_URL:
        return False
    import redis

    try:
        return bool(redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


def _database_url() -> str:
    db = settings.DATABASES["default"]
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_worker_runs_a_task_from_the_broker_and_stores_the_result():
    require(_redis_available(), "Redis (REDIS_URL)")
    # The worker is another process: it can only see the test data in a server database.
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    PartFactory.create_batch(3, category="cable", is_serialised=False)
    PartFactory(category="rack")

    queue = f"rackpass-test-{uuid.uuid4().hex[:10]}"
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"} | {
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": settings.REDIS_URL,
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--queues",
            queue,
            "--pool",
            "solo",
            "--hostname",
            f"{queue}@%h",
            "--without-gossip",
            "--without-mingle",
            "--loglevel",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        result = catalogue_summary.apply_async(queue=queue)
        assert result.get(timeout=90) == {"cable": 3, "rack": 1}
        # The result is stored in the backend: a fresh handle by id reads it back.
        stored = AsyncResult(result.id, app=celery_app)
        assert stored.state == "SUCCESS" and stored.result == {"cable": 3, "rack": 1}
        import redis

        raw = redis.Redis.from_url(settings.REDIS_URL).get(f"celery-task-meta-{result.id}")
        assert raw and b'"SUCCESS"' in raw
    finally:
        celery_app.conf.task_always_eager = eager
        worker.terminate()
        try:
            output, _ = worker.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            output, _ = worker.communicate()
    assert "catalog.catalogue_summary" in output and "succeeded" in output
