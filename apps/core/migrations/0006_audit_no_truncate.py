"""Refuse TRUNCATE of the audit log on PostgreSQL too, as 0002 refuses UPDATE and DELETE.

TRUNCATE fires no row trigger, so it needs a statement trigger of its own, on the function 0002
made (its message names the operation). Only the table's owner can switch it off
(ALTER TABLE … DISABLE TRIGGER), as the owner can drop it: the test suite's flush does that, in
tests/conftest.py, and nothing in the application does (docs/security.md, "Audit").
"""

from django.db import migrations

POSTGRES_UP = """
CREATE TRIGGER core_auditevent_no_truncate
    BEFORE TRUNCATE ON core_auditevent
    FOR EACH STATEMENT EXECUTE FUNCTION core_auditevent_append_only();
"""
POSTGRES_DOWN = "DROP TRIGGER IF EXISTS core_auditevent_no_truncate ON core_auditevent;"


def up(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)


def down(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_DOWN, params=None)


class Migration(migrations.Migration):
    dependencies = [("core", "0005_taskrecord_outbox")]
    operations = [migrations.RunPython(up, down)]
