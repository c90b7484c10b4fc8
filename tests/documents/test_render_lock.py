"""Rendering a document holds no lock: the shipment's row is locked only to read what to number
and to write the version, so a forwarder's milestone on the same shipment never waits for it."""

import threading
import time

import pytest
from django.db import connection

from apps.documents import services
from apps.documents.models import Document
from apps.shipments import services as shipment_services
from apps.shipments.models import ShipmentLine
from tests.conftest import require

from .test_documents import approved  # noqa: F401  (fixture)


@pytest.fixture
def renders(monkeypatch):
    """Every render call, with whether a transaction (and so possibly a row lock) was open."""
    real = services.render_pdf

    class Calls(list):
        hooks: list = []

    calls = Calls()
    calls.hooks = []

    def spy(context, **kwargs):
        calls.append({"in_transaction": connection.in_atomic_block, "context": context})
        for hook in list(calls.hooks):
            hook(context)
        return real(context, **kwargs)

    monkeypatch.setattr(services, "render_pdf", spy)
    return calls


@pytest.mark.django_db(transaction=True)
def test_rendering_runs_outside_any_transaction(approved, coordinator, renders):  # noqa: F811
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert [c["in_transaction"] for c in renders] == [False]
    assert document.version == 1 and document.number.startswith("CI-")


def test_a_change_while_rendering_is_rendered_again_before_writing(approved, coordinator, renders):  # noqa: F811
    line = approved.lines.order_by("line_number").first()

    def edit_once(context):
        renders.hooks.clear()
        ShipmentLine.objects.filter(pk=line.pk).update(description="Edited while the PDF rendered")

    renders.hooks.append(edit_once)
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert len(renders) == 2  # the first render was of data that no longer held
    assert "Edited while the PDF rendered" in str(document.data["lines"])
    assert Document.objects.filter(shipment=approved).count() == 1


def test_a_number_taken_while_rendering_is_not_reused(approved, coordinator, renders):  # noqa: F811
    """Another shipment's invoice takes the number this render printed: render again with the next
    one; numbers stay gap-free and unique."""
    from apps.core.sequences import next_reference

    def take_the_number(context):
        renders.hooks.clear()
        next_reference("CI")

    renders.hooks.append(take_the_number)
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert len(renders) == 2
    assert renders[0]["context"].number != document.number == renders[1]["context"].number
    assert document.data["number"] == document.number


@pytest.mark.django_db(transaction=True)
def test_a_milestone_does_not_wait_for_a_render(approved, coordinator, renders):  # noqa: F811
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    rendering, release = threading.Event(), threading.Event()
    renders.hooks.append(lambda context: (rendering.set(), release.wait(10)))
    errors = []

    def generate():
        try:
            services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    worker = threading.Thread(target=generate)
    worker.start()
    try:
        assert rendering.wait(30)
        started = time.monotonic()
        from django.utils import timezone

        shipment_services.event_record(
            shipment=approved, actor=coordinator, code="picked_up", occurred_at=timezone.now()
        )
        waited = time.monotonic() - started
    finally:
        release.set()
        worker.join(30)
    assert waited < 1, f"the milestone waited {waited:.1f} s for the render"
    assert not errors and Document.objects.filter(shipment=approved).count() == 1
