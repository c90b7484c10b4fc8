"""Serial numbers are units (0013 made them): the line's serial column goes and its unit is required."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("shipments", "0013_units")]

    operations = [
        migrations.RemoveField(model_name="lineserial", name="serial"),
        migrations.AlterField(
            model_name="lineserial",
            name="unit",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="line_serials", to="catalog.unit"
            ),
        ),
        migrations.AlterModelOptions(name="lineserial", options={"ordering": ["line", "unit__serial"]}),
        migrations.AddConstraint(
            model_name="lineserial",
            constraint=models.UniqueConstraint(fields=("line", "unit"), name="shipments_unit_once_per_line"),
        ),
    ]
