import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_compliance_four_eyes"),
        ("catalog", "0012_unit_serial_index"),
        ("compliance", "0006_licence_bounds"),
        ("shipments", "0015_site_cluster_figures"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ComplianceApproval",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("classification_override", "Classification override"),
                            ("default_confirmation", "Confirming a default classification"),
                            ("hold_release", "Releasing a compliance hold"),
                            ("block_lift", "Lifting a block"),
                            ("policy_change", "Switching four eyes off or on"),
                        ],
                        max_length=30,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Awaiting second officer"),
                            ("approved", "Approved by a second officer"),
                            ("rejected", "Rejected by a second officer"),
                            ("withdrawn", "Withdrawn"),
                            ("decided_alone", "Decided alone (four eyes off)"),
                            ("not_needed", "Taken at once (raises control)"),
                        ],
                        default="pending",
                        max_length=20,
                    ),
                ),
                ("reason", models.TextField(help_text="Why the requesting officer asks for the decision.")),
                ("requested_at", models.DateTimeField(auto_now_add=True)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                (
                    "decision_note",
                    models.TextField(blank=True, help_text="Why a second officer rejected the request."),
                ),
                (
                    "four_eyes_note",
                    models.CharField(
                        blank=True,
                        help_text="Set when the decision was taken alone: the policy change that switched four eyes off.",
                        max_length=300,
                    ),
                ),
                ("eccn_before", models.CharField(blank=True, max_length=20, verbose_name="ECCN before")),
                ("eccn", models.CharField(blank=True, max_length=20, verbose_name="ECCN proposed")),
                (
                    "control_change",
                    models.CharField(
                        blank=True, help_text="What the change does to control.", max_length=300
                    ),
                ),
                (
                    "four_eyes",
                    models.BooleanField(
                        blank=True, help_text="The policy asked for (policy changes).", null=True
                    ),
                ),
                (
                    "block",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="approvals",
                        to="compliance.partyblock",
                    ),
                ),
                (
                    "classification",
                    models.ForeignKey(
                        blank=True,
                        help_text="The classification the decision made current.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="compliance.partclassification",
                    ),
                ),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "hold_reason",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="compliance.holdreason",
                    ),
                ),
                (
                    "organisation",
                    models.ForeignKey(
                        help_text="The organisation whose compliance officers decide (the requester's).",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="accounts.organisation",
                    ),
                ),
                (
                    "part",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="catalog.part",
                    ),
                ),
                (
                    "requested_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "shipment",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="shipments.shipment",
                    ),
                ),
            ],
            options={
                "ordering": ["-requested_at", "-id"],
                "indexes": [models.Index(fields=["status", "kind"], name="compliance__status_a3ecb2_idx")],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("reason", ""), _negated=True),
                        name="compliance_approval_needs_reason",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("status", "approved"), _negated=True),
                            models.Q(
                                ("decided_by__isnull", False),
                                models.Q(("decided_by", models.F("requested_by")), _negated=True),
                            ),
                            _connector="OR",
                        ),
                        name="compliance_approval_second_officer",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("status", "decided_alone"), _negated=True),
                            models.Q(("four_eyes_note", ""), _negated=True),
                            _connector="OR",
                        ),
                        name="compliance_decided_alone_says_why",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("status", "pending"), ("part__isnull", False)),
                        fields=("part",),
                        name="compliance_one_pending_per_part",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("status", "pending"), ("shipment__isnull", False)),
                        fields=("shipment",),
                        name="compliance_one_pending_per_shipment",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("status", "pending"), ("block__isnull", False)),
                        fields=("block",),
                        name="compliance_one_pending_per_block",
                    ),
                    models.UniqueConstraint(
                        condition=models.Q(("status", "pending"), ("kind", "policy_change")),
                        fields=("organisation",),
                        name="compliance_one_pending_policy_change",
                    ),
                ],
            },
        ),
    ]
