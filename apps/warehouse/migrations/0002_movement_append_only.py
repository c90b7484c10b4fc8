"""Make the movement ledger append-only in the database itself, as core/0002 does for the audit log.

PostgreSQL refuses UPDATE and DELETE of a row; SQLite (development) refuses UPDATE (deletes stay
possible there, as the test runner empties tables with DELETE). TRUNCATE is refused by 0005.
"""

from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION warehouse_movement_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'The movement ledger is append-only: % is not allowed', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER warehouse_movement_no_update_delete
    BEFORE UPDATE OR DELETE ON warehouse_movement
    FOR EACH ROW EXECUTE FUNCTION warehouse_movement_append_only();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS warehouse_movement_no_update_delete ON warehouse_movement;
DROP FUNCTION IF EXISTS warehouse_movement_append_only();
"""
SQLITE_UP = """
CREATE TRIGGER warehouse_movement_no_update BEFORE UPDATE ON warehouse_movement
BEGIN SELECT RAISE(ABORT, 'The movement ledger is append-only: UPDATE is not allowed'); END;
"""
SQLITE_DOWN = "DROP TRIGGER IF EXISTS warehouse_movement_no_update;"


def up(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_UP)


def down(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_DOWN, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(SQLITE_DOWN)


class Migration(migrations.Migration):
    dependencies = [("warehouse", "0001_initial")]
    operations = [migrations.RunPython(up, down)]
