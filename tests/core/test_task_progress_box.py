"""The progress box says what a task does in words and, when the task ends, loads again the parts
of the page it changed (`?refresh=` ids, nothing else)."""

import pytest
from django.utils import timezone

from apps.core.models import TaskRecord, TaskState
from apps.core.templatetags.task_progress import refresh_selector
from apps.documents.tasks import generation_summary, rendering_step


def test_steps_and_summaries_name_documents_in_words():
    assert rendering_step("sli", 2, 5) == {
        "percent": 20,
        "step": "Rendering the shipper's letter of instruction (2 of 5)",
    }
    assert rendering_step("commercial_invoice", 1, 1)["step"] == "Rendering the commercial invoice (1 of 1)"
    assert generation_summary(1, []) == "1 document generated"
    assert generation_summary(3, ["Packing list"]) == "3 documents generated; not generated: packing list"


def test_only_plain_ids_are_refreshed():
    assert refresh_selector("documents") == "#documents"
    assert refresh_selector("documents, check") == "#documents,#check"
    assert refresh_selector('x"><script>,body *,#a,') == ""
    assert refresh_selector("") == ""


def _record(coordinator, **fields):
    now = timezone.now()
    return TaskRecord.objects.create(
        task_id="t-box", kind="document generation", task_name="documents.generate",
        organisation=coordinator.organisation, object_repr="SHP-2026-000001",
        object_url="/shipments/SHP-2026-000001/", time_limit=300, started_at=now, progress_at=now, **fields,
    )  # fmt: skip


@pytest.mark.parametrize(
    "fields, said, polls, bar",
    [
        ({"state": TaskState.SENT}, "queued, waiting for the background worker", True, "<progress max"),
        (
            {"state": TaskState.STARTED, **rendering_step("sli", 1, 2)},
            "rendering the shipper&#x27;s letter of instruction (1 of 2)",
            True,
            '<progress max="100" aria-label',  # no value yet: a moving bar, not a stuck 0 %
        ),
        (
            {"state": TaskState.STARTED, **rendering_step("packing_list", 2, 2)},
            "rendering the packing list (2 of 2)",
            True,
            'value="50"',
        ),
        (
            {"state": TaskState.SUCCEEDED, "result": {"summary": "2 documents generated"}},
            "finished successfully: 2 documents generated",
            False,
            'value="100"',
        ),
    ],
)
def test_the_box_in_each_state(coordinator, browser_as, fields, said, polls, bar):
    _record(coordinator, **fields)
    client = browser_as(coordinator)
    page = client.get("/compliance/tasks/t-box/?refresh=documents").content.decode()
    assert said in page.lower() and bar in page
    polling = 'hx-get="/compliance/tasks/t-box/?refresh=documents"' in page
    assert polling is polls
    # When it ends, the page it is on loads its #documents again (out of band), once.
    ended = 'hx-select-oob="#documents"' in page
    assert ended is (not polls)


def test_without_refresh_ids_the_ended_box_loads_nothing(coordinator, browser_as):
    _record(coordinator, state=TaskState.FAILED, error="Boom")
    page = browser_as(coordinator).get("/compliance/tasks/t-box/").content.decode()
    assert "stopped by a failure" in page and "Boom" in page and "hx-get" not in page
