"""Issue 9: a part number is unique within one owner's catalogue, so that another organisation's
private part never decides (and so reveals) whether a number is free."""

import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_connection"),
        ("catalog", "0005_robust_input_bounds"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="part", name="catalog_part_number_unique_per_manufacturer"),
        migrations.AddConstraint(
            model_name="part",
            constraint=models.UniqueConstraint(
                models.F("owner"),
                models.F("manufacturer"),
                django.db.models.functions.text.Lower("part_number"),
                name="catalog_part_number_unique_per_owner",
            ),
        ),
    ]
