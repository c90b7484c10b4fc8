"""Refuse TRUNCATE of the movement ledger on PostgreSQL too, as 0002 refuses UPDATE and DELETE.

TRUNCATE fires no row trigger, so it needs a statement trigger of its own, on the function 0002
made (its message names the operation). Only the table's owner can switch it off
(ALTER TABLE … DISABLE TRIGGER), as the owner can drop it: the flush of the test suite and of the
benchmarks does that, in its own transaction (apps/core/db_guards.py); the application never does.
SQLite has no TRUNCATE.
"""

from django.db import migrations

POSTGRES_UP = """
CREATE TRIGGER warehouse_movement_no_truncate
    BEFORE TRUNCATE ON warehouse_movement
    FOR EACH STATEMENT EXECUTE FUNCTION warehouse_movement_append_only();
"""
POSTGRES_DOWN = "DROP TRIGGER IF EXISTS warehouse_movement_no_truncate ON warehouse_movement;"


def up(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)


def down(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_DOWN, params=None)


class Migration(migrations.Migration):
    dependencies = [("warehouse", "0004_serialimport")]
    operations = [migrations.RunPython(up, down)]
