"""Freight by sea: the cheapest container (FCL) mix for a load, LCL priced weight or measure, and
the cheaper of the two.

Containers are planned by floor space, height and payload, not volume alone: packages stay
upright (height as given) but may be turned on the floor, stand in rows across the width, and are
stacked only when the package says it is stackable. Each kind of package takes 1 / (how many of
it one container holds) of a container; kinds sharing a box add up. Pieces are checked one by one
against door height and width (less a configurable clearance), inner length and payload. The
container types themselves are in `common` (rates name them too).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from .common import (
    _CM3_PER_M3,
    _CM_PER_M,
    _FRACTION_STEP,
    _KG_PER_TONNE,
    _M3_STEP,
    CONTAINER_BY_CODE,
    CONTAINERS,
    DEFAULT_LCL_MAX_M3,
    DEFAULT_LIMITS,
    MAX_CONTAINERS,
    CannotCarryError,
    ContainerType,
    FreightLimits,
    Piece,
    _ceil,
    _fmt_money,
    _fmt_price,
    _fmt_qty,
    _labelled,
    _some,
    as_decimal,
    money,
)

_STANDARD_DOOR_M = min(c.door_height_m for c in CONTAINERS)
_TALLEST_DOOR = max(CONTAINERS, key=lambda c: c.door_height_m)


@dataclass
class OceanPlan:
    """The cheapest way to move a load by sea: a container (FCL) mix, LCL, and which is chosen.

    `containers`, `fcl_cost` and `utilisation` describe the cheapest FCL mix even when LCL is
    chosen (for comparison); they are empty/None when no FCL mix was possible.
    """

    containers: dict[str, int]
    fcl_cost: Decimal | None
    lcl_cost: Decimal | None
    chosen: Literal["FCL", "LCL"]
    cost: Decimal
    volume_m3: Decimal
    gross_kg: Decimal
    utilisation: Decimal | None
    reasons: list[str] = field(default_factory=list)

    @property
    def container_summary(self) -> str:
        """'1×40GP', '2×20GP + 1×40HC', or '' when there is no FCL mix."""
        return " + ".join(f"{count}×{code}" for code, count in self.containers.items())


def _fits(piece: Piece, container: ContainerType, limits: FreightLimits = DEFAULT_LIMITS) -> str | None:
    """Why one package cannot go into a container type, or None when it can. The door keeps
    `limits.door_clearance_cm` free above and beside the package."""
    clearance = limits.door_clearance_cm / _CM_PER_M
    door_height = container.door_height_m - clearance
    door_width = min(container.door_width_m, container.inner_width_m) - clearance
    if piece.height_m > door_height:
        return (
            f"{piece.height_m:.2f} m tall, over the {container.door_height_m} m door "
            f"less {_fmt_qty(limits.door_clearance_cm)} cm clearance"
        )
    if piece.floor_short_m > door_width:
        return f"{piece.floor_short_m:.2f} m wide, over the {container.door_width_m} m door width"
    if piece.floor_long_m > container.inner_length_m:
        return f"{piece.floor_long_m:.2f} m long, over the {container.inner_length_m} m inside length"
    if piece.gross_kg > container.max_payload_kg:
        return f"{_fmt_qty(piece.gross_kg)} kg, over the {_fmt_qty(container.max_payload_kg)} kg payload"
    return None


def _check_in_gauge(piece: Piece, limits: FreightLimits = DEFAULT_LIMITS) -> None:
    """Refuse a package that no dry container takes (it needs open-top, flat-rack or breakbulk)."""
    problems = [_fits(piece, c, limits) for c in CONTAINERS]
    if all(problems):
        tallest = _TALLEST_DOOR.door_height_m - limits.door_clearance_cm / _CM_PER_M
        if piece.height_m > tallest:
            raise CannotCarryError(
                f"{piece.name} is {piece.height_m:.2f} m tall; the tallest container door is "
                f"{_TALLEST_DOOR.door_height_m} m (40' high cube, {_fmt_qty(limits.door_clearance_cm)} cm "
                f"clearance kept), so it needs an open-top or flat-rack container, or repacking."
            )
        raise CannotCarryError(
            f"{piece.name} does not fit any dry container ({problems[-1]}); it needs an open-top or "
            f"flat-rack container, or repacking."
        )


def floor_positions(length: Decimal, width: Decimal, side_a: Decimal, side_b: Decimal) -> int:
    """How many a × b footprints stand on an L × W floor, upright, in rows across the width: k
    rows with side a along the length, the rest of the length in rows turned the other way (a
    two-block guillotine layout, exact for the usual crate and pallet sizes)."""
    best = 0
    for along, across in ((side_a, side_b), (side_b, side_a)):
        per_row = int(width // across)
        turned_per_row = int(width // along)
        for rows in range(int(length // along) + 1):
            rest = length - rows * along
            best = max(best, rows * per_row + int(rest // across) * turned_per_row)
    return best


@dataclass(frozen=True)
class _Load:
    """One container type's capacity for one kind of package on its own."""

    floor: int
    tiers: int
    by_weight: int

    @property
    def per_container(self) -> int:
        return min(self.floor * self.tiers, self.by_weight)


def _container_load(piece: Piece, container: ContainerType, limits: FreightLimits) -> _Load:
    """Floor positions × tiers (2 or more only for a stackable package, under the inside height
    less the clearance), and how many the payload carries."""
    floor = floor_positions(
        container.inner_length_m * _CM_PER_M,
        container.inner_width_m * _CM_PER_M,
        piece.length_cm,
        piece.width_cm,
    )
    tiers = 1
    if piece.stackable:
        room = container.inner_height_m * _CM_PER_M - limits.door_clearance_cm
        tiers = max(1, int(room // piece.height_cm))
    return _Load(floor, tiers, int(container.max_payload_kg // piece.gross_kg))


def _mix_carries(
    groups: Sequence[tuple[Piece, dict[str, _Load]]], mix: Mapping[str, int], offered: Sequence[ContainerType]
) -> bool:
    """Fill the mix's containers group by group (the fewest container types allowed first), each
    package taking 1 / (what one container takes of its kind) of a container and its weight of the
    payload. Mixing kinds in one box is taken as additive, which partial rows make optimistic only
    by part of a row; the greedy fill can ask for one box more than a perfect packer."""
    return _fills(_Shares.of(groups), mix, offered)


@dataclass(frozen=True)
class _Shares:
    """The groups as `_fills` reads them, in whole numbers, not fractions: a container is `whole`
    parts, and a package of a kind one container type takes n of is whole // n of them (`whole` is
    a common multiple of every n), so the sums are exact and cheap."""

    whole: int
    kinds: tuple[tuple[int, Decimal, dict[str, int]], ...]  # (quantity, kg a package, share by type)

    @classmethod
    def of(cls, groups: Sequence[tuple[Piece, dict[str, _Load]]]) -> _Shares:
        whole = math.lcm(
            *(load.per_container for _, loads in groups for load in loads.values() if load.per_container)
        )
        kinds = tuple(
            (
                piece.quantity,
                piece.gross_kg,
                {code: whole // load.per_container for code, load in loads.items() if load.per_container},
            )
            for piece, loads in groups
        )
        return cls(whole, kinds)

    def may_fit(self, mix: Mapping[str, int]) -> bool:
        """False when the mix cannot carry the load whatever the filling: every kind needs a type in
        the mix that takes it, and the parts the kinds need at their best type in the mix exceed
        the mix's parts. (`_fills` fails then too; this is the quick test before it.)"""
        need = 0
        for quantity, _kg, shares in self.kinds:
            best = min((shares[code] for code in mix if code in shares), default=None)
            if best is None:
                return False
            need += quantity * best
        return need <= self.whole * sum(mix.values())


def _fills(shares: _Shares, mix: Mapping[str, int], offered: Sequence[ContainerType]) -> bool:
    """`_mix_carries` on the groups' shares. The containers are filled in order, group by group, as
    there; containers left alike (untouched, or filled alike) are kept as one run with a count and
    filled together, so a fill costs as many steps as there are runs, not containers."""
    # Per container type, in the order the boxes are filled: runs of [parts left, payload left, count].
    blocks = [
        (c.code, [[shares.whole, c.max_payload_kg, mix[c.code]]]) for c in offered if mix.get(c.code, 0)
    ]
    for quantity, kg, by_type in shares.kinds:
        left = quantity
        for code, runs in blocks:
            share = by_type.get(code)
            if share is None:
                continue
            index = 0
            while index < len(runs) and left:
                parts, payload, count = runs[index]
                room = min(parts // share, int(payload // kg)) if parts >= share else 0
                if not room:
                    index += 1
                    continue
                full = min(count, left // room)  # boxes of the run taking `room` each
                left -= full * room
                split = []
                if full:
                    split.append([parts - room * share, payload - room * kg, full])
                rest = count - full
                if rest and left:  # the next box takes what is left (less than `room`)
                    split.append([parts - left * share, payload - left * kg, 1])
                    left, rest = 0, rest - 1
                if rest:
                    split.append([parts, payload, rest])
                runs[index : index + 1] = split
                index += len(split)
            if not left:
                break
        if left:
            return False
    return True


def _cheapest_mix(
    pieces: Sequence[Piece],
    offered: Sequence[ContainerType],
    prices: Mapping[str, Decimal],
    max_containers: int,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> tuple[dict[str, int], Decimal, list[str]] | str:
    """Cheapest counts of the offered types that carry the load by floor space, height and payload
    (not volume alone), with a sentence per kind of package; or a sentence saying why none does.

    Each package goes only into types it fits (door less clearance, length, payload). Mixes are
    tried cheapest first (then fewest boxes); the first one `_mix_carries` fills is the answer.
    Each type's count is bounded by what carries every package it takes on its own."""
    # Identical packages plan alike: one group each, so a 3,000-line shipment of a few dozen kinds
    # of crate is planned in a few dozen steps.
    alike: dict[tuple, Piece] = {}
    quantities: dict[tuple, int] = {}
    counts: dict[tuple, int] = {}
    for piece in pieces:
        key = (piece.length_cm, piece.width_cm, piece.height_cm, piece.gross_kg, piece.stackable)
        alike.setdefault(key, piece)
        quantities[key] = quantities.get(key, 0) + piece.quantity
        counts[key] = counts.get(key, 0) + 1
    groups: list[tuple[Piece, dict[str, _Load]]] = []
    for key, piece in alike.items():
        if counts[key] > 1:  # one new piece per kind, not one per piece added to it
            piece = replace(
                piece, quantity=quantities[key], label=f"{piece.label} and {counts[key] - 1} alike"
            )
        loads = {
            c.code: _container_load(piece, c, limits) for c in offered if _fits(piece, c, limits) is None
        }
        if not loads:
            why = "; ".join(f"{c.code}: {_fits(piece, c, limits)}" for c in offered)
            return f"FCL not possible: no offered container type takes {piece.name} ({why})"
        groups.append((piece, loads))
    groups.sort(key=lambda g: (len(g[1]), -g[0].length_cm * g[0].width_cm))

    bounds = [
        min(
            max_containers,
            sum(
                (
                    _ceil(Decimal(p.quantity) / loads[c.code].per_container)
                    for p, loads in groups
                    if c.code in loads
                ),
                0,
            ),
        )
        for c in offered
    ]
    weight = sum((p.total_gross_kg for p, _ in groups), Decimal(0))
    # Floor (m²) the load needs at the least, stacked as high as its best container allows.
    floor_need = sum(
        (
            p.quantity
            * p.length_cm
            * p.width_cm
            / _CM3_PER_M3
            * _CM_PER_M
            / max(x.tiers for x in loads.values())
            for p, loads in groups
        ),
        Decimal(0),
    )
    shares = _Shares.of(groups)
    for cost, _total, counts in _mixes_cheapest_first(
        offered, prices, bounds, max_containers, weight, floor_need
    ):
        mix = {c.code: n for n, c in zip(counts, offered, strict=True) if n}
        if shares.may_fit(mix) and _fills(shares, mix, offered):
            notes = []
            for piece, loads in groups:
                for code in mix:
                    load = loads.get(code)
                    if load is None:
                        continue
                    stack = (
                        f" × {load.tiers} high"
                        if load.tiers > 1
                        else (", not stackable" if not piece.stackable else "")
                    )
                    weight_bound = " (payload-bound)" if load.by_weight < load.floor * load.tiers else ""
                    notes.append(
                        f"{piece.name}: {load.per_container} a {code} ({load.floor} floor positions{stack})"
                        f"{weight_bound}"
                    )
            return mix, cost, notes
    return f"FCL not possible: the load needs more than {max_containers} containers; split it into shipments"


def _mixes_cheapest_first(
    offered: Sequence[ContainerType],
    prices: Mapping[str, Decimal],
    bounds: Sequence[int],
    max_containers: int,
    weight: Decimal,
    floor_need: Decimal,
) -> Iterator[tuple[Decimal, int, tuple[int, ...]]]:
    """Every mix (count per offered type, within `bounds` and `max_containers` in all) whose payload
    carries `weight` and whose floor covers `floor_need`, as (cost, containers, counts), cheapest
    first (then fewest containers, then counts): the order of sorting them all, produced lazily.

    For each choice of counts of all types but the last, the last type's count runs from the fewest
    that pass both checks (more of it only adds payload, floor and cost) to its bound: one sorted run
    per choice, merged through a heap. So a load needing up to 60 containers costs a few thousand
    steps (the choices of the other types), not every combination of three counts."""
    *firsts, last = offered
    last_price = prices[last.code]
    last_area = last.inner_length_m * last.inner_width_m
    heap: list[tuple[Decimal, int, tuple[int, ...], Decimal, int]] = []
    for head in itertools.product(*(range(b + 1) for b in bounds[:-1])):
        head_total = sum(head)
        if head_total > max_containers:
            continue
        pairs = list(zip(head, firsts, strict=True))
        payload = sum((n * c.max_payload_kg for n, c in pairs), Decimal(0))
        area = sum((n * c.inner_length_m * c.inner_width_m for n, c in pairs), Decimal(0))
        head_cost = sum((n * prices[c.code] for n, c in pairs), Decimal(0))
        most = min(bounds[-1], max_containers - head_total)

        def carries(n: int, payload=payload, area=area) -> bool:
            return payload + n * last.max_payload_kg >= weight and area + n * last_area >= floor_need

        fewest = 0 if head_total else 1
        least = max(
            fewest,
            _ceil((weight - payload) / last.max_payload_kg) if payload < weight else 0,
            _ceil((floor_need - area) / last_area) if area < floor_need else 0,
        )
        # The divisions are rounded: settle the count on the exact checks.
        while least <= most and not carries(least):
            least += 1
        while least > fewest and carries(least - 1):
            least -= 1
        if least <= most:
            heap.append(
                (money(head_cost + least * last_price), head_total + least, (*head, least), head_cost, most)
            )
    heapq.heapify(heap)
    while heap:
        cost, total, counts, head_cost, most = heapq.heappop(heap)
        yield cost, total, counts
        n = counts[-1] + 1
        if n <= most:
            heapq.heappush(
                heap, (money(head_cost + n * last_price), total + 1, (*counts[:-1], n), head_cost, most)
            )


def plan_ocean(
    pieces: Iterable[Piece],
    prices: Mapping[str, Decimal],
    lcl_price_per_cbm: Decimal | None = None,
    lcl_price_per_tonne: Decimal | None = None,
    lcl_minimum: Decimal = Decimal(0),
    lcl_max_m3: Decimal = DEFAULT_LCL_MAX_M3,
    *,
    max_containers: int = MAX_CONTAINERS,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> OceanPlan:
    """Plan a load by sea: cheapest FCL mix of the priced container types (planned by floor
    space, height and payload), LCL if priced and small enough, and the cheaper of the two (FCL on
    a tie: fewer hands touch the cargo).

    `prices` maps container codes (20GP, 40GP, 40HC) to a price per container; types without a
    price are not offered. LCL is charged per revenue ton (W/M): the greater of volume × price
    per m³ and tonnes × price per 1,000 kg, and at least `lcl_minimum`.
    Raises ValueError when a package fits no dry container or no FCL/LCL option carries the load.
    """
    items = _labelled(pieces)
    offered_prices: dict[str, Decimal] = {}
    for code, price in prices.items():
        if code not in CONTAINER_BY_CODE:
            raise ValueError(f"Unknown container type {code!r}; use one of {', '.join(CONTAINER_BY_CODE)}")
        price = as_decimal(price, f"price for {code}")
        if price < 0:
            raise ValueError(f"price for {code} cannot be negative (got {price})")
        offered_prices[code] = price
    per_cbm = None if lcl_price_per_cbm is None else as_decimal(lcl_price_per_cbm, "lcl_price_per_cbm")
    per_tonne = (
        None if lcl_price_per_tonne is None else as_decimal(lcl_price_per_tonne, "lcl_price_per_tonne")
    )
    lcl_minimum = as_decimal(lcl_minimum, "lcl_minimum")
    lcl_max_m3 = as_decimal(lcl_max_m3, "lcl_max_m3")

    reasons: list[str] = []
    clearance_m = limits.door_clearance_cm / _CM_PER_M
    tall, long = [], []
    gauged: set[tuple[Decimal, ...]] = set()
    for piece in items:
        size = (piece.length_cm, piece.width_cm, piece.height_cm, piece.gross_kg)
        if size not in gauged:  # alike pieces fit alike: each size is checked once
            _check_in_gauge(piece, limits)
            gauged.add(size)
        if piece.height_m > _STANDARD_DOOR_M - clearance_m:
            tall.append(piece)
        if piece.floor_long_m > CONTAINER_BY_CODE["20GP"].inner_length_m:
            long.append(piece)
    if tall:
        reasons.append(
            f"{_some(tall, lambda p: f'{p.height_m:.2f} m tall piece {p.label!r}')} "
            f"need{'s' if len(tall) == 1 else ''} a 40' high cube (door {_TALLEST_DOOR.door_height_m} m; "
            f"standard doors are {_STANDARD_DOOR_M} m, and {_fmt_qty(limits.door_clearance_cm)} cm "
            f"clearance is kept)"
        )
    if long:
        reasons.append(
            f"{_some(long, lambda p: f'{p.floor_long_m:.2f} m long piece {p.label!r}')} "
            f"need{'s' if len(long) == 1 else ''} a 40' container"
        )

    # Priced on the exact volume (the W/M rule rounds the charge, not the measure); shown to the litre.
    exact_volume = sum((p.volume_m3 for p in items), Decimal(0))
    volume = exact_volume.quantize(_M3_STEP, rounding=ROUND_HALF_UP)
    weight = sum((p.total_gross_kg for p in items), Decimal(0))

    containers: dict[str, int] = {}
    fcl_cost: Decimal | None = None
    utilisation: Decimal | None = None
    offered = [c for c in CONTAINERS if c.code in offered_prices]
    if not offered:
        reasons.append("FCL not offered: no container prices")
    else:
        result = _cheapest_mix(items, offered, offered_prices, max_containers, limits)
        if isinstance(result, str):
            reasons.append(result)
        else:
            containers, fcl_cost, floor_notes = result
            nominal = sum(
                (CONTAINER_BY_CODE[code].volume_m3 * n for code, n in containers.items()), Decimal(0)
            )
            payload = sum(
                (CONTAINER_BY_CODE[code].max_payload_kg * n for code, n in containers.items()), Decimal(0)
            )
            utilisation = (volume / nominal).quantize(_FRACTION_STEP, rounding=ROUND_HALF_UP)
            priced = " + ".join(
                f"{n}×{code} at {_fmt_money(offered_prices[code])}" for code, n in containers.items()
            )
            reasons.append(
                f"Cheapest container mix: {priced} = {_fmt_money(fcl_cost)}; carries {_fmt_qty(volume)} m³ "
                f"of {_fmt_qty(nominal)} m³ nominal and {_fmt_qty(weight)} kg within {_fmt_qty(payload)} kg "
                f"payload, planned by floor space: {'; '.join(floor_notes)}"
            )

    lcl_cost: Decimal | None = None
    if per_cbm is None and per_tonne is None:
        pass
    elif exact_volume > lcl_max_m3:
        reasons.append(
            f"LCL not offered: {_fmt_qty(volume)} m³ is over the {_fmt_qty(lcl_max_m3)} m³ LCL limit"
        )
    else:
        tonnes = weight / _KG_PER_TONNE
        terms = []
        candidates = [lcl_minimum]
        if per_cbm is not None:
            by_volume = money(exact_volume * per_cbm)
            candidates.append(by_volume)
            terms.append(f"{_fmt_qty(exact_volume)} m³ × {_fmt_price(per_cbm)} = {_fmt_money(by_volume)}")
        if per_tonne is not None:
            by_weight = money(tonnes * per_tonne)
            candidates.append(by_weight)
            terms.append(f"{_fmt_qty(tonnes)} t × {_fmt_price(per_tonne)} = {_fmt_money(by_weight)}")
        terms.append(f"minimum {_fmt_money(lcl_minimum)}")
        lcl_cost = money(max(candidates))
        reasons.append(f"LCL (weight or measure): greater of {', '.join(terms)} → {_fmt_money(lcl_cost)}")
        if any(p.height_m > _STANDARD_DOOR_M - clearance_m for p in items):
            reasons.append("LCL: confirm the consolidator loads the tall pieces into a high-cube box")

    if fcl_cost is None and lcl_cost is None:
        raise CannotCarryError("No ocean option carries this load: " + "; ".join(reasons))
    if lcl_cost is not None and (fcl_cost is None or lcl_cost < fcl_cost):
        chosen: Literal["FCL", "LCL"] = "LCL"
        cost = lcl_cost
        if fcl_cost is not None:
            reasons.append(f"LCL chosen: {_fmt_money(lcl_cost)} against {_fmt_money(fcl_cost)} for FCL")
    else:
        chosen, cost = "FCL", fcl_cost  # type: ignore[assignment]
        if lcl_cost is not None:
            reasons.append(f"FCL chosen: {_fmt_money(fcl_cost)} against {_fmt_money(lcl_cost)} for LCL")
    return OceanPlan(
        containers=containers,
        fcl_cost=fcl_cost,
        lcl_cost=lcl_cost,
        chosen=chosen,
        cost=cost,
        volume_m3=volume,
        gross_kg=weight,
        utilisation=utilisation,
        reasons=reasons,
    )
