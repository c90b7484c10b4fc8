from django.db import migrations, models

import apps.documents.models


class Migration(migrations.Migration):
    dependencies = [("documents", "0001_initial")]

    operations = [
        migrations.AlterField(
            model_name="document",
            name="void_pdf",
            field=models.FileField(
                blank=True,
                help_text="The issued bytes with VOID stamped on every page.",
                upload_to=apps.documents.models._pdf_path,
            ),
        ),
        migrations.AddField(
            model_name="document",
            name="void_sha256",
            field=models.CharField(blank=True, help_text="SHA-256 of the VOID copy.", max_length=64),
        ),
    ]
