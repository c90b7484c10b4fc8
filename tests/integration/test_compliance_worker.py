"""A real Celery worker runs a shipment's compliance check end to end through Redis."""

import pytest
from celery.result import AsyncResult

from apps.compliance.models import ComplianceCheck
from apps.compliance.tasks import run_compliance_check
from apps.shipments.models import Shipment
from config.celery import app as celery_app

from .worker import celery_worker


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_worker_runs_a_compliance_check(request):
    # A DGX H100 shipment to Chennai, submitted for review (compliance fixtures).
    submitted = request.getfixturevalue("submitted")
    shipment = submitted(request.getfixturevalue("indian_customer"), "IN", "Chennai",
                         [(request.getfixturevalue("dgx"), 2)])  # fmt: skip
    with celery_worker() as worker:
        result = run_compliance_check.apply_async(kwargs={"shipment_id": shipment.pk}, queue=worker.queue)
        outcome = result.get(timeout=120)
        assert outcome["result"] == "pass" and outcome["percent"] == 100
        assert AsyncResult(result.id, app=celery_app).state == "SUCCESS"
        # Running the task again for the same version gives the same check, not a second one.
        again = run_compliance_check.apply_async(kwargs={"shipment_id": shipment.pk}, queue=worker.queue)
        assert again.get(timeout=60)["check_id"] == outcome["check_id"]
    assert ComplianceCheck.objects.filter(shipment=shipment).count() == 1
    assert Shipment.objects.get(pk=shipment.pk).status == "approved"
    assert "compliance.run_check" in worker.output
