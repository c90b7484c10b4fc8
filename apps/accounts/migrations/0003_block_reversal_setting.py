from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_servicecoverage")]

    operations = [
        migrations.AddField(
            model_name="organisation",
            name="block_reversal_needs_second_officer",
            field=models.BooleanField(
                default=True,
                help_text=(
                    "Four eyes: lifting a blocked party (reversing a confirmed screening match) needs a "
                    "second compliance officer's approval. Read from the operator organisation, whose "
                    "officers decide; only an administrator changes it."
                ),
                verbose_name="block reversal needs a second officer",
            ),
        ),
    ]
