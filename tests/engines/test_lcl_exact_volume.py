"""LCL is priced on the exact volume; only the charge is rounded (to the cent), never the volume
before it is multiplied by the price per m³."""

from decimal import Decimal as D

from apps.shipments.engines.freight import Piece, plan_ocean


def test_lcl_is_priced_on_the_exact_volume():
    # 100.02 × 100 × 100 cm = 1.0002 m³; at 1,000 per m³ that is 1,000.20 (not 1.000 m³ × 1,000).
    crate = Piece(length_cm=D("100.02"), width_cm=D("100"), height_cm=D("100"), gross_kg=D("10"), label="C1")
    plan = plan_ocean([crate], {}, lcl_price_per_cbm=D("1000"), lcl_price_per_tonne=D("45"))
    assert plan.chosen == "LCL"
    assert plan.lcl_cost == D("1000.20")
    # The volume shown stays rounded to the litre.
    assert plan.volume_m3 == D("1.000")
