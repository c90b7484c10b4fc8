import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """The four-eyes setting now covers every compliance decision that loosens control (not only
    lifting a block), and records who switched it and who approved the switch."""

    dependencies = [
        ("accounts", "0006_partner_label"),
    ]

    operations = [
        migrations.RenameField(
            model_name="organisation",
            old_name="block_reversal_needs_second_officer",
            new_name="compliance_four_eyes",
        ),
        migrations.AlterField(
            model_name="organisation",
            name="compliance_four_eyes",
            field=models.BooleanField(
                default=True,
                help_text=(
                    "Four eyes: an override that lowers an export classification's control, confirming a "
                    "default classification, releasing a compliance hold and lifting a blocked party each need "
                    "a second compliance officer of this organisation. Changed only by two compliance officers "
                    "(one asks, another approves, on the compliance pages); never in a form or the admin."
                ),
                verbose_name="compliance four eyes",
            ),
        ),
        migrations.AddField(
            model_name="organisation",
            name="four_eyes_changed_by",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="organisation",
            name="four_eyes_approved_by",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="organisation",
            name="four_eyes_changed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
