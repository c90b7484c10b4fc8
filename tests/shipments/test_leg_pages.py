"""Issue 12, "Pick, don't type": legs can be edited and removed in the browser, as in the API; a
leg that departed or has milestones stays (it is the shipment's record)."""

import pytest
from django.utils import timezone

from apps.shipments import services
from apps.shipments.models import Leg

pytestmark = pytest.mark.django_db


@pytest.fixture
def planned(make_shipment, gpu_server, hub, datacentre, factory_site):
    shipment = make_shipment()
    line = services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    inbound = services.leg_add(
        shipment=shipment,
        fields={"role": "inbound", "origin": factory_site, "destination": hub, "mode": "air"},
        lines=[line],
    )
    main = services.leg_add(
        shipment=shipment, fields={"role": "main", "origin": hub, "destination": datacentre, "mode": "air"}
    )
    return shipment, line, inbound, main


def test_a_leg_is_edited_on_its_page_and_the_route_checked_again(
    planned, coordinator, browser_as, hub, datacentre
):
    shipment, line, inbound, main = planned
    client = browser_as(coordinator)
    url = f"/shipments/{shipment.reference}/legs/{main.pk}/edit/"
    assert "Leg 2: SG bonded hub" in client.get(url).content.decode()
    data = {"role": "main", "origin": hub.pk, "destination": datacentre.pk, "mode": "ocean", "carrier": "ONE"}
    response = client.post(url, data)
    assert response.status_code == 302
    main.refresh_from_db()
    assert (main.mode, main.carrier) == ("ocean", "ONE")
    # A main leg that does not start at the hub is refused, the reason on the form; nothing changes.
    refused = client.post(url, data | {"origin": datacentre.pk, "destination": hub.pk})
    assert refused.status_code == 400
    main.refresh_from_db()
    assert main.origin_id == hub.pk


def test_a_planned_leg_is_removed_but_not_one_with_milestones(planned, coordinator, browser_as):
    shipment, line, inbound, main = planned
    client = browser_as(coordinator)
    page = client.get(shipment.get_absolute_url()).content.decode()
    assert "Yes, remove leg 2" in page
    assert client.post(f"/shipments/{shipment.reference}/legs/{main.pk}/remove/").status_code == 302
    assert not Leg.objects.filter(pk=main.pk).exists()
    services.event_record(
        shipment=shipment,
        actor=coordinator,
        code="picked_up",
        leg=inbound,
        occurred_at=timezone.now(),
        location="TW",
    )
    client.post(f"/shipments/{shipment.reference}/legs/{inbound.pk}/remove/")
    assert Leg.objects.filter(pk=inbound.pk).exists()


def test_another_organisation_cannot_touch_a_leg(planned, forwarder_user, browser_as):
    shipment, line, inbound, main = planned
    client = browser_as(forwarder_user)
    assert client.get(f"/shipments/{shipment.reference}/legs/{main.pk}/edit/").status_code == 404
    assert client.post(f"/shipments/{shipment.reference}/legs/{main.pk}/remove/").status_code == 404
    assert Leg.objects.filter(pk=main.pk).exists()
