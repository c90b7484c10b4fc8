"""Issue 11: a consolidation priced leg by leg (freight.plan_route), worked by hand.

Demo rates (apps/shipments/demo.py), all USD:
- TW → SG air 2.10/kg (min 150, 3 days); ocean LCL 40/m³ or 30/t (min 100), 20GP 650, 7 days.
- MX → SG air 5.80/kg (min 300, 6 days); ocean LCL 85/m³ or 60/t (min 200), 20GP 2,900, 35 days.
- SG → IN air 1.90/kg (min 150, 2 days); ocean LCL 40/m³ or 30/t (min 100), 20GP 600, 7 days.
Goods as in demo B: 4 server crates 130 × 90 × 85 cm, 165 kg (from Taiwan), one switch pallet
120 × 100 × 60 cm, 96 kg (from Mexico).
"""

import datetime as dt
from decimal import Decimal as D

import pytest

from apps.shipments.engines import freight as f

DAY = dt.date(2026, 12, 1)
VALID = {"valid_from": dt.date(2026, 1, 1), "valid_to": dt.date(2027, 12, 31), "currency": "USD"}
OCEAN = {"price_per_tonne": D(30), "minimum_charge": D(100), "price_per_cbm": D(40), **VALID}


def boxes(p20, p40, p40hc):
    return {"20GP": D(p20), "40GP": D(p40), "40HC": D(p40hc)}


RATES = [
    f.Rate("air", "TW", "SG", transit_days=3, price_per_kg=D("2.10"), minimum_charge=D(150), **VALID),
    f.Rate("ocean", "TW", "SG", transit_days=7, container_prices=boxes(650, 1100, 1200), **OCEAN),
    f.Rate("air", "MX", "SG", transit_days=6, price_per_kg=D("5.80"), minimum_charge=D(300), **VALID),
    f.Rate(
        "ocean",
        "MX",
        "SG",
        transit_days=35,
        container_prices=boxes(2900, 4000, 4200),
        **(OCEAN | {"price_per_cbm": D(85), "price_per_tonne": D(60), "minimum_charge": D(200)}),
    ),
    f.Rate("air", "SG", "IN", transit_days=2, price_per_kg=D("1.90"), minimum_charge=D(150), **VALID),
    f.Rate("ocean", "SG", "IN", transit_days=7, container_prices=boxes(600, 850, 900), **OCEAN),
    f.Rate("air", "TW", "IN", transit_days=5, price_per_kg=D("4.20"), minimum_charge=D(250), **VALID),
]
SERVERS = f.Piece(D(130), D(90), D(85), D(165), quantity=4, category="server", label="line 1")
SWITCHES = f.Piece(D(120), D(100), D(60), D(96), category="network_switch", label="package 5")


def route(ready=DAY):
    return [
        f.RouteLeg(1, "inbound", "TW", "SG", (SERVERS,), ready, "Leg 1"),
        f.RouteLeg(2, "inbound", "MX", "SG", (SWITCHES,), ready, "Leg 2"),
        f.RouteLeg(3, "main", "SG", "IN", (SERVERS, SWITCHES), ready, "Leg 3"),
    ]


def chosen(plan, sequence):
    return next(leg.chosen for leg in plan.legs if leg.sequence == sequence)


def test_each_leg_on_its_own_lane_with_a_loose_date():
    # Required 20 Dec; the fastest main carriage (SG → IN air) takes 2 days: at the hub by 18 Dec.
    plan = f.plan_route(route(), RATES, dt.date(2026, 12, 20), hub_name="SG bonded hub")
    # Leg 1 TW → SG, 4 crates. Air: gross 4 × 165 = 660 kg; volumetric 4 × 130 × 90 × 85 / 6,000
    #   = 663 kg → 663.0 × 2.10 = 1,392.30. Ocean LCL: 4 × 0.9945 = 3.978 m³ × 40 = 159.12;
    #   0.66 t × 30 = 19.80; min 100 → 159.12 (20GP 650), arriving 1 + 7 = 8 Dec ≤ 18 Dec: ocean.
    leg1 = chosen(plan, 1)
    assert (leg1.mode, leg1.cost, leg1.arrival) == ("ocean", D("159.12"), dt.date(2026, 12, 8))
    assert {o.mode: o.cost for o in plan.legs[0].options} == {"ocean": D("159.12"), "air": D("1392.30")}
    # Leg 2 MX → SG, 1 pallet. Ocean LCL: 0.72 m³ × 85 = 61.20, 0.096 t × 60 = 5.76, min 200 → 200.00
    #   but 35 days: 5 Jan, late. Air: volumetric 120 × 100 × 60 / 6,000 = 120 kg > 96 gross
    #   → 120.0 × 5.80 = 696.00, arriving 7 Dec: air.
    leg2 = chosen(plan, 2)
    assert (leg2.mode, leg2.cost, leg2.arrival) == ("air", D("696.00"), dt.date(2026, 12, 7))
    # Leg 3 SG → IN leaves when both are at the hub: max(8, 7) = 8 Dec. All pieces: ocean LCL
    #   3.978 + 0.72 = 4.698 m³ × 40 = 187.92; 0.756 t × 30 = 22.68 → 187.92, arriving 15 Dec ≤ 20
    #   Dec; air 663 + 120 = 783 kg × 1.90 = 1,487.70. Ocean.
    leg3 = chosen(plan, 3)
    assert leg3.departure == dt.date(2026, 12, 8)
    assert (leg3.mode, leg3.cost, leg3.arrival) == ("ocean", D("187.92"), dt.date(2026, 12, 15))
    # Total 159.12 + 696.00 + 187.92 = 1,043.04 USD, against 783 × 4.20 = 3,288.60 TW → IN air.
    assert (plan.cost, plan.currency, plan.arrival, plan.on_time) == (
        D("1043.04"),
        "USD",
        dt.date(2026, 12, 15),
        True,
    )
    assert plan.main == 3 and plan.hub_handling is None
    assert "No hub handling charge is recorded for SG bonded hub" in plan.hub_handling_note
    assert "Route total: 159.12 + 696.00 + 187.92 = 1,043.04 USD" in plan.reasons[-1]


def test_a_tight_date_flies_the_main_carriage():
    # Required 12 Dec: at the hub by 10 Dec. Leg 1 ocean arrives 8 Dec (159.12), leg 2 air 7 Dec
    # (696.00); leg 3 leaves 8 Dec: ocean would arrive 15 Dec (late), air 10 Dec: 1,487.70.
    # Total 159.12 + 696.00 + 1,487.70 = 2,342.82 USD.
    plan = f.plan_route(route(), RATES, dt.date(2026, 12, 12))
    assert [(leg.chosen.mode, leg.chosen.cost) for leg in plan.legs] == [
        ("ocean", D("159.12")),
        ("air", D("696.00")),
        ("air", D("1487.70")),
    ]
    assert plan.cost == D("2342.82") and plan.arrival == dt.date(2026, 12, 10) and plan.on_time
    ocean_main = next(o for o in plan.legs[2].options if o.mode == "ocean")
    assert ocean_main.on_time is False and ocean_main.arrival == dt.date(2026, 12, 15)


def test_hub_handling_is_added_and_legs_keep_their_dates():
    legs = route()
    legs[1] = f.RouteLeg(2, "inbound", "MX", "SG", (SWITCHES,), dt.date(2026, 11, 20), "Leg 2")
    plan = f.plan_route(legs, RATES, dt.date(2026, 12, 12), hub_handling=D("80"), hub_handling_currency="USD")
    # Leg 2 leaves 20 Nov: air arrives 26 Nov. Same choices otherwise: 2,342.82 + 80 = 2,422.82.
    assert plan.legs[1].departure == dt.date(2026, 11, 20)
    assert plan.legs[1].chosen.arrival == dt.date(2026, 11, 26)
    assert plan.cost == D("2422.82")


def test_late_everywhere_takes_the_earliest_and_says_so():
    plan = f.plan_route(route(), RATES, dt.date(2026, 12, 3))
    # At the hub by 1 Dec: impossible; leg 1 air 4 Dec, leg 2 air 7 Dec; leg 3 air 7 → 9 Dec.
    assert [leg.chosen.mode for leg in plan.legs] == ["air", "air", "air"]
    assert plan.arrival == dt.date(2026, 12, 9) and plan.on_time is False
    assert "6 days after 2026-12-03" in plan.reasons[-1]


def test_a_leg_without_a_rate_is_named():
    legs = [*route(), f.RouteLeg(4, "inbound", "US", "SG", (SWITCHES,), DAY, "Leg 4")]
    with pytest.raises(f.NoRateError, match=r"Leg 4 \(US → SG\): no air, ocean or road rate"):
        f.plan_route(legs, RATES, dt.date(2026, 12, 20))


def test_legs_in_several_currencies_are_a_conflict():
    eur = [r if r.origin_country != "MX" else f.Rate(**{**r.__dict__, "currency": "EUR"}) for r in RATES]
    with pytest.raises(f.RateTableConflict, match=r"several currencies \(EUR, USD\)"):
        f.plan_route(route(), eur, dt.date(2026, 12, 20))


def test_an_inbound_leg_without_lines_is_not_priced():
    legs = route()
    legs[1] = f.RouteLeg(2, "inbound", "MX", "SG", (), DAY, "Leg 2")
    plan = f.plan_route(legs, RATES, dt.date(2026, 12, 20))
    assert plan.legs[1].chosen is None and "carries no lines" in plan.legs[1].reasons[0]
