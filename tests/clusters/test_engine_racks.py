"""Racks that hold what the bill of materials says: in-rack CDUs take units in the rack they cool
(redundancy per rack) or in-row CDUs stand in the rows; node-side transceivers follow the system's
cage layout; switches of every network share network racks, with PDUs by power; warnings for a
link with no cable part, a rack heavier than its static load and checkpoints that leave no
progress. Hand-worked; pure Python (no database).

Parts as in apps/clusters/engines/examples.py, plus the demo's liquid-cooled 4U HGX H100 server
(10.2 kW, 8 single-port ConnectX-7 cages, 80 % of its heat into liquid, 100 kg) and two CDUs: an
in-rack 4U 100 kW unit (90 kg) and an in-row 2,300 kW unit."""

from __future__ import annotations

from dataclasses import replace

import pytest

from apps.clusters.engines.examples import (
    CDU,
    DAC,
    DGX_H100,
    PDU,
    RACK,
    ROW_CDU,
    SINGLE_400G,
    TWIN_800G,
    compute_fabric,
    design,
)
from apps.clusters.engines.sizing import size
from apps.clusters.engines.types import (
    BomRole,
    Cooling,
    FacilityInputs,
    PduSpec,
    RackInputs,
    SizingInputError,
    SystemSpec,
    TrainingInputs,
)

HGX_LIQUID = SystemSpec(
    key="hgx-lc", name="HGX H100 LC", gpus=8, power_w=10_200, rack_units=4, liquid_fraction=0.8,
    ports_per_cage=1, weight_kg=100.0,
)  # fmt: skip


def speech(cdu=CDU, **changes):
    """The 512-GPU speech-AI seed: 64 liquid-cooled 4U servers, 130 kW racks, 4 PDUs a rack."""
    inputs = {
        "system": HGX_LIQUID,
        "compute": compute_fabric(node_optic=SINGLE_400G),
        "racks": RackInputs(rack=RACK, power_limit_kw=130.0, pdu=PDU, pdus_per_rack=4),
        "facility": FacilityInputs(cooling=Cooling.LIQUID, pue=1.2, cdu=cdu),
    }
    return design(512, **(inputs | changes))


def codes(result) -> dict[str, str]:
    return {w.code: w.input for w in result.warnings}


# --- CDUs --------------------------------------------------------------------------------------


def test_in_rack_cdus_take_units_in_the_rack_they_cool():
    # A server with its 8 single-port modules: 10.2 kW + 8 × 9 W = 10.272 kW; 48U ÷ 4U = 12 by
    # space, ⌊130 ÷ 10.272⌋ = 12 by power. Its CDUs: ⌈n × 8.16 kW × 1.1 ÷ 100 kW⌉ + 1 per rack.
    # 12 servers: ⌈107.7 ÷ 100⌉ + 1 = 3 CDUs, 48 + 12 = 60U > 48; 11: ⌈98.7 ÷ 100⌉ + 1 = 2,
    # 44 + 8 = 52U > 48; 10: ⌈89.76 ÷ 100⌉ + 1 = 2, 40 + 8 = 48U: fits.
    result = size(speech())
    assert result.value("racks.systems_per_rack") == 10
    assert "2 in-rack CDUs" in result.figure("racks.systems_per_rack").formula
    # 64 servers: 6 racks of 10 and one of 4 (4 × 8.16 × 1.1 = 35.9 kW → 1 + 1 = 2 CDUs).
    compute = [t for t in result.racks if t.kind == "compute"]
    assert [(t.count, [(s.label, s.rack_units, s.count) for s in t.slots]) for t in compute] == [
        (6, [("HGX H100 LC", 4, 10), ("In-rack CDU", 4, 2), ("PDU 17 kW", 0, 7)]),
        (1, [("HGX H100 LC", 4, 4), ("In-rack CDU", 4, 2), ("PDU 17 kW", 0, 4)]),
    ]
    # Every rack holds what it is given: no compute rack past its 48 U.
    for rack in compute:
        assert sum(s.rack_units * s.count for s in rack.slots) <= 48
    assert result.value("racks.compute") == 7
    assert result.value("cooling.cdus") == 6 * 2 + 2 == 14
    assert [(i.part_key, i.quantity) for i in result.bom if i.role == BomRole.CDU] == [("cdu-100", 14)]
    assert result.figure("cooling.cdus").formula == (
        "CDUs = 6 racks × (⌈10 × 8.16 kW × (1 + 0.1 margin) ÷ 100 kW⌉ + 1 redundant) + "
        "1 rack × (⌈4 × 8.16 kW × (1 + 0.1 margin) ÷ 100 kW⌉ + 1 redundant) = 6 × 2 + 1 × 2 = 14"
    )


def test_in_row_cdus_are_placed_in_the_rows():
    # A CDU with no rack units stands in the row: the racks keep 12 servers (5 racks of 12 and
    # one of 4), and the row's CDUs carry its liquid heat: 64 × 8.16 = 522.24 kW × 1.1 ÷ 2,300
    # → 1, + 1 redundant = 2, drawn as CDU cabinets beside the racks (not racks of the BOM).
    result = size(speech(cdu=ROW_CDU))
    assert result.value("racks.systems_per_rack") == 12
    assert result.value("racks.compute") == 6
    assert result.value("cooling.cdus") == 2
    cabinets = [t for t in result.racks if t.kind == "cooling"]
    assert [(t.count, t.slots[0].label) for t in cabinets] == [(2, "In-row CDU")]
    assert result.figure("cooling.cdus").formula == (
        "CDUs = 1 row × (⌈64 × 8.16 kW × (1 + 0.1 margin) ÷ 2,300 kW⌉ + 1 redundant) = 1 × 2 = 2"
    )
    # The rows count the CDU cabinets' floor positions, the rack line of the BOM does not.
    racks = result.value("racks.total")
    assert result.value("racks.rows") == -(-(racks + 2) // 10)
    assert next(i.quantity for i in result.bom if i.role == BomRole.RACK) == racks


def test_in_row_cdus_per_row_with_redundancy_per_row():
    # 1,024 liquid DGX H100 (0.8 liquid) at 40 kW: 3 a rack → 43 compute racks in 5 rows (10 a row).
    # Rows 1–4: 30 systems × 8.16 kW × 1.1 = 269.3 kW → 1 + 1; the last row 8 systems → 1 + 1.
    result = size(
        design(
            1024,
            system=replace(DGX_H100, liquid_fraction=0.8),
            facility=FacilityInputs(cooling=Cooling.LIQUID, pue=1.2, cdu=ROW_CDU),
        )
    )
    assert result.value("racks.compute") == 43
    assert result.value("cooling.cdus") == 4 * 2 + 2 == 10


def test_an_in_rack_cdu_beside_a_rack_scale_system_is_refused():
    nvl72 = SystemSpec(
        key="nvl72", name="GB200 NVL72", gpus=72, power_w=120_000, rack_units=48, rack_scale=True,
        compute_ports=72, liquid_fraction=0.85, ports_per_cage=2,
    )  # fmt: skip
    inputs = design(
        576,
        system=nvl72,
        compute=compute_fabric(su_systems=8),
        racks=RackInputs(rack=RACK, power_limit_kw=140.0, pdu=PDU),
        facility=FacilityInputs(cooling=Cooling.LIQUID, pue=1.2, cdu=CDU),
    )
    with pytest.raises(SizingInputError) as caught:
        size(inputs)
    assert set(caught.value.errors) == {"facility.cdu"}
    assert "in-row" in caught.value.errors["facility.cdu"]
    assert size(replace(inputs, facility=replace(inputs.facility, cdu=ROW_CDU))).value("cooling.cdus") == 2


def test_a_system_that_does_not_fit_its_rack_with_its_cdus_is_refused():
    # A 44U system and its 2 in-rack CDUs (8U) need 52 U of a 48 U rack.
    tall = replace(HGX_LIQUID, rack_units=44)
    with pytest.raises(SizingInputError) as caught:
        size(speech(system=tall))
    assert set(caught.value.errors) == {"racks.rack.rack_units"}
    assert "52 U" in caught.value.errors["racks.rack.rack_units"]


# --- cage layout -------------------------------------------------------------------------------


def test_single_port_cages_take_single_port_modules_one_per_nic():
    # 64 servers × 8 single-port cages × 1 module = 512 modules (not 256 twin-port ones).
    result = size(speech())
    assert result.value("fabric.compute.optics.node") == 512
    assert [(i.part_key, i.quantity) for i in result.bom if i.role == BomRole.COMPUTE_NODE_OPTIC] == [
        ("osfp-400g-sr4", 512)
    ]


def test_a_twin_port_module_in_single_port_cages_is_refused_naming_the_field():
    with pytest.raises(SizingInputError) as caught:
        size(speech(compute=compute_fabric(node_optic=TWIN_800G)))
    errors = caught.value.errors
    assert set(errors) == {"compute.node_optic"}
    assert "twin-port" in errors["compute.node_optic"]
    assert "system.ports_per_cage" in errors["compute.node_optic"]


def test_a_single_port_module_in_twin_port_cages_is_refused():
    # A DGX H100's 8 NICs sit behind 4 twin-port cages: a single-port module reaches half of them.
    with pytest.raises(SizingInputError) as caught:
        size(design(256, compute=compute_fabric(node_optic=SINGLE_400G)))
    assert set(caught.value.errors) == {"compute.node_optic"}


def test_a_node_optic_on_a_system_without_a_cage_layout_is_refused():
    with pytest.raises(SizingInputError) as caught:
        size(design(256, system=replace(DGX_H100, ports_per_cage=None)))
    assert set(caught.value.errors) == {"system.ports_per_cage"}
    # Copper to the node needs no cage layout.
    copper = compute_fabric(node_optic=None, switch_optic=None, cable=DAC)
    size(design(256, system=replace(DGX_H100, ports_per_cage=None), compute=copper))


# --- switch racks --------------------------------------------------------------------------------


def test_switches_of_every_network_share_network_racks_with_pdus_by_power():
    # 1,024 GPUs, 48U racks at 40 kW. Switches packed in order, each rack filled by units and power:
    # 32 compute leaves at 1.48 kW (1 kW + their 32 modules × 15 W): ⌊40 ÷ 1.48⌋ = 27 → one rack of
    # 27 (39.96 kW); the other 5 leaves + 16 spines (1.48 kW) + 8 of the 10 storage leaves (1 kW):
    # 7.4 + 23.68 + 8 = 39.08 kW; then 2 storage leaves, 8 storage spines, in-band 5 + 4 (0.5 kW),
    # out-of-band 9 + 1 (0.1 kW): 2 + 8 + 4.5 + 1 = 15.5 kW. Three network racks, no management
    # racks of their own.
    result = size(design(1024))
    network = [t for t in result.racks if t.kind == "network"]
    assert [(t.count, round(t.it_kw, 2)) for t in network] == [(1, 39.96), (1, 39.08), (1, 15.5)]
    assert result.value("racks.network") == 3
    assert result.value("racks.management") == 0
    placed: dict[str, int] = {}
    for rack in network:
        for slot in rack.slots:
            if slot.rack_units:
                placed[slot.label] = placed.get(slot.label, 0) + slot.count * rack.count
    assert placed == {
        "QM9700 compute leaf": 32,
        "QM9700 compute spine": 16,
        "QM9700 storage leaf": 10,
        "QM9700 storage spine": 8,
        "SN4600C in-band leaf": 5,
        "SN4600C in-band spine": 4,
        "SN2201 out-of-band leaf": 9,
        "SN2201 out-of-band spine": 1,
    }
    # PDUs by power off the compute racks: ⌈39.96 ÷ 17.3⌉ + 1 = 4, 4, ⌈15.5 ÷ 17.3⌉ + 1 = 2.
    assert [t.slots[-1].count for t in network] == [4, 4, 2]
    # 43 compute racks × 3 (+ the last, 20.52 kW: 3) = 129; network 10; storage 4 + 2 = 6.
    assert result.value("racks.pdus") == 129 + 10 + 6
    assert result.value("racks.total") == 43 + 3 + 2


def test_four_su_h100_against_the_reference_architecture():
    # NVIDIA's DGX H100 SuperPOD RA, Table 7 (4 SU, 127 nodes): 38 racks; 32 compute racks of 4
    # DGX H100. Here: 42 kW racks (4 DGX of 10.26 kW), 22 kW PDUs (3 a compute rack, N+1).
    result = size(
        design(
            1016,
            racks=RackInputs(
                rack=RACK, power_limit_kw=42.0, pdu=PduSpec(key="pdu-22", name="PDU 22 kW", kw=22.0)
            ),
        )
    )
    assert result.value("racks.systems_per_rack") == 4
    assert result.value("racks.compute") == 32  # ⌈127 ÷ 4⌉, as the RA
    # Switches and storage are air-cooled: their racks are filled to 40 kW (air), not 42. Network:
    # 27 compute leaves (39.96 kW); 5 leaves + 16 spines + 8 storage leaves (39.08 kW); 2 storage
    # leaves + 8 spines, 9 in-band, 9 out-of-band (15.4 kW) → 3 racks; storage 26 appliances at
    # 2 kW: 20 + 6 → 2 racks. 37 racks against the RA's 38, which also racks its UFM appliances
    # and 5 management servers (not inputs of this design).
    assert result.value("racks.network") == 3
    assert result.value("racks.storage") == 2
    assert result.value("racks.total") == 37
    # PDUs: 32 compute racks × 3 = 96 (the RA's 3 a compute rack); the others by power: network
    # 39.96 kW → ⌈39.96 ÷ 22⌉ + 1 = 3, 39.08 → 3, 15.4 → 2; storage 40 → 3, 12 → 2: 109 in all,
    # against the RA's 108 (the 1.0 engine: 53 racks and 212 PDUs).
    compute = [t for t in result.racks if t.kind == "compute"]
    assert {t.slots[-1].count for t in compute} == {3}
    assert result.value("racks.pdus") == 96 + 8 + 5 == 109


# --- warnings ----------------------------------------------------------------------------------


def test_a_link_with_no_cable_part_is_a_warning():
    result = size(design(256, management=replace(design().management, oob_cable=None)))
    assert codes(result) == {"cable_not_chosen": "management.oob_cable"}
    warning = next(w for w in result.warnings if w.code == "cable_not_chosen")
    assert "out-of-band" in warning.message and "not in the bill of materials" in warning.message
    # The example design names every cable: quiet.
    assert "cable_not_chosen" not in codes(size(design(256)))


def test_rack_weight_over_its_static_load_is_a_warning():
    # A compute rack of 10 servers (100 kg) + 2 CDUs (90 kg) + 7 PDUs (11 kg) = 1,257 kg.
    heavy = speech(racks=RackInputs(rack=replace(RACK, static_load_kg=1200.0), power_limit_kw=130.0, pdu=PDU,
                                    pdus_per_rack=4))  # fmt: skip
    result = size(heavy)
    assert result.value("racks.max_weight_kg") == 1257
    assert codes(result)["rack_weight_exceeded"] == "racks.rack.static_load_kg"
    assert "1,257 kg" in next(w.message for w in result.warnings if w.code == "rack_weight_exceeded")
    light = speech(racks=RackInputs(rack=replace(RACK, static_load_kg=1361.0), power_limit_kw=130.0, pdu=PDU,
                                    pdus_per_rack=4))  # fmt: skip
    assert "rack_weight_exceeded" not in codes(size(light))


def test_checkpoints_that_cost_more_than_all_the_time_are_a_warning():
    # One interruption an hour and a 90-minute restart: each failure costs more than the time
    # between failures, so (τ/2 + R)/M > 1 at any interval: no progress.
    result = size(
        design(
            256,
            training=TrainingInputs(
                params_billion=70, cluster_interruptions_per_day=24.0, restart_minutes=90.0,
                chosen_interval_minutes=30.0,
            ),
        )
    )  # fmt: skip
    assert result.value("checkpoint.fraction_lost_pct") > 100
    found = codes(result)
    assert found["checkpoint_no_progress"] == "training.cluster_interruptions_per_day"
    assert found["checkpoint_chosen_no_progress"] == "training.chosen_interval_minutes"
    assert "no progress" in next(w.message for w in result.warnings if w.code == "checkpoint_no_progress")
    assert "checkpoint_no_progress" not in codes(size(design(256)))


def test_air_cooled_switch_and_storage_racks_keep_to_the_air_limit():
    # The seed's racks take 130 kW (liquid), but switches and storage appliances are cooled by air:
    # their racks are filled to min(130 kW, the 40 kW air cooling handles). Compute leaves at
    # 1 kW + (256 node-side + 256 uplink) × 15 W ÷ 16 = 1.48 kW: 24 compute switches are 35.52 kW.
    result = size(speech())
    for rack in result.racks:
        if rack.kind in ("network", "storage"):
            assert rack.it_kw <= 40.0, rack
    assert result.value("racks.network") == 2
    assert "40 kW air" in result.figure("racks.network").formula
