import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("compliance", "0003_fill_licensee")]

    operations = [
        migrations.AlterField(
            model_name="licence",
            name="licensee",
            field=models.ForeignKey(
                help_text="The exporter the licence was issued to; only its shipments may use it.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="licences_held",
                to="accounts.organisation",
            ),
        ),
    ]
