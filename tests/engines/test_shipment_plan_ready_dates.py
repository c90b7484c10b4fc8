"""The cluster shipment plan by ready date and required date, worked by hand.

64 DGX servers from Taiwan to Chennai (130.45 kg and 90 × 48 × 36 cm each, 300,000 USD), with the
demo's Taiwan → India rates: air 4.20 USD/kg (min 250, 5 days) and ocean LCL 65 USD/m³ or
45 USD/t, whichever is more (min 150, 18 days). The plan is made on 2026-12-04; the supplier
quotes 8 weeks, so the servers are ready on 2027-01-29.

- Gross 64 × 130.45 = 8,348.80 kg; volumetric for air 64 × 90·48·36/6000 = 1,658.88 kg: the gross
  is charged, rounded up to the half kilo as airlines do: 8,349 × 4.20 = 35,065.80 USD by air.
- By sea: 64 × 0.9 × 0.48 × 0.36 = 9.95328 m³ × 65 = 646.96 USD against 8.3488 t × 45 = 375.70:
  the volume is charged, 646.96 USD, arriving 2027-01-29 + 18 days = 2027-02-16.
- A need in March (2027-03-31): the sea is in time, so the servers go by sea (not by air, as
  when every line was read as "ready today" and light hardware always flew).
- A need on 2027-02-10: the sea would arrive six days late, so they fly: 2027-02-03.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

import pytest

from apps.clusters.engines import shipment_plan as sp
from apps.shipments.engines.freight import Rate

TODAY = dt.date(2026, 12, 4)
READY = TODAY + dt.timedelta(weeks=8)
TW_IN = (
    Rate("air", "TW", "IN", "USD", 5, price_per_kg=D("4.20"), minimum_charge=D("250")),
    Rate(
        "ocean", "TW", "IN", "USD", 18, price_per_cbm=D("65"), price_per_tonne=D("45"),
        minimum_charge=D("150"),
    ),
)  # fmt: skip


def servers(ready=READY, quantity=64, key="1") -> sp.PlanLine:
    return sp.PlanLine(
        key=key, description="NVIDIA DGX H100", category="server", quantity=quantity,
        unit_weight_kg=D("130.45"), length_cm=D("90"), width_cm=D("48"), height_cm=D("36"),
        unit_value=D("300000"), currency="USD", country_of_origin="TW", supplier="NVIDIA",
        ready_date=ready,
    )  # fmt: skip


def optics(ready) -> sp.PlanLine:
    return sp.PlanLine(
        key="2", description="NVIDIA OSFP", category="optical_transceiver", quantity=1000,
        unit_weight_kg=D("0.1"), length_cm=D("11"), width_cm=D("2.3"), height_cm=D("1.5"),
        unit_value=D("1200"), currency="USD", country_of_origin="TW", supplier="NVIDIA",
        ready_date=ready,
    )  # fmt: skip


def plan(lines, required_by):
    return sp.plan(sp.PlanInputs(tuple(lines), "IN", TODAY, required_by, TW_IN, hub=None))


def test_a_march_need_sends_64_dgx_servers_by_sea():
    [proposal] = plan([servers()], dt.date(2027, 3, 31)).proposals
    assert proposal.mode == "ocean" and proposal.key == "ocean-tw-nvidia"
    assert proposal.cost == D("646.96")
    assert proposal.ready_date == READY and proposal.legs[0].departure == READY
    assert proposal.arrival == dt.date(2027, 2, 16) and proposal.on_time is True
    assert proposal.lines[0].why == (
        "ocean: light, high-value hardware (130.45 kg a unit, server); ready 2027-01-29, the fastest sea "
        "route (18 days) arrives 2027-02-16, by the required 2027-03-31"
    )
    assert proposal.lines[0].ready_date == READY
    assert "ready 2027-01-29" in proposal.reasons[0]


def test_a_need_the_sea_cannot_meet_flies_and_says_when_the_sea_would_arrive():
    [proposal] = plan([servers()], dt.date(2027, 2, 10)).proposals
    assert proposal.mode == "air" and proposal.cost == D("35065.80")
    assert proposal.arrival == dt.date(2027, 2, 3) and proposal.on_time is True
    assert "the fastest sea route (18 days) would arrive 2027-02-16, after the required 2027-02-10" in (
        proposal.lines[0].why
    )


def test_without_a_required_date_light_hardware_flies():
    [proposal] = plan([servers()], None).proposals
    assert proposal.mode == "air" and "no required date, so the fastest" in proposal.lines[0].why


def test_goods_ready_after_the_need_are_late_whatever_the_mode():
    [proposal] = plan([servers(ready=dt.date(2027, 4, 1))], dt.date(2027, 3, 31)).proposals
    assert proposal.mode == "air" and proposal.on_time is False
    assert "ready 2027-04-01, after the required 2027-03-31: late whatever the mode" in proposal.lines[0].why


def test_one_suppliers_lines_ready_on_different_days_travel_apart_named_by_date():
    early = TODAY + dt.timedelta(days=14)
    result = plan([servers(), optics(early)], dt.date(2027, 3, 31))
    assert [p.key for p in result.proposals] == ["ocean-tw-nvidia-2027-01-29", "ocean-tw-nvidia-2026-12-18"]
    by_key = {p.key: p for p in result.proposals}
    assert by_key["ocean-tw-nvidia-2026-12-18"].arrival == dt.date(2027, 1, 5)  # 18 days after
    assert by_key["ocean-tw-nvidia-2027-01-29"].arrival == dt.date(2027, 2, 16)


def test_a_line_without_a_ready_date_is_ready_on_the_plans_date():
    line = sp.PlanLine(**{**servers().__dict__, "ready_date": None})
    [proposal] = plan([line], dt.date(2027, 3, 31)).proposals
    assert proposal.ready_date == TODAY and proposal.arrival == dt.date(2026, 12, 22)


def test_a_ready_date_before_the_plans_date_is_named():
    with pytest.raises(sp.PlanError) as caught:
        plan([servers(ready=TODAY - dt.timedelta(days=1))], dt.date(2027, 3, 31))
    assert caught.value.field == "1" and "ready 2026-12-03, before the plan's date" in caught.value.message
