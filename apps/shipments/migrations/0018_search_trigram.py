"""Trigram indexes (pg_trgm, created by catalog's 0014) on what the header's search reads of
shipments and legs: reference, buyer's order, AWB / B/L and container numbers. A piece of any of
them (`UPPER(column) LIKE '%…%'`, Django's `icontains`) is found through the index at 10,000
shipments. Nothing on SQLite."""

from django.db import migrations

INDEXES = {
    "shipments_reference_trgm": ("shipments_shipment", "reference"),
    "shipments_buyer_order_trgm": ("shipments_shipment", "buyer_order_reference"),
    "shipments_leg_document_trgm": ("shipments_leg", "transport_document"),
    "shipments_leg_containers_trgm": ("shipments_leg", "container_numbers"),
}


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, (table, column) in INDEXES.items():
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ((UPPER("{column}"::text)) gin_trgm_ops)'
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("shipments", "0017_leg_container_numbers"), ("catalog", "0014_search_trigram")]

    operations = [migrations.RunPython(forwards, backwards, elidable=False)]
