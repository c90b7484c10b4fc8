"""The warehouse pages that were missing from the browser (issue 13): adjusting a lot with a reason,
quarantining a unit and releasing it (through `services.unit_transition`, refused with the engine's
reasons), the allocate and pick flows opened for one shipment, and the links on a shipment's page
(`shipments.hooks.register_page_action`, filled by the warehouse)."""

import pytest
from django.urls import reverse

from apps.accounts.roles import Role
from apps.catalog.models import Unit, UnitStatus
from apps.shipments import hooks
from apps.shipments import services as shipments
from apps.shipments.models import Shipment
from apps.warehouse import services
from apps.warehouse.models import Lot, Movement, MovementKind
from tests.factories import UserFactory

from .conftest import approve

pytestmark = pytest.mark.django_db


@pytest.fixture
def outsider(forwarder):
    """Someone holding the warehouse capabilities outside the operator (the model refuses such a
    user; the pages must not rely on that): the scope, not the role, must keep it out."""
    return UserFactory(organisation=forwarder, role=Role.WAREHOUSE_OPERATOR, username="outside-floor")


def _errors(response, field: str) -> str:
    assert response.status_code == 200, response.status_code
    return " ".join(response.context["form"].errors.get(field, []))


def _adjustments():
    return Movement.objects.filter(kind=MovementKind.ADJUSTMENT)


# --- adjusting a lot ------------------------------------------------------------------------------


def test_adjust_a_lot_up_and_down_with_a_reason(cables_in, warehouse_operator, client):
    client.force_login(warehouse_operator)
    url = reverse("warehouse:lot-adjust", args=[cables_in.pk])
    page = client.get(url)
    assert page.status_code == 200 and 'id="lot-figures"' in page.content.decode()
    down = client.post(url, {"delta": "-3", "reason": "3 cables crushed by a forklift"})
    assert down.status_code == 302
    assert down.url == reverse("warehouse:location-detail", args=[cables_in.location_id]) + "#lots"
    assert Lot.objects.get(pk=cables_in.pk).quantity == 97
    assert client.post(url, {"delta": "5", "reason": "Found behind rack 02"}).status_code == 302
    assert Lot.objects.get(pk=cables_in.pk).quantity == 102
    rows = list(
        _adjustments().order_by("id").values_list("quantity", "reason", "from_location", "to_location")
    )
    bin_ = cables_in.location_id
    assert rows == [
        (3, "3 cables crushed by a forklift", bin_, None),
        (5, "Found behind rack 02", None, bin_),
    ]


def test_a_result_below_zero_or_below_allocated_is_refused_on_the_change(
    cables_in, outbound, warehouse_operator, client
):
    _, _, cables = outbound
    client.force_login(warehouse_operator)
    url = reverse("warehouse:lot-adjust", args=[cables_in.pk])
    negative = client.post(url, {"delta": "-101", "reason": "Written off"})
    assert "negative quantity" in _errors(negative, "delta")
    services.lot_allocate(line=cables, lot=cables_in, quantity=30, actor=warehouse_operator)
    below = client.post(url, {"delta": "-80", "reason": "Written off"})
    assert "less than is allocated" in _errors(below, "delta") and "30 allocated" in _errors(below, "delta")
    assert "This field is required." in _errors(client.post(url, {"delta": "-1", "reason": " "}), "reason")
    assert "up or down" in _errors(client.post(url, {"delta": "0", "reason": "Nothing"}), "delta")
    assert _errors(client.post(url, {"delta": "many", "reason": "Typo"}), "delta")
    assert Lot.objects.get(pk=cables_in.pk).quantity == 100 and not _adjustments().exists()
    # Exactly down to what is allocated stands.
    assert client.post(url, {"delta": "-70", "reason": "Water damage"}).status_code == 302
    assert Lot.objects.get(pk=cables_in.pk).quantity == 30


def test_adjusting_needs_the_floor_capability_and_the_lot_in_scope(
    cables_in, coordinator, supplier_user, outsider, client
):
    url = reverse("warehouse:lot-adjust", args=[cables_in.pk])
    for user in (coordinator, supplier_user):  # planning, and the goods' owner: not the floor
        client.force_login(user)
        assert client.get(url).status_code == 403
        assert client.post(url, {"delta": "-1", "reason": "x"}).status_code == 403
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert client.post(url, {"delta": "-1", "reason": "x"}).status_code == 404
    assert Lot.objects.get(pk=cables_in.pk).quantity == 100 and not _adjustments().exists()


def test_the_lot_list_and_location_link_to_the_adjustment(
    cables_in, warehouse_operator, supplier_user, client
):
    link = f'href="{reverse("warehouse:lot-adjust", args=[cables_in.pk])}"'
    location = reverse("warehouse:location-detail", args=[cables_in.location_id])
    client.force_login(warehouse_operator)
    assert link in client.get(reverse("warehouse:lot-list")).content.decode()
    assert link in client.get(location).content.decode()
    client.force_login(supplier_user)  # sees its lot, may not adjust it
    lots = client.get(reverse("warehouse:lot-list")).content.decode()
    assert f'id="lot-{cables_in.pk}"' in lots and link not in lots


# --- quarantine and release -----------------------------------------------------------------------


def test_quarantine_a_unit_and_release_it(receive, bin_a, warehouse_operator, client):
    [unit] = receive("Q-1", put_away=bin_a)
    client.force_login(warehouse_operator)
    detail = reverse("warehouse:unit-detail", args=[unit.pk])
    url = reverse("warehouse:unit-status", args=[unit.pk])
    page = client.get(detail).content.decode()
    assert f'href="{url}?target=quarantined"' in page and "Release from quarantine" not in page
    assert client.get(f"{url}?target=quarantined").status_code == 200
    done = client.post(url, {"target": "quarantined", "reason": "Bent heatsink fin on inspection"})
    assert done.status_code == 302 and done.url == detail
    assert Unit.objects.get(pk=unit.pk).status == UnitStatus.QUARANTINED
    page = client.get(detail).content.decode()
    assert f'href="{url}?target=available"' in page and 'id="unit-quarantine"' not in page
    assert client.post(url, {"target": "available", "reason": "Inspected, no fault found"}).status_code == 302
    assert Unit.objects.get(pk=unit.pk).status == UnitStatus.AVAILABLE
    moves = list(
        Movement.objects.filter(unit=unit, kind=MovementKind.STATUS)
        .order_by("id")
        .values_list("status_before", "status_after", "reason")
    )
    assert moves == [
        ("available", "quarantined", "Bent heatsink fin on inspection"),
        ("quarantined", "available", "Inspected, no fault found"),
    ]


def test_moves_the_engine_refuses_are_shown_with_its_reasons(
    receive, bin_a, outbound, warehouse_operator, client
):
    _, servers, _ = outbound
    available, picked = receive("Q-1", "Q-2", put_away=bin_a)
    services.units_allocate(line=servers, units=[picked], actor=warehouse_operator)
    services.units_pick(units=[picked], actor=warehouse_operator)
    client.force_login(warehouse_operator)
    url = reverse("warehouse:unit-status", args=[available.pk])
    assert "Serial Q-1 is available already." in _errors(
        client.post(url, {"target": "available", "reason": "Stale page"}), "target"
    )
    assert "This field is required." in _errors(client.post(url, {"target": "quarantined"}), "reason")
    assert _errors(client.post(url, {"target": "shipped", "reason": "Around the flow"}), "target")
    refused = client.post(
        reverse("warehouse:unit-status", args=[picked.pk]), {"target": "available", "reason": "Back"}
    )
    assert "A picked unit cannot become available (allowed: allocated, quarantined, shipped)." in _errors(
        refused, "target"
    )
    assert list(
        Unit.objects.filter(serial__startswith="Q-").order_by("serial").values_list("status", flat=True)
    ) == [
        "available",
        "picked",
    ]
    assert not Movement.objects.filter(kind=MovementKind.STATUS).exists()


def test_quarantine_needs_the_floor_capability_and_the_unit_in_scope(
    receive, bin_a, coordinator, supplier_user, outsider, client
):
    [unit] = receive("Q-1", put_away=bin_a)
    url = reverse("warehouse:unit-status", args=[unit.pk])
    data = {"target": "quarantined", "reason": "Dropped"}
    for user in (coordinator, supplier_user):
        client.force_login(user)
        assert client.get(url).status_code == 403 and client.post(url, data).status_code == 403
        assert (
            "unit-quarantine"
            not in client.get(reverse("warehouse:unit-detail", args=[unit.pk])).content.decode()
        )
    client.force_login(outsider)
    assert client.get(url).status_code == 404 and client.post(url, data).status_code == 404
    assert Unit.objects.get(pk=unit.pk).status == UnitStatus.AVAILABLE


# --- flows opened for one shipment ----------------------------------------------------------------


def test_allocate_and_pick_opened_for_a_shipment_offer_only_its_lines(
    receive,
    bin_a,
    outbound,
    make_shipment,
    hub,
    gpu_server,
    coordinator,
    warehouse_operator,
    outsider,
    client,
):
    shipment, servers, cables = outbound
    other = make_shipment(origin=hub)
    other_line = shipments.line_add(shipment=other, part=gpu_server, quantity=1)
    receive("S-1", "S-2", put_away=bin_a)
    allocate = reverse("warehouse:allocate") + f"?shipment={shipment.reference}"
    client.force_login(coordinator)
    page = client.get(allocate)
    assert page.status_code == 200 and shipment.reference in page.context["title"]
    assert set(page.context["form"].fields["line"].queryset) == {servers, cables}
    assert f'href="{shipment.get_absolute_url()}"' in page.content.decode()  # Cancel: back to it
    refused = client.post(allocate, {"line": other_line.pk, "serials": "S-1"})
    assert "valid choice" in _errors(refused, "line")
    assert client.post(allocate, {"line": servers.pk, "serials": "S-1 S-2"}).status_code == 302

    client.force_login(warehouse_operator)
    pick = reverse("warehouse:pick") + f"?shipment={shipment.reference}"
    page = client.get(pick)
    assert page.context["form"].initial["serials"] == "S-1\nS-2"  # the pick list
    assert client.post(pick, {"serials": page.context["form"].initial["serials"]}).status_code == 302
    assert set(Unit.objects.filter(serial__startswith="S-").values_list("status", flat=True)) == {"picked"}

    for user, url in ((outsider, allocate), (outsider, pick)):
        client.force_login(user)
        assert client.get(url).status_code == 404
    client.force_login(warehouse_operator)
    assert client.get(reverse("warehouse:allocate") + "?shipment=SHP-NONE").status_code == 404


# --- links from the shipment page -----------------------------------------------------------------


def _links(client, shipment) -> dict[str, str]:
    response = client.get(shipment.get_absolute_url())
    assert response.status_code == 200
    return dict(response.context["page_actions"])


def test_an_inbound_shipment_offers_receiving_when_receivable_to_who_may_receive(
    make_shipment, hub, dock, gpu_server, warehouse_operator, coordinator, client
):
    shipment = make_shipment(destination=hub)
    shipments.line_add(shipment=shipment, part=gpu_server, quantity=1, serials=["IN-1"])
    receive = reverse("warehouse:receive-shipment", args=[shipment.reference])
    client.force_login(warehouse_operator)
    assert "Receive at warehouse" not in _links(client, shipment)  # a draft has not left
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    assert _links(client, shipment) == {"Receive at warehouse": receive}
    assert f'href="{receive}"' in client.get(shipment.get_absolute_url()).content.decode()
    client.force_login(coordinator)  # planning: may not receive
    assert _links(client, shipment) == {}
    assert f'href="{receive}"' not in client.get(shipment.get_absolute_url()).content.decode()


def test_a_shipment_to_a_data_centre_offers_no_warehouse_link(make_shipment, gpu_server, admin_user, client):
    shipment = make_shipment()  # factory → data centre
    shipments.line_add(shipment=shipment, part=gpu_server, quantity=1)
    client.force_login(admin_user)
    assert _links(client, shipment) == {}
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
    assert _links(client, shipment) == {}


def test_an_outbound_shipment_offers_allocate_pick_and_pack_as_they_apply(
    receive, bin_a, outbound, warehouse_operator, coordinator, supplier_user, client
):
    shipment, servers, _ = outbound
    query = f"?shipment={shipment.reference}"
    allocate, pick = reverse("warehouse:allocate") + query, reverse("warehouse:pick") + query
    pack = reverse("warehouse:pack", args=[shipment.reference])
    client.force_login(coordinator)
    assert _links(client, shipment) == {"Allocate stock": allocate}
    client.force_login(supplier_user)  # the shipper sees the shipment, not the warehouse's pages
    assert _links(client, shipment) == {}
    client.force_login(warehouse_operator)
    assert _links(client, shipment) == {"Allocate stock": allocate}  # nothing to pick yet
    units = receive("S-1", put_away=bin_a)
    services.units_allocate(line=servers, units=units, actor=warehouse_operator)
    assert _links(client, shipment) == {"Allocate stock": allocate, "Pick": pick}
    services.units_pick(units=units, actor=warehouse_operator)
    assert _links(client, shipment) == {"Allocate stock": allocate, "Pack": pack}
    assert f'href="{pack}"' in client.get(shipment.get_absolute_url()).content.decode()
    approve(shipment)
    Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")  # left: nothing to allocate
    assert _links(client, shipment) == {"Pack": pack}
    client.force_login(coordinator)
    assert _links(client, shipment) == {}


def test_page_action_registry_is_idempotent_and_keeps_order():
    calls = []

    def first(shipment, user):
        calls.append("first")
        return [("A", "/a/")]

    def second(shipment, user):
        return [("B", "/b/")]

    saved = list(hooks._page_actions)
    try:
        hooks._page_actions.clear()
        for provider in (first, second, first):
            hooks.register_page_action(provider)
        assert hooks.page_actions(object(), object()) == [("A", "/a/"), ("B", "/b/")]
        assert calls == ["first"]
    finally:
        hooks._page_actions[:] = saved
