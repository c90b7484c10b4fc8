"""The sizing engine's fabrics: NVIDIA's published DGX SuperPOD tables, and hand-worked trees.

No database: the engine is pure Python (apps/clusters/engines, no Django)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from apps.clusters.engines.examples import (
    DAC,
    DGX_H100,
    FIBRE,
    SINGLE_400G,
    TWIN_800G,
    compute_fabric,
    design,
)
from apps.clusters.engines.fabric import build_tree, links_per_pair
from apps.clusters.engines.sizing import size
from apps.clusters.engines.types import BomRole, SizingInputError, SwitchSpec, SystemSpec, Topology

# Like a DGX H100, 8 compute NICs behind 4 twin-port OSFP cages.
DGX_B200 = SystemSpec(
    key="dgx-b200", name="DGX B200", gpus=8, power_w=14_300, rack_units=10, ports_per_cage=2
)


def compute(result, name: str) -> int | float:
    return result.value(f"fabric.compute.{name}")


# NVIDIA DGX SuperPOD Reference Architecture, DGX H100 (RA-11333-001), section "Network Fabrics",
# Table 4 "Compute fabric component count" (docs.nvidia.com/dgx-superpod/reference-architecture-
# scalable-infrastructure-h100/latest/network-fabrics.html). Columns: SU count, node count,
# GPU count, InfiniBand switches (leaf, spine), cables (compute and UFM, spine–leaf).
# Footnote: a 32-node-per-SU design in which one node's slot holds the UFM appliance, hence 31,
# 63, 95 and 127 nodes; the UFM takes 4 compute-fabric cables (252 − 31 × 8 = 4).
H100_TABLE_4 = [
    # SU, nodes, GPUs, leaf, spine, compute+UFM cables, spine–leaf cables
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(
    ("su", "nodes", "gpus", "leaves", "spines", "node_cables", "spine_leaf"), H100_TABLE_4
)
def test_dgx_h100_superpod_table_4(su, nodes, gpus, leaves, spines, node_cables, spine_leaf):
    result = size(design(gpus))
    assert result.value("systems.systems") == nodes
    assert result.value("systems.scalable_units") == su
    assert compute(result, "tiers") == 2
    assert compute(result, "leaves") == leaves
    assert compute(result, "spines") == spines
    assert compute(result, "cores") == 0
    # Built for whole SUs: every leaf's 32 up-ports are cabled even with a slot left for the UFM.
    assert compute(result, "cables.leaf_spine") == spine_leaf
    # The table's compute cables count the UFM's 4; the engine cables the DGX nodes only.
    assert compute(result, "cables.node_leaf") == node_cables - 4 == nodes * 8


def test_table_4_spines_follow_the_balance_rule():
    # 3 SU: 24 leaves × 32 up-ports = 768 links = 12 spines' worth of ports, but 12 does not
    # divide 32 up-ports evenly: links per leaf–spine pair p must divide 32 with 24·p ≤ 64, so
    # p = 2 and spines = 32 ÷ 2 = 16, as the table has.
    assert links_per_pair(32, 24, 64) == 2
    result = size(design(760))
    assert (
        "32 up-ports per leaf ÷ 2 links to each spine = 16" in result.figure("fabric.compute.spines").formula
    )


# NVIDIA DGX SuperPOD Reference Architecture, DGX B200, "DGX SuperPOD Architecture" page, the
# table of compute fabric switch and cable counts by SU count (docs.nvidia.com/dgx-superpod/
# reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html):
# SU, nodes, GPUs, InfiniBand switches (leaf, spine, core), cables (node–leaf, leaf–spine,
# spine–core); "–" (no core tier) is 0 here.
B200_SU_TABLE = [
    (2, 64, 512, 16, 8, 0, 512, 512, 0),
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 8192, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 16384, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize(
    ("su", "nodes", "gpus", "leaves", "spines", "cores", "node_leaf", "leaf_spine", "spine_core"),
    B200_SU_TABLE,
)
def test_dgx_b200_superpod_su_table(
    su, nodes, gpus, leaves, spines, cores, node_leaf, leaf_spine, spine_core
):
    result = size(design(gpus, system=DGX_B200))
    assert result.value("systems.systems") == nodes
    assert result.value("systems.scalable_units") == su
    assert compute(result, "leaves") == leaves
    assert compute(result, "spines") == spines
    assert compute(result, "cores") == cores
    assert compute(result, "tiers") == (3 if cores else 2)
    assert compute(result, "cables.node_leaf") == node_leaf
    assert compute(result, "cables.leaf_spine") == leaf_spine
    assert compute(result, "cables.spine_core") == spine_core
    assert result.switches_by_tier["compute leaf"] == leaves
    assert result.switches_by_tier["compute core"] == cores


def test_three_tier_worked_example_16_su():
    # 4,096 GPUs = 512 DGX = 16 SU; leaves = 8 rails × 1 per SU × 16 SU = 128 > k = 64: three tiers.
    # Pods: k/2 = 32 leaves, i.e. 32 ÷ 8 = 4 whole SUs; 128 ÷ 32 = 4 pods.
    # Spines per pod: largest p dividing 32 up-ports with 32 leaves × p ≤ 32 down-ports → p = 1,
    # so 32 spines per pod × 4 pods = 128. Cores = ⌈128 × 32 = 4,096 links ÷ 64⌉ = 64.
    result = size(design(4096))
    assert compute(result, "leaves_per_su") == 8
    assert result.figure("fabric.compute.leaves").formula == "leaves = 8 rails × 1 per SU × 16 SU = 128"
    assert compute(result, "spines") == 128
    assert result.figure("fabric.compute.cores").formula == "cores = ⌈4,096 spine–core links ÷ 64 ports⌉ = 64"


def test_the_largest_three_tier_fabric_is_k_cubed_over_4():
    # k = 64, d = 32: three tiers reach 64 pods × 32 leaves × 32 = 65,536 = 64³/4 endpoints.
    result = size(design(65_536))
    assert compute(result, "leaves") == 2048  # 8 rails × 256 SU
    assert compute(result, "spines") == 2048  # 64 pods × 32
    assert compute(result, "cores") == 1024  # 65,536 ÷ 64 = k²/4
    # One DGX more needs a 257th SU: 2,056 leaves = 65 pods > 64: refused naming the GPU count.
    with pytest.raises(SizingInputError) as caught:
        size(design(65_544))
    assert set(caught.value.errors) == {"gpus"}
    assert "at most 64 pods" in caught.value.errors["gpus"]


def test_two_tiers_reach_k_squared_over_2():
    # AUTO keeps two tiers up to k = 64 leaves = 2,048 GPUs (8 SU), then goes to three.
    assert compute(size(design(2048)), "tiers") == 2
    assert compute(size(design(2056)), "tiers") == 3  # 257 systems → 9 SU → 72 leaves


def test_fixed_two_tier_topology_that_cannot_reach_is_refused():
    with pytest.raises(SizingInputError) as caught:
        size(design(4096, compute=compute_fabric(topology=Topology.TWO_TIER)))
    assert set(caught.value.errors) == {"compute.topology"}
    assert "at most 64 leaves" in caught.value.errors["compute.topology"]


def test_fixed_three_tier_topology_on_a_small_fabric():
    # 256 GPUs = 1 SU, 8 leaves, one pod (8 ≤ 32). Spines: largest p dividing 32 with
    # 8 leaves × p ≤ 32 → p = 4, spines = 32 ÷ 4 = 8; cores = ⌈8 × 32 = 256 ÷ 64⌉ = 4.
    result = size(design(256, compute=compute_fabric(topology=Topology.THREE_TIER)))
    assert (compute(result, "tiers"), compute(result, "leaves")) == (3, 8)
    assert (compute(result, "spines"), compute(result, "cores")) == (8, 4)
    assert compute(result, "cables.spine_core") == 256


def test_oversubscription_3_to_1():
    # d = ⌊64 × 3 ÷ 4⌋ = 48 down, 16 up. 1,024 GPUs = 4 SU; 32 systems per SU ≤ 48, one rail per
    # leaf (48 ÷ 32 = 1): 32 leaves. Spines: largest p dividing 16 with 32·p ≤ 64 → 2; 16 ÷ 2 = 8.
    result = size(design(1024, compute=compute_fabric(oversubscription=3.0)))
    assert (compute(result, "down_ports"), compute(result, "up_ports")) == (48, 16)
    assert compute(result, "leaves") == 32
    assert compute(result, "spines") == 8
    assert compute(result, "cables.leaf_spine") == 32 * 16


def test_small_scalable_units_share_a_leaf_between_rails():
    # SU of 16 systems, d = 32: a leaf takes ⌊32 ÷ 16⌋ = 2 rails, leaves per SU = ⌈8 ÷ 2⌉ = 4.
    # 256 GPUs = 32 systems = 2 SU → 8 leaves.
    result = size(design(256, compute=compute_fabric(su_systems=16)))
    assert compute(result, "leaves_per_su") == 4
    assert compute(result, "leaves") == 8


def test_scalable_units_larger_than_a_leaf_need_several_leaves_per_rail():
    # SU of 40 systems, d = 32: each rail needs ⌈40 ÷ 32⌉ = 2 leaves → 16 leaves per SU.
    # 320 GPUs = 40 systems = 1 SU. Spines: p | 32, 16·p ≤ 64 → p = 4, spines = 8.
    result = size(design(320, compute=compute_fabric(su_systems=40)))
    assert compute(result, "leaves") == 16
    assert compute(result, "spines") == 8
    assert result.figure("fabric.compute.leaves").formula.startswith("leaves = 8 rails × ⌈40 systems ÷ 32")


def test_twin_port_transceivers_on_a_full_4_su_fabric():
    # 1,024 GPUs: node side 128 DGX × ⌈8 NICs ÷ 2 links⌉ = 512 twin-port modules (4 per DGX H100).
    # Switch side: node links 1,024 ÷ 2 = 512; leaf–spine 1,024 links, 2 ends × 1,024 ÷ 2 = 1,024.
    result = size(design(1024))
    assert compute(result, "optics.node_leaf.node_side") == 512
    assert compute(result, "optics.node_leaf.switch_side") == 512
    assert compute(result, "optics.leaf_spine") == 1024
    assert compute(result, "optics.spine_core") == 0
    assert compute(result, "optics.switch") == 1536
    bom = {(item.role, item.part_key): item.quantity for item in result.bom}
    assert bom[(BomRole.COMPUTE_NODE_OPTIC, TWIN_800G.key)] == 512
    assert bom[(BomRole.COMPUTE_SWITCH_OPTIC, TWIN_800G.key)] == 1536
    assert bom[(BomRole.COMPUTE_CABLE, FIBRE.key)] == 2048  # 1,024 node–leaf + 1,024 leaf–spine


def test_single_port_optics_need_a_module_per_port():
    # An OEM server with 8 single-port NIC cages takes a single-port module per NIC.
    single = replace(TWIN_800G, key="osfp-400g", name="400G OSFP", links=1, power_w=8.0)
    oem = replace(DGX_H100, ports_per_cage=1)
    result = size(design(256, system=oem, compute=compute_fabric(node_optic=single, switch_optic=single)))
    # 32 DGX × 8 = 256 node modules; 256 at the leaves; 2 ends × 256 leaf–spine links = 512.
    assert compute(result, "optics.node") == 256
    assert compute(result, "optics.switch") == 256 + 512


def test_copper_needs_no_transceivers():
    result = size(design(256, compute=compute_fabric(node_optic=None, switch_optic=None, cable=DAC)))
    assert compute(result, "optics.node") == 0 and compute(result, "optics.switch") == 0
    assert not [
        item for item in result.bom if item.role in (BomRole.COMPUTE_NODE_OPTIC, BomRole.COMPUTE_SWITCH_OPTIC)
    ]
    assert [(i.part_key, i.quantity) for i in result.bom if i.role == BomRole.COMPUTE_CABLE] == [("dac", 512)]


def test_copper_to_the_leaf_fibre_above_it():
    # Node side DAC (no optics), leaf–spine fibre with twin-port modules at both ends.
    fabric = compute_fabric(node_optic=None, switch_optic=TWIN_800G, cable=DAC, switch_cable=FIBRE)
    result = size(design(256, compute=fabric))
    assert compute(result, "optics.node") == 0
    # The leaf ends of node links take no module (copper); 256 leaf–spine links × 2 ends ÷ 2.
    assert compute(result, "optics.node_leaf.switch_side") == 0
    assert compute(result, "optics.switch") == 256
    cables = sorted((i.part_key, i.quantity, i.figure) for i in result.bom if i.role == BomRole.COMPUTE_CABLE)
    assert cables == [
        ("dac", 256, "fabric.compute.cables.node_leaf"),
        ("mmf", 256, "fabric.compute.cables.between_switches"),
    ]


def test_ports_faster_than_the_endpoints_are_split_into_lanes():
    # SN5600-like: 64 × 800G ports at 400 Gb/s per GPU → 2 lanes per port, k = 128, d = 64.
    # A leaf takes ⌊64 ÷ 32⌋ = 2 rails → 4 leaves per SU. 256 GPUs: 4 leaves, 64 up-ports each;
    # spines: largest p dividing 64 with 4·p ≤ 128 → 32, spines = 64 ÷ 32 = 2.
    # A twin-port module on a twin cage carries 2 ports × 2 lanes = 4 links: 256 node links → 64
    # leaf-side modules; 256 leaf–spine links → 2 × 64 = 128.
    sn5600 = SwitchSpec(key="sn5600", name="SN5600", ports=64, port_gbps=800, power_w=1_500, rack_units=2)
    result = size(design(256, compute=compute_fabric(switch=sn5600)))
    assert compute(result, "radix") == 128
    assert compute(result, "leaves") == 4
    assert compute(result, "spines") == 2
    assert compute(result, "optics.node_leaf.switch_side") == 64
    assert compute(result, "optics.leaf_spine") == 128
    assert compute(result, "optics.node") == 128  # 32 DGX × 4


def test_rack_scale_system_leaves():
    # GB200 NVL72: 72 GPUs, 72 × 400G NICs (4 per compute tray, 18 trays), SU of 8 racks.
    # d = 32 and 8 systems per SU: a leaf takes ⌊32 ÷ 8⌋ = 4 rails → ⌈72 ÷ 4⌉ = 18 leaves per SU.
    # 576 GPUs = 8 systems = 1 SU; spines: largest p dividing 32 with 18·p ≤ 64 → 2; 32 ÷ 2 = 16.
    # Its trays' NICs sit in single-port cages: one single-port module per NIC.
    nvl72 = SystemSpec(
        key="gb200-nvl72", name="GB200 NVL72", gpus=72, power_w=120_000, rack_units=48, rack_scale=True,
        compute_ports=72, liquid_fraction=0.85, ports_per_cage=1,
    )  # fmt: skip
    result = size(design(576, system=nvl72, compute=compute_fabric(su_systems=8, node_optic=SINGLE_400G)))
    assert compute(result, "leaves") == 18
    assert compute(result, "spines") == 16
    assert compute(result, "optics.node") == 8 * 72  # 72 single-port modules per rack


def test_storage_fabric_oversubscribed_4_to_3():
    # NVIDIA's H100 storage fabric is ~4:3 on the node side: d = ⌊64 × (4/3) ÷ (7/3)⌋ = 36, u = 28.
    # 1,024 GPUs: 128 DGX × 2 storage ports + 26 appliances × 2 = 308 links → ⌈308 ÷ 36⌉ = 9 leaves.
    # Spines: p | 28 with 9·p ≤ 64 → p = 7, spines = 28 ÷ 7 = 4; leaf–spine cables 9 × 28 = 252.
    result = size(
        design(
            1024,
            storage=replace(
                design().storage, fabric=replace(design().storage.fabric, oversubscription=4 / 3)
            ),
        )
    )
    assert result.value("fabric.storage.endpoints") == 308
    assert result.value("fabric.storage.down_ports") == 36
    assert result.value("fabric.storage.leaves") == 9
    assert result.value("fabric.storage.spines") == 4
    assert result.value("fabric.storage.cables.leaf_spine") == 252
    assert result.switches_by_tier["storage leaf"] == 9


def test_a_fabric_that_fits_one_switch_has_one_tier():
    # 8 GPUs: 1 DGX × 1 in-band port + 1 appliance = 2 endpoints on one 64-port switch.
    result = size(design(8))
    assert result.value("fabric.inband.tiers") == 1
    assert result.value("fabric.inband.leaves") == 1
    assert result.value("fabric.inband.spines") == 0
    # The compute fabric is still built for its whole SU (NVIDIA's rule): 8 leaves, 4 spines.
    assert (compute(result, "leaves"), compute(result, "spines")) == (8, 4)
    assert compute(result, "cables.node_leaf") == 8


def test_build_tree_single_leaf_and_no_leaves():
    assert build_tree(leaves=1, uplinks=32, k=64, pod_leaves=32, topology=Topology.AUTO).tiers == 1
    assert build_tree(leaves=0, uplinks=32, k=64, pod_leaves=32, topology=Topology.AUTO).tiers == 0
    # A three-tier tree with a partial last pod: 40 leaves in pods of 32 → a pod of 8.
    # Full pod: p | 32, 32·p ≤ 32 → 1 → 32 spines; last: 8·p ≤ 32 → 4 → 8 spines. 40 in all.
    tree = build_tree(leaves=40, uplinks=32, k=64, pod_leaves=32, topology=Topology.THREE_TIER)
    assert (tree.pods, tree.spines, tree.cores) == (2, 40, 20)  # cores ⌈1,280 ÷ 64⌉ = 20


def test_dgx_h100_default_spec_is_8_rails():
    assert DGX_H100.compute_ports is None  # one endpoint per GPU
    assert size(design(256)).value("fabric.compute.endpoints") == 256
