"""Catalogue parts with the figures the sizing reads, and a design's inputs, for the clusters
tests and the isolation world (figures from ../shared/reference/parts.md)."""

from __future__ import annotations

from decimal import Decimal

from apps.catalog.models import PartCategory

from ..factories import PartFactory


def cluster_parts(owner, prefix: str = "T") -> dict:
    """One of each part a design names, owned by `owner`."""

    def part(number: str, category: str, **fields):
        return PartFactory(
            owner=owner,
            part_number=f"{prefix}-{number}",
            name=f"{prefix} {number}",
            category=category,
            **fields,
        )

    return {
        "system": part(
            "DGX-H100",
            PartCategory.SERVER,
            hs_code="847150",
            gpus_per_server=8,
            power_draw_w=10200,
            rack_units=8,
            port_count=8,
            port_speed_gbps=400,
            unit_value=Decimal("373000"),
            ports_per_cage=2,  # 8 NICs in 4 twin-port OSFP cages
            attributes={"cooling": "air"},
        ),
        "cs3": part(
            "CS-3",
            PartCategory.SERVER,
            hs_code="847180",
            gpus_per_server=1,
            power_draw_w=23000,
            rack_units=15,
            port_count=12,
            port_speed_gbps=100,
            ports_per_cage=1,
        ),
        "switch": part(
            "QM9700",
            PartCategory.NETWORK_SWITCH,
            port_count=64,
            port_speed_gbps=400,
            power_draw_w=1720,
            rack_units=1,
            ports_per_cage=2,
        ),
        "inband": part(
            "SN4600C",
            PartCategory.NETWORK_SWITCH,
            port_count=64,
            port_speed_gbps=100,
            power_draw_w=800,
            rack_units=2,
        ),
        "oob": part(
            "SN2201",
            PartCategory.NETWORK_SWITCH,
            port_count=48,
            port_speed_gbps=1,
            power_draw_w=150,
            rack_units=1,
        ),
        "optic": part(
            "OSFP-800-SR8",
            PartCategory.OPTICAL_TRANSCEIVER,
            port_count=2,
            port_speed_gbps=400,
            power_draw_w=15,
            unit_value=Decimal("1200"),
        ),
        "fibre": part(
            "MPO-30M",
            PartCategory.CABLE,
            hs_code="854470",
            power_draw_w=None,
            unit_value=Decimal("150"),
            attributes={"fibre": "multimode OM4", "length_m": 30},
        ),
        "storage": part(
            "AI400X2",
            PartCategory.STORAGE_SYSTEM,
            hs_code="847170",
            power_draw_w=2600,
            rack_units=2,
            port_count=8,
            port_speed_gbps=200,
            attributes={"capacity_tb": 500, "read_gbps": 90, "write_gbps": 65},
        ),
        "rack": part(
            "RACK-48U",
            PartCategory.RACK,
            hs_code="940320",
            power_draw_w=None,
            rack_units=48,
            unit_value=Decimal("3000"),
        ),
        "pdu": part(
            "PDU-60A",
            PartCategory.PDU,
            hs_code="853710",
            power_draw_w=None,
            unit_value=Decimal("3200"),
            attributes={"capacity_kw": 34.6},
        ),
        "cdu": part(
            "CDU-100",
            PartCategory.COOLING_CDU,
            hs_code="841989",
            power_draw_w=1500,
            rack_units=4,
            unit_value=Decimal("45000"),
            attributes={"capacity_kw": 100},
        ),
    }


def design_fields(parts: dict, *, customer, site, name: str = "Test cluster", **changes) -> dict:
    """A 512-GPU, liquid-cooled DGX H100 design's inputs (the speech-AI seed)."""
    fields = {
        "customer": customer,
        "site": site,
        "name": name,
        "system": parts["system"],
        "gpus": 512,
        "compute_fabric": "infiniband",
        "compute_bandwidth_gbps": 400,
        "compute_switch": parts["switch"],
        "compute_node_optic": parts["optic"],
        "compute_switch_optic": parts["optic"],
        "compute_cable": parts["fibre"],
        "storage_appliance": parts["storage"],
        "storage_capacity_tb": Decimal("2000"),
        "storage_read_gbs_per_node": Decimal("8"),
        "storage_write_gbs_per_node": Decimal("4"),
        "storage_switch": parts["switch"],
        "inband_switch": parts["inband"],
        "oob_switch": parts["oob"],
        "rack": parts["rack"],
        "rack_power_limit_kw": Decimal("130"),
        "pdu": parts["pdu"],
        "pdus_per_rack": 4,
        "cooling": "liquid",
        "pue": Decimal("1.20"),
        "cdu": parts["cdu"],
        "params_billion": Decimal("70"),
        "gpu_mtbf_hours": Decimal("50000"),
        "checkpoint_interval_minutes": Decimal("30"),
    }
    return fields | changes
