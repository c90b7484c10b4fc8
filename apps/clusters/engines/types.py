"""The sizing engine's inputs and outputs: plain, frozen dataclasses, no Django.

Django code (apps/clusters/services.py) builds a `DesignInputs` from a cluster design and the
catalogue parts it names, calls `sizing.size(inputs)` and stores `SizingResult.as_dict()`. Every
part is handed over as a spec with a `key` (the catalogue part's id as a string), echoed back on
the bill-of-materials items so the caller can find the part again. Errors in the inputs are one
`SizingInputError` naming every bad input by its dotted path (e.g. "compute.switch.ports").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

ENGINE_VERSION = "2.0.0"


class SizingInputError(ValueError):
    """Every bad input at once: {dotted input path: message}."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{path}: {message}" for path, message in self.errors.items()))


class FabricKind(StrEnum):
    INFINIBAND = "infiniband"
    ETHERNET = "ethernet"


class Topology(StrEnum):
    AUTO = "auto"  # two tiers while they reach every endpoint, else three
    TWO_TIER = "two_tier"
    THREE_TIER = "three_tier"


class Cooling(StrEnum):
    AIR = "air"
    LIQUID = "liquid"  # direct-to-chip
    IMMERSION = "immersion"


# --- Parts -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemSpec:
    """A compute system: a server (DGX H100: 8 GPUs, 8U), a rack-scale system (GB200 NVL72: one
    system is a whole rack) or a wafer-scale system (Cerebras CS-3: 1 accelerator)."""

    key: str
    name: str
    gpus: int  # accelerators per system
    power_w: int  # maximum draw of one system
    rack_units: int  # for a rack-scale system, the rack it arrives in
    rack_scale: bool = False
    # Compute-fabric endpoints per system and their speed; None = one per GPU at the design's
    # bandwidth per GPU (a DGX H100: 8 × 400 Gb/s).
    compute_ports: int | None = None
    compute_port_gbps: int | None = None
    storage_ports: int = 2
    inband_ports: int = 1
    oob_ports: int = 1  # BMC
    # Share of the heat removed by liquid when the design is liquid cooled (0 for an air-only
    # system, ~0.8 for a direct-to-chip server whose fans still move the rest).
    liquid_fraction: float = 0.0
    weight_kg: float = 0.0
    # Compute ports behind one transceiver cage: 1 = single-port cages (an OEM server's 8 single-
    # port ConnectX-7 cards), 2 = twin-port OSFP cages (a DGX H100's 8 NICs in 4 cages). A node-
    # side module must carry as many links as a cage has ports; None = not known (copper only).
    ports_per_cage: int | None = None


@dataclass(frozen=True)
class SwitchSpec:
    key: str
    name: str
    ports: int  # radix at port_gbps (QM9700: 64 × 400 Gb/s)
    port_gbps: int
    power_w: int
    rack_units: int = 1
    ports_per_cage: int = 2  # twin-port OSFP cages take one twin-port module per two ports
    weight_kg: float = 0.0


@dataclass(frozen=True)
class OpticSpec:
    """A transceiver: `links` links per module (2 for twin-port)."""

    key: str
    name: str
    links: int = 1
    power_w: float = 0.0


@dataclass(frozen=True)
class CableSpec:
    key: str
    name: str
    optical: bool = True  # an optical cable needs a transceiver at each end; copper (DAC) none
    power_w_per_end: float = 0.0  # active cables


@dataclass(frozen=True)
class StorageSpec:
    """One storage appliance / parallel-file-system node."""

    key: str
    name: str
    capacity_tb: float
    read_gbs: float  # GB/s one appliance delivers
    write_gbs: float
    power_w: int
    rack_units: int
    ports: int = 2  # storage-fabric ports per appliance
    weight_kg: float = 0.0


@dataclass(frozen=True)
class RackSpec:
    key: str
    name: str
    rack_units: int = 48
    static_load_kg: float | None = None  # the equipment it carries standing; None: not known, no check


@dataclass(frozen=True)
class PduSpec:
    key: str
    name: str
    kw: float  # capacity of one PDU
    weight_kg: float = 0.0


@dataclass(frozen=True)
class CduSpec:
    """A coolant distribution unit. With rack units it is an in-rack CDU: it takes its units in
    the rack it cools, sized and made redundant per rack. Without (0) it stands in the row beside
    the racks and serves the row: sized and made redundant per row."""

    key: str
    name: str
    kw: float  # heat one CDU removes
    rack_units: int = 0
    weight_kg: float = 0.0

    @property
    def in_rack(self) -> bool:
        return self.rack_units > 0


# --- Design inputs -----------------------------------------------------------------------------


@dataclass(frozen=True)
class FabricInputs:
    """A fabric (compute or storage) built from one switch part."""

    kind: FabricKind
    switch: SwitchSpec
    bandwidth_per_gpu_gbps: int = 400  # compute fabric: per GPU; storage fabric: ignored
    topology: Topology = Topology.AUTO
    oversubscription: float = 1.0  # r in r:1 (1 = non-blocking)
    su_systems: int = 32  # systems per scalable unit (DGX H100/B200 SuperPOD: 32)
    node_optic: OpticSpec | None = None  # None: copper at the node side
    switch_optic: OpticSpec | None = None  # None: copper between switches
    cable: CableSpec | None = None  # the cable of every link
    # Added: the cable between switches when it differs from the node side's (DAC to the leaf,
    # fibre above it); None = `cable`.
    switch_cable: CableSpec | None = None


@dataclass(frozen=True)
class StorageInputs:
    appliance: StorageSpec
    usable_capacity_tb: float
    read_gbs_per_node: float  # what each compute system must be able to read (GB/s)
    write_gbs_per_node: float
    fabric: FabricInputs  # its own switches (NVIDIA's H100 design: ~4:3 oversubscribed node side)


@dataclass(frozen=True)
class ManagementInputs:
    inband_switch: SwitchSpec
    oob_switch: SwitchSpec
    inband_cable: CableSpec | None = None
    oob_cable: CableSpec | None = None
    # Added: the in-band network's leaf oversubscription (r:1) and the up-ports each out-of-band
    # leaf keeps for its uplinks (the rest take BMCs, switch and PDU management ports).
    inband_oversubscription: float = 1.0
    oob_uplinks: int = 2


@dataclass(frozen=True)
class RackInputs:
    rack: RackSpec
    power_limit_kw: float
    pdu: PduSpec
    pdus_per_rack: int = 2
    pdu_redundancy: int = 1  # N+1: PDUs beyond what the load needs, per rack
    racks_per_row: int = 10  # added: for the rows figure [E]


@dataclass(frozen=True)
class FacilityInputs:
    cooling: Cooling
    pue: float
    cdu: CduSpec | None = None  # required when cooling is liquid or immersion
    cdu_redundancy: int = 1  # N+1
    site_power_mw: float | None = None  # None: not known, no check
    # Added: the rack density air can still cool (warning above it when cooled by air) [V/E], and
    # the head-room on the liquid heat load before the CDUs are counted (then + redundancy) [E].
    air_max_kw_per_rack: float = 40.0
    cdu_margin: float = 0.1


@dataclass(frozen=True)
class TrainingInputs:
    params_billion: float
    bytes_per_param: float = 14.0
    gpu_mtbf_hours: float | None = None  # per-GPU MTBF ...
    cluster_interruptions_per_day: float | None = None  # ... or a measured rate (one of the two)
    restart_minutes: float = 10.0
    chosen_interval_minutes: float | None = None  # the planner's fixed interval, compared to the optimum


@dataclass(frozen=True)
class DesignInputs:
    system: SystemSpec
    gpus: int  # total accelerators; a multiple of system.gpus
    compute: FabricInputs
    storage: StorageInputs
    management: ManagementInputs
    racks: RackInputs
    facility: FacilityInputs
    training: TrainingInputs


# --- Result ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """One output with what it was worked out from, for the page to explain it:
    formula "leaves = 8 rails × 1 per SU × 4 SU = 32"."""

    key: str  # "fabric.compute.leaves"
    # systems | racks | compute_fabric | storage_fabric | management | storage | power | cooling | checkpoint
    section: str
    label: str
    value: int | float
    unit: str
    formula: str
    inputs: dict[str, int | float | str] = field(default_factory=dict)


class BomRole(StrEnum):
    SYSTEM = "system"
    COMPUTE_LEAF = "compute_leaf"
    COMPUTE_SPINE = "compute_spine"
    COMPUTE_CORE = "compute_core"
    COMPUTE_NODE_OPTIC = "compute_node_optic"
    COMPUTE_SWITCH_OPTIC = "compute_switch_optic"
    COMPUTE_CABLE = "compute_cable"
    STORAGE_APPLIANCE = "storage_appliance"
    STORAGE_LEAF = "storage_leaf"
    STORAGE_SPINE = "storage_spine"
    STORAGE_CORE = "storage_core"  # added: a storage fabric past two tiers
    STORAGE_NODE_OPTIC = "storage_node_optic"
    STORAGE_SWITCH_OPTIC = "storage_switch_optic"
    STORAGE_CABLE = "storage_cable"
    INBAND_SWITCH = "inband_switch"
    INBAND_CABLE = "inband_cable"
    OOB_SWITCH = "oob_switch"
    OOB_CABLE = "oob_cable"
    RACK = "rack"
    PDU = "pdu"
    CDU = "cdu"


@dataclass(frozen=True)
class BomItem:
    role: BomRole
    part_key: str
    quantity: int
    figure: str  # key of the Figure that explains the quantity


@dataclass(frozen=True)
class SizingWarning:
    code: str  # "site_power_exceeded", "rack_power_exceeded", "liquid_required", …
    input: str  # the dotted input path it concerns ("" when none)
    message: str


@dataclass(frozen=True)
class RackSlot:
    label: str  # "DGX H100", "QM9700 leaf", "PDU"
    rack_units: int  # height of one
    count: int  # how many of it in this rack


@dataclass(frozen=True)
class RackType:
    """Racks that are laid out alike: the elevation is drawn once per type, with its count."""

    # compute | network | storage | management (results before 2.0) | cooling (in-row CDU
    # cabinets: floor positions in a row, not racks of the bill of materials)
    kind: str
    count: int
    slots: tuple[RackSlot, ...]
    it_kw: float  # IT load of one rack of this type
    weight_kg: float = 0.0  # what one rack of this type carries (equipment and PDUs)


@dataclass(frozen=True)
class SizingResult:
    engine_version: str
    figures: tuple[Figure, ...]
    bom: tuple[BomItem, ...]
    warnings: tuple[SizingWarning, ...]
    racks: tuple[RackType, ...]
    power_by_component_kw: dict[str, float]  # "systems", "compute switches", "optics", "storage", …
    switches_by_tier: dict[str, int]  # "compute leaf", "compute spine", "compute core", "storage leaf", …

    def figure(self, key: str) -> Figure:
        for item in self.figures:
            if item.key == key:
                return item
        raise KeyError(key)

    def value(self, key: str) -> int | float:
        return self.figure(key).value

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe (ints, floats, strings, lists, dicts) for a JSONField; `from_dict` gives back
        an equal result (ints stay ints: JSON keeps 3 and 3.0 apart)."""
        return {
            "engine_version": self.engine_version,
            "figures": [
                {
                    "key": f.key,
                    "section": f.section,
                    "label": f.label,
                    "value": f.value,
                    "unit": f.unit,
                    "formula": f.formula,
                    "inputs": dict(f.inputs),
                }
                for f in self.figures
            ],
            "bom": [
                {"role": str(b.role), "part_key": b.part_key, "quantity": b.quantity, "figure": b.figure}
                for b in self.bom
            ],
            "warnings": [{"code": w.code, "input": w.input, "message": w.message} for w in self.warnings],
            "racks": [
                {
                    "kind": r.kind,
                    "count": r.count,
                    "slots": [
                        {"label": s.label, "rack_units": s.rack_units, "count": s.count} for s in r.slots
                    ],
                    "it_kw": r.it_kw,
                    "weight_kg": r.weight_kg,
                }
                for r in self.racks
            ],
            "power_by_component_kw": dict(self.power_by_component_kw),
            "switches_by_tier": dict(self.switches_by_tier),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SizingResult:
        return cls(
            engine_version=data["engine_version"],
            figures=tuple(Figure(**{**f, "inputs": dict(f["inputs"])}) for f in data["figures"]),
            bom=tuple(
                BomItem(
                    role=BomRole(b["role"]),
                    part_key=b["part_key"],
                    quantity=b["quantity"],
                    figure=b["figure"],
                )
                for b in data["bom"]
            ),
            warnings=tuple(SizingWarning(**w) for w in data["warnings"]),
            racks=tuple(
                RackType(
                    kind=r["kind"],
                    count=r["count"],
                    slots=tuple(RackSlot(**s) for s in r["slots"]),
                    it_kw=r["it_kw"],
                    weight_kg=r.get("weight_kg", 0.0),  # results stored before 2.0 have none
                )
                for r in data["racks"]
            ),
            power_by_component_kw=dict(data["power_by_component_kw"]),
            switches_by_tier=dict(data["switches_by_tier"]),
        )
