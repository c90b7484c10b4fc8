"""A unit's life in the warehouse as data (no Django imports): states, which service may make
each move, where the unit must be for it, and the customs status a receipt gives.
`apps.warehouse.services.unit_transition` is the one service that applies it; its values are
`apps.catalog.models.UnitStatus` / `CustomsStatus`.

A state alone does not say whether a move is right: a shipped unit is on its way somewhere, and
only a receipt at the end of the leg that carries it, against that shipment, brings it back into
stock; a unit in one warehouse is not moved, counted or quarantined from another. So every
change is checked against the unit's state, the service making it (`Action`) and where the books
have the unit (`Whereabouts`: the site holding it, or the shipment and leg it last left on)."""

from __future__ import annotations

from dataclasses import dataclass
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


class Action(StrEnum):
    """The service that changes a unit's status, place or customs status."""

    RECEIVE = "receive"  # a receipt: against a shipment's notice, or by hand
    PUT_AWAY = "put_away"
    MOVE = "move"  # to another location of the same warehouse
    COUNT = "count"  # a cycle count: found elsewhere in the warehouse, or missing
    ALLOCATE = "allocate"
    GIVE_BACK = "give_back"  # an allocation released, a pick put back on the shelf
    PICK = "pick"
    SHIP = "ship"
    QUARANTINE = "quarantine"
    RELEASE = "release"  # out of quarantine after inspection
    CUSTOMS = "customs"  # entered for home use, moved into a free-trade zone


ACTION_LABELS = {
    Action.RECEIVE: "a receipt",
    Action.PUT_AWAY: "a put-away",
    Action.MOVE: "a move",
    Action.COUNT: "a count",
    Action.ALLOCATE: "an allocation",
    Action.GIVE_BACK: "giving back an allocation or a pick",
    Action.PICK: "a pick",
    Action.SHIP: "shipping",
    Action.QUARANTINE: "a quarantine",
    Action.RELEASE: "a release from quarantine",
    Action.CUSTOMS: "a customs change",
}

_OUT_OF_USE = frozenset({Action.QUARANTINE, Action.COUNT})  # a count quarantines what it missed
# Every allowed move and the services that may make it. The forward path is expected → received
# → available → allocated → picked → shipped; a shipped box arriving at another of our warehouses
# (a hub, then the destination) is received there again, by a receipt of the leg carrying it.
MOVES: dict[tuple[Status, Status], frozenset[Action]] = {
    (Status.EXPECTED, Status.RECEIVED): frozenset({Action.RECEIVE}),
    (Status.SHIPPED, Status.RECEIVED): frozenset({Action.RECEIVE}),
    # Received at the dock: put away (available), or held back on inspection.
    (Status.RECEIVED, Status.AVAILABLE): frozenset({Action.PUT_AWAY}),
    (Status.RECEIVED, Status.QUARANTINED): _OUT_OF_USE,
    (Status.AVAILABLE, Status.ALLOCATED): frozenset({Action.ALLOCATE}),
    (Status.AVAILABLE, Status.QUARANTINED): _OUT_OF_USE,
    (Status.ALLOCATED, Status.PICKED): frozenset({Action.PICK}),
    (Status.ALLOCATED, Status.AVAILABLE): frozenset({Action.GIVE_BACK}),  # the allocation released
    (Status.ALLOCATED, Status.QUARANTINED): _OUT_OF_USE,
    (Status.PICKED, Status.SHIPPED): frozenset({Action.SHIP}),
    # Put back on the shelf, still for the same line.
    (Status.PICKED, Status.ALLOCATED): frozenset({Action.GIVE_BACK}),
    (Status.PICKED, Status.QUARANTINED): _OUT_OF_USE,
    # Released after inspection; never shipped, allocated or picked from quarantine.
    (Status.QUARANTINED, Status.AVAILABLE): frozenset({Action.RELEASE}),
}
TRANSITIONS: dict[Status, frozenset[Status]] = {
    status: frozenset(target for (current, target) in MOVES if current == status) for status in Status
}
# Services that change a unit in stock without changing its status: its place, or its customs
# status; a count may find a quarantined unit missing again.
STAYING = frozenset({Action.MOVE, Action.COUNT, Action.CUSTOMS})

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


@dataclass(frozen=True)
class Whereabouts:
    """Where the books have a unit: the warehouse site holding it (`site_id`); or, once shipped,
    the shipment it last left a warehouse on, the site it `left` and where that shipment's leg from
    there ends; or, expected, the shipment whose notice lists it and where the leg carrying it
    ends (`bound_for_ids`: a receipt anywhere else, or against another notice, is not its
    arrival)."""

    site_id: int | None = None
    site: str = ""
    shipment: str = ""
    left: str = ""
    bound_for_ids: frozenset[int] = frozenset()
    bound_for: str = ""


@dataclass(frozen=True)
class Arrival:
    """A receipt: the warehouse site a unit arrives at, and the shipment whose notice it is
    received against (blank for a unit received by hand, without a notice)."""

    site_id: int
    site: str
    shipment: str = ""


def change_problem(
    current: Status,
    target: Status,
    *,
    action: Action,
    where: Whereabouts,
    arrival: Arrival | None = None,
    to_site_id: int | None = None,
    reason: str = "",
) -> str | None:
    """Why `action` may not take a unit in `current`, which the books have at `where`, to
    `target` (None when it may). `arrival` is the receipt's; `to_site_id` the site of the location
    it is put in, for any other service."""
    if current != target:
        if problem := move_problem(current, target, reason=reason):
            return problem
        allowed = MOVES[(current, target)]
        if action not in allowed:
            by = " or ".join(sorted(ACTION_LABELS[a] for a in allowed))
            return (
                f"A {LABELS[current]} unit becomes {LABELS[target]} by {by}, not by {ACTION_LABELS[action]}."
            )
    elif action not in STAYING or current not in IN_STOCK:
        return f"It is {LABELS[current]} already."
    # The state and the place must tell the same story before anything moves on either.
    if current in IN_STOCK and where.site_id is None:
        return f"It is {LABELS[current]} but in no warehouse on the books: count it before moving it."
    if current not in IN_STOCK and where.site_id is not None:
        return f"It is {LABELS[current]} but the books hold it at {where.site}."
    if action == Action.RECEIVE:
        if arrival is None:
            return "A receipt names the warehouse the unit arrives at."
        if current == Status.SHIPPED and not where.shipment:
            return "It is shipped, but no shipment out of a warehouse is on its record."
        arrives = arrival.shipment == where.shipment and arrival.site_id in where.bound_for_ids
        if where.shipment and not arrives:
            bound = f"for {where.bound_for}" if where.bound_for else "on a route that names no leg from there"
            if current == Status.SHIPPED:
                return (
                    f"It left {where.left} on {where.shipment} {bound}: it is received there, against "
                    f"{where.shipment}."
                )
            return (
                f"It is expected on {where.shipment} {bound}: it is received there, against {where.shipment}."
            )
    elif to_site_id is not None and to_site_id != where.site_id:
        return f"It is at {where.site}: goods go between warehouses on a shipment."
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
