"""Issue 11, "freight answers that are physically possible", through the API.

Rates (conftest `rates`): TW → IN air 4.20 USD/kg (minimum 250, 5 days); ocean 20GP 1,400,
40GP 2,200, 40HC 2,400, LCL 65 per m³ / 45 per tonne (minimum 150), 18 days.
"""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from apps.documents.builder import build_context
from apps.shipments import services
from apps.shipments.models import FreightRate, Shipment, ShipmentStatus
from tests.factories import PartFactory

from .conftest import crate

pytestmark = pytest.mark.django_db


def options_url(shipment):
    return f"/api/v1/shipments/{shipment.reference}/freight-options/"


def part(**fields):
    return PartFactory(is_serialised=False, country_of_origin="TW", **fields)


@pytest.fixture
def nvl72():
    return part(
        part_number="GB200-NVL72",
        category="server",
        hs_code="847150",
        unit_weight_kg=Decimal("1360"),
        length_cm=Decimal("120"),
        width_cm=Decimal("60"),
        height_cm=Decimal("227"),
        unit_value=Decimal("3000000"),
    )


@pytest.fixture
def battery_cabinet():
    return part(
        part_number="HPL-LI-ION-CABINET",
        name="HPL lithium-ion battery cabinet",
        category="ups_battery",
        hs_code="850760",
        unit_weight_kg=Decimal("1300"),
        length_cm=Decimal("85"),
        width_cm=Decimal("65"),
        height_cm=Decimal("200"),
        unit_value=Decimal("60000"),
        contains_lithium_batteries=True,
        lithium_battery_packing="batteries_alone",
        lithium_battery_wh=Decimal("2900"),
        lithium_battery_net_kg=Decimal("1000"),
    )


def test_rack_and_cdu_fly_only_on_a_main_deck_freighter(coordinator, api_as, make_shipment, nvl72, rates):
    cdu = part(
        part_number="CDU-2300",
        category="cooling_cdu",
        hs_code="841989",
        unit_weight_kg=Decimal("3000"),
        length_cm=Decimal("240"),
        width_cm=Decimal("120"),
        height_cm=Decimal("230"),
    )
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=nvl72, quantity=1)
    services.line_add(shipment=shipment, part=cdu, quantity=1)
    body = api_as(coordinator).get(options_url(shipment)).json()
    air = next(o for o in body["options"] if o["mode"] == "air")
    # Lower deck: 160 cm tall and 1,500 kg a piece at most; main deck 300 cm and 6,800 kg.
    assert air["aircraft"] == "main-deck freighter"
    assert "Piece 'line 1' is 227 cm tall (limit 160 cm), over the lower-deck limits" in air["breakdown"][0]
    assert (
        "Piece 'line 2' is 230 cm tall (limit 160 cm), 3,000 kg (limit 1,500 kg a piece)"
        in air["breakdown"][1]
    )
    # Chargeable: gross 1,360 + 3,000 = 4,360 kg; volumetric 1,634,400 / 6,000 = 272.4 and
    # 6,624,000 / 6,000 = 1,104 → gross wins: 4,360 × 4.20 = 18,312.00 USD.
    assert (air["chargeable_kg"], air["cost"]) == ("4360.0", "18312.00")


def test_freight_limits_come_from_settings(coordinator, api_as, make_shipment, nvl72, rates, settings):
    settings.RACKPASS_FREIGHT_LIMITS = {"lower_deck_max_height_cm": 230}
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=nvl72, quantity=1)
    air = next(
        o for o in api_as(coordinator).get(options_url(shipment)).json()["options"] if o["mode"] == "air"
    )
    assert air["aircraft"] == "passenger or freighter"


def test_battery_cabinet_is_un3480_and_goes_by_sea(
    coordinator, api_as, make_shipment, battery_cabinet, rates
):
    shipment = make_shipment()
    line = services.line_add(shipment=shipment, part=battery_cabinet, quantity=1)
    api = api_as(coordinator)
    body = api.get(options_url(shipment)).json()
    # 1,000 kg of >100 Wh batteries in one package: over PI965 IA's 35 kg on cargo aircraft.
    assert {o["mode"] for o in body["options"]} == {"ocean"}
    assert any("UN3480" in reason and "35 kg net" in reason for reason in body["recommendation"]["reasons"])

    # The package's and the packing list's DG line come from the same classification.
    package = api.post(
        f"/api/v1/shipments/{shipment.reference}/packages/",
        crate(length_cm="95", width_cm="75", height_cm="215", gross_kg="1380", net_kg="1300")
        | {"items": [{"line": line.line_number, "quantity": 1}]},
        format="json",
    )
    assert package.status_code == 201, package.json()
    text = "UN3480 Lithium ion batteries, class 9, PI965 Section IA"
    assert package.json()["dangerous_goods"] == [text]
    context = build_context(shipment, "packing_list", number="PL-1", version=1, watermark="")
    assert context.packages[0].dangerous_goods == (text,)

    # With only an air rate on the lane, nothing can carry it: 422 with the reason, not 500.
    FreightRate.objects.filter(mode="ocean").delete()
    refused = api.get(options_url(shipment))
    assert refused.status_code == 422
    assert "UN3480" in refused.json()["load"][0] and "send it by sea or road" in refused.json()["load"][0]


def test_thirty_crates_are_planned_by_floor_not_volume(coordinator, api_as, make_shipment, rates):
    crates = part(
        part_number="CRATE-2x1x1",
        category="other",
        unit_weight_kg=Decimal("400"),
        length_cm=Decimal("200"),
        width_cm=Decimal("100"),
        height_cm=Decimal("100"),
    )
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=crates, quantity=30)
    body = api_as(coordinator).get(options_url(shipment)).json()
    ocean = next(o for o in body["options"] if o["mode"] == "ocean")
    # By volume 60 m³ fit one 40HC (64.6 m³ usable): 2,400. By floor, not stackable, a 20GP stands 5
    # crates and a 40GP or 40HC 12 (6 rows of 2 m × 2 across): 3 × 40GP = 6,600 is the cheapest
    # (2 × 40GP + 2 × 20GP = 7,200; 6 × 20GP = 8,400; 2 × 40GP + 1 × 20GP holds only 29).
    # LCL is not offered above 15 m³.
    assert ocean["ocean_plan"]["containers"] == {"40GP": 3}
    assert ocean["cost"] == "6600.00"


def test_a_227_cm_rack_keeps_a_door_clearance(coordinator, api_as, make_shipment, nvl72, rates):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=nvl72, quantity=1)
    ocean = next(
        o for o in api_as(coordinator).get(options_url(shipment)).json()["options"] if o["mode"] == "ocean"
    )
    # 2.27 m against a 2.27 m standard door leaves 0 cm; with 5 cm kept only the 40HC (2,400) takes it.
    assert ocean["ocean_plan"]["containers"] == {"40HC": 1} and ocean["ocean_plan"]["fcl_cost"] == "2400.00"


def test_a_line_without_weight_or_dimensions_is_refused_by_name(
    coordinator, api_as, make_shipment, gpu_server, rates
):
    blank = part(part_number="NO-FIGURES", name="Unmeasured server", category="server", hs_code="847150")
    type(blank).objects.filter(pk=blank.pk).update(unit_weight_kg=0, length_cm=0)
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    services.line_add(shipment=shipment, part=blank, quantity=10)
    response = api_as(coordinator).get(options_url(shipment))
    # Before: the 10 servers were left out and 1 DGX priced alone. Now: refused, naming line 2.
    assert response.status_code == 422
    assert response.json()["lines"] == [
        "line 2 (10 × NVIDIA Unmeasured server, P/N NO-FIGURES): no weight and no dimensions"
    ]


def test_mixed_currency_rates_are_a_conflict(coordinator, api_as, make_shipment, gpu_server, rates):
    air, _ocean = rates
    FreightRate.objects.filter(pk=air.pk).update(currency="EUR")
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    response = api_as(coordinator).get(options_url(shipment))
    assert response.status_code == 409
    assert "several currencies (EUR, USD)" in response.json()["rates"][0]


@pytest.mark.parametrize("state", [ShipmentStatus.IN_TRANSIT, ShipmentStatus.DELIVERED])
def test_booked_shipment_shows_what_was_booked(
    state, coordinator, api_as, make_shipment, gpu_server, rates, hub, datacentre
):
    today = timezone.localdate()
    shipment = make_shipment(
        ready_date=today - dt.timedelta(days=20), required_by=today - dt.timedelta(days=5)
    )
    services.line_add(shipment=shipment, part=gpu_server, quantity=2)
    services.leg_add(
        shipment=shipment,
        fields={
            "role": "main",
            "origin": hub,
            "destination": datacentre,
            "mode": "air",
            "carrier": "Cathay Cargo",
            "planned_departure": today - dt.timedelta(days=12),
            "planned_arrival": today - dt.timedelta(days=8),
        },
    )
    Shipment.objects.filter(pk=shipment.pk).update(status=state, freight_charge=Decimal("3404.10"))
    body = api_as(coordinator).get(options_url(shipment)).json()
    # Not today's options marked late: the booking and its recorded charge.
    assert body["options"] == [] and body["recommendation"] is None
    assert body["booked"]["freight_charge"] == "3404.10" and body["booked"]["mode"] == "air"
    assert body["booked"]["legs"][0]["carrier"] == "Cathay Cargo"
    assert "Freight charge recorded: 3,404.10 USD." in body["message"]


def test_battery_figures_need_a_part_with_batteries():
    from django.core.exceptions import ValidationError

    # The database refuses it too (check constraint); full_clean says which field to fix.
    cabinet = part(part_number="BAT-1")
    cabinet.lithium_battery_packing = "batteries_alone"
    cabinet.lithium_battery_wh = Decimal("2900")
    with pytest.raises(ValidationError) as error:
        cabinet.full_clean()
    assert "contains_lithium_batteries" in error.value.message_dict
    cabinet.contains_lithium_batteries = True
    cabinet.lithium_battery_net_kg = cabinet.unit_weight_kg + 1
    with pytest.raises(ValidationError, match="cannot weigh more than the unit"):
        cabinet.full_clean()
