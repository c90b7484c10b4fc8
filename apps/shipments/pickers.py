"""Site picker (apps.core.pickers): the sites the user sees."""

from apps.core.pickers import Picker, register
from apps.core.scoping import VIEW

from .models import Site

register(
    Picker(
        kind="site",
        queryset=lambda user: Site.objects.visible_to(user, VIEW).order_by("country", "name"),
        search_fields=("name", "city", "country", "unlocode", "iata_code"),
    ),
    default_for=Site,
)
