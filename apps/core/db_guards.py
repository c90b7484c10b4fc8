"""The audit log's append-only guard against TRUNCATE (apps/core/migrations/0006), and the one
place that steps past it: a flush in the test suite and the benchmarks, which empty every table
between runs. Not used by the application."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

# Tables whose trigger refuses TRUNCATE: table → trigger.
TRUNCATE_GUARDS = {"core_auditevent": "core_auditevent_no_truncate"}


@contextlib.contextmanager
def flush_past_truncate_guards() -> Iterator[None]:
    """While open, Django's flush on PostgreSQL switches each guard off and on again around its
    TRUNCATE, in the flush's own transaction, as the table's owner may: no other session sees a
    table unguarded. Elsewhere (SQLite has no TRUNCATE) it changes nothing."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, **kwargs):
        statements = original(self, style, tables, **kwargs)
        guarded = [(table, TRUNCATE_GUARDS[table]) for table in tables if table in TRUNCATE_GUARDS]
        if statements and guarded:
            statements = [
                *(f"ALTER TABLE {table} DISABLE TRIGGER {trigger};" for table, trigger in guarded),
                *statements,
                *(f"ALTER TABLE {table} ENABLE TRIGGER {trigger};" for table, trigger in guarded),
            ]
        return statements

    DatabaseOperations.sql_flush = sql_flush
    try:
        yield
    finally:
        DatabaseOperations.sql_flush = original
