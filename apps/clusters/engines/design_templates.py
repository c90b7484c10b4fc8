"""Starting points for a new cluster design: a planner picks one on "New design" and edits the form
it fills, rather than typing fifty inputs from nothing.

Plain data, no Django: each template gives the design's inputs by field name, with catalogue
parts named by part number (the form looks each up among the parts its user sees, and leaves a
field empty when the catalogue has no such part). Neither the customer nor the site is part of a
template: whose cluster it is and where it stands are always the planner's choice.

The figures are the same as the demo's designs and `defaults.py` ([V] vendor, [E] estimate):
- DGX H100, air-cooled: NVIDIA's DGX SuperPOD reference (32 systems a scalable unit, NDR 400 Gb/s
  InfiniBand per GPU, twin-port 800G OSFP modules at both ends) [V]; three 10.2 kW systems to a
  40 kW air-cooled rack [E]; PUE 1.45 for air [E].
- HGX H100, liquid-cooled: the demo's speech-AI cluster (twelve 4U servers to a 130 kW rack,
  direct-to-chip liquid, PUE 1.2) [E].
- Cerebras CS-3: the demo's Cerebras cluster (one 23 kW system a rack, 100 GbE fabric) [E].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DesignTemplate:
    key: str
    name: str
    summary: str
    values: dict[str, Any] = field(default_factory=dict)
    parts: dict[str, str] = field(default_factory=dict)  # design field → catalogue part number


_COMMON_VALUES: dict[str, Any] = {
    "compute_fabric": "infiniband",
    "compute_bandwidth_gbps": 400,
    "compute_topology": "auto",
    "compute_oversubscription": "1",
    "su_systems": 32,
    "storage_capacity_tb": "2000",
    "storage_read_gbs_per_node": "8",  # NVIDIA's "better" per node [V]
    "storage_write_gbs_per_node": "4",
    "storage_fabric": "infiniband",
    "storage_oversubscription": "1.33",
    "pdus_per_rack": 2,
    "pdu_redundancy": 1,
    "cdu_redundancy": 1,
    "electricity_price": "0.10",
    "electricity_currency": "USD",
    "params_billion": "70",
    "bytes_per_param": "14",
    "gpu_mtbf_hours": "50000",  # Llama 3's interruption rate per GPU [P]
    "restart_minutes": "10",
    "checkpoint_interval_minutes": "30",
}
_COMMON_PARTS: dict[str, str] = {
    "storage_appliance": "AI400X2",
    "storage_switch": "MQM9700-NS2F",
    "inband_switch": "MSN4600-CS2FC",
    "oob_switch": "MSN2201-CB2FC",
    "rack": "AR3307",
    "pdu": "GEIST-RPDU-3P415V-60A",
}

TEMPLATES: tuple[DesignTemplate, ...] = (
    DesignTemplate(
        key="dgx-h100-air",
        name="DGX H100, 512 GPUs, InfiniBand NDR, air-cooled",
        summary="64 DGX H100 systems in two SuperPOD scalable units, 400 Gb/s InfiniBand per GPU, "
        "three systems to a 40 kW air-cooled rack.",
        values=_COMMON_VALUES | {"gpus": 512, "rack_power_limit_kw": "40", "cooling": "air", "pue": "1.45"},
        parts=_COMMON_PARTS
        | {
            "system": "DGXH-G640F+P2CMI36",
            "compute_switch": "MQM9700-NS2F",
            "compute_node_optic": "MMA4Z00-NS",
            "compute_switch_optic": "MMA4Z00-NS",
            "compute_cable": "MFP7E10-N030",
            "storage_node_optic": "MMA4Z00-NS400",
            "storage_switch_optic": "MMA4Z00-NS",
            "storage_cable": "MFP7E10-N030",
        },
    ),
    DesignTemplate(
        key="hgx-h100-liquid",
        name="HGX H100, 512 GPUs, InfiniBand NDR, liquid-cooled",
        summary="64 liquid-cooled 4U HGX H100 servers, twelve to a 130 kW direct-to-chip rack, "
        "with in-rack CDUs.",
        values=_COMMON_VALUES
        | {
            "gpus": 512,
            "rack_power_limit_kw": "130",
            "pdus_per_rack": 4,
            "cooling": "liquid",
            "pue": "1.20",
        },
        parts=_COMMON_PARTS
        | {
            "system": "SYS-421GE-TNHR2-LCC",
            "compute_switch": "MQM9700-NS2F",
            "compute_node_optic": "MMA4Z00-NS400",
            "compute_switch_optic": "MMA4Z00-NS",
            "compute_cable": "MFP7E10-N030",
            "storage_node_optic": "MMA4Z00-NS400",
            "storage_switch_optic": "MMA4Z00-NS",
            "storage_cable": "MFP7E10-N030",
            "cdu": "CoolChip-CDU-100",
        },
    ),
    DesignTemplate(
        key="cerebras-cs3",
        name="Cerebras CS-3, 64 systems, 100 GbE",
        summary="64 CS-3 systems on a 400 Gb/s Ethernet fabric, one system to an air-cooled rack.",
        values=_COMMON_VALUES
        | {
            "gpus": 64,
            "compute_fabric": "ethernet",
            "su_systems": 16,
            "storage_capacity_tb": "1000",
            "rack_power_limit_kw": "40",
            "pdus_per_rack": 4,
            "cooling": "air",
            "pue": "1.45",
            "gpu_mtbf_hours": "20000",
        },
        parts=_COMMON_PARTS
        | {
            "system": "CS-3",
            "compute_switch": "MSN4600-CS2FC",
            "compute_node_optic": "MMA1Z00-NS400",
            "compute_switch_optic": "MMA1Z00-NS400",
            "compute_cable": "MFP7E10-N010",
        },
    ),
)
BY_KEY = {template.key: template for template in TEMPLATES}
