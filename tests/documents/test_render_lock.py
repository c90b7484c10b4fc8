"""Rendering a document holds no lock: the shipment's row is locked only to read what to number
and to write the version, so a forwarder's milestone on the same shipment never waits for it."""

import threading

import pytest
from django.db import connection

from apps.documents import services
from apps.documents.models import Document, DocumentNumber
from apps.shipments import services as shipment_services
from apps.shipments.models import ShipmentLine
from tests.conftest import require

from .test_documents import approved  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def complete(monkeypatch):
    """These tests are about locks and numbers, not about what each document needs (packing,
    serial numbers…: tested with the documents): every shipment here counts as complete."""
    monkeypatch.setattr(services.builder, "document_problems", lambda shipment, doc_type: [])


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


def test_a_number_taken_while_rendering_changes_nothing(approved, coordinator, renders):  # noqa: F811
    """The number is reserved before the render: another shipment's invoice taking the next one
    while this one renders costs no second render, and the two never share a number."""
    from apps.core.sequences import next_reference

    taken = []

    def take_a_number(context):
        renders.hooks.clear()
        taken.append(next_reference("CI"))

    renders.hooks.append(take_a_number)
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert len(renders) == 1
    assert document.number == renders[0]["context"].number == document.data["number"]
    assert taken[0] != document.number
    assert _seq(taken[0]) == _seq(document.number) + 1  # no gap between them


def _seq(number: str) -> int:
    return int(number.rsplit("-", 1)[1])


def test_a_reserved_number_outlives_a_failed_render(approved, coordinator, renders):  # noqa: F811
    """A render that fails keeps its number: the next generation of that document uses it, and
    no other document ever gets it."""
    from apps.core.models import ReferenceSequence

    def fail(context):
        renders.hooks.clear()
        raise RuntimeError("WeasyPrint crashed")

    renders.hooks.append(fail)
    with pytest.raises(RuntimeError):
        services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    reserved = DocumentNumber.objects.get(shipment=approved, doc_type="commercial_invoice")
    counter = ReferenceSequence.objects.get(prefix="CI").last_number
    document = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    second = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    assert document.number == second.number == reserved.number
    assert (document.version, second.version) == (1, 2)
    assert ReferenceSequence.objects.get(prefix="CI").last_number == counter


def _in_threads(count: int, work) -> list[Exception]:
    """Run `work(i)` in `count` threads at once, each with its own database connection."""
    errors: list[Exception] = []
    start = threading.Barrier(count)

    def run(i):
        try:
            start.wait(30)
            work(i)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return errors


@pytest.mark.django_db(transaction=True)
def test_concurrent_generations_render_side_by_side_with_gap_free_numbers(
    submitted, indian_customer, switch, coordinator, screening_list, monkeypatch
):
    """20 invoices for 20 shipments generated at once: numbering locks only the counter, briefly,
    so the 20 renders run at the same time (each waits for all the others to be rendering), and
    the 20 numbers are unique and consecutive."""
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    from apps.compliance import services as compliance

    count = 20
    shipments = []
    for _ in range(count):
        shipment = submitted(indian_customer, "IN", "Chennai", [(switch, 1)])
        compliance.compliance_check_run(shipment=shipment, actor=coordinator)
        shipments.append(shipment)
    all_rendering = threading.Barrier(count)
    lock, state = threading.Lock(), {"now": 0, "max": 0}

    def slow_render(context, **kwargs):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        try:
            all_rendering.wait(60)  # breaks (and fails the test) if the renders run one at a time
        finally:
            with lock:
                state["now"] -= 1
        return b"%PDF-1.7 rendered " + context.number.encode(), 1

    monkeypatch.setattr(services, "render_pdf", slow_render)
    errors = _in_threads(
        count,
        lambda i: services.document_generate(
            shipment=shipments[i], doc_type="commercial_invoice", actor=coordinator
        ),
    )
    assert errors == []
    assert state["max"] == count, f"at most {state['max']} renders ran at once"
    documents = list(Document.objects.filter(shipment__in=shipments))
    assert len(documents) == count and {d.version for d in documents} == {1}
    numbers = sorted(_seq(d.number) for d in documents)
    assert numbers == list(range(numbers[0], numbers[0] + count)), numbers
    reserved = dict(
        DocumentNumber.objects.filter(shipment__in=shipments).values_list("shipment_id", "number")
    )
    assert reserved == {d.shipment_id: d.number for d in documents}


@pytest.mark.django_db(transaction=True)
def test_concurrent_versions_of_one_document_share_its_one_number(approved, coordinator, renders):  # noqa: F811
    """Two generations of the same invoice at once: one number is reserved (the loser's increment
    is rolled back), and the versions are 1 and 2."""
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    from apps.core.models import ReferenceSequence

    before = ReferenceSequence.objects.filter(prefix="CI").values_list("last_number", flat=True).first() or 0
    errors = _in_threads(
        2,
        lambda i: services.document_generate(
            shipment=approved, doc_type="commercial_invoice", actor=coordinator
        ),
    )
    assert errors == []
    documents = list(Document.objects.filter(shipment=approved).order_by("version"))
    assert [d.version for d in documents] == [1, 2]
    assert documents[0].number == documents[1].number
    assert ReferenceSequence.objects.get(prefix="CI").last_number == before + 1


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
        from django.utils import timezone

        shipment_services.event_record(
            shipment=approved, actor=coordinator, code="picked_up", occurred_at=timezone.now()
        )
        # The render is still held (it is released only below): the milestone did not wait for it.
        render_still_running = worker.is_alive() and not release.is_set()
    finally:
        release.set()
        worker.join(30)
    assert render_still_running, "the milestone waited for the render to finish"
    assert not errors and Document.objects.filter(shipment=approved).count() == 1


def test_the_migration_reserves_the_numbers_of_existing_documents(approved, coordinator):  # noqa: F811
    """Documents generated before reservations existed get theirs from the migration: one per
    shipment and type, the number its versions carry."""
    import importlib

    from django.apps import apps

    backfill = importlib.import_module("apps.documents.migrations.0003_document_number").backfill
    first = services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    services.document_generate(shipment=approved, doc_type="commercial_invoice", actor=coordinator)
    packing = services.document_generate(shipment=approved, doc_type="packing_list", actor=coordinator)
    DocumentNumber.objects.all().delete()
    backfill(apps, None)
    assert set(DocumentNumber.objects.values_list("shipment_id", "doc_type", "number")) == {
        (approved.pk, "commercial_invoice", first.number),
        (approved.pk, "packing_list", packing.number),
    }
