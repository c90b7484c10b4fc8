"""Issue 9: an operator-kept site may name the customer it is kept for (its data centre), which
decides who sees it (`Site.org_scope_q`)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_connection"),
        ("shipments", "0003_list_order_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="site",
            name="customer",
            field=models.ForeignKey(
                blank=True,
                help_text="For a site the operator keeps for a customer (its data centre): the customer. "
                "Where a customer's cluster stands is the customer's: only it, the organisations connected "
                "with it and the parties of its shipments see the site.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="customer_sites",
                to="accounts.organisation",
            ),
        ),
    ]
