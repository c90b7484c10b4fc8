"""Issue 11, "freight answers that are physically possible": aircraft decks, lithium batteries,
floor-planned containers with a door clearance, and refusals the API can name."""

from datetime import date
from decimal import Decimal as D

import pytest

from apps.shipments.engines.freight import (
    AIRCRAFT_ANY,
    AIRCRAFT_CARGO_ONLY,
    AIRCRAFT_MAIN_DECK,
    BATTERIES_ALONE,
    BATTERIES_IN_EQUIPMENT,
    CannotCarryError,
    FreightError,
    FreightLimits,
    LithiumBatteries,
    MissingFiguresError,
    Piece,
    Rate,
    RateTableConflict,
    air_deck,
    classify_lithium_batteries,
    floor_positions,
    freight_options,
    plan_ocean,
    recommend,
)

READY = date(2026, 11, 20)
HC_ONLY = {"40HC": D(3200)}


def air(**kw):
    return Rate("air", "TW", "IN", kw.pop("currency", "USD"), 5, price_per_kg=D("4.20"), **kw)


def ocean(**kw):
    kw.setdefault("container_prices", {"20GP": D(2000), "40GP": D(3000), "40HC": D(3200)})
    return Rate("ocean", "TW", "IN", kw.pop("currency", "USD"), 28, **kw)


def nvl72(**kw):
    # GB200 NVL72: one rack, 120 × 60 cm, 227 cm tall, 1,360 kg.
    return Piece(D(120), D(60), D(227), D(1360), category="server", label="NVL72", **kw)


def cdu():
    # Row CDU: 240 × 120 cm, 230 cm tall, 3,000 kg.
    return Piece(D(240), D(120), D(230), D(3000), category="cooling_cdu", label="CDU")


# --- aircraft ------------------------------------------------------------------------------------


def test_rack_and_cdu_are_main_deck_freighter_only():
    # Lower deck: 160 cm tall, 317 × 243 cm, 1,500 kg a piece. NVL72 is 227 cm tall (over 160);
    # the CDU 230 cm and 3,000 kg (over 1,500). Main deck: 300 cm, 606 × 243 cm, 6,800 kg: both fit.
    assert air_deck(nvl72())[0] == "main_deck"
    deck, why = air_deck(cdu())
    assert deck == "main_deck"
    assert why == (
        "Piece 'CDU' is 230 cm tall (limit 160 cm), 3,000 kg (limit 1,500 kg a piece), over the "
        "lower-deck limits: main-deck freighter only"
    )
    [option] = freight_options([nvl72()], [air()], READY)
    assert option.aircraft == AIRCRAFT_MAIN_DECK
    assert "Piece 'NVL72' is 227 cm tall (limit 160 cm), over the lower-deck limits" in option.breakdown[0]
    # A DGX-sized crate flies in any belly.
    small = Piece(D(130), D(85), D(110), D(165), label="DGX")
    assert freight_options([small], [air()], READY)[0].aircraft == AIRCRAFT_ANY


def test_over_main_deck_limits_needs_a_charter_or_the_sea():
    # 7,500 kg is over the 6,800 kg main-deck piece limit: no air option; a 20GP (28,000 kg) takes it.
    transformer = Piece(D(200), D(150), D(150), D(7500), label="TX")
    assert air_deck(transformer) == (
        "charter",
        "Piece 'TX' is 7,500 kg (limit 6,800 kg a piece), over main-deck freighter limits: it needs "
        "an outsize charter (An-124 class) or must go by sea",
    )
    [option] = freight_options([transformer], [air(), ocean()], READY)
    assert option.mode == "ocean" and option.ocean_plan.containers == {"20GP": 1}
    with pytest.raises(CannotCarryError, match=r"air rate .* outsize charter"):
        freight_options([transformer], [air()], READY)


def test_limits_are_configurable():
    limits = FreightLimits(lower_deck_max_height_cm=D(230))
    assert air_deck(nvl72(), limits)[0] == "lower_deck"
    with pytest.raises(ValueError, match="lower_deck_max_piece_kg must be greater than 0"):
        FreightLimits(lower_deck_max_piece_kg=D(0))


# --- lithium batteries ---------------------------------------------------------------------------


def test_battery_cabinet_is_un3480_and_not_offered_by_air():
    # Batteries on their own: UN3480, PI965. 1,000 kg of batteries over 100 Wh in one package is
    # far over the 35 kg net PI965 Section IA allows on cargo aircraft: sea or road only.
    goods = classify_lithium_batteries(LithiumBatteries(BATTERIES_ALONE, D(3000), D(1000)))
    assert goods.text == "UN3480 Lithium ion batteries, class 9, PI965 Section IA"
    assert goods.cargo_aircraft_only and goods.declaration and "35 kg net" in goods.air_forbidden
    cabinet = Piece(
        D(85), D(65), D(200), D(1300), category="ups_battery", label="HPL", dangerous_goods=(goods,)
    )
    [option] = freight_options([cabinet], [air(), ocean()], READY)
    assert option.mode == "ocean"
    with pytest.raises(CannotCarryError, match=r"holds UN3480 .* send it by sea or road"):
        freight_options([cabinet], [air()], READY)


def test_server_coin_cell_is_pi967_section_ii():
    # A 0.7 Wh RTC cell (3 g) in a server: UN3481, PI967 Section II (≤ 100 Wh, ≤ 5 kg a package).
    goods = classify_lithium_batteries(
        LithiumBatteries(BATTERIES_IN_EQUIPMENT, D("0.7"), D("0.003")), units=8
    )
    assert goods.text == "UN3481 Lithium ion batteries contained in equipment, class 9, PI967 Section II"
    assert not goods.cargo_aircraft_only and not goods.air_forbidden and not goods.declaration
    # Unknown watt-hours inside equipment: Section II, saying it was assumed.
    assumed = classify_lithium_batteries(LithiumBatteries(BATTERIES_IN_EQUIPMENT))
    assert assumed.section == "II" and "battery watt-hours not recorded" in assumed.notes


def test_large_ups_battery_in_equipment_is_section_i_cargo_aircraft_only():
    # 1,150 Wh battery, 11 kg net in one UPS: PI967 Section I; 11 kg > 5 kg passenger limit → cargo
    # aircraft only (≤ 35 kg). Four UPS in one package: 44 kg > 35 kg → not by air.
    ups = LithiumBatteries(BATTERIES_IN_EQUIPMENT, D(1150), D(11))
    one = classify_lithium_batteries(ups)
    assert (one.section, one.cargo_aircraft_only, one.air_forbidden) == ("I", True, "")
    piece = Piece(D(75), D(44), D(13), D(60), label="UPS", dangerous_goods=(one,))
    assert freight_options([piece], [air()], READY)[0].aircraft == AIRCRAFT_CARGO_ONLY
    four = classify_lithium_batteries(ups, units=4)
    assert four.air_forbidden.startswith("44 kg of lithium batteries in one package")


# --- containers by floor, with a door clearance ----------------------------------------------------


def test_thirty_crates_need_three_high_cubes_not_one():
    # 30 crates of 2 × 1 × 1 m = 60 m³: one 40HC's 76 m³ (64.6 usable) "held" them by volume.
    # By floor: 12.03 × 2.35 m takes 6 rows of 2 m × 2 across (1 m sides) = 12 crates; not
    # stackable → 12 + 12 + 6 = 3 × 40HC = 9,600.
    assert floor_positions(D(1203), D(235), D(200), D(100)) == 12
    crates = Piece(D(200), D(100), D(100), D(500), quantity=30, label="CRATES")
    plan = plan_ocean([crates], HC_ONLY)
    assert plan.containers == {"40HC": 3} and plan.cost == D("9600.00")
    assert "Piece 'CRATES': 12 a 40HC (12 floor positions, not stackable)" in plan.reasons[0]
    # Stackable: (270 - 5 cm clearance) // 100 = 2 high → 24 a box: the 24, so 2 × 40HC.
    stackable = Piece(D(200), D(100), D(100), D(500), quantity=30, stackable=True, label="CRATES")
    assert plan_ocean([stackable], HC_ONLY).containers == {"40HC": 2}
    # 24 stackable crates fit one.
    assert plan_ocean(
        [Piece(D(200), D(100), D(100), D(500), quantity=24, stackable=True)], HC_ONLY
    ).containers == {"40HC": 1}


def test_door_keeps_a_clearance():
    # 2.27 m rack against a 2.27 m standard door: 0 cm left. With the default 5 cm clearance only
    # the 40HC (2.58 m door) takes it; with the clearance set to 0 a 20GP (2,000) does.
    prices = {"20GP": D(2000), "40HC": D(3200)}
    plan = plan_ocean([nvl72()], prices)
    assert plan.containers == {"40HC": 1}
    assert "5 cm clearance is kept" in plan.reasons[0]
    assert plan_ocean([nvl72()], prices, limits=FreightLimits(door_clearance_cm=D(0))).containers == {
        "20GP": 1
    }


# --- refusals the API can name ---------------------------------------------------------------------


def test_refusals_are_freight_errors_of_their_kind():
    small = Piece(D(100), D(100), D(100), D(100))
    with pytest.raises(RateTableConflict, match="several currencies"):
        recommend([small], [air(), ocean(currency="EUR")], READY)
    tall = Piece(D(100), D(100), D(270), D(500), label="CDU-1")
    with pytest.raises(CannotCarryError, match="No rate can carry this load"):
        recommend([tall], [ocean()], READY)
    missing = MissingFiguresError(["line 2 (10 × DGX H100): no weight"])
    assert isinstance(missing, FreightError) and missing.lines == ("line 2 (10 × DGX H100): no weight",)
    assert str(missing).startswith("Freight cannot be planned: line 2 (10 × DGX H100): no weight.")
