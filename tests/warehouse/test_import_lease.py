"""A background serial import holds a lease while it runs: an import whose worker was killed
mid-way wrote nothing (all or nothing) and, once its lease runs out, shows as stalled and can be
run again — by the user or by the broker's redelivery, never by both."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from apps.catalog.models import Unit
from apps.warehouse.models import Movement, SerialImport, SerialImportStatus
from apps.warehouse.services import imports
from tests.warehouse.test_imports import API, run, serials


class WorkerKilled(BaseException):
    """What the worker's death looks like from inside: nothing after it runs (no except clause)."""


@pytest.fixture
def world(hub, bin_a, dock, gpu_server, supplier, warehouse_operator, monkeypatch):
    monkeypatch.setattr(imports, "BACKGROUND_FROM_ROWS", 5)
    return hub


@pytest.fixture
def queued(world, hub, supplier, warehouse_operator):
    """A large import, stored and queued (its task not run: the commit's callbacks are not run)."""
    return run(serials(12), site=hub, owner=supplier, actor=warehouse_operator)


def killed_while_writing(serial_import: SerialImport) -> SerialImport:
    def die(percent: int, step: str) -> None:
        if percent > 50:  # inside the write's transaction (bulk_create or COPY alike)
            raise WorkerKilled

    with pytest.raises(WorkerKilled):
        imports.serial_import_run(serial_import=serial_import, progress=die)
    return SerialImport.objects.get(pk=serial_import.pk)


def run_out(serial_import: SerialImport) -> None:
    SerialImport.objects.filter(pk=serial_import.pk).update(
        lease_expires_at=timezone.now() - dt.timedelta(seconds=1)
    )


def test_an_import_killed_mid_way_wrote_nothing_and_reads_running_while_its_lease_holds(queued):
    dead = killed_while_writing(queued)
    assert dead.status == SerialImportStatus.RUNNING and dead.lease_expires_at > timezone.now()
    assert not dead.is_stalled()
    assert not Unit.objects.exists() and not Movement.objects.exists()  # all or nothing
    # Another delivery while the lease holds: it does not run it a second time.
    assert imports.serial_import_run(serial_import=dead).status == SerialImportStatus.RUNNING
    assert not Unit.objects.exists()


def test_once_its_lease_runs_out_it_is_stalled_on_the_page_and_in_the_api(
    queued, coordinator, api_as, warehouse_operator, browser_as
):
    dead = killed_while_writing(queued)
    assert dead.is_stalled(now=dead.lease_expires_at + dt.timedelta(seconds=1))
    run_out(dead)
    body = api_as(coordinator).get(f"{API}{dead.pk}/").json()
    assert body["status"] == "running" and body["stalled"] is True
    html = browser_as(warehouse_operator).get(dead.get_absolute_url()).content.decode()
    assert 'data-import-status="stalled"' in html and "nothing was imported" in html
    assert "refresh=import-result" not in html  # no more polling


def test_the_brokers_redelivery_runs_a_stalled_import_once(queued):
    dead = killed_while_writing(queued)
    run_out(dead)
    done = imports.serial_import_run(serial_import=dead)
    assert (done.status, done.imported, done.lease_expires_at) == ("done", 12, None)
    assert imports.serial_import_run(serial_import=done).imported == 12  # and again: nothing more
    assert Unit.objects.count() == 12


def test_progress_keeps_the_lease_alive(queued, monkeypatch):
    seen = []

    def watch(percent: int, step: str) -> None:
        seen.append(SerialImport.objects.get(pk=queued.pk).lease_expires_at)

    imports.serial_import_run(serial_import=queued, progress=watch)
    assert len(seen) >= 3 and seen == sorted(seen) and seen[-1] > seen[0]


def test_the_user_runs_a_stalled_import_again_and_the_redelivery_then_does_nothing(
    queued, warehouse_operator, django_capture_on_commit_callbacks
):
    dead = killed_while_writing(queued)
    run_out(dead)
    with django_capture_on_commit_callbacks(execute=True):
        rerun = imports.serial_import_rerun(serial_import=dead, actor=warehouse_operator)
    assert rerun.task_id != queued.task_id
    assert SerialImport.objects.get(pk=dead.pk).status == "done" and Unit.objects.count() == 12
    # The broker redelivers the first task's message: the import is done, nothing is written.
    imports.serial_import_run(serial_import=dead)
    assert Unit.objects.count() == 12 and Movement.objects.filter(kind="receipt").count() == 12


def test_a_live_or_finished_import_is_not_run_again(queued, warehouse_operator):
    dead = killed_while_writing(queued)
    with pytest.raises(ValidationError, match="still running"):
        imports.serial_import_rerun(serial_import=dead, actor=warehouse_operator)
    run_out(dead)
    imports.serial_import_run(serial_import=dead)
    with pytest.raises(ValidationError, match="imported"):
        imports.serial_import_rerun(serial_import=dead, actor=warehouse_operator)


def test_the_api_and_the_page_run_a_stalled_import_again(
    queued, coordinator, api_as, warehouse_operator, browser_as, django_capture_on_commit_callbacks
):
    dead = killed_while_writing(queued)
    api = api_as(coordinator)
    assert api.post(f"{API}{dead.pk}/rerun/").status_code == 409  # its lease still holds
    run_out(dead)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"{API}{dead.pk}/rerun/")
    assert response.status_code == 202 and response.json()["status"] == "queued"  # sent on commit
    assert SerialImport.objects.get(pk=dead.pk).status == "done" and Unit.objects.count() == 12
    # The page's button, for another stalled import.
    again = killed_while_writing(
        run(serials(6, prefix="PG"), site=dead.site, owner=dead.owner, actor=warehouse_operator)
    )
    run_out(again)
    client = browser_as(warehouse_operator)
    with django_capture_on_commit_callbacks(execute=True):  # queued again; sent on commit
        response = client.post(reverse("warehouse:serial-import"), {"rerun": again.pk})
    assert response.status_code == 302 and response["Location"] == again.get_absolute_url()
    assert 'data-import-status="done"' in client.get(again.get_absolute_url()).content.decode()
    assert Unit.objects.count() == 18


def test_a_partner_cannot_run_an_import_again(queued, supplier_user, api_as):
    dead = killed_while_writing(queued)
    run_out(dead)
    assert api_as(supplier_user).post(f"{API}{dead.pk}/rerun/").status_code in (403, 404)
    assert SerialImport.objects.get(pk=dead.pk).status == SerialImportStatus.RUNNING
