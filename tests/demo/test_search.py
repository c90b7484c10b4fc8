"""One search on the demo: the consolidation's buyer's order and its air waybills open it, for the
operator's coordinator and for its customer (another organisation's finding nothing is tested on
tests/world.py's two partners: tests/core/test_search.py)."""

from django.test import Client
from django.urls import reverse

from apps.accounts.models import User
from apps.shipments.models import Shipment

DEMO_PO = "CAIC-PO-2026-0117"


def test_the_demo_consolidation_is_found_by_its_po_and_awb(demo):
    shipment = Shipment.objects.get(instructions__startswith="[Demo B]")
    for username in ("coordinator", "customer"):
        client = Client()
        client.force_login(User.objects.get(username=username))
        for text in (DEMO_PO, "618-20240010", "695-12345675"):
            response = client.get(reverse("search"), {"q": text})
            assert (response.status_code, response["Location"]) == (302, shipment.get_absolute_url()), (
                username,
                text,
            )
