"""A unit's life in the warehouse as data (no Django imports): states, allowed moves, and the
customs status a receipt gives. `apps.warehouse.services.unit_transition` is the one service that
applies it; its values are `apps.catalog.models.UnitStatus` / `CustomsStatus`."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    EXPECTED = "expected"
    RECEIVED = "received"
    AVAILABLE = "available"
    ALLOCATED = "allocated"
    PICKED = "picked"
    SHIPPED = "shipped"
    QUARANTINED = "quarantined"


class Customs(StrEnum):
    NONE = ""
    IN_BOND = "in_bond"
    DUTY_PAID = "duty_paid"
    FREE_TRADE_ZONE = "ftz"


LABELS = {
    Status.EXPECTED: "expected",
    Status.RECEIVED: "received",
    Status.AVAILABLE: "available",
    Status.ALLOCATED: "allocated",
    Status.PICKED: "picked",
    Status.SHIPPED: "shipped",
    Status.QUARANTINED: "quarantined",
}

CUSTOMS_LABELS = {
    Customs.NONE: "outside a warehouse",
    Customs.IN_BOND: "in bond (duty unpaid)",
    Customs.DUTY_PAID: "duty paid",
    Customs.FREE_TRADE_ZONE: "in a free-trade zone",
}

# The forward path is expected → received → available → allocated → picked → shipped.
TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.EXPECTED: frozenset({Status.RECEIVED}),
    # Received at the dock: put away (available), or held back on inspection.
    Status.RECEIVED: frozenset({Status.AVAILABLE, Status.QUARANTINED}),
    Status.AVAILABLE: frozenset({Status.ALLOCATED, Status.QUARANTINED}),
    # allocated → available: the allocation is released.
    Status.ALLOCATED: frozenset({Status.PICKED, Status.AVAILABLE, Status.QUARANTINED}),
    # picked → allocated: put back on the shelf, still for the same line.
    Status.PICKED: frozenset({Status.SHIPPED, Status.ALLOCATED, Status.QUARANTINED}),
    # A shipped box arriving at another of our warehouses (a hub, then the destination) is
    # received there again.
    Status.SHIPPED: frozenset({Status.RECEIVED}),
    # Released from quarantine after inspection; never shipped, allocated or picked from it.
    Status.QUARANTINED: frozenset({Status.AVAILABLE}),
}

# Where a unit is in a warehouse (it has a location) in these states.
IN_STOCK = frozenset({Status.RECEIVED, Status.AVAILABLE, Status.ALLOCATED, Status.PICKED, Status.QUARANTINED})
# Moves that need a reason in the ledger: taking stock out of use, or back into it.
NEEDS_REASON = frozenset({Status.QUARANTINED})
NEEDS_REASON_FROM = frozenset({Status.QUARANTINED})

# Customs status: goods enter a bonded warehouse in bond; duty paid on entry for consumption, or
# moved into a free-trade zone. Duty paid goods do not go back into bond.
CUSTOMS_TRANSITIONS: dict[Customs, frozenset[Customs]] = {
    Customs.NONE: frozenset({Customs.IN_BOND, Customs.DUTY_PAID, Customs.FREE_TRADE_ZONE}),
    Customs.IN_BOND: frozenset({Customs.DUTY_PAID, Customs.FREE_TRADE_ZONE, Customs.NONE}),
    Customs.FREE_TRADE_ZONE: frozenset({Customs.DUTY_PAID, Customs.IN_BOND, Customs.NONE}),
    Customs.DUTY_PAID: frozenset({Customs.NONE}),
}
# Customs statuses that need the customs reference (entry / warehouse receipt number) on record.
NEEDS_CUSTOMS_REFERENCE = frozenset({Customs.IN_BOND, Customs.FREE_TRADE_ZONE})


def can_move(current: Status, target: Status) -> bool:
    return target in TRANSITIONS[current]


def move_problem(current: Status, target: Status, *, reason: str = "") -> str | None:
    """Why a unit in `current` may not go to `target` (None when it may)."""
    if current == target:
        return f"It is {LABELS[current]} already."
    if not can_move(current, target):
        allowed = ", ".join(sorted(LABELS[s] for s in TRANSITIONS[current])) or "none"
        return f"A {LABELS[current]} unit cannot become {LABELS[target]} (allowed: {allowed})."
    if (target in NEEDS_REASON or current in NEEDS_REASON_FROM) and not reason.strip():
        verb = "quarantine" if target in NEEDS_REASON else "release from quarantine"
        return f"Say why: a {verb} needs a reason."
    return None


def customs_problem(current: Customs, target: Customs, *, customs_reference: str = "") -> str | None:
    """Why goods in customs status `current` may not go to `target` (None when they may)."""
    if current == target:
        return None
    if target not in CUSTOMS_TRANSITIONS[current]:
        return f"Goods {CUSTOMS_LABELS[current]} cannot become {CUSTOMS_LABELS[target]}."
    if target in NEEDS_CUSTOMS_REFERENCE and not customs_reference.strip():
        return "Goods under customs control need the customs reference (entry or receipt number)."
    return None


def customs_on_receipt(*, bonded: bool) -> Customs:
    """A bonded warehouse holds goods in bond (duty unpaid); any other holds them duty paid."""
    return Customs.IN_BOND if bonded else Customs.DUTY_PAID
