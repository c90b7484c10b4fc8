"""Alerts to the compliance officers: a changed answer about goods that have already left.

A shipment not yet departed is held when its answer changes for the worse; one already on its way
cannot be stopped by Rackpass, so its new answer is put in front of the officers instead (the
review queue and the shipment's compliance page) until one of them acknowledges it with a note of
what was done (the carrier told, the authority informed, the goods recalled)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import OrgScopedQuerySet


class ComplianceAlert(models.Model):
    shipment = models.ForeignKey(
        "shipments.Shipment", on_delete=models.CASCADE, related_name="compliance_alerts"
    )
    compliance_check = models.ForeignKey(
        "compliance.ComplianceCheck",
        on_delete=models.CASCADE,
        related_name="alerts",
        help_text="The check of the departed goods that no longer passes.",
    )
    status_then = models.CharField(max_length=20, help_text="Where the shipment was when the answer changed.")
    text = models.CharField(max_length=2000, help_text="What the new answer says (the officers' reading).")
    created_at = models.DateTimeField(auto_now_add=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, help_text="What the acknowledging officer did about it.")

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One alert per check: a re-run of the same check (a retried task) raises no second one.
            models.UniqueConstraint(fields=["compliance_check"], name="compliance_one_alert_per_check"),
            models.CheckConstraint(
                condition=Q(acknowledged_at__isnull=True) | ~Q(note=""),
                name="compliance_alert_acknowledged_with_note",
            ),
        ]

    def __str__(self) -> str:
        return f"Alert on {self.shipment.reference}: {self.text[:80]}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        from apps.shipments.models import Shipment

        return Q(shipment__in=Shipment.objects.filter(Shipment.org_scope_q(organisation_id, action)))

    @property
    def is_open(self) -> bool:
        return self.acknowledged_at is None
