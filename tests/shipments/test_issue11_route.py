"""Issue 11, "Consolidation is a route, not a label": legs are checked as a chain (inbound legs end
at one hub, the main carriage starts there and reaches the destination, each line goes to the hub
once), the ETA is the destination's, and the consolidation can be built in the browser."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from apps.shipments import services
from apps.shipments.models import Leg, Shipment, Site


@pytest.fixture
def mexico_factory(supplier):
    return Site.objects.create(
        owner=supplier, name="Guadalajara factory", kind="factory", city="Guadalajara", country="MX"
    )


@pytest.fixture
def two_lines(make_shipment, gpu_server, cable):
    shipment = make_shipment()
    servers = services.line_add(shipment=shipment, part=gpu_server, quantity=2)
    cables = services.line_add(shipment=shipment, part=cable, quantity=10, fields={"country_of_origin": "MX"})
    return shipment, servers, cables


def inbound(shipment, origin, destination, lines=None, **fields):
    values = {"role": "inbound", "origin": origin, "destination": destination, "mode": "air"} | fields
    return services.leg_add(shipment=shipment, fields=values, lines=lines)


def main(shipment, origin, destination, **fields):
    values = {"role": "main", "origin": origin, "destination": destination, "mode": "air"} | fields
    return services.leg_add(shipment=shipment, fields=values)


def refused(call, field: str) -> str:
    with pytest.raises(ValidationError) as info:
        call()
    assert field in info.value.message_dict, info.value.message_dict
    return " ".join(info.value.message_dict[field])


# --- legs as a chain -------------------------------------------------------------------------


def test_an_inbound_leg_from_the_destination_back_to_a_supplier_is_refused(
    two_lines, datacentre, factory_site
):
    shipment, servers, _ = two_lines
    message = refused(lambda: inbound(shipment, datacentre, factory_site, [servers]), "origin")
    assert "never starts at the shipment's destination" in message
    assert not Leg.objects.exists()


def test_an_inbound_leg_ends_at_a_hub(two_lines, factory_site, mexico_factory):
    shipment, servers, _ = two_lines
    message = refused(lambda: inbound(shipment, factory_site, mexico_factory, [servers]), "destination")
    assert "warehouse" in message and "Guadalajara factory" in message


def test_a_second_main_leg_is_refused(two_lines, hub, datacentre, factory_site):
    shipment, _, _ = two_lines
    main(shipment, hub, datacentre)
    message = refused(lambda: main(shipment, factory_site, datacentre), "role")
    assert "Leg 1 is the main carriage already" in message
    assert shipment.legs.count() == 1


def test_inbound_legs_end_at_one_hub(two_lines, hub, operator, factory_site, mexico_factory):
    shipment, servers, cables = two_lines
    other_hub = Site.objects.create(
        owner=operator, name="Dubai hub", kind="warehouse", city="Dubai", country="AE"
    )
    inbound(shipment, factory_site, hub, [servers])
    message = refused(lambda: inbound(shipment, mexico_factory, other_hub, [cables]), "destination")
    assert "SG bonded hub" in message


def test_the_main_leg_starts_at_the_hub(two_lines, hub, factory_site, datacentre, mexico_factory):
    shipment, servers, _ = two_lines
    inbound(shipment, factory_site, hub, [servers])
    message = refused(lambda: main(shipment, mexico_factory, datacentre), "origin")
    assert "starts at the hub" in message and "SG bonded hub" in message


def test_an_inbound_leg_ends_where_the_main_leg_starts(two_lines, hub, operator, factory_site, datacentre):
    shipment, servers, _ = two_lines
    main(shipment, hub, datacentre)
    other_hub = Site.objects.create(
        owner=operator, name="Dubai hub", kind="warehouse", city="Dubai", country="AE"
    )
    message = refused(lambda: inbound(shipment, factory_site, other_hub, [servers]), "destination")
    assert "SG bonded hub" in message


def test_the_main_leg_ends_at_the_destination(two_lines, hub, mexico_factory):
    shipment, _, _ = two_lines
    message = refused(lambda: main(shipment, hub, mexico_factory), "destination")
    assert "Siruseri DC1" in message


def test_the_main_leg_may_end_at_a_gateway_of_the_destination_country(two_lines, hub, operator):
    shipment, _, _ = two_lines
    maa = Site.objects.create(
        owner=operator, name="Chennai airport", kind="airport", city="Chennai", country="IN", iata_code="MAA"
    )
    assert main(shipment, hub, maa).destination == maa


def test_a_line_goes_to_the_hub_once(two_lines, hub, factory_site, mexico_factory):
    shipment, servers, cables = two_lines
    inbound(shipment, factory_site, hub, [servers])
    message = refused(lambda: inbound(shipment, mexico_factory, hub, [servers, cables]), "lines")
    assert "Line 1 is carried to the hub by leg 1 already" in message


def test_a_leg_edit_is_checked_as_well(two_lines, hub, factory_site, mexico_factory, datacentre):
    shipment, servers, cables = two_lines
    first = inbound(shipment, factory_site, hub, [servers])
    second = inbound(shipment, mexico_factory, hub, [cables])
    refused(lambda: services.leg_update(leg=second, fields={}, lines=[servers]), "lines")
    refused(lambda: services.leg_update(leg=first, fields={"origin": datacentre}), "origin")
    main(shipment, hub, datacentre)
    refused(lambda: services.leg_update(leg=first, fields={"role": "main"}), "role")
    assert set(second.lines.all()) == {cables}


def test_the_api_answers_400_naming_the_field(coordinator, api_as, two_lines, hub, datacentre, factory_site):
    shipment, _, _ = two_lines
    base = f"/api/v1/shipments/{shipment.reference}/legs/"
    api = api_as(coordinator)
    back = {
        "role": "inbound",
        "origin": datacentre.pk,
        "destination": factory_site.pk,
        "mode": "air",
        "lines": [1],
    }
    response = api.post(base, back, format="json")
    assert response.status_code == 400 and "origin" in response.json(), response.content[:300]
    assert (
        api.post(
            base, {"role": "main", "origin": hub.pk, "destination": datacentre.pk, "mode": "air"}
        ).status_code
        == 201
    )
    second = api.post(base, {"role": "main", "origin": hub.pk, "destination": datacentre.pk, "mode": "air"})
    assert second.status_code == 400 and "role" in second.json()


# --- the ETA ---------------------------------------------------------------------------------


def test_an_inbound_leg_added_after_the_main_leg_does_not_become_the_eta(
    two_lines, hub, factory_site, mexico_factory, datacentre
):
    shipment, servers, cables = two_lines
    today = shipment.ready_date
    main(shipment, hub, datacentre, planned_departure=today + dt.timedelta(days=5),
         planned_arrival=today + dt.timedelta(days=7))  # fmt: skip
    inbound(shipment, factory_site, hub, [servers], planned_arrival=today + dt.timedelta(days=2))
    inbound(shipment, mexico_factory, hub, [cables], planned_arrival=today + dt.timedelta(days=3))
    assert Shipment.objects.get(pk=shipment.pk).eta == today + dt.timedelta(days=7)


def test_only_inbound_legs_give_no_eta(two_lines, hub, factory_site):
    shipment, servers, _ = two_lines
    inbound(shipment, factory_site, hub, [servers], planned_arrival=shipment.ready_date)
    assert Shipment.objects.get(pk=shipment.pk).eta is None


def test_the_leg_reaching_the_destination_gives_the_eta(two_lines, hub, operator, datacentre):
    shipment, _, _ = two_lines
    today = shipment.ready_date
    maa = Site.objects.create(
        owner=operator, name="Chennai airport", kind="airport", city="Chennai", country="IN", iata_code="MAA"
    )
    main(shipment, hub, maa, planned_arrival=today + dt.timedelta(days=4))
    assert Shipment.objects.get(pk=shipment.pk).eta == today + dt.timedelta(days=4)
    services.leg_add(
        shipment=shipment,
        fields={"role": "onward", "origin": maa, "destination": datacentre, "mode": "road",
                "planned_arrival": today + dt.timedelta(days=5)},
    )  # fmt: skip
    assert Shipment.objects.get(pk=shipment.pk).eta == today + dt.timedelta(days=5)


def test_an_eta_reported_on_an_inbound_leg_is_the_hubs_not_the_shipments(
    two_lines, coordinator, hub, factory_site, datacentre
):
    from django.utils import timezone

    shipment, servers, _ = two_lines
    today = shipment.ready_date
    first = inbound(shipment, factory_site, hub, [servers])
    main(shipment, hub, datacentre, planned_arrival=today + dt.timedelta(days=9))
    services.event_record(
        shipment=shipment, actor=coordinator, code="exception", occurred_at=timezone.now(), leg=first,
        eta=today + dt.timedelta(days=4),
    )  # fmt: skip
    assert Shipment.objects.get(pk=shipment.pk).eta == today + dt.timedelta(days=9)


def test_lateness_is_computed_on_the_main_legs_arrival(two_lines, hub, factory_site, datacentre):
    from apps.shipments.selectors import late_q

    shipment, servers, _ = two_lines
    main(shipment, hub, datacentre, planned_arrival=shipment.required_by + dt.timedelta(days=2))
    inbound(shipment, factory_site, hub, [servers], planned_arrival=shipment.ready_date)
    assert Shipment.objects.filter(late_q()).filter(pk=shipment.pk).exists()


# --- the browser builds it -------------------------------------------------------------------


def test_the_browser_builds_the_consolidation(
    coordinator, browser_as, two_lines, hub, factory_site, mexico_factory, datacentre, gpu_server
):
    shipment, servers, cables = two_lines
    client = browser_as(coordinator)
    url = f"/shipments/{shipment.reference}/"
    page = client.get(url)
    leg_form = page.context["leg_form"]
    assert list(leg_form.fields["lines"].queryset) == [servers, cables]
    assert "country_of_origin" in page.context["line_form"].fields

    line = client.post(f"{url}lines/", {"part": gpu_server.pk, "quantity": 1, "country_of_origin": "MX"})
    assert line.status_code == 302
    assert shipment.lines.get(line_number=3).country_of_origin == "MX"

    leg = {"role": "inbound", "origin": factory_site.pk, "destination": hub.pk, "mode": "air"}
    assert client.post(f"{url}legs/", leg | {"lines": [servers.pk]}).status_code == 302
    again = client.post(f"{url}legs/", leg | {"origin": mexico_factory.pk, "lines": [servers.pk, cables.pk]})
    assert again.status_code == 400 and "lines" in again.context["leg_form"].errors
    assert (
        client.post(f"{url}legs/", leg | {"origin": mexico_factory.pk, "lines": [cables.pk]}).status_code
        == 302
    )
    main_leg = {"role": "main", "origin": hub.pk, "destination": datacentre.pk, "mode": "air"}
    assert client.post(f"{url}legs/", main_leg | {"planned_arrival": "2026-12-24"}).status_code == 302
    back = client.post(
        f"{url}legs/", {"role": "inbound", "origin": datacentre.pk, "destination": hub.pk, "mode": "road"}
    )
    assert back.status_code == 400 and "origin" in back.context["leg_form"].errors

    legs = list(shipment.legs.order_by("sequence"))
    assert [set(leg.lines.all()) for leg in legs] == [{servers}, {cables}, set()]
    event = client.post(
        f"{url}events/",
        {"code": "departed", "occurred_at": "2026-12-01T10:00", "location": "Taoyuan", "leg": legs[0].pk},
    )
    assert event.status_code == 302
    assert shipment.events.get().leg == legs[0]
    html = client.get(url).content.decode()
    assert "Line 1" in html and "Line 2" in html  # the lines each leg carries
    assert "2026-12-24" in html


def test_the_browser_forms_choose_only_this_shipments_lines_and_legs(
    coordinator, browser_as, two_lines, make_shipment, gpu_server, hub, factory_site, datacentre
):
    shipment, servers, _ = two_lines
    other = make_shipment()
    foreign_line = services.line_add(shipment=other, part=gpu_server, quantity=1)
    foreign_leg = main(other, hub, datacentre)
    client = browser_as(coordinator)
    url = f"/shipments/{shipment.reference}/"
    leg = {"role": "inbound", "origin": factory_site.pk, "destination": hub.pk, "mode": "air"}
    response = client.post(f"{url}legs/", leg | {"lines": [foreign_line.pk]})
    assert response.status_code == 400 and "lines" in response.context["leg_form"].errors
    event = client.post(
        f"{url}events/", {"code": "departed", "occurred_at": "2026-12-01T10:00", "leg": foreign_leg.pk}
    )
    assert event.status_code == 400 and "leg" in event.context["event_form"].errors
    assert not shipment.legs.exists() and not shipment.events.exists()


def test_an_arrival_on_the_main_leg_counts_when_an_inbound_leg_has_a_later_sequence(
    ready_to_book, coordinator, api_as, operator, hub, factory_site
):
    """The main carriage lands at the destination's airport; an inbound leg added after it (a later
    sequence) does not make that arrival one at the hub."""
    from apps.documents.services import documents_issue_required

    from .test_out_of_order_events import post
    from .test_workflow import approve

    shipment = ready_to_book()
    maa = Site.objects.create(
        owner=operator, name="Chennai airport", kind="airport", city="Chennai", country="IN", iata_code="MAA"
    )
    main_leg = shipment.legs.get(role="main")
    services.leg_update(leg=main_leg, fields={"destination": maa})
    inbound(shipment, factory_site, hub, [shipment.lines.get()])
    shipment = approve(shipment, coordinator)
    documents_issue_required(shipment=shipment, actor=coordinator)
    shipment = services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)
    api = api_as(coordinator)
    post(api, shipment, "departed", 5, leg=main_leg.pk)
    arrived = post(api, shipment, "arrived", 1, leg=main_leg.pk)
    assert arrived["status_after"] == "at_customs", arrived
