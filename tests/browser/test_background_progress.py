"""In real Chromium: the documents page follows a generation running in the background, with the
step in words, and loads its document list again by itself when the task ends (no reload).

The worker is played by the test (it writes the task's record as RecordedTask and the Celery
signals do): a real worker on the file queue is tests/core/test_make_run.py."""

import pytest
from django.utils import timezone

from apps.accounts.roles import Role
from apps.compliance import services as compliance
from apps.core.models import TaskRecord, TaskState
from apps.documents import services
from apps.documents.tasks import generation_summary, rendering_step
from tests.factories import PASSWORD, UserFactory
from tests.shipments.conftest import pack_all

from .test_catalogue_flow import page  # noqa: F401  (the Chromium fixture)


@pytest.mark.browser
def test_the_documents_list_refreshes_itself_when_generation_ends(
    page,  # noqa: F811
    live_server,
    transactional_db,
    request,
):
    from playwright.sync_api import expect

    shipment = request.getfixturevalue("submitted")(
        request.getfixturevalue("indian_customer"), "IN", "Chennai", [(request.getfixturevalue("dgx"), 2)]
    )
    coordinator = request.getfixturevalue("coordinator")
    compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    pack_all(shipment)
    UserFactory(username="sam", role=Role.COORDINATOR, organisation=coordinator.organisation)
    now = timezone.now()
    record = TaskRecord.objects.create(
        task_id="generation-in-the-background", kind="document generation", task_name="documents.generate",
        organisation=coordinator.organisation, object_repr=shipment.reference,
        object_url=shipment.get_absolute_url(), state=TaskState.STARTED, started_at=now, progress_at=now,
        time_limit=300, **rendering_step("commercial_invoice", 1, 2),
    )  # fmt: skip

    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/shipments/{shipment.reference}/documents/?task={record.task_id}")
    box = page.locator("#task")
    # The first render shows what it does, and a moving bar rather than a stuck 0 %.
    expect(box).to_contain_text("Rendering the commercial invoice (1 of 2)")
    expect(box.locator("progress:not([value])")).to_have_count(1)
    expect(page.locator("#doc-commercial_invoice")).to_contain_text("not issued")
    page.evaluate("window.stillTheSamePage = true")  # gone if the page reloads

    invoice = services.document_generate(
        shipment=shipment, doc_type="commercial_invoice", actor=coordinator, task_id=record.task_id
    )
    TaskRecord.objects.filter(pk=record.pk).update(
        progress_at=timezone.now(), **rendering_step("packing_list", 2, 2)
    )
    expect(box).to_contain_text("Rendering the packing list (2 of 2)")
    expect(box.locator("progress[value='50']")).to_have_count(1)
    packing_list = services.document_generate(
        shipment=shipment, doc_type="packing_list", actor=coordinator, task_id=record.task_id
    )
    TaskRecord.objects.filter(pk=record.pk).update(
        state=TaskState.SUCCEEDED, percent=100, finished_at=timezone.now(),
        result={"summary": generation_summary(2, []), "documents": [], "refused": {}},
    )  # fmt: skip

    expect(box).to_contain_text("finished successfully: 2 documents generated")
    expect(page.locator("#doc-commercial_invoice")).to_contain_text(invoice.number)
    expect(page.locator("#doc-packing_list")).to_contain_text(packing_list.number)
    # The new versions can be acted on in place: the refreshed section's forms work.
    expect(page.locator("#doc-commercial_invoice").get_by_role("button", name="Issue")).to_be_visible()
    assert page.evaluate("window.stillTheSamePage") is True
