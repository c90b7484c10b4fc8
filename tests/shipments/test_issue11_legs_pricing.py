"""Issue 11, "Consolidation is a route, not a label": a shipment with inbound legs is priced leg by
leg on each leg's own lane and dates, and what was booked is stored at booking.

Rates are the demo's (apps/shipments/demo.py RATES), all USD:
- TW → SG air 2.10/kg (min 150, 3 days); ocean LCL 40/m³ or 30/t (min 100), 20GP 650, 7 days.
- MX → SG air 5.80/kg (min 300, 6 days); ocean LCL 85/m³ or 60/t (min 200), 20GP 2,900, 35 days.
- SG → IN air 1.90/kg (min 150, 2 days); ocean LCL 40/m³ or 30/t (min 100), 20GP 600, 7 days.
- TW → IN air 4.20/kg (min 250, 5 days): what the shipment was priced on before (its lane).
Goods as in demo B: four server crates 130 × 90 × 85 cm, 165 kg, from Taiwan; one switch pallet
120 × 100 × 60 cm, 96 kg, from Mexico. Per crate: volume 0.9945 m³, volumetric 994,500 / 6,000
= 165.75 kg; the pallet: 0.72 m³, volumetric 720,000 / 6,000 = 120 kg.
"""

import datetime as dt
from decimal import Decimal as D

import pytest
from django.template.loader import render_to_string
from django.utils import timezone

from apps.accounts.roles import Role
from apps.shipments import services
from apps.shipments.booked_freight import booked_freight_snapshot, store_on_booking
from apps.shipments.demo import VALID, load_rates
from apps.shipments.disclosure import freight_plan_for
from apps.shipments.hooks import Entered, run_on_enter
from apps.shipments.models import (
    DestinationTax,
    FreightRate,
    HubHandlingRate,
    Shipment,
    ShipmentStatus,
    Site,
    TariffRate,
)
from apps.shipments.presenters import freight_plan_data
from tests.factories import PartFactory, UserFactory

from .conftest import crate

pytestmark = pytest.mark.django_db


def url(shipment):
    return f"/api/v1/shipments/{shipment.reference}/freight-options/"


@pytest.fixture
def demo_rates(db):
    load_rates()  # the demo's rate table
    TariffRate.objects.create(destination_country="IN", hs_prefix="8471", duty_rate=D("0"))
    TariffRate.objects.create(destination_country="IN", hs_prefix="8517", duty_rate=D("0.20"))
    DestinationTax.objects.create(
        country="IN", vat_name="IGST", vat_rate=D("0.18"), levy_on_duty_rate=D("0.10"), brokerage_fee=D("350")
    )


@pytest.fixture
def consolidation(make_shipment, gpu_server, factory_site, hub, datacentre, supplier, demo_rates):
    """Demo B as a draft: servers TW → hub, switches MX → hub (both leaving today), hub → Chennai."""
    mexico = Site.objects.create(
        owner=supplier, name="Jabil GDL", kind="factory", city="Zapopan", country="MX"
    )
    switch = PartFactory(
        part_number="MQM9700",
        category="network_switch",
        hs_code="851762",
        is_serialised=False,
        unit_value=D("30000"),
        unit_weight_kg=D("24"),
        length_cm=D("60"),
        width_cm=D("45"),
        height_cm=D("10"),
    )

    def build(required_in_days: int):
        today = timezone.localdate()
        shipment = make_shipment(mode="multimodal", required_by=today + dt.timedelta(days=required_in_days))
        serials = ["S1", "S2", "S3", "S4"]
        servers = services.line_add(shipment=shipment, part=gpu_server, quantity=4, serials=serials)
        switches = services.line_add(shipment=shipment, part=switch, quantity=4)
        dims = {
            "length_cm": D(130),
            "width_cm": D(90),
            "height_cm": D(85),
            "gross_kg": D(165),
            "net_kg": D(135),
        }
        for serial in serials:
            services.package_add(
                shipment=shipment, fields=crate(**dims), items=[(servers, 1)], serials=[serial]
            )
        pallet = {"package_type": "pallet", "length_cm": D(120), "width_cm": D(100), "height_cm": D(60)}
        services.package_add(
            shipment=shipment, fields=crate(**pallet, gross_kg=D(96), net_kg=D(58)), items=[(switches, 4)]
        )
        for origin, line, mode, carrier in (
            (factory_site, servers, "air", "EVA Air Cargo"),
            (mexico, switches, "air", "Lufthansa Cargo"),
        ):
            services.leg_add(
                shipment=shipment,
                fields={
                    "role": "inbound",
                    "origin": origin,
                    "destination": hub,
                    "mode": mode,
                    "carrier": carrier,
                },
                lines=[line],
            )
        services.leg_add(
            shipment=shipment,
            fields={
                "role": "main",
                "origin": hub,
                "destination": datacentre,
                "mode": "air",
                "carrier": "Singapore Airlines Cargo",
            },
        )
        return Shipment.objects.get(pk=shipment.pk)

    return build


def chosen(body, sequence):
    leg = next(leg for leg in body["route"]["legs"] if leg["sequence"] == sequence)
    return leg["chosen"]["mode"], leg["chosen"]["cost"], leg["chosen"]["arrival"]


def day(n):
    return (timezone.localdate() + dt.timedelta(days=n)).isoformat()


def test_the_consolidation_is_priced_leg_by_leg(consolidation, coordinator, api_as):
    # Required in 19 days; the fastest SG → IN (air) takes 2: both at the hub by day 17.
    shipment = consolidation(19)
    response = api_as(coordinator).get(url(shipment))
    assert response.status_code == 200, response.content
    body = response.json()
    # Leg 1, TW → SG, the 4 crates, leaving today. Air: gross 660 kg, volumetric 4 × 165.75 = 663 kg
    #   → 663.0 × 2.10 = 1,392.30. Ocean LCL: 4 × 0.9945 = 3.978 m³ × 40 = 159.12 (0.66 t × 30 =
    #   19.80; min 100; 20GP 650) → 159.12, at the hub on day 7 ≤ 17: ocean.
    assert chosen(body, 1) == ("ocean", "159.12", day(7))
    leg1 = body["route"]["legs"][0]
    assert sorted((o["mode"], o["cost"]) for o in leg1["options"]) == [
        ("air", "1392.30"),
        ("ocean", "159.12"),
    ]
    assert leg1["pieces_labels"] == ["package 1", "package 2", "package 3", "package 4"]
    # Leg 2, MX → SG, the pallet. Ocean: 0.72 m³ × 85 = 61.20, 0.096 t × 60 = 5.76, min 200 →
    #   200.00, but 35 days (day 35 > 17). Air: 120 kg volumetric > 96 gross → 120.0 × 5.80 =
    #   696.00, day 6: air.
    assert chosen(body, 2) == ("air", "696.00", day(6))
    # Leg 3, SG → IN, everything, leaving when both are at the hub: day max(7, 6) = 7. Ocean LCL:
    #   3.978 + 0.72 = 4.698 m³ × 40 = 187.92 (0.756 t × 30 = 22.68) → 187.92, day 14 ≤ 19.
    #   Air: 663 + 120 = 783 kg × 1.90 = 1,487.70.
    assert chosen(body, 3) == ("ocean", "187.92", day(14))
    assert body["route"]["legs"][2]["departure"] == day(7)
    # Total 159.12 + 696.00 + 187.92 = 1,043.04 USD (the TW → IN lane alone: 783 × 4.20 = 3,288.60).
    assert (body["route"]["cost"], body["route"]["currency"], body["route"]["on_time"]) == (
        "1043.04",
        "USD",
        True,
    )
    assert "No hub handling charge is recorded for SG bonded hub" in body["route"]["hub_handling_note"]
    # The customs value counts the carriage to the place of importation (India, CVR 2007 rule
    # 10(2)(a)): both inbound legs, the hub's handling (none recorded here) and the main carriage,
    # 159.12 + 696.00 + 187.92 = 1,043.04. Of it 696.00 flew (leg 2), far under the 20 % cap.
    assert body["landed_cost"]["freight"] == "1043.04"
    assert body["landed_cost"]["customs_freight"] == "1043.04"
    assert (
        "Freight = 159.12 leg 1 (inbound, ocean) + 696.00 leg 2 (inbound, air) + 187.92 leg 3 "
        "(main, ocean) = 1,043.04 USD: the carriage to the place of importation"
    ) in " ".join(body["landed_cost"]["explanation"])
    assert body["recommendation"] is None and body["options"] == []


def test_a_tight_date_flies_the_main_carriage(consolidation, coordinator, api_as):
    # Required in 11 days: at the hub by day 9. Leg 1 ocean day 7 (159.12), leg 2 air day 6
    # (696.00); leg 3 leaves day 7: ocean day 14 is late, air day 9: 1,487.70.
    # Total 159.12 + 696.00 + 1,487.70 = 2,342.82 USD.
    body = api_as(coordinator).get(url(consolidation(11))).json()
    assert [chosen(body, n)[:2] for n in (1, 2, 3)] == [
        ("ocean", "159.12"),
        ("air", "696.00"),
        ("air", "1487.70"),
    ]
    assert body["route"]["cost"] == "2342.82"
    # India counts air freight at most at 20 % of FOB: 4 × 373,000 + 4 × 30,000 = 1,612,000 USD,
    # cap 322,400 — far above the 696.00 + 1,487.70 = 2,183.70 flown; with the 159.12 by sea
    # the whole 2,342.82 counts.
    assert body["landed_cost"]["customs_freight"] == "2342.82"


def test_the_route_is_on_the_page(consolidation, coordinator, browser_as):
    shipment = consolidation(19)
    page = browser_as(coordinator).get(f"/shipments/{shipment.reference}/freight/")
    if page.status_code == 404:
        pytest.skip("freight panel served elsewhere")
    text = page.content.decode()
    assert 'id="freight-route"' in text and "1,043.04 USD" in text and "chosen" in text


def test_partners_read_the_route_by_the_disclosure_rules(consolidation, supplier_user, customer, api_as):
    shipment = consolidation(19)
    supplier_body = api_as(supplier_user).get(url(shipment)).json()
    route = supplier_body["route"]
    assert "cost" not in route and "reasons" not in route
    leg = route["legs"][0]
    assert (
        "cost" not in leg["chosen"] and "breakdown" not in leg["chosen"] and leg["chosen"]["mode"] == "ocean"
    )
    assert "1043" not in str(supplier_body) and "landed_cost_note" in supplier_body
    buyer = UserFactory(organisation=customer, role=Role.PARTNER, username="buyer")
    buyer_body = api_as(buyer).get(url(shipment)).json()
    assert buyer_body["route"]["cost"] == "1043.04" and "reasons" not in buyer_body["route"]
    assert "breakdown" not in buyer_body["route"]["legs"][0]["chosen"]
    assert buyer_body["landed_cost"]["freight"] == "1043.04"
    # The panel renders the supplier's projection: the legs and modes, no amount.
    plan = freight_plan_for(freight_plan_data(shipment), shipment, supplier_user)
    html = render_to_string("shipments/_freight_panel.html", {"shipment": shipment, "plan": plan})
    assert 'id="freight-route-legs"' in html and "Ocean" in html and "USD" not in html


def test_without_inbound_legs_the_lane_is_priced_as_before(
    make_shipment, gpu_server, demo_rates, coordinator, api_as
):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    body = api_as(coordinator).get(url(shipment)).json()
    # One DGX on the TW → IN lane, due in 30 days: ocean (18 days) LCL 1.3 × 0.85 × 1.1 = 1.2155 m³
    # × 65 = 79.01, 0.13 t × 45 = 5.85, minimum 150 → 150.00; air 130 × 85 × 110 / 6,000 = 202.58
    # → 203.0 kg × 4.20 = 852.60.
    assert "route" not in body and body["recommendation"]["option"]["cost"] == "150.00"
    assert sorted(o["cost"] for o in body["options"]) == ["150.00", "852.60"]


def test_booking_stores_the_legs_as_booked(consolidation, coordinator):
    shipment = consolidation(19)
    # The hook is registered for "booked" (ShipmentsConfig.ready()).
    run_on_enter(Entered(shipment, ShipmentStatus.APPROVED, ShipmentStatus.BOOKED, coordinator, False, ""))
    shipment.refresh_from_db()
    # Each leg records "air" and its carrier: booked by air at booking's prices, not the cheaper
    # ocean the plan recommends: 1,392.30 + 696.00 + 1,487.70 = 3,576.00 USD.
    booked = shipment.booked_freight
    assert booked["kind"] == "route" and booked["cost"] == "3576.00"
    assert [(leg["option"]["carrier"], leg["option"]["cost"]) for leg in booked["legs"]] == [
        ("EVA Air Cargo", "1392.30"),
        ("Lufthansa Cargo", "696.00"),
        ("Singapore Airlines Cargo", "1487.70"),
    ]
    assert booked["legs"][0]["chosen_by"] == "the leg's booked mode (air, EVA Air Cargo)"
    assert (shipment.booked_freight_cost, shipment.booked_freight_currency) == (D("3576.00"), "USD")
    # A release from a hold back to booked keeps what was stored.
    FreightRate.objects.update(price_per_kg=D("9"))
    store_on_booking(Entered(shipment, ShipmentStatus.ON_HOLD, ShipmentStatus.BOOKED, coordinator, True, ""))
    shipment.refresh_from_db()
    assert shipment.booked_freight_cost == D("3576.00")


def test_the_booked_view_shows_the_cost_to_the_customer_not_the_supplier(
    consolidation, coordinator, supplier_user, customer, api_as
):
    shipment = consolidation(19)
    store_on_booking(
        Entered(shipment, ShipmentStatus.APPROVED, ShipmentStatus.BOOKED, coordinator, False, "")
    )
    Shipment.objects.filter(pk=shipment.pk).update(status=ShipmentStatus.IN_TRANSIT)
    staff = api_as(coordinator).get(url(shipment)).json()["booked"]
    assert (
        staff["booked_freight_cost"] == "3576.00"
        and staff["booked_freight"]["legs"][2]["option"]["breakdown"]
    )
    buyer = UserFactory(organisation=customer, role=Role.PARTNER, username="buyer")
    mine = api_as(buyer).get(url(shipment)).json()["booked"]
    assert mine["booked_freight_cost"] == "3576.00" and mine["booked_freight"]["cost"] == "3576.00"
    assert "breakdown" not in mine["booked_freight"]["legs"][0]["option"]
    theirs = api_as(supplier_user).get(url(shipment)).json()
    assert "booked_freight_cost" not in theirs["booked"] and "cost" not in theirs["booked"]["booked_freight"]
    assert "cost" not in theirs["booked"]["booked_freight"]["legs"][0]["option"]
    assert "3576" not in str(theirs) and "1392" not in str(theirs)
    shipment.refresh_from_db()
    for user, shown in ((coordinator, True), (supplier_user, False)):
        plan = freight_plan_for(freight_plan_data(shipment), shipment, user)
        html = render_to_string("shipments/_freight_panel.html", {"shipment": shipment, "plan": plan})
        assert 'id="freight-booked-legs"' in html and "EVA Air Cargo" in html
        assert ("Freight cost at booking: 3,576.00 USD" in html) is shown


def test_a_single_lane_booking_stores_the_mode_booked(make_shipment, gpu_server, demo_rates):
    shipment = make_shipment(mode="ocean")
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    data, cost, currency = booked_freight_snapshot(shipment)
    # One DGX by sea TW → IN: LCL 1.3 × 0.85 × 1.1 = 1.2155 m³ × 65 = 79.01; 0.13 t × 45 = 5.85;
    # minimum 150 → 150.00 (20GP 1,400).
    assert (data["kind"], data["chosen_by"], cost, currency) == (
        "option",
        "the leg's booked mode (ocean)",
        D("150.00"),
        "USD",
    )


def test_a_booking_that_cannot_be_priced_still_books(make_shipment, gpu_server, db):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    data, cost, _ = booked_freight_snapshot(shipment)
    assert data["kind"] == "not_priced" and "TW → IN" in data["not_priced"] and cost is None


def test_the_hub_charges_handling_by_gross_weight_with_a_minimum(consolidation, coordinator, api_as, hub):
    # Issue 11: "inbound legs, hub handling, main carriage". The SG hub charges 0.25 USD per gross
    # kg, at least 150. Gross through the hub: 4 crates × 165 + the pallet 96 = 756 kg
    # → 756 × 0.25 = 189.00. Route: 159.12 + 696.00 + 187.92 + 189.00 = 1,232.04 USD.
    HubHandlingRate.objects.create(
        site=hub,
        price_per_kg=D("0.25"),
        minimum_charge=D("150"),
        valid_from=VALID[0],
        valid_to=VALID[1],
    )
    # A rate of another period is not read.
    HubHandlingRate.objects.create(
        site=hub, price_per_kg=D("9"), valid_from=dt.date(2025, 1, 1), valid_to=dt.date(2025, 12, 31)
    )
    shipment = consolidation(19)
    route = api_as(coordinator).get(url(shipment)).json()["route"]
    assert (route["hub_handling"], route["cost"]) == ("189.00", "1232.04")
    assert (
        route["hub_handling_note"]
        == "Hub handling at SG bonded hub: 756 kg gross × 0.25 USD/kg = 189.00 USD."
    )
    # The minimum: 756 × 0.10 = 75.60 < 150 → 150.00.
    HubHandlingRate.objects.filter(price_per_kg=D("0.25")).update(price_per_kg=D("0.10"))
    route = api_as(coordinator).get(url(shipment)).json()["route"]
    assert (route["hub_handling"], route["cost"]) == ("150.00", "1193.04")
    assert "below the minimum of 150.00" in route["hub_handling_note"]


def test_hub_handling_rates_are_listed_with_the_freight_rates_for_operator_staff_only(
    hub, coordinator, supplier_user, browser_as, client
):
    HubHandlingRate.objects.create(
        site=hub, price_per_kg=D("0.18"), minimum_charge=D("95"), valid_from=VALID[0], valid_to=VALID[1]
    )
    page = browser_as(coordinator).get("/freight-rates/").content.decode()
    assert 'id="hub-handling"' in page and "SG bonded hub" in page and "0.18" in page
    client.logout()
    assert browser_as(supplier_user).get("/freight-rates/").status_code == 403
