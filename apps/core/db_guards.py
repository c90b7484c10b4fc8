"""The append-only tables' guards against TRUNCATE (the audit log, apps/core/migrations/0006; the
warehouse's movement ledger, apps/warehouse/migrations/0005), and the one place that steps past
them: a flush in the test suite and the benchmarks, which empty every table between runs. Not used
by the application."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

# Every user trigger that fires on TRUNCATE (tgtype bit 32) of one of the tables flushed: any
# guard a migration adds later is found here, without a list to keep in step.
TRUNCATE_TRIGGERS = """
SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE NOT t.tgisinternal AND t.tgtype & 32 <> 0 AND c.relname = ANY(%s)
  AND pg_table_is_visible(c.oid)
ORDER BY c.relname, t.tgname
"""


def truncate_guards(connection, tables) -> list[tuple[str, str]]:
    """(table, trigger) for each TRUNCATE guard on `tables` (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute(TRUNCATE_TRIGGERS, [list(tables)])
        return cursor.fetchall()


@contextlib.contextmanager
def flush_past_truncate_guards() -> Iterator[None]:
    """While open, Django's flush on PostgreSQL switches each guard off and on again around its
    TRUNCATE, in the flush's own transaction, as the table's owner may: no other session sees a
    table unguarded. Elsewhere (SQLite has no TRUNCATE) it changes nothing."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, **kwargs):
        statements = original(self, style, tables, **kwargs)
        guarded = truncate_guards(self.connection, tables) if statements else []
        if guarded:
            statements = [
                *(f'ALTER TABLE "{table}" DISABLE TRIGGER "{trigger}";' for table, trigger in guarded),
                *statements,
                *(f'ALTER TABLE "{table}" ENABLE TRIGGER "{trigger}";' for table, trigger in guarded),
            ]
        return statements

    DatabaseOperations.sql_flush = sql_flush
    try:
        yield
    finally:
        DatabaseOperations.sql_flush = original
