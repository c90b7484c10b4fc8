"""A real Celery worker runs a shipment's compliance check end to end through Redis."""

import os
import subprocess
import sys
import uuid

import pytest
from celery.result import AsyncResult
from django.conf import settings
from django.db import connection

from apps.compliance.models import ComplianceCheck
from apps.compliance.tasks import run_compliance_check
from apps.shipments.models import Shipment
from config.celery import app as celery_app
from tests.conftest import require

from .test_celery_worker import ROOT, _database_url, _redis_available


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_worker_runs_a_compliance_check(request):
    require(_redis_available(), "Redis (REDIS_URL)")
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    # Build the shipment with the compliance fixtures (a DGX H100 to Chennai, submitted for review).
    submitted = request.getfixturevalue("submitted")
    customer = request.getfixturevalue("indian_customer")
    dgx = request.getfixturevalue("dgx")
    shipment = submitted(customer, "IN", "Chennai", [(dgx, 2)])

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
        result = run_compliance_check.apply_async(kwargs={"shipment_id": shipment.pk}, queue=queue)
        outcome = result.get(timeout=120)
        assert outcome["result"] == "pass" and outcome["percent"] == 100
        assert AsyncResult(result.id, app=celery_app).state == "SUCCESS"
        # Running the task again for the same version gives the same check, not a second one.
        again = run_compliance_check.apply_async(kwargs={"shipment_id": shipment.pk}, queue=queue).get(
            timeout=60
        )
        assert again["check_id"] == outcome["check_id"]
    finally:
        celery_app.conf.task_always_eager = eager
        worker.terminate()
        try:
            output, _ = worker.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            output, _ = worker.communicate()
    assert ComplianceCheck.objects.filter(shipment=shipment).count() == 1
    assert Shipment.objects.get(pk=shipment.pk).status == "approved"
    assert "compliance.run_check" in output
