"""Background work on the catalogue."""

from celery import shared_task
from django.db.models import Count

from .models import Part


@shared_task(name="catalog.catalogue_summary", time_limit=60, soft_time_limit=50)
def catalogue_summary() -> dict[str, int]:
    """Count active parts per category: a cheap, read-only task used to check that workers are healthy."""
    rows = Part.objects.filter(is_active=True).values("category").annotate(n=Count("id")).order_by("category")
    return {row["category"]: row["n"] for row in rows}
