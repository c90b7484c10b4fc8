"""Database checks behind the validators: a die area is positive, a bandwidth density not negative."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("catalog", "0003_move_classification_figures")]

    operations = [
        migrations.AddConstraint(
            model_name="part",
            constraint=models.CheckConstraint(
                condition=models.Q(("die_area_mm2__isnull", True), ("die_area_mm2__gt", 0), _connector="OR"),
                name="catalog_part_die_area_positive",
                violation_error_message="The die area must be greater than zero.",
            ),
        ),
        migrations.AddConstraint(
            model_name="part",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("memory_bandwidth_density__isnull", True),
                    ("memory_bandwidth_density__gte", 0),
                    _connector="OR",
                ),
                name="catalog_part_memory_bandwidth_density_non_negative",
            ),
        ),
    ]
