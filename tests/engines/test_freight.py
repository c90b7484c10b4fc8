from datetime import date
from decimal import Decimal as D

import pytest

from apps.shipments.engines.freight import (
    NoRateError,
    Piece,
    Rate,
    air_chargeable_weight,
    freight_options,
    plan_ocean,
    recommend,
    road_chargeable_weight,
    round_up_half_kg,
    volumetric_weight_kg,
)

ALL_CONTAINERS = {"20GP": D("2000"), "40GP": D("3000"), "40HC": D("3200")}
READY = date(2026, 11, 20)


def dgx(quantity=1, label="DGX"):
    # 130 × 85 × 110 cm = 1,215,500 cm³ = 1.2155 m³; volumetric 1,215,500 / 6,000 = 202.583 kg
    return Piece(
        D(130),
        D(85),
        D(110),
        D(165),
        quantity=quantity,
        value=D(300000) * quantity,
        category="server",
        label=label,
    )


def rack_crate(quantity=1, label="RACK"):
    # 80 × 130 × 231 cm = 2,402,400 cm³ = 2.4024 m³; volumetric 400.4 kg; too tall for a standard door
    return Piece(
        D(80),
        D(130),
        D(231),
        D(450),
        quantity=quantity,
        value=D(20000) * quantity,
        category="rack",
        label=label,
    )


def air(price="4.20", days=6, **kw):
    return Rate("air", "TW", "IN", kw.pop("currency", "USD"), days, price_per_kg=D(price), **kw)


def ocean(days=28, **kw):
    kw.setdefault("container_prices", ALL_CONTAINERS)
    return Rate("ocean", "TW", "IN", kw.pop("currency", "USD"), days, **kw)


# --- chargeable weight -------------------------------------------------------------------------


def test_heavy_crate_is_charged_on_gross_weight():
    crate = Piece(D(120), D(100), D(80), D(250))
    # 120 × 100 × 80 = 960,000 cm³ / 6,000 = 160 kg volumetric < 250 kg gross
    assert volumetric_weight_kg(crate) == D(160)
    weight = air_chargeable_weight([crate])
    assert (weight.gross_kg, weight.volumetric_kg, weight.chargeable_kg) == (D(250), D("160.00"), D("250.0"))
    assert weight.volume_m3 == D("0.960")


def test_dgx_crate_is_charged_on_volume_rounded_up_to_half_kg():
    weight = air_chargeable_weight([dgx()])
    # 1,215,500 / 6,000 = 202.5833… > 165 gross → next 0.5 kg up is 203.0
    assert weight.volumetric_kg == D("202.58")
    assert weight.chargeable_kg == D("203.0")
    assert weight.volume_m3 == D("1.216")  # 1.2155 rounded half up


def test_quantity_multiplies_and_totals_are_rounded_once():
    # 4 × 202.5833 = 810.333 kg → 810.5 (rounding each crate first would give 4 × 203 = 812)
    weight = air_chargeable_weight([dgx(quantity=4)])
    assert weight.gross_kg == D(660)
    assert weight.chargeable_kg == D("810.5")


def test_two_pieces_sum_before_rounding():
    # 100 × 60.06 × 100 = 600,600 cm³ → 100.1 kg each; 200.2 kg → 200.5
    piece = Piece(D(100), D("60.06"), D(100), D(50), quantity=2)
    assert air_chargeable_weight([piece]).chargeable_kg == D("200.5")


@pytest.mark.parametrize(
    "kg, expected", [("250", "250.0"), ("250.2", "250.5"), ("250.5", "250.5"), ("250.51", "251.0")]
)
def test_round_up_to_next_half_kg(kg, expected):
    assert round_up_half_kg(D(kg)) == D(expected)


def test_road_uses_divisor_3000():
    # 960,000 / 3,000 = 320 kg volumetric > 250 kg gross
    assert road_chargeable_weight([Piece(D(120), D(100), D(80), D(250))]).chargeable_kg == D("320.0")


def test_piece_validation_names_the_field_and_label():
    with pytest.raises(ValueError, match=r"Piece 'CR-7': height_cm must be greater than 0 \(got 0\)"):
        Piece(D(120), D(100), D(0), D(250), label="CR-7")
    with pytest.raises(ValueError, match=r"Piece 'CR-7': quantity must be a whole number of at least 1"):
        Piece(D(120), D(100), D(80), D(250), quantity=0, label="CR-7")
    with pytest.raises(TypeError, match="gross_kg must be a Decimal, not float"):
        Piece(D(120), D(100), D(80), 250.5)


# --- ocean plan --------------------------------------------------------------------------------


def load(volume_m3_each, kg_each, quantity, **kw):
    """Cubes of `volume_m3_each` m³ (a 200 × 200 footprint; height = volume / 4 m² ) under 2.27 m."""
    height_cm = D(volume_m3_each) * 1_000_000 / (200 * 200)
    return Piece(D(200), D(200), height_cm, D(kg_each), quantity=quantity, **kw)


def test_cheapest_container_mix_for_40_m3():
    # 40 m³ / 12,000 kg. Usable: 20GP 28.05, 40GP 56.95, 40HC 64.6 m³.
    # One 40GP (3,000) carries it; 2 × 20GP would be 4,000 and one 40HC 3,200.
    plan = plan_ocean([load(8, 2400, 5)], ALL_CONTAINERS)
    assert plan.containers == {"40GP": 1}
    assert plan.chosen == "FCL" and plan.cost == plan.fcl_cost == D("3000.00")
    assert plan.lcl_cost is None
    assert (plan.volume_m3, plan.gross_kg) == (D("40.000"), D(12000))
    assert plan.utilisation == D("0.597")  # 40 / 67


def test_two_20ft_beat_a_dear_40ft():
    # Planned by floor (issue 11): a 200 × 200 cm crate, not stackable, takes one 2.35 m wide row;
    # a 20GP (5.90 m) has 2 such rows, a 40GP (12.03 m) 6. Four crates without a 40HC price and a
    # 40GP at 4,500: 2 × 20GP for 4,000.
    plan = plan_ocean([load(8, 2400, 4)], {"20GP": D(2000), "40GP": D(4500)})
    assert plan.containers == {"20GP": 2} and plan.cost == D("4000.00")
    # Five need 3 × 20GP (6,000) by floor, though 40 m³ is under 2 × 33 m³: one 40GP (4,500) wins.
    plan = plan_ocean([load(8, 2400, 5)], {"20GP": D(2000), "40GP": D(4500)})
    assert plan.containers == {"40GP": 1} and plan.cost == D("4500.00")


def test_payload_bound_load_needs_two_containers():
    # 10 stackable 200 × 200 × 50 cm blocks of 3,000 kg (30,000 kg): a 20GP stands 2 on its floor
    # × (239 - 5 cm clearance) // 50 = 4 high = 8, but its payload takes 28,000 // 3,000 = 9;
    # one 20GP carries 8 → 2 × 20GP.
    plan = plan_ocean([load(2, 3000, 10, stackable=True)], {"20GP": D(2000), "40GP": D(3000)})
    assert plan.containers == {"20GP": 2} and plan.cost == D("4000.00")
    # With only 40' boxes: 6 × 4 = 24 by floor, 26,600 // 3,000 = 8 by payload → 2 × 40GP.
    plan = plan_ocean([load(2, 3000, 10, stackable=True, label="CRATES")], {"40GP": D(3000)})
    assert plan.containers == {"40GP": 2}
    assert "Piece 'CRATES': 8 a 40GP (6 floor positions × 4 high) (payload-bound)" in plan.reasons[0]


def test_rack_crate_taller_than_standard_door_forces_high_cube():
    # 2 crates 2.31 m tall, 4.8 m³: a 20GP (2,000) has the room, but its door is 2.27 m.
    plan = plan_ocean([rack_crate(quantity=2)], ALL_CONTAINERS)
    assert plan.containers == {"40HC": 1} and plan.cost == D("3200.00")
    assert "2.31 m tall piece 'RACK' needs a 40' high cube (door 2.58 m" in plan.reasons[0]


def test_only_the_tall_share_must_go_high_cube():
    # 2 tall racks (80 × 130 cm) + 24 pallets of 120 × 100 × 150 cm, not stackable.
    # Floor: a 40HC stands 1203 // 130 = 9 rows × 235 // 80 = 2 racks = 18; 10 rows of 120 cm ×
    # 2 pallets = 20 pallets. A 20GP: 4 rows × 2 + one turned row of 1 = 9 pallets.
    # No 20GP takes the racks (door 2.27 m); the 40HC holds them (2/18 of its floor) and
    # 17 pallets (8/9 × 20 = 17.8); the 20GP the other 7 of its 9 → 1 × 40HC + 1 × 20GP = 5,200,
    # cheaper than 2 × 40HC (6,400).
    pieces = [rack_crate(quantity=2), Piece(D(120), D(100), D(150), D(500), quantity=24, label="PALLETS")]
    plan = plan_ocean(pieces, {"20GP": D(2000), "40HC": D(3200)})
    assert plan.containers == {"20GP": 1, "40HC": 1} and plan.cost == D("5200.00")


def test_piece_too_tall_for_any_container_door_is_refused():
    tall = Piece(D(100), D(100), D(270), D(500), label="CDU-1")
    with pytest.raises(
        ValueError, match=r"Piece 'CDU-1' is 2.70 m tall; the tallest container door is 2.58 m"
    ):
        plan_ocean([tall], ALL_CONTAINERS)


def test_piece_longer_than_20ft_needs_40ft():
    long_piece = Piece(D(700), D(100), D(100), D(800), label="BUSBAR")
    plan = plan_ocean([long_piece], ALL_CONTAINERS)
    assert plan.containers == {"40GP": 1}
    assert "7.00 m long piece 'BUSBAR' needs a 40' container" in plan.reasons
    with pytest.raises(ValueError, match=r"FCL not possible: no offered container type takes Piece 'BUSBAR'"):
        plan_ocean([long_piece], {"20GP": D(2000)})


def test_lcl_is_priced_per_revenue_ton():
    # 3 m³ / 800 kg at 60 per m³, 50 per tonne, minimum 100: max(180, 40, 100) = 180
    crate = Piece(D(150), D(100), D(200), D(800))
    plan = plan_ocean([crate], {}, D(60), D(50), D(100))
    assert plan.chosen == "LCL" and plan.cost == plan.lcl_cost == D("180.00")
    assert plan.containers == {} and plan.fcl_cost is None and plan.utilisation is None
    assert (
        "greater of 3 m³ × 60.00 = 180.00, 0.8 t × 50.00 = 40.00, minimum 100.00 → 180.00" in plan.reasons[-1]
    )


def test_lcl_minimum_applies_to_a_small_parcel():
    # 0.5 m³ / 100 kg: max(30, 5, 100) = 100
    plan = plan_ocean([Piece(D(100), D(100), D(50), D(100))], {}, D(60), D(50), D(100))
    assert plan.cost == D("100.00")


@pytest.mark.parametrize(
    "per_cbm, chosen, cost", [(D(60), "LCL", D("840.00")), (D(200), "FCL", D("2000.00"))]
)
def test_lcl_against_fcl(per_cbm, chosen, cost):
    # 14 m³ / 3,000 kg: LCL 14 × 60 = 840 < 20GP 2,000; 14 × 200 = 2,800 > 2,000
    plan = plan_ocean([load(7, 1500, 2)], ALL_CONTAINERS, per_cbm, D(50))
    assert (plan.chosen, plan.cost) == (chosen, cost)
    assert plan.fcl_cost == D("2000.00")


def test_lcl_is_not_offered_above_the_cut_off():
    pieces = [load(5, 1000, 4)]  # 20 m³
    plan = plan_ocean(pieces, ALL_CONTAINERS, D(60), D(50))
    assert plan.lcl_cost is None and plan.chosen == "FCL"
    assert "LCL not offered: 20 m³ is over the 15 m³ LCL limit" in plan.reasons
    with pytest.raises(ValueError, match="No ocean option carries this load"):
        plan_ocean(pieces, {}, D(60), D(50))


def test_unknown_container_code_is_refused():
    with pytest.raises(ValueError, match="Unknown container type '45HC'"):
        plan_ocean([dgx()], {"45HC": D(4000)})


# --- rates and options -------------------------------------------------------------------------


def test_rate_validation_and_validity_window():
    with pytest.raises(ValueError, match="air and road rates need price_per_kg"):
        Rate("air", "TW", "IN", "USD", 6)
    with pytest.raises(ValueError, match="origin_country must be an ISO 3166 alpha-2 code"):
        Rate("air", "TWN", "IN", "USD", 6, price_per_kg=D(4))
    rate = air(valid_from=date(2026, 11, 1), valid_to=date(2026, 11, 30))
    assert rate.is_valid_on(date(2026, 11, 1)) and rate.is_valid_on(date(2026, 11, 30))
    assert not rate.is_valid_on(date(2026, 12, 1))


def test_air_option_breakdown_and_dates():
    [option] = freight_options([dgx(quantity=4)], [air()], READY, date(2026, 11, 30))
    # 810.5 kg × 4.20 = 3,404.10
    assert option.cost == D("3404.10") and option.chargeable_kg == D("810.5")
    assert "810.5 kg chargeable × 4.20 USD/kg = 3,404.10 USD" in option.breakdown
    assert (option.departure, option.arrival, option.on_time) == (READY, date(2026, 11, 26), True)
    assert option.pieces_labels == ("DGX",)


def test_minimum_charge_applies():
    # 10 kg × 4.20 = 42.00 < minimum 150
    [option] = freight_options([Piece(D(30), D(30), D(30), D(10))], [air(minimum_charge=D(150))], READY, None)
    assert option.cost == D("150.00") and option.on_time is None
    assert option.pieces_labels == ("#1",)
    assert "below the minimum charge, so 150.00 USD (instead of 42.00)" in option.breakdown


def test_options_are_sorted_by_cost_and_expired_rates_ignored():
    rates = [air(), ocean(), air(price="3.00", valid_to=date(2026, 11, 1), carrier="Old")]
    options = freight_options([dgx(quantity=4), rack_crate(quantity=2)], rates, READY, None)
    assert [(o.mode, o.cost) for o in options] == [("ocean", D("3200.00")), ("air", D("6768.30"))]
    assert options[0].summary() == "Ocean FCL 1×40HC"


def test_no_rate_error_names_the_lane_and_date():
    expired = air(valid_to=date(2026, 11, 30))
    with pytest.raises(NoRateError, match="no air, ocean or road rate for lane TW → IN valid on 2026-12-05"):
        freight_options([dgx()], [expired], date(2026, 12, 5), None)
    with pytest.raises(NoRateError, match="for lane SG → IN valid on 2026-12-05"):
        freight_options([dgx()], [], date(2026, 12, 5), None, origin_country="SG", destination_country="IN")
    assert issubclass(NoRateError, ValueError)


def test_mixed_currencies_are_refused():
    with pytest.raises(ValueError, match=r"several currencies \(EUR, USD\)"):
        freight_options([dgx()], [air(), ocean(currency="EUR")], READY, None)


def test_no_rate_that_can_carry_the_load():
    tall = Piece(D(100), D(100), D(270), D(500), label="CDU-1")
    with pytest.raises(ValueError, match=r"No rate can carry this load: ocean rate .* 2.70 m tall"):
        freight_options([tall], [ocean()], READY, None)


# --- recommendation ----------------------------------------------------------------------------
# 4 DGX crates + 2 rack crates: 9.667 m³, 1,560 kg gross, 1,611.133 kg volumetric.
# Air: 1,611.5 kg × 4.20 = 6,768.30 USD, 6 days. Ocean: racks need a 40HC → 3,200.00 USD, 28 days.
CLUSTER = [dgx(quantity=4), rack_crate(quantity=2)]


def test_ocean_when_time_allows():
    result = recommend(CLUSTER, [air(), ocean()], READY, date(2026, 12, 20))
    assert result.option.mode == "ocean" and result.split is None
    assert result.reasons[0] == (
        "Cheapest option arriving by 2026-12-20: Ocean FCL 1×40HC, 3,200.00 USD, arrives 2026-12-18; "
        "air would cost 6,768.30 USD"
    )
    # Split: DGX by air 810.5 × 4.20 = 3,404.10 + racks 1 × 40HC 3,200.00 = 6,604.10 > 3,200.00
    assert (
        "Splitting would cost 6,604.10 USD, 3,404.10 USD more: air for DGX (Air freight" in result.reasons[1]
    )


def test_air_when_the_required_date_is_close():
    result = recommend(CLUSTER, [air(), ocean()], READY, date(2026, 12, 1))
    assert result.option.mode == "air" and result.option.cost == D("6768.30")
    assert result.reasons[0].startswith("Cheapest option arriving by 2026-12-01: Air freight, 6,768.30 USD")
    assert "ocean would cost 3,200.00 USD but arrive 17 days late" in result.reasons[0]


def test_late_case_picks_the_earliest_arrival_and_says_how_late():
    result = recommend(CLUSTER, [air(), ocean()], READY, date(2026, 11, 24))
    assert result.option.mode == "air" and result.option.on_time is False
    assert result.reasons[0] == (
        "No option arrives by 2026-11-24: the earliest is Air freight, 6,768.30 USD, arrives 2026-11-26, "
        "2 days late"
    )


def test_without_a_required_date_the_cheapest_wins():
    result = recommend(CLUSTER, [air(), ocean()], READY, None)
    assert result.option.mode == "ocean" and result.option.on_time is None
    assert len(result.options) == 2


def test_split_is_cheaper_than_all_air_when_ocean_is_lcl_only():
    # 8 DGX (9.724 m³) + 3 rack crates 80 × 130 × 220 cm, 350 kg (6.864 m³): 16.588 m³ is over the
    # 15 m³ LCL limit, so ocean cannot take everything.
    # All air: volumetric 1,620.667 + 1,144.0 = 2,764.667 > 2,370 gross → 2,765.0 kg × 4.00 = 11,060.00
    # Split: DGX 1,621.0 kg × 4.00 = 6,484.00; racks LCL max(6.864 × 80 = 549.12, 1.05 t × 60 = 63) = 549.12
    # Total 7,033.12, saving 4,026.88.
    racks = Piece(D(80), D(130), D(220), D(350), quantity=3, value=D(30000), category="rack", label="RACK")
    lcl = ocean(days=25, container_prices={}, price_per_cbm=D(80), price_per_tonne=D(60), service="Ocean LCL")
    result = recommend([dgx(quantity=8), racks], [air("4.00", days=5), lcl], READY, date(2026, 12, 20))
    assert result.option is None
    split = result.split
    assert (split.air.cost, split.ocean.cost, split.cost) == (D("6484.00"), D("549.12"), D("7033.12"))
    assert split.arrival == date(2026, 12, 15) and split.on_time is True
    assert split.air.pieces_labels == ("DGX",) and split.ocean.pieces_labels == ("RACK",)
    assert any("LCL not offered: 16.588 m³ is over the 15 m³ LCL limit" in r for r in result.reasons)
    last = result.reasons[-1]
    assert last.startswith(
        "Split shipment instead: air for DGX (Air freight, 6,484.00 USD, arrives 2026-11-25)"
    )
    assert "ocean for RACK (Ocean LCL, 549.12 USD, arrives 2026-12-15)" in last
    # value: 8 × 300,000 = 2,400,000 of 2,430,000 → 99 %
    assert "the air leg carries 99 % of the goods value" in last
    assert "total 7,033.12 USD, 4,026.88 USD less than Air freight" in last


def test_no_split_when_everything_is_air_first():
    result = recommend([dgx(quantity=2)], [air(), ocean()], READY, date(2026, 12, 20))
    assert result.split is None and not any("plit" in r for r in result.reasons)


def test_road_rate_prices_on_road_chargeable_weight():
    # 960,000 cm³ / 3,000 = 320 kg > 250 kg gross; 320.0 × 0.90 = 288.00
    road = Rate("road", "DE", "FR", "EUR", 3, price_per_kg=D("0.90"), service="Road groupage")
    [option] = freight_options([Piece(D(120), D(100), D(80), D(250))], [road], READY, None)
    assert (option.mode, option.chargeable_kg, option.cost) == ("road", D("320.0"), D("288.00"))
    assert "320 kg chargeable × 0.90 EUR/kg = 288.00 EUR" in option.breakdown


def test_no_split_talk_without_both_air_and_ocean_rates():
    result = recommend(CLUSTER, [air()], READY, date(2026, 12, 20))
    assert result.option.mode == "air" and result.split is None
    assert result.reasons == [
        "Cheapest option arriving by 2026-12-20: Air freight, 6,768.30 USD, arrives 2026-11-26"
    ]
