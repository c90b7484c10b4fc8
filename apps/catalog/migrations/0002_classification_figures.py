"""Typed fields for the figures classification turns on (schema; 0003 moves the data, 0004 constrains)."""

from decimal import Decimal

import django.core.validators
from django.db import migrations, models

import apps.catalog.models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="part",
            name="cpu_only",
            field=models.BooleanField(
                blank=True,
                help_text="For a server with no accelerator recorded: yes affirms that it contains no GPU or AI accelerator. Without it such a server cannot be classified (it could be a GPU server).",
                null=True,
                verbose_name="CPU-only (no accelerator)",
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="data_centre",
            field=models.BooleanField(
                blank=True,
                help_text="3A090.a/.b do not apply to an IC neither designed nor marketed for data centres with TPP under 4,800. Unknown is read as yes for accelerators and servers (the conservative reading).",
                null=True,
                verbose_name="designed or marketed for data centres",
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="encryption",
            field=models.BooleanField(
                blank=True,
                help_text="Implements cryptography for data confidentiality (MACsec, IPsec, TLS management, self-encrypting drives). A switch, NIC/DPU or storage system cannot be classified without it.",
                null=True,
                verbose_name="implements encryption",
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="mass_market",
            field=models.BooleanField(
                blank=True,
                help_text="For an item that encrypts: meets the mass-market criteria (Cryptography Note, 740.17(b)); decides 5A992.c (yes) against 5A002.a (no). The manufacturer's classification decides.",
                null=True,
                verbose_name="mass market",
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="memory_bandwidth_density",
            field=models.DecimalField(
                blank=True,
                decimal_places=4,
                help_text="For high-bandwidth memory: bandwidth in GB/s divided by package area in mm². Above 2 is 3A090.c.",
                max_digits=10,
                null=True,
                validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                verbose_name="memory bandwidth density (GB/s per mm²)",
            ),
        ),
        migrations.AlterField(
            model_name="part",
            name="attributes",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Other figures, e.g. memory_gb, reach_m; not the export-control figures that have fields of their own (data centres, encryption, mass market, memory bandwidth density, CPU-only).",
            ),
        ),
        migrations.AlterField(
            model_name="part",
            name="die_area_mm2",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="Applicable die area: the logic dies on non-planar transistor nodes. Greater than zero.",
                max_digits=10,
                null=True,
                validators=[apps.catalog.models.validate_positive],
                verbose_name="die area (mm²)",
            ),
        ),
    ]
