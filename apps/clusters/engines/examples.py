"""Example designs for the engine's tests, benchmark and what-if checks: a DGX H100 SuperPOD-like
design from the public figures in ../shared/reference/parts.md. Parts marked [E] carry round
estimates (a QM9700's chassis power is not published; the storage appliance is a generic
parallel-file-system node): they are examples, not catalogue data."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .types import (
    CableSpec,
    CduSpec,
    Cooling,
    DesignInputs,
    FabricInputs,
    FabricKind,
    FacilityInputs,
    ManagementInputs,
    OpticSpec,
    PduSpec,
    RackInputs,
    RackSpec,
    StorageInputs,
    StorageSpec,
    SwitchSpec,
    SystemSpec,
    TrainingInputs,
)

# A DGX H100's 8 compute NICs sit behind 4 twin-port OSFP cages [V].
DGX_H100 = SystemSpec(
    key="dgx-h100", name="DGX H100", gpus=8, power_w=10_200, rack_units=8, liquid_fraction=0.0,
    ports_per_cage=2, weight_kg=130.45,
)  # fmt: skip
QM9700 = SwitchSpec(
    key="qm9700", name="QM9700", ports=64, port_gbps=400, power_w=1_000, rack_units=1
)  # power [E]
Q3400 = SwitchSpec(key="q3400", name="Q3400", ports=144, port_gbps=800, power_w=2_000, rack_units=4)  # [E]
SN4600C = SwitchSpec(key="sn4600c", name="SN4600C", ports=64, port_gbps=100, power_w=500, rack_units=1)
SN2201 = SwitchSpec(key="sn2201", name="SN2201", ports=48, port_gbps=1, power_w=100, rack_units=1)
TWIN_800G = OpticSpec(key="osfp-800g-sr8", name="800G twin-port OSFP SR8", links=2, power_w=15.0)
SINGLE_400G = OpticSpec(key="osfp-400g-sr4", name="400G single-port OSFP SR4", links=1, power_w=9.0)
FIBRE = CableSpec(key="mmf", name="multimode fibre", optical=True)
DAC = CableSpec(key="dac", name="NDR DAC", optical=False)
DAC_100G = CableSpec(key="dac-100g", name="100GbE DAC", optical=False)
CAT6 = CableSpec(key="cat6", name="Cat6 patch cable", optical=False)
STORAGE_NODE = StorageSpec(  # [E]
    key="pfs",
    name="PFS node",
    capacity_tb=500.0,
    read_gbs=40.0,
    write_gbs=20.0,
    power_w=2_000,
    rack_units=2,
    ports=2,
)
RACK = RackSpec(key="rack-48u", name="48U rack", rack_units=48)
PDU = PduSpec(key="pdu-17", name="PDU 17 kW", kw=17.3, weight_kg=11.0)
CDU = CduSpec(key="cdu-100", name="In-rack CDU", kw=100.0, rack_units=4, weight_kg=90.0)  # [E]
ROW_CDU = CduSpec(key="cdu-2300", name="In-row CDU", kw=2_300.0)  # stands in the row [E]


def compute_fabric(**changes: Any) -> FabricInputs:
    base = FabricInputs(
        kind=FabricKind.INFINIBAND,
        switch=QM9700,
        bandwidth_per_gpu_gbps=400,
        node_optic=TWIN_800G,
        switch_optic=TWIN_800G,
        cable=FIBRE,
    )
    return replace(base, **changes)


def storage_fabric(**changes: Any) -> FabricInputs:
    base = FabricInputs(kind=FabricKind.INFINIBAND, switch=QM9700, oversubscription=1.0, cable=DAC)
    return replace(base, **changes)


def design(gpus: int = 256, **changes: Any) -> DesignInputs:
    """A DGX H100 design; air cooled, 40 kW racks, copper on the storage and management networks."""
    base = DesignInputs(
        system=DGX_H100,
        gpus=gpus,
        compute=compute_fabric(),
        storage=StorageInputs(
            appliance=STORAGE_NODE,
            usable_capacity_tb=1_000.0,
            read_gbs_per_node=8.0,
            write_gbs_per_node=4.0,
            fabric=storage_fabric(),
        ),
        management=ManagementInputs(
            inband_switch=SN4600C, oob_switch=SN2201, inband_cable=DAC_100G, oob_cable=CAT6
        ),
        racks=RackInputs(rack=RACK, power_limit_kw=40.0, pdu=PDU, pdus_per_rack=2, pdu_redundancy=1),
        facility=FacilityInputs(cooling=Cooling.AIR, pue=1.4),
        training=TrainingInputs(params_billion=70.0, bytes_per_param=14.0, gpu_mtbf_hours=50_000.0),
    )
    return replace(base, **changes)


def large_design(gpus: int) -> DesignInputs:
    """A design that three tiers can reach at 131,072 GPUs: 144-port 800G switches, liquid cooled."""
    return design(
        gpus,
        system=replace(DGX_H100, liquid_fraction=0.8),
        compute=compute_fabric(switch=Q3400, bandwidth_per_gpu_gbps=800),
        storage=StorageInputs(
            appliance=STORAGE_NODE,
            usable_capacity_tb=10_000.0,
            read_gbs_per_node=8.0,
            write_gbs_per_node=4.0,
            fabric=storage_fabric(switch=Q3400),
        ),
        racks=RackInputs(rack=RACK, power_limit_kw=130.0, pdu=PDU),
        facility=FacilityInputs(cooling=Cooling.LIQUID, pue=1.2, cdu=CDU),
    )
