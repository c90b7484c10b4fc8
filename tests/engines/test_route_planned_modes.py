"""A leg planned by one mode and priced cheaper by another: the plan says so, leg by leg, instead of
silently putting the other mode in its place."""

import datetime as dt
from dataclasses import replace

from apps.shipments.engines import freight as f
from tests.engines.test_freight_route import RATES, route


def test_a_planned_mode_replaced_by_the_plan_is_said():
    legs = route()
    legs[0] = replace(legs[0], planned_mode="air")  # leg 1 planned by air; ocean is cheaper and on time
    legs[2] = replace(legs[2], planned_mode="ocean")  # leg 3 planned by ocean and priced by ocean
    plan = f.plan_route(legs, RATES, dt.date(2026, 12, 20), hub_name="SG bonded hub")
    leg1 = next(leg for leg in plan.legs if leg.sequence == 1)
    assert leg1.chosen.mode == "ocean"
    said = [r for r in plan.reasons if "planned by air" in r]
    assert said == [
        "Leg 1 (TW → SG): planned by air, but the plan prices it by ocean (cheaper and on time); "
        "the leg keeps its planned mode until you change it, and is booked by it."
    ]
    assert not any("planned by ocean" in r for r in plan.reasons)
