"""Part and manufacturer pickers (apps.core.pickers)."""

from apps.core.pickers import Picker, register
from apps.core.scoping import VIEW

from .models import Manufacturer, Part


def part_label(part: Part) -> str:
    return f"{part.manufacturer.name} {part.part_number} — {part.name}"


register(
    Picker(
        kind="part",
        # Active parts the user sees (the master catalogue and its own), as a shipment line accepts.
        queryset=lambda user: (
            Part.objects.visible_to(user, VIEW)
            .filter(is_active=True)
            .select_related("manufacturer")
            .order_by("manufacturer__name", "part_number")
        ),
        search_fields=("part_number", "name", "manufacturer__name"),
        label=part_label,
    ),
    default_for=Part,
)
# Shared reference data: every manufacturer is public.
register(
    Picker(
        kind="manufacturer",
        queryset=lambda user: Manufacturer.objects.order_by("name"),
        search_fields=("name",),
    ),
    default_for=Manufacturer,
)
