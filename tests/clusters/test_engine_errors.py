"""Bad input: one SizingInputError naming every bad input by its dotted path; never a
ZeroDivisionError, never a silent default."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from apps.clusters.engines.examples import CDU, DAC, DGX_H100, QM9700, TWIN_800G, compute_fabric, design
from apps.clusters.engines.sizing import size
from apps.clusters.engines.types import (
    Cooling,
    DesignInputs,
    FacilityInputs,
    RackInputs,
    SizingInputError,
    TrainingInputs,
)


def base() -> DesignInputs:
    """1,024 GPUs with every optional part given (a CDU, a chosen interval), so every path exists."""
    return design(
        1024,
        facility=FacilityInputs(cooling=Cooling.AIR, pue=1.4, cdu=CDU, site_power_mw=10.0),
        training=TrainingInputs(params_billion=70, gpu_mtbf_hours=50_000, chosen_interval_minutes=30),
    )


def with_value(obj: Any, path: str, value: Any) -> Any:
    """`obj` with the input at the dotted `path` set to `value` (frozen dataclasses all the way)."""
    head, _, rest = path.partition(".")
    if not rest:
        return replace(obj, **{head: value})
    return replace(obj, **{head: with_value(getattr(obj, head), rest, value)})


def refused(inputs: DesignInputs) -> dict[str, str]:
    with pytest.raises(SizingInputError) as caught:
        size(inputs)
    assert str(caught.value)  # "path: message; …"
    return caught.value.errors


# Inputs that must be greater than zero.
POSITIVE = [
    "gpus",
    "system.gpus",
    "system.power_w",
    "system.rack_units",
    "system.compute_ports",
    "system.compute_port_gbps",
    "compute.switch.ports",
    "compute.switch.port_gbps",
    "compute.switch.rack_units",
    "compute.switch.ports_per_cage",
    "compute.bandwidth_per_gpu_gbps",
    "compute.oversubscription",
    "compute.su_systems",
    "compute.node_optic.links",
    "compute.switch_optic.links",
    "storage.usable_capacity_tb",
    "storage.read_gbs_per_node",
    "storage.write_gbs_per_node",
    "storage.appliance.capacity_tb",
    "storage.appliance.read_gbs",
    "storage.appliance.write_gbs",
    "storage.appliance.rack_units",
    "storage.appliance.ports",
    "storage.fabric.switch.ports",
    "storage.fabric.switch.port_gbps",
    "storage.fabric.oversubscription",
    "management.inband_switch.ports",
    "management.oob_switch.ports",
    "management.inband_oversubscription",
    "management.oob_uplinks",
    "racks.rack.rack_units",
    "racks.power_limit_kw",
    "racks.pdu.kw",
    "racks.pdus_per_rack",
    "racks.racks_per_row",
    "facility.pue",
    "facility.cdu.kw",
    "facility.air_max_kw_per_rack",
    "facility.site_power_mw",
    "training.params_billion",
    "training.bytes_per_param",
    "training.gpu_mtbf_hours",
    "training.chosen_interval_minutes",
]
# Inputs where zero is a real answer (no storage ports, no redundancy, a passive part) but a
# negative number is not.
NON_NEGATIVE = [
    "system.storage_ports",
    "system.inband_ports",
    "system.oob_ports",
    "system.liquid_fraction",
    "compute.switch.power_w",
    "compute.node_optic.power_w",
    "compute.cable.power_w_per_end",
    "storage.appliance.power_w",
    "racks.pdu_redundancy",
    "facility.cdu_redundancy",
    "facility.cdu_margin",
    "training.restart_minutes",
]


@pytest.mark.parametrize("path", POSITIVE)
@pytest.mark.parametrize("value", [0, -1])
def test_zero_or_negative_is_refused_naming_the_input(path, value):
    errors = refused(with_value(base(), path, value))
    assert path in errors, errors
    assert not [p for p in errors if p != path and not p.startswith("facility.pue")], errors


@pytest.mark.parametrize("path", NON_NEGATIVE)
def test_negative_is_refused_zero_is_sized(path):
    assert path in refused(with_value(base(), path, -1))
    size(with_value(base(), path, 0))  # no ZeroDivisionError, no refusal


@pytest.mark.parametrize("path", ["facility.pue", "storage.write_gbs_per_node", "racks.power_limit_kw"])
@pytest.mark.parametrize("value", [math.nan, math.inf, "40", None])
def test_not_a_finite_number_is_refused(path, value):
    assert path in refused(with_value(base(), path, value))


def test_a_switch_without_a_radix_is_named_with_its_part():
    errors = refused(with_value(base(), "compute.switch.ports", 0))
    assert errors == {"compute.switch.ports": "QM9700 has no radix: must be greater than 0 (got 0)"}


def test_gpus_not_a_multiple_of_gpus_per_system():
    errors = refused(design(1020))
    assert errors == {"gpus": "1,020 GPUs is not a multiple of 8 GPUs per DGX H100 (nearest: 1,016 or 1,024)"}
    assert "gpus" in refused(design(8.0))  # a float is not a whole number of GPUs


def test_every_bad_input_at_once():
    inputs = design(
        12,
        compute=compute_fabric(switch=replace(QM9700, ports=0)),
        storage=replace(design().storage, write_gbs_per_node=0.0),
        facility=FacilityInputs(cooling=Cooling.LIQUID, pue=0.9),
        training=TrainingInputs(params_billion=70, gpu_mtbf_hours=50_000, cluster_interruptions_per_day=7.8),
    )
    errors = refused(inputs)
    assert set(errors) == {
        "gpus",
        "compute.switch.ports",
        "storage.write_gbs_per_node",
        "facility.cdu",
        "facility.pue",
        "training.gpu_mtbf_hours",
        "training.cluster_interruptions_per_day",
    }
    assert errors["facility.cdu"] == "liquid cooling needs a coolant distribution unit"
    assert errors["facility.pue"] == "PUE is facility ÷ IT power and cannot be below 1 (got 0.9)"
    assert "not both" in errors["training.gpu_mtbf_hours"]


def test_neither_mtbf_input():
    errors = refused(design(training=TrainingInputs(params_billion=70)))
    assert set(errors) == {"training.gpu_mtbf_hours", "training.cluster_interruptions_per_day"}
    assert errors["training.gpu_mtbf_hours"] == "give the per-GPU MTBF or the cluster's interruptions per day"


def test_missing_cdu_for_immersion():
    assert set(refused(design(facility=FacilityInputs(cooling=Cooling.IMMERSION, pue=1.1)))) == {
        "facility.cdu"
    }


def test_endpoints_faster_than_the_switch_ports():
    errors = refused(design(compute=compute_fabric(bandwidth_per_gpu_gbps=800)))
    assert set(errors) == {"compute.bandwidth_per_gpu_gbps"}
    assert "faster than the 400 Gb/s ports of QM9700" in errors["compute.bandwidth_per_gpu_gbps"]
    errors = refused(design(system=replace(DGX_H100, compute_port_gbps=800)))
    assert set(errors) == {"system.compute_port_gbps"}


def test_an_oversubscription_that_leaves_no_down_port():
    # r = 0.01: d = ⌊64 × 0.01 ÷ 1.01⌋ = 0.
    assert set(refused(design(compute=compute_fabric(oversubscription=0.01)))) == {"compute.oversubscription"}


def test_optics_and_cables_must_agree():
    # An optical cable with no transceiver at the node, a copper one with transceivers.
    assert set(refused(design(compute=compute_fabric(node_optic=None, switch_optic=None)))) == {
        "compute.node_optic",
        "compute.switch_optic",
    }
    assert set(refused(design(compute=compute_fabric(cable=DAC)))) == {"compute.cable"}
    # Fibre with modules to the leaf, copper between switches: fine; the leaf ends of the node
    # links take the node's module part (no switch optic given): 256 links ÷ 2 = 128.
    result = size(
        design(256, compute=compute_fabric(switch_optic=None, switch_cable=DAC, node_optic=TWIN_800G))
    )
    assert result.value("fabric.compute.optics.node_leaf.switch_side") == 128
    assert result.value("fabric.compute.optics.leaf_spine") == 0


def test_a_system_beyond_the_rack_limits():
    # 10.26 kW per DGX over an 8 kW rack limit; an 8U DGX in a 6U rack.
    errors = refused(
        design(racks=RackInputs(rack=design().racks.rack, power_limit_kw=8, pdu=design().racks.pdu))
    )
    assert set(errors) == {"racks.power_limit_kw"}
    assert "10.26 kW, more than the 8 kW rack limit" in errors["racks.power_limit_kw"]
    small_rack = replace(design().racks.rack, rack_units=6)
    errors = refused(design(racks=RackInputs(rack=small_rack, power_limit_kw=40, pdu=design().racks.pdu)))
    assert "racks.rack.rack_units" in errors


def test_beyond_three_tiers_and_fixed_topology_together():
    # 131,072 GPUs on 64-port switches: beyond three tiers (gpus); the storage fabric likewise.
    errors = refused(design(131_072))
    assert "gpus" in errors
    assert "at most 64 pods" in errors["gpus"]


def test_oob_uplinks_must_leave_ports():
    assert set(refused(with_value(base(), "management.oob_uplinks", 48))) == {"management.oob_uplinks"}


def test_every_engine_bom_role_can_be_stored():
    """A bill of materials line stores the engine's role: a role the model lacks would fail on save
    (storage_core, the storage fabric's third tier, once did)."""
    from apps.clusters.engines.types import BomRole as EngineRole
    from apps.clusters.models import BomRole

    assert {role.value for role in EngineRole} == set(BomRole.values)
