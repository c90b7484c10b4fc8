"""PostgreSQL's pg_trgm and a trigram index on units' serials and parts' numbers, for the header's
search (apps/core/global_search.py): a piece of a serial (`UPPER(serial) LIKE '%…%'`, Django's
`icontains`) is found through the index instead of reading 100,000 units. Nothing on SQLite."""

from django.db import migrations

INDEXES = {
    "catalog_unit_serial_trgm": ("catalog_unit", "serial"),
    "catalog_part_number_trgm": ("catalog_part", "part_number"),
}


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, (table, column) in INDEXES.items():
        # The expression Django's icontains compares: UPPER("column"::text).
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ((UPPER("{column}"::text)) gin_trgm_ops)'
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("catalog", "0013_part_cage_layout_static_load")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
