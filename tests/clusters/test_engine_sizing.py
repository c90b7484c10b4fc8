"""The sizing engine on one hand-worked design (1,024 H100 GPUs, air cooled, 40 kW racks), and on
rack-scale, liquid-cooled and large designs: systems, storage, management, racks, PDUs, rows,
power, cooling, warnings, the bill of materials, the JSON codec, what-if and the defaults.

Parts (apps/clusters/engines/examples.py): DGX H100 10.2 kW 8U; QM9700 64 × 400G, 1 kW [E]; twin-port
800G OSFP 15 W; SN4600C 64-port 0.5 kW; SN2201 48-port 0.1 kW; storage node 500 TB, 40 GB/s read,
20 GB/s write, 2 kW, 2U, 2 ports; 48U racks at 40 kW; 17.3 kW PDUs, 2 per rack, N+1; PUE 1.4."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from apps.clusters.engines import defaults as engine_defaults
from apps.clusters.engines.examples import (
    CDU,
    DGX_H100,
    ROW_CDU,
    SINGLE_400G,
    compute_fabric,
    design,
    large_design,
)
from apps.clusters.engines.sizing import num, size, what_if
from apps.clusters.engines.types import BomRole, Cooling, FacilityInputs, RackInputs, SizingResult, SystemSpec

NVL72 = SystemSpec(
    key="gb200-nvl72",
    name="GB200 NVL72",
    gpus=72,
    power_w=120_000,
    rack_units=48,
    rack_scale=True,
    compute_ports=72,
    liquid_fraction=0.85,
    ports_per_cage=1,  # single-port NIC cages: one single-port module per NIC
)


@pytest.fixture(scope="module")
def result() -> SizingResult:
    return size(design(1024))


def test_systems(result):
    # systems = 1,024 GPUs ÷ 8 = 128; SU = ⌈128 ÷ 32⌉ = 4
    assert result.value("systems.systems") == 128
    assert result.value("systems.scalable_units") == 4
    assert result.figure("systems.systems").formula == "systems = 1,024 GPUs ÷ 8 per DGX H100 = 128"


def test_storage_appliances_name_what_binds(result):
    # capacity ⌈1,000 TB ÷ 500⌉ = 2; read ⌈128 × 8 GB/s = 1,024 ÷ 40⌉ = 26; write ⌈128 × 4 = 512 ÷ 20⌉ = 26
    figure = result.figure("storage.appliances")
    assert figure.value == 26
    assert figure.inputs == {"by_capacity": 2, "by_read": 26, "by_write": 26, "binding": "read, write"}
    assert figure.formula.endswith("= 26 (read and write bind)")
    assert result.value("storage.write_gbs") == 520  # 26 × 20
    assert result.value("storage.capacity_tb") == 13_000  # 26 × 500
    # Capacity binds when the data set is large: ⌈20,000 TB ÷ 500⌉ = 40 > 26.
    big = size(design(1024, storage=replace(design().storage, usable_capacity_tb=20_000.0)))
    assert big.value("storage.appliances") == 40
    assert big.figure("storage.appliances").formula.endswith("(capacity binds)")


def test_management_networks(result):
    # In-band: 128 DGX × 1 + 26 appliances × 1 = 154 ports; d = 32 → ⌈154 ÷ 32⌉ = 5 leaves;
    # spines: p | 32 with 5·p ≤ 64 → 8, spines = 32 ÷ 8 = 4 → 9 switches.
    assert result.value("fabric.inband.endpoints") == 154
    assert (result.value("fabric.inband.leaves"), result.value("fabric.inband.spines")) == (5, 4)
    assert result.value("management.inband_switches") == 9
    # Out-of-band: every BMC, switch and PDU: 128 + 26 + (48 compute + 18 storage + 9 in-band
    # switches = 75) + 145 PDUs (see test_pdus) = 374; 48 ports − 2 uplinks = 46 down →
    # ⌈374 ÷ 46⌉ = 9 leaves, 9 × 2 = 18 uplinks on 1 spine → 10 switches.
    assert result.value("fabric.oob.endpoints") == 374
    assert (result.value("fabric.oob.leaves"), result.value("fabric.oob.spines")) == (9, 1)
    assert result.value("management.oob_switches") == 10


def test_racks_power_binds(result):
    # A DGX H100 with its 4 compute modules: 10.2 kW + 4 × 15 W = 10.26 kW.
    # by space ⌊48 ÷ 8⌋ = 6; by power ⌊40 ÷ 10.26⌋ = 3 → 3 per rack; ⌈128 ÷ 3⌉ = 43 racks.
    assert result.value("racks.systems_per_rack_by_space") == 6
    assert result.value("racks.systems_per_rack_by_power") == 3
    assert result.figure("racks.systems_per_rack").formula.endswith("= 3 (power binds)")
    assert result.value("racks.compute") == 43
    compute_racks = [(t.count, t.slots[0].count, t.it_kw) for t in result.racks if t.kind == "compute"]
    assert compute_racks == [(42, 3, 30.78), (1, 2, 20.52)]  # 3 × 10.26 and 2 × 10.26
    # Network: a leaf carries 1 kW + (512 node-side + 512 uplink modules) × 15 W ÷ 32 = 1.48 kW;
    # every network's switches share 3 racks (test_engine_racks.py works them out).
    assert result.value("racks.network") == 3
    # Storage: 2 kW and 2U each, ⌊40 ÷ 2⌋ = 20 per rack → 20 + 6 → 2 racks.
    assert result.value("racks.storage") == 2
    # Management switches share the network racks.
    assert result.value("racks.management") == 0
    assert result.value("racks.total") == 48
    assert result.value("racks.rows") == 5  # ⌈48 ÷ 10 per row⌉


def test_racks_space_binds_with_a_higher_power_limit():
    # At 130 kW: by power ⌊130 ÷ 10.26⌋ = 12, by space 6 → 6 per rack; ⌈128 ÷ 6⌉ = 22 racks.
    result = size(
        design(1024, racks=RackInputs(rack=design().racks.rack, power_limit_kw=130, pdu=design().racks.pdu))
    )
    assert result.value("racks.systems_per_rack") == 6
    assert result.figure("racks.systems_per_rack").formula.endswith("(space binds)")
    assert result.value("racks.compute") == 22


def test_pdus(result):
    # Per rack: ⌈rack kW ÷ 17.3⌉ + 1, at least 2 in a compute rack.
    # compute 30.78 kW → ⌈1.78⌉ + 1 = 3 (43 racks → 129); network 39.96 → 4, 39.08 → 4, 15.5 → 2
    # (10); storage 40 → 4, 12 → 2 (6). 145 in all.
    assert result.value("racks.pdus") == 145
    pdus = {(t.kind, t.it_kw): t.slots[-1].count for t in result.racks}
    assert pdus[("compute", 30.78)] == 3
    assert pdus[("network", 39.96)] == 4
    assert pdus[("network", 15.5)] == 2


def test_power(result):
    # systems 128 × 10.2 = 1,305.6 kW; compute switches 48 × 1 kW; storage switches 18 × 1 kW;
    # management 9 × 0.5 + 10 × 0.1 = 5.5; optics (512 + 1,536) × 15 W = 30.72; storage 26 × 2 = 52.
    assert result.power_by_component_kw == {
        "systems": 1305.6,
        "compute switches": 48.0,
        "storage switches": 18.0,
        "management switches": 5.5,
        "optics": 30.72,
        "storage": 52.0,
    }
    assert result.value("power.it_kw") == pytest.approx(1459.82)  # the sum
    assert result.value("power.facility_kw") == pytest.approx(2043.748)  # × 1.4
    assert result.value("power.facility_mw") == pytest.approx(2.043748)
    # Every kW of IT load sits in a rack: the rack types add up to the total.
    assert sum(t.count * t.it_kw for t in result.racks) == pytest.approx(1459.82)
    assert result.value("power.max_rack_kw") == 40.0  # the full storage rack
    assert result.warnings == ()


def test_cooling_air(result):
    # Air cooling: everything by air; densest rack 40 kW ≤ 40 kW: liquid not required; no CDUs.
    assert result.value("cooling.heat_kw") == pytest.approx(1459.82)
    assert result.value("cooling.liquid_kw") == 0
    assert result.value("cooling.air_kw") == pytest.approx(1459.82)
    assert result.value("cooling.liquid_required") == 0
    assert result.value("cooling.cdus") == 0


def test_liquid_cooling_splits_heat_and_counts_cdus_with_n_plus_1():
    # 1,024 GPUs, liquid fraction 0.8: liquid = 1,305.6 × 0.8 = 1,044.48 kW. In-rack CDUs, N+1 per
    # rack: 3 DGX a rack (power binds): ⌈3 × 8.16 × 1.1 ÷ 100⌉ + 1 = 2 (3 × 8 U + 2 × 4 U = 32 U);
    # 42 such racks and one of 2 DGX (⌈17.95 ÷ 100⌉ + 1 = 2): 86.
    result = size(
        design(
            1024,
            system=replace(DGX_H100, liquid_fraction=0.8),
            facility=FacilityInputs(cooling=Cooling.LIQUID, pue=1.2, cdu=CDU),
        )
    )
    assert result.value("cooling.liquid_kw") == pytest.approx(1044.48)
    assert result.value("cooling.air_kw") == pytest.approx(result.value("cooling.heat_kw") - 1044.48)
    assert result.value("cooling.cdus") == 86
    assert result.figure("cooling.cdus").formula == (
        "CDUs = 42 racks × (⌈3 × 8.16 kW × (1 + 0.1 margin) ÷ 100 kW⌉ + 1 redundant) + "
        "1 rack × (⌈2 × 8.16 kW × (1 + 0.1 margin) ÷ 100 kW⌉ + 1 redundant) = 42 × 2 + 1 × 2 = 86"
    )
    assert [(i.part_key, i.quantity) for i in result.bom if i.role == BomRole.CDU] == [("cdu-100", 86)]
    # Immersion takes all of the systems' heat; in-row CDUs, N+2 per row of 10 racks: 4 rows of
    # 30 DGX (⌈30 × 10.2 × 1.1 ÷ 2,300⌉ + 2 = 3) and one of 8 (⌈89.8 ÷ 2,300⌉ + 2 = 3): 15.
    immersed = size(
        design(
            1024, facility=FacilityInputs(cooling=Cooling.IMMERSION, pue=1.1, cdu=ROW_CDU, cdu_redundancy=2)
        )
    )
    assert immersed.value("cooling.liquid_kw") == pytest.approx(1305.6)
    assert immersed.value("cooling.cdus") == 15


def test_liquid_cooling_of_an_air_only_system_is_flagged():
    result = size(design(256, facility=FacilityInputs(cooling=Cooling.LIQUID, pue=1.2, cdu=CDU)))
    assert [w.code for w in result.warnings] == ["no_liquid_load"]
    assert result.value("cooling.cdus") == 0


def test_rack_scale_system_warnings_and_racks():
    # 8 NVL72 (576 GPUs), air cooled, 100 kW racks. A rack: 120 kW + 72 modules × 9 W = 120.648 kW:
    # over the rack limit (warned, it is one rack anyway) and over air's 40 kW (liquid required).
    result = size(
        design(
            576,
            system=NVL72,
            compute=compute_fabric(su_systems=8, node_optic=SINGLE_400G),
            racks=RackInputs(rack=design().racks.rack, power_limit_kw=100, pdu=design().racks.pdu),
            facility=FacilityInputs(cooling=Cooling.AIR, pue=1.4, site_power_mw=1.0),
        )
    )
    assert result.value("racks.compute") == 8
    assert result.value("racks.systems_per_rack") == 1
    compute_rack = next(t for t in result.racks if t.kind == "compute")
    assert (compute_rack.count, compute_rack.it_kw) == (8, 120.648)
    # PDUs: ⌈120.648 ÷ 17.3⌉ + 1 = 7 + 1 = 8
    assert compute_rack.slots[1].count == 8
    assert result.value("cooling.liquid_required") == 1
    codes = {w.code: w.input for w in result.warnings}
    assert codes == {
        "rack_power_exceeded": "racks.power_limit_kw",
        "liquid_required": "facility.cooling",
        "site_power_exceeded": "facility.site_power_mw",  # 8 × 120 kW × 1.4 > 1 MW
    }


def test_site_power_within_limit_is_quiet():
    result = size(design(1024, facility=FacilityInputs(cooling=Cooling.AIR, pue=1.4, site_power_mw=2.1)))
    assert "site_power_exceeded" not in {w.code for w in result.warnings}  # 2.04 MW ≤ 2.1 MW
    result = size(design(1024, facility=FacilityInputs(cooling=Cooling.AIR, pue=1.4, site_power_mw=2.0)))
    assert "site_power_exceeded" in {w.code for w in result.warnings}


def test_bill_of_materials(result):
    bom = {(item.role, item.part_key): (item.quantity, item.figure) for item in result.bom}
    assert bom == {
        (BomRole.SYSTEM, "dgx-h100"): (128, "systems.systems"),
        (BomRole.COMPUTE_LEAF, "qm9700"): (32, "fabric.compute.leaves"),
        (BomRole.COMPUTE_SPINE, "qm9700"): (16, "fabric.compute.spines"),
        (BomRole.COMPUTE_NODE_OPTIC, "osfp-800g-sr8"): (512, "fabric.compute.optics.node"),
        (BomRole.COMPUTE_SWITCH_OPTIC, "osfp-800g-sr8"): (1536, "fabric.compute.optics.switch"),
        (BomRole.COMPUTE_CABLE, "mmf"): (2048, "fabric.compute.cables"),
        (BomRole.STORAGE_APPLIANCE, "pfs"): (26, "storage.appliances"),
        (BomRole.STORAGE_LEAF, "qm9700"): (10, "fabric.storage.leaves"),
        (BomRole.STORAGE_SPINE, "qm9700"): (8, "fabric.storage.spines"),
        (BomRole.INBAND_SWITCH, "sn4600c"): (9, "management.inband_switches"),
        (BomRole.OOB_SWITCH, "sn2201"): (10, "management.oob_switches"),
        # Passive cables on the storage (DAC) and management networks (DAC, Cat6): one per link.
        # Storage 308 node links + 10 leaves × 32 up = 628; in-band 154 + 5 × 32 = 314;
        # out-of-band 374 + 9 leaves × 2 uplinks = 392.
        (BomRole.STORAGE_CABLE, "dac"): (628, "fabric.storage.cables"),
        (BomRole.INBAND_CABLE, "dac-100g"): (314, "fabric.inband.cables"),
        (BomRole.OOB_CABLE, "cat6"): (392, "fabric.oob.cables"),
        (BomRole.RACK, "rack-48u"): (48, "racks.total"),
        (BomRole.PDU, "pdu-17"): (145, "racks.pdus"),
    }
    # Every BOM line points at a figure that explains it, with the same number.
    for item in result.bom:
        assert result.value(item.figure) == item.quantity


def test_every_figure_explains_itself(result):
    keys = [f.key for f in result.figures]
    assert len(keys) == len(set(keys))
    for figure in result.figures:
        assert figure.formula and figure.label and figure.section
        assert "=" in figure.formula or figure.key == "cooling.liquid_required"


def test_switches_by_tier(result):
    assert result.switches_by_tier == {
        "compute leaf": 32,
        "compute spine": 16,
        "compute core": 0,
        "storage leaf": 10,
        "storage spine": 8,
        "storage core": 0,
        "in-band leaf": 5,
        "in-band spine": 4,
        "in-band core": 0,
        "out-of-band leaf": 9,
        "out-of-band spine": 1,
        "out-of-band core": 0,
    }


def test_as_dict_round_trips_through_json(result):
    for sized in (
        result,
        size(large_design(131_072)),
        size(design(576, system=NVL72, compute=compute_fabric(su_systems=8, node_optic=SINGLE_400G))),
    ):
        data = json.loads(json.dumps(sized.as_dict()))
        assert SizingResult.from_dict(data) == sized
        assert isinstance(data["figures"][0]["value"], int)  # ints stay ints
        assert data["bom"][0]["role"] == "system"


def test_closed_form_same_shape_at_every_size():
    # No per-GPU or per-rack objects: the result has the same figures and at most two rack types
    # (full racks, one partly filled) per kind of equipment (14 kinds), from 8 to 131,072 GPUs.
    small, huge = size(large_design(8)), size(large_design(131_072))
    assert [f.key for f in small.figures] == [f.key for f in huge.figures]
    assert len(huge.racks) <= 2 * 14
    assert huge.value("fabric.compute.tiers") == 3
    assert huge.value("systems.systems") == 16_384


def test_what_if_rows():
    rows = what_if(design(256), [256, 1024, 4096, 70_000, 12])
    assert [row["gpus"] for row in rows] == [256, 1024, 4096, 70_000, 12]
    row = rows[1]  # the 1,024-GPU design above
    assert row["systems"] == 128
    assert row["switches"] == 32 + 16 + 10 + 8 + 9 + 10
    assert row["compute_switches"] == 48
    assert row["optics"] == 512 + 1536
    assert row["racks"] == 48
    assert row["facility_mw"] == pytest.approx(2.043748)
    assert rows[2]["compute_switches"] == 128 + 128 + 64  # 16 SU, three tiers
    assert set(rows[3]["error"]) == {"gpus"}  # beyond three tiers of 64-port switches
    assert set(rows[4]["error"]) == {"gpus"}  # not a multiple of 8
    json.dumps(rows)


def test_defaults_are_json_safe_and_marked():
    values = engine_defaults.defaults()
    json.dumps(values)
    assert values["pue_liquid"] == {
        "value": 1.2,
        "unit": "",
        "source": "[E]",
        "note": "direct liquid ~1.15–1.25",
    }
    assert values["air_max_kw_per_rack"]["value"] == 40.0
    assert values["bytes_per_param"]["value"] == 14.0
    assert engine_defaults.PUE_BY_COOLING[Cooling.AIR] > engine_defaults.PUE_BY_COOLING[Cooling.LIQUID]
    # Llama 3: 419 in 54 days = 7.76 a day; per-GPU MTBF 16,384 × 24 h × 54 ÷ 419 = 50,677 h.
    assert values["gpu_mtbf_hours"]["value"] == 50_677


def test_number_formatting():
    assert num(1024) == "1,024"
    assert num(10.2) == "10.2"
    assert num(2.0) == "2"
    assert num(1305.6) == "1,305.6"
    assert num(0.00034) == "0.00034"


def test_figures_carry_their_inputs(result):
    assert result.figure("fabric.compute.leaves").inputs == {"endpoint_links": 1024, "down_ports": 32}
    assert result.figure("fabric.compute.spines").inputs == {
        "leaves": 32,
        "up_ports": 32,
        "radix": 64,
        "pods": 0,
    }
    assert result.figure("power.facility_kw").inputs == {"it_kw": 1459.82, "pue": 1.4}
    assert result.figure("racks.systems_per_rack_by_power").inputs == {
        "power_limit_kw": 40.0,
        "system_kw": 10.26,
    }
    assert result.figure("checkpoint.mtbf_hours").inputs == {"gpu_mtbf_hours": 50_000.0, "gpus": 1024}
    assert result.figure("power.it_kw").inputs["systems_kw"] == 1305.6
