"""Licences held and how much of them is left."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Sum

from ..models import Licence, LicenceDrawdown


@transaction.atomic
def licence_save(*, licence: Licence, fields: dict[str, Any], actor=None) -> Licence:
    """Record or change a licence held. Shipments held or in review for its consignee are checked
    again, so one that was waiting for this licence moves on by itself."""
    for name, value in fields.items():
        setattr(licence, name, value)
    licence.full_clean()
    licence.save()
    from apps.shipments.models import Shipment, ShipmentStatus

    from .checks import _recheck

    waiting = Shipment.objects.filter(
        parties__organisation_id=licence.consignee_id,
        parties__role="consignee",
        status__in=(ShipmentStatus.COMPLIANCE_REVIEW, ShipmentStatus.ON_HOLD),
    )
    _recheck(waiting, actor)
    return licence


@transaction.atomic
def licence_expire(*, licence: Licence, reason: str, actor=None) -> Licence:
    """End a licence now (revoked, surrendered, replaced): it no longer covers a shipment from today.
    Its expiry becomes yesterday (and a licence not yet in force never starts); the reason is kept in
    the audit trail. Shipments that relied on it are checked again (`licence_save`)."""
    import datetime as dt

    from django.core.exceptions import ValidationError
    from django.utils import timezone

    from apps.core.audit import record

    reason = (reason or "").strip()
    if len(reason) < 10:
        raise ValidationError({"reason": "Say why the licence ends (at least 10 characters)."})
    licence = Licence.objects.select_for_update().get(pk=licence.pk)
    yesterday = timezone.localdate() - dt.timedelta(days=1)
    if licence.expires_on <= yesterday:
        raise ValidationError(
            {"reason": f"Licence {licence.number} expired on {licence.expires_on} already."}
        )
    fields = {"expires_on": yesterday}
    if licence.valid_from > yesterday:
        fields["valid_from"] = yesterday
    licence = licence_save(licence=licence, fields=fields, actor=actor)
    record(licence, action="update", message=f"Ended early: {reason}", actor=actor)
    _recheck_users(licence, actor)
    return licence


def _recheck_users(licence: Licence, actor) -> None:
    """Shipments not yet departed that drew on the licence are checked again: it no longer covers them."""
    from apps.shipments.models import Shipment

    from .checks import _recheck

    _recheck(Shipment.objects.filter(lines__drawdowns__licence=licence).distinct(), actor)


def remaining(licences: list[Licence], *, exclude_shipment=None) -> dict[int, tuple[int, Decimal]]:
    """Remaining quantity and value per licence, in one query: permitted less the drawdowns in
    force. `exclude_shipment` leaves out that shipment's own drawdowns, which a re-check replaces."""
    drawdowns = LicenceDrawdown.objects.filter(licence__in=licences, released_at__isnull=True)
    if exclude_shipment is not None:
        drawdowns = drawdowns.exclude(line__shipment=exclude_shipment)
    used = {
        row["licence"]: (row["q"] or 0, row["v"] or Decimal("0"))
        for row in drawdowns.values("licence").annotate(q=Sum("quantity"), v=Sum("value"))
    }
    return {
        lic.pk: (
            lic.permitted_quantity - used.get(lic.pk, (0, 0))[0],
            lic.permitted_value - used.get(lic.pk, (0, Decimal("0")))[1],
        )
        for lic in licences
    }
