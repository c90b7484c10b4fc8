"""Alerts on goods already gone: a check of a departed shipment that no longer passes is put in
front of the compliance officers (nothing can hold goods on their way); an officer acknowledges it
with what was done."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from apps.accounts.models import User
from apps.core.audit import record
from apps.core.validators import text_problem
from apps.shipments.engines.workflow import BEFORE_DEPARTURE
from apps.shipments.models import Shipment, ShipmentStatus

from ..models import CheckResult, ComplianceAlert, ComplianceCheck

MIN_NOTE = 15


def has_departed(shipment: Shipment) -> bool:
    """Whether the goods have left by the shipment's status (held after departure counts as left)."""
    status = shipment.held_from if shipment.status == ShipmentStatus.ON_HOLD else shipment.status
    return bool(status) and status not in BEFORE_DEPARTURE and shipment.status != ShipmentStatus.CANCELLED


def alert_if_departed(*, shipment: Shipment, check: ComplianceCheck) -> ComplianceAlert | None:
    """Raise an alert when `check`, of goods already gone, does not pass (once per check)."""
    if not has_departed(shipment) or check.result == CheckResult.PASS:
        return None
    open_reasons = [h.text for h in check.hold_reasons.all() if h.resolved_at is None]
    if not open_reasons or ComplianceAlert.objects.filter(compliance_check=check).exists():
        return None
    status = shipment.get_status_display().lower()
    text = f"{shipment.reference} has departed ({status}) and its compliance answer changed: " + " ".join(
        open_reasons
    )
    try:
        with transaction.atomic():
            alert = ComplianceAlert.objects.create(
                shipment=shipment, compliance_check=check, status_then=shipment.status, text=text[:2000]
            )
    except IntegrityError:  # another worker raised it for the same check first
        return None
    record(
        shipment,
        action="update",
        actor=None,
        message="The compliance answer changed after departure: Rackpass compliance has been alerted.",
    )
    return alert


@transaction.atomic
def alert_acknowledge(*, alert: ComplianceAlert, actor: User, note: str) -> ComplianceAlert:
    """An officer acknowledges an alert, saying what was done about the goods."""
    if not actor.can("compliance.review"):
        raise PermissionDenied("Only a compliance officer acknowledges a compliance alert.")
    alert = ComplianceAlert.objects.select_for_update().select_related("shipment").get(pk=alert.pk)
    if alert.acknowledged_at is not None:
        raise ValidationError(
            {"note": f"Acknowledged already by {alert.acknowledged_by} on {alert.acknowledged_at:%Y-%m-%d}."}
        )
    note = (note or "").strip()
    if problem := text_problem(note, "free_text"):
        raise ValidationError({"note": problem})
    if len(note) < MIN_NOTE:
        raise ValidationError(
            {"note": f"Say what was done about the goods (at least {MIN_NOTE} characters): the carrier "
             "told, the authority informed, the goods recalled …"}
        )  # fmt: skip
    alert.acknowledged_by, alert.acknowledged_at, alert.note = actor, timezone.now(), note
    alert.save(update_fields=["acknowledged_by", "acknowledged_at", "note"])
    record(alert.shipment, action="update", actor=actor, message="Compliance alert acknowledged.")
    return alert


def open_alerts() -> QuerySet[ComplianceAlert]:
    """Alerts no officer has acknowledged yet, newest first, with their shipments."""
    return ComplianceAlert.objects.filter(acknowledged_at__isnull=True).select_related("shipment")
