"""Organisation pickers (apps.core.pickers): those the user may see, and those it may name as a party."""

from apps.core.pickers import Picker, register
from apps.core.scoping import VIEW

from .models import Organisation

SEARCH = ("legal_name", "trading_name", "city", "country")

register(
    Picker(
        kind="organisation",
        queryset=lambda user: (
            Organisation.objects.visible_to(user, VIEW).filter(is_active=True).order_by("legal_name")
        ),
        search_fields=SEARCH,
    ),
    default_for=Organisation,
)
# A shipment's parties and a line's shipper: `nameable_by`, as the forms accept.
register(
    Picker(
        kind="organisation-nameable",
        queryset=lambda user: Organisation.objects.nameable_by(user).order_by("legal_name"),
        search_fields=SEARCH,
    )
)
