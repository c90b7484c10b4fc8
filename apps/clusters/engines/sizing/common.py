"""What every sizing step shares: how numbers are shown in formulas, rounding that ignores float
noise, the small records the steps pass to each other (a network's switches and attached power, a
kind of piece in a rack, racks laid out alike), and `SizerBase`, which gathers the figures, bill
of materials, warnings and errors as the steps run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..fabric import Tree
from ..types import (
    BomItem,
    BomRole,
    DesignInputs,
    Figure,
    RackType,
    SizingWarning,
    SwitchSpec,
)

_EPS = 1e-9


def num(value: int | float) -> str:
    """A number as the formulas show it: 1,024 · 10.2 · 0.0034."""
    if isinstance(value, int):
        return f"{value:,}"
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 100:
        return f"{value:,.1f}"
    if abs(value) >= 1:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"


def _ceil(x: float) -> int:
    """ceil() that does not turn 11.000000000000002 (1.1 ÷ 0.1) into 12."""
    return math.ceil(round(x, 9))


def _floor(x: float) -> int:
    return math.floor(round(x, 9))


@dataclass
class _FabricOut:
    """One network as sized: its tree of one switch part, and the transceivers, cables and the
    power they draw."""

    name: str
    tree: Tree
    switch: SwitchSpec
    # W drawn by what hangs off each device (node-side modules, active cable ends), by label
    attached_w_per_device: dict[str, float] = field(default_factory=dict)
    # W drawn at the switch ends of each tier's links (modules, active cable ends), by tier
    attached_w_by_tier: dict[str, float] = field(default_factory=dict)
    optics: int = 0
    optics_w: float = 0.0
    cables: int = 0
    cable_w: float = 0.0

    def switches(self) -> int:
        return self.tree.leaves + self.tree.spines + self.tree.cores

    def counts_by_tier(self) -> dict[str, int]:
        return {"leaf": self.tree.leaves, "spine": self.tree.spines, "core": self.tree.cores}


@dataclass(frozen=True)
class _Load:
    """`count` pieces of one kind in a rack, each `rack_units` high, drawing `kw` (IT load; an
    in-rack CDU's pumps count in the PUE, not here) and weighing `weight_kg`."""

    label: str
    rack_units: int
    count: int
    kw: float
    weight_kg: float


@dataclass
class _RackPlan:
    """`count` racks laid out alike; `min_pdus` is the planner's PDUs per compute rack."""

    kind: str
    count: int
    loads: list[_Load]
    min_pdus: int = 0


class SizerBase:
    """The inputs, and what the steps have worked out so far: `figures` (each with its formula),
    `bom`, `warnings`, `errors` (by input path) and `racks`. The counts below are left by one step
    for those after it; the step that sets each is named."""

    n_systems: int  # systems
    n_su: int  # systems
    n_appliances: int  # systems (storage)
    storage_write_gbs: float  # systems (storage)
    in_rack_cdu: bool  # racks (compute racks)
    by_ru: int  # racks (compute racks)
    by_kw: int  # racks (compute racks)
    per_rack: int  # racks (compute racks)
    unit_system_kw: float  # sizer (a system with what it attaches)
    n_cdus: int  # cooling (CDU count)
    in_row_cdus: int  # cooling (CDU count)
    cdu_formula: str  # cooling (CDU count)
    power_by_component: dict[str, float]  # power
    max_rack_kw: float  # power

    def __init__(self, inputs: DesignInputs) -> None:
        self.i = inputs
        self.figures: list[Figure] = []
        self.bom: list[BomItem] = []
        self.warnings: list[SizingWarning] = []
        self.errors: dict[str, str] = {}
        self.racks: list[RackType] = []

    # helpers
    def fig(
        self, key: str, section: str, label: str, value: int | float, unit: str, formula: str, **inputs: Any
    ) -> int | float:
        self.figures.append(Figure(key, section, label, value, unit, formula, dict(inputs)))
        return value

    def add_bom(self, role: BomRole, part_key: str, quantity: int, figure: str) -> None:
        if quantity > 0:
            self.bom.append(BomItem(role, part_key, quantity, figure))

    def _value(self, key: str) -> int:
        for item in reversed(self.figures):
            if item.key == key:
                return int(item.value)
        return 0

    def _figure_value(self, key: str) -> float:
        for item in reversed(self.figures):
            if item.key == key:
                return item.value
        raise KeyError(key)
