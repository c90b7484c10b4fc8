"""A real `celery worker` subprocess takes a task from Redis and stores its result there."""

import pytest
from celery.result import AsyncResult
from django.conf import settings

from apps.catalog.tasks import catalogue_summary
from config.celery import app as celery_app
from tests.factories import PartFactory

from .worker import celery_worker


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_worker_runs_a_task_from_the_broker_and_stores_the_result():
    PartFactory.create_batch(3, category="cable", is_serialised=False)
    PartFactory(category="rack")
    with celery_worker() as worker:
        result = catalogue_summary.apply_async(queue=worker.queue)
        assert result.get(timeout=90) == {"cable": 3, "rack": 1}
        # The result is stored in the backend: a fresh handle by id reads it back.
        stored = AsyncResult(result.id, app=celery_app)
        assert stored.state == "SUCCESS" and stored.result == {"cable": 3, "rack": 1}
        import redis

        raw = redis.Redis.from_url(settings.REDIS_URL).get(f"celery-task-meta-{result.id}")
        assert raw and b'"SUCCESS"' in raw
    assert "catalog.catalogue_summary" in worker.output and "succeeded" in worker.output
