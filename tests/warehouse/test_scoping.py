"""Partners see stock they own or that is held for them, and nothing else; they change none."""

from apps.core.scoping import CHANGE
from apps.warehouse import services
from apps.warehouse.models import Location, Lot, LotAllocation, Movement, UnitPlacement
from tests.factories import OrganisationFactory, UserFactory

MODELS = (Location, Lot, LotAllocation, Movement, UnitPlacement)


def visible(user):
    return {
        model.__name__: set(model.objects.visible_to(user).values_list("pk", flat=True)) for model in MODELS
    }


def test_a_partner_sees_its_own_stock_and_another_organisation_sees_none(
    receive, bin_a, bin_b, cables_in, outbound, supplier_user, coordinator, warehouse_operator
):
    _, servers, cables = outbound
    (unit,) = receive("S1", put_away=bin_a)
    services.units_allocate(line=servers, units=[unit], actor=warehouse_operator)
    services.lot_allocate(line=cables, lot=cables_in, quantity=3, actor=warehouse_operator)

    everything = visible(coordinator)
    assert all(everything.values())
    # Every row here is the supplier's stock; of the locations, those holding it (not the empty dock).
    assert visible(supplier_user) == everything | {"Location": {bin_a.pk}}

    stranger = UserFactory(organisation=OrganisationFactory(), role="partner")
    assert visible(stranger) == {model.__name__: set() for model in MODELS}
    for model in MODELS:
        assert not model.objects.visible_to(supplier_user, CHANGE).exists()


def test_the_consignee_sees_what_is_held_for_it(
    receive, bin_a, cables_in, outbound, customer, supplier, warehouse_operator, hub
):
    _, servers, cables = outbound  # the customer is the consignee
    consignee = UserFactory(organisation=customer, role="partner")
    assert visible(consignee) == {model.__name__: set() for model in MODELS}
    (unit,) = receive("S1", put_away=bin_a)
    services.units_allocate(line=servers, units=[unit], actor=warehouse_operator)
    allocation = services.lot_allocate(line=cables, lot=cables_in, quantity=3, actor=warehouse_operator)
    seen = visible(consignee)
    assert seen["UnitPlacement"] == {unit.placement.pk}
    assert seen["Lot"] == {cables_in.pk} and seen["LotAllocation"] == {allocation.pk}
    assert seen["Location"] == {bin_a.pk}
    # The allocation rows, not the receipts and put-away that came before it.
    assert {m.kind for m in Movement.objects.filter(pk__in=seen["Movement"])} == {"allocation"}
    # Stock of the supplier's not allocated to the customer stays hidden.
    other = services.lot_receive(
        location=bin_a, part=cables_in.part, quantity=5, owner=supplier, actor=None, customs_reference="E-9"
    )
    assert other.pk not in visible(consignee)["Lot"]


def test_the_unit_page_and_the_units_api_find_the_same_units(
    receive, bin_a, outbound, customer, warehouse_operator, api_as, browser_as, client
):
    """One visibility rule for a unit, page or API: a unit once allocated to the customer's
    shipment and given back is no longer held for it — neither shows it (the ledger rows of the
    allocation stay the customer's to read)."""
    shipment, servers, _ = outbound  # the customer is the consignee
    consignee = UserFactory(organisation=customer, role="partner", username="consignee-units")
    held, released = receive("U-HELD", "U-GIVEN-BACK", put_away=bin_a)
    services.units_allocate(line=servers, units=[held, released], actor=warehouse_operator)
    services.units_give_back(units=[released], actor=warehouse_operator, reason="Wrong box")
    api, browser = api_as(consignee), browser_as(consignee)
    for unit, found in ((held, True), (released, False)):
        expected = 200 if found else 404
        assert api.get(f"/api/v1/units/{unit.pk}/").status_code == expected
        assert browser.get(f"/stock/units/{unit.pk}/").status_code == expected
    assert api.get("/api/v1/units/", {"search": "U-GIVEN"}).json()["count"] == 0
    found = browser.get("/stock/find/", {"serial": "U-GIVEN-BACK"}, follow=True)
    assert "No unit with serial" in found.content.decode()


def test_goods_are_received_only_as_a_part_of_their_owner_or_of_the_master_catalogue(
    bin_a, supplier, forwarder, warehouse_operator, api_as, browser_as
):
    """The receive API and page take the part from every catalogue (their user is the operator's
    staff) but refuse one that is neither the owner's nor the master catalogue's."""
    from apps.catalog.models import Unit
    from tests.factories import PartFactory

    private = PartFactory(owner=forwarder, part_number="FWD-PRIVATE-2", name="Forwarder's own kit")
    body = {
        "location": bin_a.pk, "part": private.pk, "owner": supplier.pk, "serials": ["P-2"],
        "reason": "Delivery", "customs_reference": "SG-BOND-1",
    }  # fmt: skip
    refused = api_as(warehouse_operator).post("/api/v1/stock/receipts/", body, format="json")
    assert refused.status_code == 400 and "master catalogue" in refused.json()["part"][0]
    form = {**body, "serials": "P-2"}
    page = browser_as(warehouse_operator).post("/stock/receive/", form)
    assert page.status_code == 200 and "master catalogue" in page.content.decode()
    assert not Unit.objects.filter(serial="P-2").exists()
    done = api_as(warehouse_operator).post(
        "/api/v1/stock/receipts/", {**body, "owner": forwarder.pk}, format="json"
    )
    assert done.status_code in (200, 201), done.content
