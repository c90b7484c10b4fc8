"""The demo's warehouses: a bonded hub in Singapore and a duty-paid warehouse in Chennai, and
the consolidation's server whose movements show it passed through the hub."""

from apps.catalog.models import Unit
from apps.warehouse.models import Lot, Movement, UnitPlacement
from apps.warehouse.selectors import rebuild_on_hand, stock_on_hand


def test_demo_has_two_warehouses_and_demo_b_passed_through_the_hub(demo):
    hub_units = UnitPlacement.objects.filter(location__site__name="Rackpass Bonded Hub Singapore")
    chennai = UnitPlacement.objects.filter(location__site__name__startswith="Rackpass Warehouse Chennai")
    assert hub_units.exists() and chennai.exists()
    assert hub_units.filter(unit__status="quarantined").count() == 1
    assert Lot.objects.filter(location__site__is_bonded=True, customs_status="in_bond").exists()
    assert Lot.objects.filter(location__site__is_bonded=False, customs_status="duty_paid").exists()
    server = Unit.objects.get(serial="QTSM82100001")
    kinds = list(Movement.objects.filter(unit=server).order_by("id").values_list("kind", flat=True))
    assert kinds == ["receipt", "put_away", "allocation", "pick", "shipment"]
    assert rebuild_on_hand() == stock_on_hand()
