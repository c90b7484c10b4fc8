"""On PostgreSQL the movement ledger refuses TRUNCATE as it refuses UPDATE and DELETE; only the
suite's (and the benchmarks') flush gets past it, as the table's owner, in its own transaction."""

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction

from apps.warehouse.models import Movement
from tests.conftest import require

TRUNCATE_GUARD = "warehouse_movement_no_truncate"


@pytest.fixture
def postgresql(db):
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")


def test_the_database_refuses_truncate_of_the_ledger(postgresql, cables_in):
    before = Movement.objects.count()
    assert before > 0
    with connection.cursor() as cursor:  # the fixture's deferred checks would refuse it first
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    for statement in (
        "TRUNCATE warehouse_movement",
        "TRUNCATE TABLE warehouse_movement RESTART IDENTITY CASCADE",
        "TRUNCATE django_session, warehouse_movement",  # as Django's flush does, with other tables
    ):
        with (
            pytest.raises(DatabaseError, match="append-only: TRUNCATE"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    assert Movement.objects.count() == before


def test_the_ledgers_truncate_guard_is_an_enabled_statement_trigger(postgresql):
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT tgenabled, tgtype & 32 <> 0 AS on_truncate, tgtype & 1 = 0 AS per_statement
            FROM pg_trigger WHERE tgrelid = 'warehouse_movement'::regclass AND tgname = %s
            """,
            [TRUNCATE_GUARD],
        )
        assert cursor.fetchall() == [("O", True, True)]


@pytest.mark.django_db(transaction=True)
def test_the_suites_flush_empties_the_ledger_and_leaves_its_guard_on(request):
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")
    request.getfixturevalue("cables_in")
    assert Movement.objects.exists()
    call_command("flush", verbosity=0, interactive=False)
    assert not Movement.objects.exists()
    request.getfixturevalue("db")
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgenabled FROM pg_trigger WHERE tgname = %s", [TRUNCATE_GUARD])
        assert cursor.fetchall() == [("O",)]
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            cursor.execute("TRUNCATE warehouse_movement")
