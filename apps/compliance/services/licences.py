"""Licences held and how much of them is left."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import DecimalField, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from ..models import Licence, LicenceDrawdown
from .inputs import InputsChanged, inputs_changed


@transaction.atomic
def licence_save(*, licence: Licence, fields: dict[str, Any], actor=None, reason: str = "") -> Licence:
    """Record or change a licence held. The open shipments it may cover (to its consignee) and
    those drawing on it have their answers marked stale and checked again (`services.stale`): one
    waiting for this licence moves on by itself, one that relied on room now gone is held."""
    new = licence.pk is None
    for name, value in fields.items():
        setattr(licence, name, value)
    licence.full_clean()
    licence.save()
    # The licence's number and figures are for its own parties: the reason every party of the
    # shipment reads does not name them.
    default = (
        "A licence that may cover this shipment was recorded."
        if new
        else "A licence that may cover this shipment changed."
    )
    inputs_changed(
        InputsChanged(
            reason=reason or default,
            shipments=Q(parties__organisation_id=licence.consignee_id, parties__role="consignee")
            | Q(lines__drawdowns__licence=licence, lines__drawdowns__released_at__isnull=True),
            actor=actor,
        )
    )
    return licence


@transaction.atomic
def licence_expire(*, licence: Licence, reason: str, actor=None) -> Licence:
    """End a licence now (revoked, surrendered, replaced): it no longer covers a shipment from today.
    Its expiry becomes yesterday (and a licence not yet in force never starts); the reason is kept in
    the audit trail. Shipments that relied on it are checked again (`licence_save`): before departure
    one left without cover is held; one gone already is an alert to the officers."""
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
    licence = licence_save(
        licence=licence,
        fields=fields,
        actor=actor,
        reason="A licence that covered or may cover this shipment ended early.",
    )
    record(licence, action="update", message=f"Ended early: {reason}", actor=actor)
    return licence


# A licence runs low when a fifth or less of its quantity or value is left, or when it ends within
# this many days: time to apply for the next one before shipments wait for it.
LOW_SHARE_LEFT = (1, 5)
LOW_DAYS_LEFT = 30


def running_low(licences: QuerySet[Licence], *, today: dt.date | None = None) -> QuerySet[Licence]:
    """The licences of `licences` still in force that run low on quantity, value or time (see
    `LOW_SHARE_LEFT`, `LOW_DAYS_LEFT`): what the licence list's `running_low` filter shows and the
    compliance officer's dashboard counts."""
    today = today or timezone.localdate()
    in_force = LicenceDrawdown.objects.filter(licence=OuterRef("pk"), released_at__isnull=True).values(
        "licence"
    )
    used_quantity = Coalesce(
        Subquery(in_force.annotate(s=Sum("quantity")).values("s"), output_field=IntegerField()), Value(0)
    )
    money = DecimalField(max_digits=20, decimal_places=2)
    used_value = Coalesce(
        Subquery(in_force.annotate(s=Sum("value")).values("s"), output_field=money),
        Value(Decimal("0")),
        output_field=money,
    )
    part, whole = LOW_SHARE_LEFT
    # left ≤ part/whole of permitted  ⇔  used × whole ≥ permitted × (whole − part), in whole numbers.
    return (
        licences.filter(expires_on__gte=today)
        .alias(_used_quantity=used_quantity * whole, _used_value=used_value * whole)
        .filter(
            Q(_used_quantity__gte=F("permitted_quantity") * (whole - part))
            | Q(_used_value__gte=F("permitted_value") * (whole - part))
            | Q(expires_on__lte=today + dt.timedelta(days=LOW_DAYS_LEFT))
        )
    )


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
