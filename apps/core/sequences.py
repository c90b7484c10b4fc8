"""Running reference numbers, allocated under a row lock so two requests never share one."""

from django.db import transaction
from django.utils import timezone

from .models import ReferenceSequence


def next_reference(prefix: str, *, year: int | None = None, width: int = 6) -> str:
    """`next_reference("SHP")` → "SHP-2026-000124". Call inside the transaction that uses it."""
    year = year or timezone.now().year
    with transaction.atomic():
        ReferenceSequence.objects.get_or_create(prefix=prefix, year=year)
        sequence = ReferenceSequence.objects.select_for_update().get(prefix=prefix, year=year)
        sequence.last_number += 1
        sequence.save(update_fields=["last_number"])
    return f"{prefix}-{year}-{sequence.last_number:0{width}d}"
