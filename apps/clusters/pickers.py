"""Cluster design pickers (apps.core.pickers): for each part a design names, the catalogue parts
of the category that field takes (a switch field offers switches, not the whole catalogue), and
the data centres a cluster can stand in. Always through `visible_to`, as the form accepts."""

from apps.catalog.models import Part
from apps.catalog.pickers import part_label
from apps.core.pickers import Picker, register
from apps.core.scoping import VIEW
from apps.shipments.models import Site, SiteKind

from .models import PART_FIELDS


def part_kind(field: str) -> str:
    """The picker kind of a design's part field (`compute_switch` → `cluster-compute_switch`)."""
    return f"cluster-{field}"


def parts_for(field: str, user):
    """Active parts of the field's category the user sees, as the design form offers them."""
    return (
        Part.objects.visible_to(user, VIEW)
        .filter(is_active=True, category__in=PART_FIELDS[field])
        .select_related("manufacturer")
        .order_by("manufacturer__name", "part_number")
    )


def data_centres(user):
    return Site.objects.visible_to(user, VIEW).filter(kind=SiteKind.DATA_CENTRE).order_by("country", "name")


for _field in PART_FIELDS:
    register(
        Picker(
            kind=part_kind(_field),
            queryset=lambda user, field=_field: parts_for(field, user),
            search_fields=("part_number", "name", "manufacturer__name"),
            label=part_label,
        )
    )

register(
    Picker(
        kind="cluster-site",
        queryset=data_centres,
        search_fields=("name", "city", "country"),
    )
)
