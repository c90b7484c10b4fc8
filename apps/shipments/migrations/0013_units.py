"""Serial numbers become units (issue 13): every `LineSerial` points at the one `catalog.Unit` of
its part's manufacturer and serial, made here from the serials already on lines. The same serial
on two lines (two shipments of one box over time) becomes one unit; case variants of a serial on
one line ("qt1" beside "QT1", which the old per-line constraint let through) are one box, kept once
(the packed row first). The serial column goes, and the unit becomes required, in 0014: on
PostgreSQL the rows written here must be committed before a constraint refers to them again."""

import django.db.models.deletion
from django.db import migrations, models

SHIPPER = "shipper"


def serials_to_units(apps, schema_editor):
    LineSerial = apps.get_model("shipments", "LineSerial")
    ShipmentParty = apps.get_model("shipments", "ShipmentParty")
    Unit = apps.get_model("catalog", "Unit")
    shippers = dict(ShipmentParty.objects.filter(role=SHIPPER).values_list("shipment_id", "organisation_id"))
    units: dict[tuple[int, str], int] = {
        (manufacturer, serial.lower()): pk for pk, manufacturer, serial in Unit.objects.values_list(
            "pk", "manufacturer_id", "serial"
        )
    }  # fmt: skip
    seen: set[tuple[int, int]] = set()
    rows = LineSerial.objects.select_related("line__part", "line__shipment").order_by(
        "line_id", models.F("package_id").asc(nulls_last=True), "pk"
    )
    for row in rows.iterator(chunk_size=2000):
        line = row.line
        key = (line.part.manufacturer_id, row.serial.strip().lower())
        if key not in units:
            owner = line.shipper_id or shippers.get(line.shipment_id) or line.shipment.owner_id
            unit = Unit.objects.create(
                part_id=line.part_id,
                manufacturer_id=line.part.manufacturer_id,
                serial=row.serial.strip(),
                owner_id=owner,
            )
            units[key] = unit.pk
        if (line.pk, units[key]) in seen:
            row.delete()
            continue
        seen.add((line.pk, units[key]))
        row.unit_id = units[key]
        row.save(update_fields=["unit"])


def units_to_serials(apps, schema_editor):
    LineSerial = apps.get_model("shipments", "LineSerial")
    for row in LineSerial.objects.select_related("unit").iterator(chunk_size=2000):
        row.serial = row.unit.serial
        row.save(update_fields=["serial"])


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0009_units"),
        ("shipments", "0012_hub_handling"),
    ]

    operations = [
        migrations.AddField(
            model_name="lineserial",
            name="unit",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="line_serials",
                to="catalog.unit",
            ),
        ),
        migrations.RemoveConstraint(model_name="lineserial", name="shipments_serial_unique_per_line"),
        migrations.RunPython(serials_to_units, units_to_serials),
    ]
