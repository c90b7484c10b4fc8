"""The demo's shipments: the Singapore consolidation booked leg by leg, and every shipment with
legs a valid chain (one main carriage)."""

from decimal import Decimal as D

from apps.shipments.models import Shipment


def test_the_demo_consolidation_is_booked_leg_by_leg(demo):
    shipment = Shipment.objects.get(instructions__startswith="[Demo B]")
    # Booked with its legs by air (EVA, Lufthansa, Singapore Airlines): 1,392.30 + 696.00 + 1,487.70,
    # plus the Singapore hub's handling: gross 4 × 165 + 96 = 756 kg × 0.18 = 136.08 (minimum 95).
    # 3,576.00 + 136.08 = 3,712.08 USD.
    assert shipment.booked_freight_cost == D("3712.08")
    assert shipment.booked_freight["hub_handling"] == "136.08"
    assert "756 kg gross × 0.18 USD/kg = 136.08 USD" in shipment.booked_freight["hub_handling_note"]
    assert [
        leg["origin_country"] + leg["destination_country"] for leg in shipment.booked_freight["legs"]
    ] == [
        "TWSG",
        "MXSG",
        "SGIN",
    ]


def test_the_consolidated_demo_shipment_is_a_valid_chain(demo):
    for shipment in Shipment.objects.filter(legs__isnull=False).distinct():
        assert shipment.legs.filter(role="main").count() == 1, shipment
