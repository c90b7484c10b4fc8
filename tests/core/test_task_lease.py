"""Work is claimed once: a worker takes a lease on the task's record before it runs the task, so a
message the broker delivers again (its worker died, or it was redelivered after the visibility
timeout) runs the work only when nobody holds it and it is not finished; a user's re-run of stalled
work and the redelivery of that work never both do it. Time is injected: no test sleeps."""

import datetime as dt

import pytest
from celery.exceptions import Ignore
from django.core.management import call_command
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from apps.core import task_base, task_lease, tasks_outbox
from apps.core.models import TaskRecord, TaskState
from config.celery import app as celery_app

RUNS: list[dict] = []


@celery_app.task(bind=True, name="tests.core.lease_probe", time_limit=60, soft_time_limit=50)
def lease_probe(self, job: str, steps: int = 0) -> dict:
    """Counts its runs; reports progress `steps` times (each a sign of life)."""
    for n in range(steps):
        self.update_state(state="PROGRESS", meta={"percent": 10 * (n + 1), "step": f"step {n + 1}"})
    RUNS.append({"job": job, "task_id": self.request.id})
    return {"job": job, "runs": sum(1 for r in RUNS if r["job"] == job)}


@pytest.fixture(autouse=True)
def _runs():
    RUNS.clear()
    yield
    RUNS.clear()


@pytest.fixture
def enqueue(coordinator, django_capture_on_commit_callbacks):
    """Enqueue the probe as a service does; eager in tests, so it runs when the commit is done."""

    def run(job: str = "A", **kwargs) -> TaskRecord:
        with django_capture_on_commit_callbacks(execute=True):
            record = tasks_outbox.enqueue_on_commit(
                lease_probe, kwargs={"job": job, **kwargs}, kind="probe", actor=coordinator, object_repr=job
            )
        record.refresh_from_db()
        return record

    return run


def redeliver(record: TaskRecord):
    """The broker hands the same message to a worker again."""
    return lease_probe.apply(kwargs=record.kwargs, task_id=record.task_id, throw=False)


def owed(coordinator, job: str = "A") -> TaskRecord:
    """A record as the outbox leaves it when the broker was down: owed, never run."""
    return TaskRecord.objects.create(
        task_id=f"owed-{job}-{TaskRecord.objects.count()}", kind="probe", task_name=lease_probe.name,
        kwargs={"job": job}, state=TaskState.OWED, time_limit=60, organisation=coordinator.organisation,
        object_repr=job,
    )  # fmt: skip


def died_while_running(record: TaskRecord, *, ago: dt.timedelta) -> TaskRecord:
    """Its worker claimed it `ago` and was killed before finishing: the claim is left behind."""
    then = timezone.now() - ago
    TaskRecord.objects.filter(pk=record.pk).update(
        state=TaskState.STARTED, claimed_by="dead-host:4242", claim_token="dead", claims=1,
        started_at=then, progress_at=then, lease_expires_at=then + dt.timedelta(seconds=60),
    )  # fmt: skip
    record.refresh_from_db()
    return record


# --- claiming ---------------------------------------------------------------------------------


def test_a_worker_claims_the_record_before_it_runs_and_lets_go_when_done(enqueue):
    record = enqueue()
    assert len(RUNS) == 1
    assert record.state == TaskState.SUCCEEDED and record.result["runs"] == 1
    assert record.claims == 1 and record.claimed_by == task_lease.worker_name()
    assert record.lease_expires_at is None  # finished: nothing leased any more


def test_a_claim_is_one_conditional_update_that_only_one_worker_wins(coordinator):
    record = owed(coordinator)
    now = timezone.now()
    first = task_lease.claim(record.task_id, worker="w1:1", lease=dt.timedelta(seconds=60), now=now)
    second = task_lease.claim(record.task_id, worker="w2:2", lease=dt.timedelta(seconds=60), now=now)
    assert first.outcome == task_lease.Outcome.CLAIMED and first.token
    assert second.outcome == task_lease.Outcome.HELD and second.token is None
    record.refresh_from_db()
    assert record.claimed_by == "w1:1" and record.claim_token == first.token
    assert record.state == TaskState.STARTED and record.lease_expires_at == now + dt.timedelta(seconds=60)


def test_a_redelivered_message_of_finished_work_is_a_no_op(enqueue):
    record = enqueue()
    finished = (record.finished_at, record.result, record.claimed_by)
    result = redeliver(record)
    assert result.state == "IGNORED"
    assert len(RUNS) == 1  # the work ran once
    record.refresh_from_db()
    assert record.state == TaskState.SUCCEEDED
    assert (record.finished_at, record.result, record.claimed_by) == finished


def test_a_redelivered_message_of_failed_work_is_a_no_op(coordinator):
    record = owed(coordinator)
    TaskRecord.objects.filter(pk=record.pk).update(state=TaskState.FAILED, error="Refused: bad input")
    redeliver(record)
    record.refresh_from_db()
    assert RUNS == [] and record.state == TaskState.FAILED and record.error == "Refused: bad input"


def test_a_message_whose_work_another_worker_holds_is_skipped(coordinator):
    record = owed(coordinator)
    held = task_lease.claim(record.task_id, worker="busy-host:7", lease=dt.timedelta(seconds=60))
    redeliver(record)
    record.refresh_from_db()
    assert RUNS == []
    assert record.state == TaskState.STARTED and record.claim_token == held.token  # still theirs


def test_a_worker_that_finds_the_work_held_sends_it_again_for_when_the_lease_runs_out(
    coordinator, monkeypatch
):
    """Not acknowledged and forgotten: the holder may have died with its lease still running (the
    broker hands out a killed worker's message again), and then nothing else would finish it."""
    record = owed(coordinator)
    now = timezone.now()
    held = task_lease.claim(record.task_id, worker="dead-host:7", lease=dt.timedelta(seconds=30), now=now)
    sent = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, args, kwargs, **options: sent.append(options))
    monkeypatch.setattr(task_base, "clock", lambda: now + dt.timedelta(seconds=10))
    lease_probe.push_request(
        id=record.task_id, kwargs=record.kwargs, is_eager=False, retries=2,
        delivery_info={"exchange": "", "routing_key": "rackpass-worker-queue"},
    )  # fmt: skip
    try:
        with pytest.raises(Ignore):  # this delivery is acknowledged: its copy comes back later
            lease_probe(**record.kwargs)
    finally:
        lease_probe.pop_request()
    assert RUNS == []
    [again] = sent
    assert again["task_id"] == record.task_id and again["queue"] == "rackpass-worker-queue"
    assert again["countdown"] == 20 + 1 and again["retries"] == 2  # the same delivery, later
    record.refresh_from_db()
    assert record.claim_token == held.token  # still the holder's until its lease runs out


def test_a_held_lease_comes_back_as_a_claim_on_that_redelivery_once_its_worker_died(coordinator):
    """The sent-again message when it comes back: the holder died (no renewal), so it runs once."""
    record = owed(coordinator)
    then = timezone.now() - dt.timedelta(seconds=31)
    task_lease.claim(record.task_id, worker="dead-host:7", lease=dt.timedelta(seconds=30), now=then)
    redeliver(record)
    record.refresh_from_db()
    assert len(RUNS) == 1 and record.state == TaskState.SUCCEEDED and record.claims == 2


def test_a_live_worker_renews_its_lease_never_past_the_time_limit(coordinator):
    mine, theirs = owed(coordinator, "A"), owed(coordinator, "B")
    now = timezone.now()
    lease = dt.timedelta(seconds=30)
    claimed = task_lease.claim(mine.task_id, worker="me:1", lease=lease, now=now)
    task_lease.claim(theirs.task_id, worker="them:2", lease=lease, now=now)
    deadline = now + dt.timedelta(seconds=60)
    task_lease.hold(
        mine.task_id, task_lease.Held(token=claimed.token, deadline=deadline, lease=lease),
        renew_in_background=False,
    )  # fmt: skip
    try:
        assert task_lease.renew(now + dt.timedelta(seconds=20)) == 1
        mine.refresh_from_db()
        assert mine.lease_expires_at == now + dt.timedelta(seconds=50)
        task_lease.renew(now + dt.timedelta(seconds=40))
        mine.refresh_from_db()
        assert mine.lease_expires_at == deadline  # the worker kills the task then anyway
        theirs.refresh_from_db()
        assert theirs.lease_expires_at == now + lease  # another worker's claim is its own to renew
        TaskRecord.objects.filter(pk=mine.pk).update(state=TaskState.SUCCEEDED, lease_expires_at=None)
        assert task_lease.renew(now + dt.timedelta(seconds=45)) == 0  # finished: nothing leased
    finally:
        task_lease.release(mine.task_id)


def test_a_task_claims_a_short_lease_not_its_whole_time_limit(enqueue, monkeypatch):
    """A dead worker's work is free again within one lease, not after the time limit."""
    seen = []
    original = task_lease.claim

    def spy(task_id, **kwargs):
        seen.append(kwargs["lease"])
        return original(task_id, **kwargs)

    monkeypatch.setattr(task_lease, "claim", spy)
    enqueue()
    assert seen == [dt.timedelta(seconds=task_lease.LEASE_SECONDS)] and task_lease.LEASE_SECONDS < 60


def test_an_expired_lease_is_claimed_again_and_the_stalled_work_runs_once(coordinator):
    record = died_while_running(owed(coordinator), ago=dt.timedelta(minutes=17))
    redeliver(record)  # the broker's redelivery after the visibility timeout
    record.refresh_from_db()
    assert len(RUNS) == 1 and record.state == TaskState.SUCCEEDED
    assert record.claims == 2 and record.claimed_by == task_lease.worker_name()
    redeliver(record)  # and once more: finished, nothing runs
    assert len(RUNS) == 1


def test_stalled_is_read_from_the_lease(coordinator, api_as):
    record = died_while_running(owed(coordinator), ago=dt.timedelta(seconds=61))
    status = api_as(coordinator).get(f"/api/v1/tasks/{record.task_id}/").json()
    assert status["state"] == "STALLED" and status["stale"] is True
    TaskRecord.objects.filter(pk=record.pk).update(lease_expires_at=timezone.now() + dt.timedelta(seconds=5))
    status = api_as(coordinator).get(f"/api/v1/tasks/{record.task_id}/").json()
    assert status["state"] == "STARTED" and status["stale"] is False


def test_progress_extends_a_short_lease_but_never_past_the_time_limit(enqueue, monkeypatch):
    """A task with a lease shorter than its time limit keeps it alive with each sign of life."""
    seen = []
    start = timezone.now()
    clock = iter(start + dt.timedelta(seconds=s) for s in range(0, 1000, 10))
    monkeypatch.setattr(task_base, "clock", lambda: next(clock))
    monkeypatch.setattr(lease_probe, "lease_seconds", 30, raising=False)
    original = task_lease.heartbeat

    def spy(task_id, **kwargs):
        original(task_id, **kwargs)
        seen.append(TaskRecord.objects.get(task_id=task_id).lease_expires_at)

    monkeypatch.setattr(task_lease, "heartbeat", spy)
    record = enqueue(steps=4)
    assert record.state == TaskState.SUCCEEDED and len(seen) == 4
    claimed_at = record.started_at
    # Each step 10 s later than the one before: the lease moves on to 30 s past each …
    assert seen[0] == claimed_at + dt.timedelta(seconds=10 + 30)
    assert seen[1] == claimed_at + dt.timedelta(seconds=20 + 30)
    # … but never past the time limit, when the worker kills the task anyway.
    assert seen[2] == seen[3] == claimed_at + dt.timedelta(seconds=60)


# --- a user's re-run of stalled work ----------------------------------------------------------


def test_a_rerun_of_stalled_work_closes_it_so_its_redelivery_is_a_no_op(coordinator, enqueue):
    stalled = died_while_running(owed(coordinator), ago=dt.timedelta(minutes=6))
    rerun = enqueue()  # "Stalled — run it again": the user does
    assert [r["task_id"] for r in RUNS] == [rerun.task_id]
    stalled.refresh_from_db()
    assert stalled.state == TaskState.FAILED and rerun.task_id in stalled.error
    redeliver(stalled)  # the broker redelivers the stalled message at 16 min 38 s
    assert len(RUNS) == 1  # the work was done once, by the re-run


def test_a_rerun_while_the_redelivery_runs_the_stalled_work_follows_it(coordinator, enqueue):
    stalled = died_while_running(owed(coordinator), ago=dt.timedelta(minutes=17))
    claim = task_lease.claim(stalled.task_id, worker="w2:2", lease=dt.timedelta(seconds=60))
    assert claim.outcome == task_lease.Outcome.CLAIMED  # the redelivery took it and is running
    rerun = enqueue()
    assert rerun.pk == stalled.pk and RUNS == []  # the user follows the running work
    assert TaskRecord.objects.count() == 1


def test_a_rerun_of_other_work_is_not_affected(coordinator, enqueue):
    stalled = died_while_running(owed(coordinator, job="A"), ago=dt.timedelta(minutes=6))
    enqueue(job="B")
    stalled.refresh_from_db()
    assert stalled.state == TaskState.STARTED and len(RUNS) == 1


# --- the outbox after an outage ---------------------------------------------------------------


def test_send_owed_tasks_just_after_an_outage_counts_and_sends_every_owed_task(
    coordinator, enqueue, monkeypatch, capsys
):
    def refuse(task, *, kwargs, task_id):
        raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks_outbox, "publish", refuse)
    records = [enqueue(job=f"J{n}") for n in range(5)]  # the broker is down for five enqueues
    assert all(r.state == TaskState.OWED and r.send_attempts == 1 for r in records)
    call_command("send_owed_tasks")  # still down
    out, err = capsys.readouterr()
    assert "Sent 0 owed task(s); 5 still owed." in out and "still unreachable" in err
    monkeypatch.undo()  # the broker is back, a few seconds after the outage
    call_command("send_owed_tasks")
    out, err = capsys.readouterr()
    assert "Sent 5 owed task(s); 0 still owed." in out and err == ""
    assert sorted(r["job"] for r in RUNS) == [f"J{n}" for n in range(5)]
    assert not TaskRecord.objects.filter(state=TaskState.OWED).exists()


def test_the_sweep_leaves_a_record_its_request_is_still_sending_but_counts_it(coordinator):
    record = owed(coordinator)  # no send attempt yet: its request is sending it right now
    assert tasks_outbox.send_owed_tasks() == (0, 1, False)
    record.refresh_from_db()
    assert record.state == TaskState.OWED and record.send_attempts == 0 and RUNS == []
