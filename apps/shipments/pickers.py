"""Site picker (apps.core.pickers): the sites the user sees; an exact IATA code or UN/LOCODE
typed ("maa", "IN MAA") ranks its airport or seaport first."""

from django.db.models import Case, IntegerField, Q, Value, When

from apps.core.pickers import Picker, register
from apps.core.scoping import VIEW

from .models import Site


def exact_code_first(sites, text: str):
    """The site whose IATA code or UN/LOCODE is what was typed (spaces aside, any case) first,
    then the others in the list's order (country, name)."""
    code = "".join(text.split()).upper()
    exact = Q(iata_code=code) | Q(unlocode=code)
    return sites.annotate(
        code_rank=Case(When(exact, then=Value(0)), default=Value(1), output_field=IntegerField())
    ).order_by("code_rank", "country", "name")


register(
    Picker(
        kind="site",
        queryset=lambda user: Site.objects.visible_to(user, VIEW).order_by("country", "name"),
        search_fields=("name", "city", "country", "unlocode", "iata_code"),
        rank=exact_code_first,
    ),
    default_for=Site,
)
