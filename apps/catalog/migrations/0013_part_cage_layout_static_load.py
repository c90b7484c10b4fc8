"""A part's transceiver cage layout (ports per cage) and a rack's static load become typed fields.

Filled from the attributes they were kept in: `osfp_cages` (ports per cage = port count ÷ cages,
when it divides evenly into 1 to 8) and `static_load_kg` (a positive number of kg). Both keys
leave `attributes`; a figure that cannot be read is dropped rather than guessed (the sizing then
reports the part's cage layout as missing).
"""

from decimal import Decimal, InvalidOperation

import django.core.validators
from django.db import migrations, models

_CAGE_CATEGORIES = ("server", "network_switch", "nic_dpu")


def _number(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def typed_from_attributes(part_category, port_count, attributes):
    """({field: value}, the attributes left) for one part."""
    if not isinstance(attributes, dict):
        return {}, attributes
    typed, left = {}, dict(attributes)
    cages = _number(left.pop("osfp_cages", None))
    if cages and cages > 0 and port_count and part_category in _CAGE_CATEGORIES:
        per_cage = Decimal(port_count) / cages
        if per_cage == per_cage.to_integral_value() and 1 <= per_cage <= 8:
            typed["ports_per_cage"] = int(per_cage)
    load = _number(left.pop("static_load_kg", None))
    if load is not None and Decimal("0.001") <= load <= Decimal("50000") and part_category == "rack":
        typed["static_load_kg"] = load.quantize(Decimal("0.001"))
    return typed, left


def forwards(apps, schema_editor):
    Part = apps.get_model("catalog", "Part")
    for part in Part.objects.iterator():
        if not isinstance(part.attributes, dict) or not {"osfp_cages", "static_load_kg"} & set(
            part.attributes
        ):
            continue
        typed, left = typed_from_attributes(part.category, part.port_count, part.attributes)
        for name, value in typed.items():
            setattr(part, name, value)
        part.attributes = left
        part.save(update_fields=["attributes", *typed])


def backwards(apps, schema_editor):
    Part = apps.get_model("catalog", "Part")
    parts = Part.objects.filter(
        models.Q(ports_per_cage__isnull=False) | models.Q(static_load_kg__isnull=False)
    )
    for part in parts.iterator():
        attributes = dict(part.attributes or {})
        if part.ports_per_cage and part.port_count:
            attributes["osfp_cages"] = part.port_count // part.ports_per_cage
        if part.static_load_kg is not None:
            attributes["static_load_kg"] = float(part.static_load_kg)
        part.attributes = attributes
        part.save(update_fields=["attributes"])


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0012_unit_serial_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="part",
            name="ports_per_cage",
            field=models.PositiveSmallIntegerField(
                blank=True,
                help_text="For a server: its compute NICs' cages, 1 for single-port cages (8 single-port "
                "ConnectX-7 cards), 2 for twin-port OSFP cages (a DGX H100: 8 NICs in 4 cages). For a "
                "switch: 2 on a Quantum-2 QM9700 (64 ports in 32 OSFP cages). A node-side transceiver must "
                "carry as many links as a cage has ports.",
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(1),
                    django.core.validators.MaxValueValidator(8),
                ],
                verbose_name="ports per transceiver cage",
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="static_load_kg",
            field=models.DecimalField(
                blank=True,
                decimal_places=3,
                help_text="For a rack: the weight of equipment it carries standing (its static load rating).",
                max_digits=10,
                null=True,
                validators=[
                    django.core.validators.MinValueValidator(Decimal("0.001")),
                    django.core.validators.MaxValueValidator(Decimal("50000")),
                ],
                verbose_name="static load (kg)",
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
