"""What every warehouse write shares: the movement ledger's rows (`_ledger`), the checks of a
location, a quantity, a reason and a list of serials, and a lot's on-hand changed by conditional
updates under locks taken in primary-key order. Private to the services package."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import F

from apps.accounts.models import User
from apps.catalog.models import Unit
from apps.shipments.models import ShipmentLine

from ..models import QUANTITY_MAX, Location, Lot, Movement


def _actor_label(actor: Any) -> str:
    if actor is None:
        return ""
    name = actor.get_full_name() or actor.get_username()
    org = getattr(actor, "organisation", None)
    return f"{name} ({org})"[:300] if org else name[:300]


def _ledger(
    kind: str,
    *,
    actor: User | None,
    part_id: int,
    owner_id: int,
    quantity: int,
    from_location: Location | None,
    to_location: Location | None,
    reason: str = "",
    customs_status: str = "",
    customs_reference: str = "",
    unit: Unit | None = None,
    status_before: str = "",
    status_after: str = "",
    line: ShipmentLine | None = None,
) -> Movement:
    return Movement.objects.create(
        kind=kind,
        actor=actor if actor is not None and actor.pk else None,
        actor_label=_actor_label(actor),
        reason=(reason or "")[:500],
        part_id=part_id,
        owner_id=owner_id,
        unit=unit,
        quantity=quantity,
        from_location=from_location,
        to_location=to_location,
        customs_status=customs_status or "",
        customs_reference=customs_reference or "",
        status_before=status_before,
        status_after=status_after,
        shipment_id=line.shipment_id if line is not None else None,
        line=line,
    )


def _location(location: Location, field_name: str = "location") -> Location:
    location = Location.objects.select_related("site").get(pk=location.pk)
    if not location.is_active:
        raise ValidationError({field_name: f"{location} is inactive: it takes no new stock."})
    return location


def _quantity(quantity: Any, field_name: str = "quantity") -> int:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= QUANTITY_MAX:
        raise ValidationError({field_name: f"A quantity is a whole number from 1 to {QUANTITY_MAX:,}."})
    return quantity


def _reason(reason: str, what: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": f"Say why: {what} needs a reason."})
    return reason


def _clean_serials(serials: Iterable[str], field_name: str = "serials") -> list[str]:
    cleaned = [(s or "").strip() for s in serials]
    problems = []
    if any(not s for s in cleaned):
        problems.append("Serial numbers may not be blank.")
    seen: dict[str, int] = {}
    for s in cleaned:
        seen[s.lower()] = seen.get(s.lower(), 0) + 1
    if repeated := sorted({s for s in cleaned if s and seen[s.lower()] > 1}):
        problems.append(f"Repeated serial numbers: {', '.join(repeated[:10])}.")
    if problems:
        raise ValidationError({field_name: problems})
    return cleaned


def _lot_for(*, part_id: int, location: Location, owner_id: int, customs_status: str, reference: str) -> Lot:
    lot, _ = Lot.objects.get_or_create(
        part_id=part_id,
        location=location,
        owner_id=owner_id,
        customs_status=customs_status,
        customs_reference=reference,
    )
    return lot


def _locked_lots(*lots: Lot) -> dict[int, Lot]:
    """Lock lots in primary-key order (two moves in opposite directions never deadlock)."""
    return {
        lot.pk: lot
        for lot in Lot.objects.select_for_update()
        .select_related("location__site", "part")
        .filter(pk__in=[lot.pk for lot in lots])
        .order_by("pk")
    }


def _lot_change(lot: Lot, delta: int, *, kind: str, actor: User | None, reason: str) -> None:
    """Add `delta` (negative: remove) to a lot's on-hand, never below what is allocated."""
    if delta < 0:
        changed = Lot.objects.filter(pk=lot.pk, quantity__gte=F("allocated") - delta).update(
            quantity=F("quantity") + delta
        )
        if not changed:
            lot.refresh_from_db()
            raise ValidationError(
                {
                    "quantity": f"{lot.part.part_number} at {lot.location.code}: {lot.quantity} on hand, "
                    f"{lot.allocated} allocated; taking {-delta} would leave "
                    + ("a negative quantity." if lot.quantity + delta < 0 else "less than is allocated.")
                }
            )
    else:
        Lot.objects.filter(pk=lot.pk).update(quantity=F("quantity") + delta)
    _ledger(
        kind,
        actor=actor,
        part_id=lot.part_id,
        owner_id=lot.owner_id,
        quantity=abs(delta),
        from_location=lot.location if delta < 0 else None,
        to_location=lot.location if delta > 0 else None,
        reason=reason,
        customs_status=lot.customs_status,
        customs_reference=lot.customs_reference,
    )
