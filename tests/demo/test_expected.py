"""The demo's Singapore hub expects Demo J's optics today (with a Receive button for the operator)
and shows Demo B's inbound legs it received in the last week, with who received them."""

from django.utils import timezone

from apps.accounts.models import User
from apps.shipments.models import Shipment, Site
from apps.warehouse.selectors import expected_arrivals


def test_the_hub_expects_demo_j_today_and_shows_what_it_received(demo):
    hub = Site.objects.get(name="Rackpass Bonded Hub Singapore")
    operator = User.objects.get(username="warehouse")
    arrivals = expected_arrivals(operator, hub, timezone.localdate())
    due = [a for a in arrivals if a.bucket == "today"]
    assert [a.shipment for a in due] == [Shipment.objects.get(instructions__startswith="[Demo J]")]
    assert (due[0].units, due[0].packages) == (8, 2)
    received = [a for a in arrivals if a.bucket == "received"]
    assert received and all(a.receipt.received_by is not None for a in received)
    assert {a.shipment.instructions[:8] for a in received} == {"[Demo B]"}
