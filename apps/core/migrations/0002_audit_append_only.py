"""Make the audit log append-only in the database itself, not only in the ORM."""
from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION core_auditevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'The audit log is append-only: % is not allowed', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER core_auditevent_no_update_delete
    BEFORE UPDATE OR DELETE ON core_auditevent
    FOR EACH ROW EXECUTE FUNCTION core_auditevent_append_only();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS core_auditevent_no_update_delete ON core_auditevent;
DROP FUNCTION IF EXISTS core_auditevent_append_only();
"""
# SQLite (development only): refuse updates. Deletes stay possible there because the test
# runner empties tables with DELETE between transactional tests.
SQLITE_UP = """
CREATE TRIGGER core_auditevent_no_update BEFORE UPDATE ON core_auditevent
BEGIN SELECT RAISE(ABORT, 'The audit log is append-only: UPDATE is not allowed'); END;
"""
SQLITE_DOWN = "DROP TRIGGER IF EXISTS core_auditevent_no_update;"


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
    dependencies = [("core", "0001_initial")]
    operations = [migrations.RunPython(up, down)]
