"""On PostgreSQL the audit table refuses TRUNCATE as it refuses UPDATE and DELETE (README: the log is
append-only in the database itself). Only the test suite's flush passes it, as the table's owner."""

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction

from apps.core.models import AuditEvent
from tests.conftest import require
from tests.factories import PartFactory


@pytest.fixture
def postgresql(db):
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")


def test_the_database_refuses_truncate(postgresql):
    PartFactory()
    before = AuditEvent.objects.count()
    assert before > 0
    for statement in (
        "TRUNCATE core_auditevent",
        "TRUNCATE TABLE core_auditevent RESTART IDENTITY CASCADE",
        "TRUNCATE django_session, core_auditevent",  # as Django's flush does, with other tables
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    assert AuditEvent.objects.count() == before


def test_the_truncate_guard_is_a_statement_trigger_that_is_enabled(postgresql):
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT tgenabled, tgtype & 32 <> 0 AS on_truncate, tgtype & 1 = 0 AS per_statement
            FROM pg_trigger WHERE tgrelid = 'core_auditevent'::regclass
              AND tgname = 'core_auditevent_no_truncate'
            """
        )
        assert cursor.fetchall() == [("O", True, True)]


@pytest.mark.django_db(transaction=True)
def test_the_suites_flush_empties_the_log_and_leaves_the_guard_on():
    require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://…)")
    PartFactory()
    call_command("flush", verbosity=0, interactive=False)
    assert AuditEvent.objects.count() == 0
    PartFactory()
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE core_auditevent")


def test_a_role_that_does_not_own_the_table_cannot_get_past_the_guard(postgresql):
    """The application's database user, when it does not own the tables (docs/security.md), has
    no way around the triggers: not even with the TRUNCATE privilege granted."""
    PartFactory()
    before = AuditEvent.objects.count()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE ROLE rackpass_app_probe")
        cursor.execute(
            "GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON core_auditevent TO rackpass_app_probe"
        )
        cursor.execute("SET LOCAL ROLE rackpass_app_probe")
        for statement in (
            "TRUNCATE core_auditevent",
            "DELETE FROM core_auditevent",
            "ALTER TABLE core_auditevent DISABLE TRIGGER core_auditevent_no_truncate",
            "ALTER TABLE core_auditevent DISABLE TRIGGER ALL",
            "DROP TRIGGER core_auditevent_no_truncate ON core_auditevent",
            "SET session_replication_role = replica",  # would silence every trigger
        ):
            with pytest.raises(DatabaseError), transaction.atomic():
                cursor.execute(statement)
            assert AuditEvent.objects.count() == before, statement
        cursor.execute("RESET ROLE")
        transaction.set_rollback(True)  # the probe role goes with the savepoint
