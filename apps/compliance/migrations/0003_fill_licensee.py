"""Data for the fields added in 0002 (a migration of its own: PostgreSQL refuses to alter a table
with pending trigger events in the same transaction as the update)."""

from django.db import migrations


def fill_licensee(apps, schema_editor):
    """Licences recorded before the licensee was a field were issued to the operator acting as
    exporter (the only exporter Rackpass recorded); fall back to the consignee otherwise."""
    Licence = apps.get_model("compliance", "Licence")
    Organisation = apps.get_model("accounts", "Organisation")
    operator = Organisation.objects.filter(kind="operator").order_by("pk").first()
    for licence in Licence.objects.filter(licensee__isnull=True):
        licence.licensee_id = operator.pk if operator else licence.consignee_id
        licence.save(update_fields=["licensee"])


def split_blocked_reasons(apps, schema_editor):
    HoldReason = apps.get_model("compliance", "HoldReason")
    HoldReason.objects.filter(kind="screening", text__contains=" is blocked (").update(kind="blocked_party")


class Migration(migrations.Migration):
    dependencies = [("compliance", "0002_check_integrity")]

    operations = [
        migrations.RunPython(fill_licensee, migrations.RunPython.noop),
        migrations.RunPython(split_blocked_reasons, migrations.RunPython.noop),
    ]
