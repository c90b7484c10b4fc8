"""The navigation, built from the user's capabilities so the menu and the checks agree."""

from django.urls import reverse

_NAV = [
    ("Dashboard", "dashboard", "dashboard.view"),
    ("Shipments", "shipments:shipment-list", "shipments.view"),
    ("Parts", "catalog:part-list", "catalog.view"),
    ("Compliance", "compliance:queue", "compliance.review"),
    ("Licences", "compliance:licences", "compliance.view"),
    ("Screening", "compliance:lists", "compliance.view"),
    ("Stock", "warehouse:stock-list", "stock.view"),
    ("Clusters", "clusters:design-list", "clusters.view"),
    ("Sites", "shipments:site-list", "sites.view"),
    ("Freight rates", "shipments:rate-list", "freight.rates.view"),
    ("Organisations", "accounts:organisation-list", "organisations.view"),
    ("API tokens", "accounts:token-list", "tokens.manage"),
]


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": []}
    items = [
        {"label": label, "url": reverse(url_name), "active": False}
        for label, url_name, capability in _NAV
        if user.can(capability)
    ]
    # One item is current: the one whose address is the longest prefix of the page's (/compliance/
    # is the queue's, /compliance/licences/ the licences').
    matches = [
        item
        for item in items
        if request.path == item["url"] or (item["url"] != "/" and request.path.startswith(item["url"]))
    ]
    if matches:
        max(matches, key=lambda item: len(item["url"]))["active"] = True
    return {"nav_items": items}
