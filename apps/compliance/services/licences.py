"""Licences held and how much of them is left."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Sum

from ..models import Licence, LicenceDrawdown


@transaction.atomic
def licence_save(*, licence: Licence, fields: dict[str, Any]) -> Licence:
    for name, value in fields.items():
        setattr(licence, name, value)
    licence.full_clean()
    licence.save()
    return licence


def remaining(licences: list[Licence]) -> dict[int, tuple[int, Decimal]]:
    """Remaining quantity and value per licence, in one query."""
    used = {
        row["licence"]: (row["q"] or 0, row["v"] or Decimal("0"))
        for row in LicenceDrawdown.objects.filter(licence__in=licences)
        .values("licence")
        .annotate(q=Sum("quantity"), v=Sum("value"))
    }
    return {
        lic.pk: (
            lic.permitted_quantity - used.get(lic.pk, (0, 0))[0],
            lic.permitted_value - used.get(lic.pk, (0, Decimal("0")))[1],
        )
        for lic in licences
    }
