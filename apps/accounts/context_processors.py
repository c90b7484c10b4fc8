"""The navigation, built from the user's capabilities so the menu and the checks agree."""

from django.urls import reverse

_NAV = [
    ("Dashboard", "dashboard", "dashboard.view"),
    ("Shipments", "shipments:shipment-list", "shipments.view"),
    ("Parts", "catalog:part-list", "catalog.view"),
    ("Compliance", "compliance:queue", "compliance.review"),
    ("Licences", "compliance:licences", "compliance.view"),
    ("Screening", "compliance:lists", "compliance.view"),
    ("Sites", "shipments:site-list", "sites.view"),
    ("Freight rates", "shipments:rate-list", "freight.rates.view"),
    ("Organisations", "accounts:organisation-list", "organisations.view"),
    ("API tokens", "accounts:token-list", "tokens.manage"),
]


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": []}
    items = []
    for label, url_name, capability in _NAV:
        if user.can(capability):
            url = reverse(url_name)
            items.append(
                {
                    "label": label,
                    "url": url,
                    "active": request.path.startswith(url) and url != "/" or request.path == url,
                }
            )
    return {"nav_items": items}
