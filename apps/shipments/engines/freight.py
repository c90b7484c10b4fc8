"""Freight planning: chargeable weight, container planning, rate comparison and choice of mode.

No Django imports: the shipments app adapts its rows to these dataclasses. Money, weights and
volumes are Decimal throughout; money is rounded to cents (half up) at the end of each step.

Simplifications, on purpose:
- Containers are planned by volume and payload, not by 3-D packing: a mix is good enough when
  its usable volume (85 % of nominal, the reference's 10-15 % margin) and its payload cover the
  load. Pieces are checked one by one against door height and width, inner length and payload;
  they stay upright (height as given) but may be turned on the floor.
- Dates: departure is the ready date and arrival is departure + the rate's transit days; there
  are no sailing schedules, cut-offs or port dwell times.
- Road freight uses a volumetric divisor of 3,000 (333 kg/m³, the usual road ratio) against
  air's IATA 6,000; both round the chargeable weight up to the next 0.5 kg.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Literal

AIR_VOLUMETRIC_DIVISOR = Decimal(6000)
ROAD_VOLUMETRIC_DIVISOR = Decimal(3000)
USABLE_VOLUME_FACTOR = Decimal("0.85")
DEFAULT_LCL_MAX_M3 = Decimal("15")
MAX_CONTAINERS = 60
MODES = ("air", "ocean", "road")

# Compact, high-value, time-critical hardware goes by air when a shipment is split; racks, CDUs,
# PDUs, cables, UPS and anything else go by sea.
AIR_FIRST = frozenset(
    {"accelerator", "server", "nic_dpu", "optical_transceiver", "storage_system", "network_switch"}
)

CENT = Decimal("0.01")
_M3_STEP = Decimal("0.001")
_FRACTION_STEP = Decimal("0.001")
_CM3_PER_M3 = Decimal(1_000_000)
_CM_PER_M = Decimal(100)
_KG_PER_TONNE = Decimal(1000)

Mode = Literal["air", "ocean", "road"]


class NoRateError(ValueError):
    """No rate applies to the lane on the ready date."""


# ---------------------------------------------------------------------------------------------
# Small helpers


def as_decimal(value: object, field_name: str, owner: str = "") -> Decimal:
    """A finite Decimal from a Decimal, int or numeric string; floats are refused on purpose."""
    where = f"{owner}: " if owner else ""
    if isinstance(value, bool | float):
        raise TypeError(f"{where}{field_name} must be a Decimal, not {type(value).__name__} ({value!r})")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int | str):
        try:
            result = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"{where}{field_name} is not a number: {value!r}") from None
    else:
        raise TypeError(f"{where}{field_name} must be a Decimal, not {type(value).__name__}")
    if not result.is_finite():
        raise ValueError(f"{where}{field_name} must be a finite number, not {value!r}")
    return result


def money(value: Decimal) -> Decimal:
    """Round to cents, half up."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _fmt_money(value: Decimal) -> str:
    return f"{money(value):,.2f}"


def _fmt_price(value: Decimal) -> str:
    """A unit price with at least two decimals: 4.2 → '4.20', 4.125 → '4.125'."""
    exponent = value.as_tuple().exponent
    places = max(2, -exponent) if isinstance(exponent, int) else 2
    return f"{value:,.{places}f}"


def _fmt_qty(value: Decimal) -> str:
    """A quantity without trailing zeros beyond one decimal: 1234.50 → '1,234.5', 203 → '203'."""
    normalised = value.normalize()
    if normalised == normalised.to_integral_value():
        return f"{normalised:,.0f}"
    return f"{normalised:,f}"


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def _ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def round_up_half_kg(kg: Decimal) -> Decimal:
    """Round up to the next 0.5 kg, as carriers do: 202.58 → 203.0, 250.2 → 250.5, 250 → 250.0."""
    return (Decimal(_ceil(kg * 2)) / 2).quantize(Decimal("0.1"))


# ---------------------------------------------------------------------------------------------
# Pieces and chargeable weight


@dataclass(frozen=True)
class Piece:
    """A package (crate, pallet, carton) as shipped; `quantity` identical ones.

    `value` is the total value of the goods in all `quantity` packages; `category` is the part
    category of what is inside (see AIR_FIRST); `label` is the package or line reference.
    """

    length_cm: Decimal
    width_cm: Decimal
    height_cm: Decimal
    gross_kg: Decimal
    quantity: int = 1
    value: Decimal = Decimal("0")
    category: str = ""
    label: str = ""

    def __post_init__(self) -> None:
        who = self.name
        for name in ("length_cm", "width_cm", "height_cm", "gross_kg"):
            number = as_decimal(getattr(self, name), name, who)
            if number <= 0:
                raise ValueError(f"{who}: {name} must be greater than 0 (got {number})")
            object.__setattr__(self, name, number)
        value = as_decimal(self.value, "value", who)
        if value < 0:
            raise ValueError(f"{who}: value cannot be negative (got {value})")
        object.__setattr__(self, "value", value)
        if isinstance(self.quantity, bool) or not isinstance(self.quantity, int) or self.quantity < 1:
            raise ValueError(f"{who}: quantity must be a whole number of at least 1 (got {self.quantity!r})")

    @property
    def name(self) -> str:
        return f"Piece {self.label!r}" if self.label else "Piece (no label)"

    @property
    def unit_volume_m3(self) -> Decimal:
        return self.length_cm * self.width_cm * self.height_cm / _CM3_PER_M3

    @property
    def volume_m3(self) -> Decimal:
        return self.unit_volume_m3 * self.quantity

    @property
    def total_gross_kg(self) -> Decimal:
        return self.gross_kg * self.quantity

    @property
    def height_m(self) -> Decimal:
        return self.height_cm / _CM_PER_M

    @property
    def floor_long_m(self) -> Decimal:
        return max(self.length_cm, self.width_cm) / _CM_PER_M

    @property
    def floor_short_m(self) -> Decimal:
        return min(self.length_cm, self.width_cm) / _CM_PER_M


def _checked_pieces(pieces: Iterable[Piece]) -> list[Piece]:
    result = list(pieces)
    if not result:
        raise ValueError("No pieces: give at least one package to ship.")
    for index, piece in enumerate(result, start=1):
        if not isinstance(piece, Piece):
            raise TypeError(f"pieces[{index - 1}] must be a Piece, not {type(piece).__name__}")
    return result


def _labelled(pieces: Iterable[Piece]) -> list[Piece]:
    """Give unlabelled pieces a label from their position ('#3') so reasons can name them."""
    return [
        piece if piece.label else replace(piece, label=f"#{index}")
        for index, piece in enumerate(_checked_pieces(pieces), start=1)
    ]


def volumetric_weight_kg(piece: Piece, divisor: Decimal | int = AIR_VOLUMETRIC_DIVISOR) -> Decimal:
    """L × W × H (cm) / divisor for one package, times the quantity; not rounded."""
    divisor = as_decimal(divisor, "divisor")
    if divisor <= 0:
        raise ValueError(f"divisor must be greater than 0 (got {divisor})")
    return piece.length_cm * piece.width_cm * piece.height_cm / divisor * piece.quantity


@dataclass(frozen=True)
class AirWeight:
    """Totals for a set of pieces. `volumetric_kg` is shown to 0.01 kg; `chargeable_kg` is the
    greater of gross and exact volumetric weight, rounded up to the next 0.5 kg."""

    gross_kg: Decimal
    volumetric_kg: Decimal
    chargeable_kg: Decimal
    volume_m3: Decimal
    divisor: Decimal = AIR_VOLUMETRIC_DIVISOR


def air_chargeable_weight(
    pieces: Iterable[Piece], divisor: Decimal | int = AIR_VOLUMETRIC_DIVISOR
) -> AirWeight:
    """Chargeable weight of the whole consignment (totals first, then one rounding)."""
    items = _checked_pieces(pieces)
    divisor = as_decimal(divisor, "divisor")
    gross = sum((p.total_gross_kg for p in items), Decimal(0))
    volumetric = sum((volumetric_weight_kg(p, divisor) for p in items), Decimal(0))
    return AirWeight(
        gross_kg=gross,
        volumetric_kg=volumetric.quantize(CENT, rounding=ROUND_HALF_UP),
        chargeable_kg=round_up_half_kg(max(gross, volumetric)),
        volume_m3=sum((p.volume_m3 for p in items), Decimal(0)).quantize(_M3_STEP, rounding=ROUND_HALF_UP),
        divisor=divisor,
    )


def road_chargeable_weight(pieces: Iterable[Piece]) -> AirWeight:
    """As air, with the road divisor of 3,000 (333 kg per m³)."""
    return air_chargeable_weight(pieces, ROAD_VOLUMETRIC_DIVISOR)


# ---------------------------------------------------------------------------------------------
# Containers and the ocean plan


@dataclass(frozen=True)
class ContainerType:
    """A dry container with typical internal dimensions (m), nominal volume and payload."""

    code: str
    name: str
    inner_length_m: Decimal
    inner_width_m: Decimal
    inner_height_m: Decimal
    volume_m3: Decimal
    max_payload_kg: Decimal
    door_height_m: Decimal
    door_width_m: Decimal = Decimal("2.34")

    @property
    def usable_volume_m3(self) -> Decimal:
        return self.volume_m3 * USABLE_VOLUME_FACTOR


CONTAINERS: tuple[ContainerType, ...] = (
    ContainerType(
        "20GP",
        "20' standard",
        Decimal("5.90"),
        Decimal("2.35"),
        Decimal("2.39"),
        Decimal(33),
        Decimal(28000),
        Decimal("2.27"),
    ),
    ContainerType(
        "40GP",
        "40' standard",
        Decimal("12.03"),
        Decimal("2.35"),
        Decimal("2.39"),
        Decimal(67),
        Decimal(26600),
        Decimal("2.27"),
    ),
    ContainerType(
        "40HC",
        "40' high cube",
        Decimal("12.03"),
        Decimal("2.35"),
        Decimal("2.70"),
        Decimal(76),
        Decimal(26500),
        Decimal("2.58"),
    ),
)
CONTAINER_BY_CODE = {c.code: c for c in CONTAINERS}
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


def _fits(piece: Piece, container: ContainerType) -> str | None:
    """Why one package cannot go into a container type, or None when it can."""
    if piece.height_m > container.door_height_m:
        return f"{piece.height_m:.2f} m tall, over the {container.door_height_m} m door"
    if piece.floor_short_m > min(container.door_width_m, container.inner_width_m):
        return f"{piece.floor_short_m:.2f} m wide, over the {container.door_width_m} m door width"
    if piece.floor_long_m > container.inner_length_m:
        return f"{piece.floor_long_m:.2f} m long, over the {container.inner_length_m} m inside length"
    if piece.gross_kg > container.max_payload_kg:
        return f"{_fmt_qty(piece.gross_kg)} kg, over the {_fmt_qty(container.max_payload_kg)} kg payload"
    return None


def _check_in_gauge(piece: Piece) -> None:
    """Refuse a package that no dry container takes (it needs open-top, flat-rack or breakbulk)."""
    problems = [_fits(piece, c) for c in CONTAINERS]
    if all(problems):
        if piece.height_m > _TALLEST_DOOR.door_height_m:
            raise ValueError(
                f"{piece.name} is {piece.height_m:.2f} m tall; the tallest container door is "
                f"{_TALLEST_DOOR.door_height_m} m (40' high cube), so it needs an open-top or flat-rack "
                f"container, or repacking."
            )
        raise ValueError(
            f"{piece.name} does not fit any dry container ({problems[-1]}); it needs an open-top or "
            f"flat-rack container, or repacking."
        )


def _cheapest_mix(
    pieces: Sequence[Piece],
    offered: Sequence[ContainerType],
    prices: Mapping[str, Decimal],
    max_containers: int,
) -> tuple[dict[str, int], Decimal] | str:
    """Cheapest counts of the offered types covering the load, or a sentence saying why none does.

    Each package may only go into types it fits. A mix can carry the load when, for every set S
    of types, the containers of types in S have the usable volume and payload for all pieces that
    fit nothing outside S (a Hall-type condition on volume and weight). We enumerate counts of
    all types but the last and compute the fewest of the last type needed; each count is bounded
    by the number of that type alone that would carry the whole load, and by `max_containers`.
    """
    codes = [c.code for c in offered]
    loads: dict[frozenset[str], list[Decimal]] = {}
    for piece in pieces:
        allowed = frozenset(c.code for c in offered if _fits(piece, c) is None)
        if not allowed:
            why = "; ".join(f"{c.code}: {_fits(piece, c)}" for c in offered)
            return f"FCL not possible: no offered container type takes {piece.name} ({why})"
        volume_weight = loads.setdefault(allowed, [Decimal(0), Decimal(0)])
        volume_weight[0] += piece.volume_m3
        volume_weight[1] += piece.total_gross_kg

    needs: list[tuple[frozenset[str], Decimal, Decimal]] = []
    for size in range(1, len(codes) + 1):
        for subset in map(frozenset, itertools.combinations(codes, size)):
            volume = sum((v for allowed, (v, _) in loads.items() if allowed <= subset), Decimal(0))
            weight = sum((w for allowed, (_, w) in loads.items() if allowed <= subset), Decimal(0))
            if volume or weight:
                needs.append((subset, volume, weight))

    total_volume = sum((v for v, _ in loads.values()), Decimal(0))
    total_weight = sum((w for _, w in loads.values()), Decimal(0))
    bounds = [
        min(
            max_containers,
            max(_ceil(total_volume / c.usable_volume_m3), _ceil(total_weight / c.max_payload_kg)),
        )
        for c in offered
    ]
    last = offered[-1]
    best: tuple[tuple[Decimal, int], dict[str, int]] | None = None
    for counts in itertools.product(*(range(b + 1) for b in bounds[:-1])):
        if sum(counts) > max_containers:
            continue
        have = dict(zip(codes[:-1], counts, strict=True))
        n_last = 0
        feasible = True
        for subset, volume, weight in needs:
            cap_volume = sum(
                (have[c.code] * c.usable_volume_m3 for c in offered[:-1] if c.code in subset), Decimal(0)
            )
            cap_weight = sum(
                (have[c.code] * c.max_payload_kg for c in offered[:-1] if c.code in subset), Decimal(0)
            )
            if last.code in subset:
                n_last = max(
                    n_last,
                    _ceil((volume - cap_volume) / last.usable_volume_m3),
                    _ceil((weight - cap_weight) / last.max_payload_kg),
                )
            elif cap_volume < volume or cap_weight < weight:
                feasible = False
                break
        total = sum(counts) + n_last
        if not feasible or total == 0 or total > max_containers:
            continue
        mix = {**have, last.code: n_last}
        cost = money(sum((n * prices[code] for code, n in mix.items()), Decimal(0)))
        key = (cost, total)
        if best is None or key < best[0]:
            best = (key, {code: n for code, n in mix.items() if n})
    if best is None:
        return (
            f"FCL not possible: the load needs more than {max_containers} containers; split it into shipments"
        )
    return best[1], best[0][0]


def plan_ocean(
    pieces: Iterable[Piece],
    prices: Mapping[str, Decimal],
    lcl_price_per_cbm: Decimal | None = None,
    lcl_price_per_tonne: Decimal | None = None,
    lcl_minimum: Decimal = Decimal(0),
    lcl_max_m3: Decimal = DEFAULT_LCL_MAX_M3,
    *,
    max_containers: int = MAX_CONTAINERS,
) -> OceanPlan:
    """Plan a load by sea: cheapest FCL mix of the priced container types, LCL if priced and
    small enough, and the cheaper of the two (FCL on a tie: fewer hands touch the cargo).

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
    for piece in items:
        _check_in_gauge(piece)
        if piece.height_m > _STANDARD_DOOR_M:
            reasons.append(
                f"{piece.height_m:.2f} m tall piece {piece.label!r} needs a 40' high cube "
                f"(door {_TALLEST_DOOR.door_height_m} m; standard doors are {_STANDARD_DOOR_M} m)"
            )
        if piece.floor_long_m > CONTAINER_BY_CODE["20GP"].inner_length_m:
            reasons.append(f"{piece.floor_long_m:.2f} m long piece {piece.label!r} needs a 40' container")

    volume = sum((p.volume_m3 for p in items), Decimal(0)).quantize(_M3_STEP, rounding=ROUND_HALF_UP)
    weight = sum((p.total_gross_kg for p in items), Decimal(0))

    containers: dict[str, int] = {}
    fcl_cost: Decimal | None = None
    utilisation: Decimal | None = None
    offered = [c for c in CONTAINERS if c.code in offered_prices]
    if not offered:
        reasons.append("FCL not offered: no container prices")
    else:
        result = _cheapest_mix(items, offered, offered_prices, max_containers)
        if isinstance(result, str):
            reasons.append(result)
        else:
            containers, fcl_cost = result
            nominal = sum(
                (CONTAINER_BY_CODE[code].volume_m3 * n for code, n in containers.items()), Decimal(0)
            )
            usable = nominal * USABLE_VOLUME_FACTOR
            payload = sum(
                (CONTAINER_BY_CODE[code].max_payload_kg * n for code, n in containers.items()), Decimal(0)
            )
            utilisation = (volume / nominal).quantize(_FRACTION_STEP, rounding=ROUND_HALF_UP)
            priced = " + ".join(
                f"{n}×{code} at {_fmt_money(offered_prices[code])}" for code, n in containers.items()
            )
            reasons.append(
                f"Cheapest container mix: {priced} = {_fmt_money(fcl_cost)}; carries {_fmt_qty(volume)} m³ "
                f"in {_fmt_qty(usable)} m³ usable ({_fmt_qty(USABLE_VOLUME_FACTOR * 100)} % of nominal) "
                f"and {_fmt_qty(weight)} kg within {_fmt_qty(payload)} kg payload"
            )

    lcl_cost: Decimal | None = None
    if per_cbm is None and per_tonne is None:
        pass
    elif volume > lcl_max_m3:
        reasons.append(
            f"LCL not offered: {_fmt_qty(volume)} m³ is over the {_fmt_qty(lcl_max_m3)} m³ LCL limit"
        )
    else:
        tonnes = weight / _KG_PER_TONNE
        terms = []
        candidates = [lcl_minimum]
        if per_cbm is not None:
            by_volume = money(volume * per_cbm)
            candidates.append(by_volume)
            terms.append(f"{_fmt_qty(volume)} m³ × {_fmt_price(per_cbm)} = {_fmt_money(by_volume)}")
        if per_tonne is not None:
            by_weight = money(tonnes * per_tonne)
            candidates.append(by_weight)
            terms.append(f"{_fmt_qty(tonnes)} t × {_fmt_price(per_tonne)} = {_fmt_money(by_weight)}")
        terms.append(f"minimum {_fmt_money(lcl_minimum)}")
        lcl_cost = money(max(candidates))
        reasons.append(f"LCL (weight or measure): greater of {', '.join(terms)} → {_fmt_money(lcl_cost)}")
        if any(p.height_m > _STANDARD_DOOR_M for p in items):
            reasons.append("LCL: confirm the consolidator loads the tall pieces into a high-cube box")

    if fcl_cost is None and lcl_cost is None:
        raise ValueError("No ocean option carries this load: " + "; ".join(reasons))
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


# ---------------------------------------------------------------------------------------------
# Rates and options


@dataclass(frozen=True)
class Rate:
    """A price for a lane by one mode and service, valid between two dates (inclusive)."""

    mode: Mode
    origin_country: str
    destination_country: str
    currency: str
    transit_days: int
    price_per_kg: Decimal | None = None
    container_prices: dict[str, Decimal] = field(default_factory=dict)
    price_per_cbm: Decimal | None = None
    price_per_tonne: Decimal | None = None
    minimum_charge: Decimal = Decimal(0)
    valid_from: date | None = None
    valid_to: date | None = None
    carrier: str = ""
    service: str = ""

    def __post_init__(self) -> None:
        who = f"{self.mode} rate {self.origin_country} → {self.destination_country}"
        if self.service or self.carrier:
            who += f" ({' '.join(filter(None, (self.carrier, self.service)))})"
        if self.mode not in MODES:
            raise ValueError(f"{who}: mode must be one of {', '.join(MODES)} (got {self.mode!r})")
        for name in ("origin_country", "destination_country"):
            code = getattr(self, name)
            if not (isinstance(code, str) and len(code) == 2 and code.isalpha() and code.isupper()):
                raise ValueError(
                    f"{who}: {name} must be an ISO 3166 alpha-2 code such as 'TW' (got {code!r})"
                )
        if not (isinstance(self.currency, str) and len(self.currency) == 3 and self.currency.isupper()):
            raise ValueError(
                f"{who}: currency must be an ISO 4217 code such as 'USD' (got {self.currency!r})"
            )
        if (
            isinstance(self.transit_days, bool)
            or not isinstance(self.transit_days, int)
            or self.transit_days < 0
        ):
            raise ValueError(
                f"{who}: transit_days must be a whole number of days (got {self.transit_days!r})"
            )
        for name in ("price_per_kg", "price_per_cbm", "price_per_tonne", "minimum_charge"):
            raw = getattr(self, name)
            if raw is None:
                continue
            number = as_decimal(raw, name, who)
            if number < 0:
                raise ValueError(f"{who}: {name} cannot be negative (got {number})")
            object.__setattr__(self, name, number)
        prices = {}
        for code, raw in dict(self.container_prices).items():
            if code not in CONTAINER_BY_CODE:
                raise ValueError(
                    f"{who}: unknown container type {code!r}; use {', '.join(CONTAINER_BY_CODE)}"
                )
            number = as_decimal(raw, f"price for {code}", who)
            if number < 0:
                raise ValueError(f"{who}: price for {code} cannot be negative (got {number})")
            prices[code] = number
        object.__setattr__(self, "container_prices", prices)
        if self.mode in ("air", "road") and self.price_per_kg is None:
            raise ValueError(f"{who}: air and road rates need price_per_kg")
        if self.mode == "ocean" and not (
            prices or self.price_per_cbm is not None or self.price_per_tonne is not None
        ):
            raise ValueError(
                f"{who}: an ocean rate needs container prices or an LCL price per m³ or per tonne"
            )
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError(f"{who}: valid_to {self.valid_to} is before valid_from {self.valid_from}")

    @property
    def lane(self) -> str:
        return f"{self.origin_country} → {self.destination_country}"

    def is_valid_on(self, day: date) -> bool:
        """True when `day` lies within valid_from..valid_to (both inclusive; None is open)."""
        return (self.valid_from is None or self.valid_from <= day) and (
            self.valid_to is None or day <= self.valid_to
        )


@dataclass
class FreightOption:
    """One priced way to move the pieces under one rate."""

    mode: Mode
    service: str
    carrier: str
    cost: Decimal
    currency: str
    transit_days: int
    departure: date
    arrival: date
    on_time: bool | None
    chargeable_kg: Decimal | None
    ocean_plan: OceanPlan | None
    breakdown: list[str]
    pieces_labels: tuple[str, ...]

    def summary(self) -> str:
        """'Ocean FCL 1×40HC', 'Air freight (Cathay Cargo)'."""
        text = self.service
        if self.ocean_plan is not None and self.ocean_plan.chosen == "FCL":
            text += f" {self.ocean_plan.container_summary}"
        if self.carrier:
            text += f" ({self.carrier})"
        return text

    def late_by_days(self, required_by: date) -> int:
        return max(0, (self.arrival - required_by).days)


def _applicable_rates(
    rates: Iterable[Rate], ready_date: date, origin_country: str | None, destination_country: str | None
) -> list[Rate]:
    rates = list(rates)
    on_lane = [
        r
        for r in rates
        if (origin_country is None or r.origin_country == origin_country)
        and (destination_country is None or r.destination_country == destination_country)
    ]
    applicable = [r for r in on_lane if r.is_valid_on(ready_date)]
    if not applicable:
        lanes = sorted({r.lane for r in on_lane})
        if origin_country and destination_country:
            lane = f" for lane {origin_country} → {destination_country}"
        elif len(lanes) == 1:
            lane = f" for lane {lanes[0]}"
        else:
            lane = ""
        raise NoRateError(f"no air, ocean or road rate{lane} valid on {ready_date.isoformat()}")
    lanes = sorted({r.lane for r in applicable})
    if len(lanes) > 1:
        raise ValueError(
            f"rates cover several lanes ({', '.join(lanes)}); pass origin_country and destination_country"
        )
    currencies = sorted({r.currency for r in applicable})
    if len(currencies) > 1:
        raise ValueError(
            f"rates valid on {ready_date.isoformat()} are in several currencies ({', '.join(currencies)}); "
            f"convert them to one currency before comparing"
        )
    return applicable


def _price(rate: Rate, pieces: list[Piece], ready_date: date, required_by: date | None) -> FreightOption:
    """Price the pieces under one rate; ValueError when the rate cannot carry them."""
    currency = rate.currency
    breakdown: list[str] = []
    chargeable: Decimal | None = None
    plan: OceanPlan | None = None
    if rate.mode in ("air", "road"):
        divisor = AIR_VOLUMETRIC_DIVISOR if rate.mode == "air" else ROAD_VOLUMETRIC_DIVISOR
        weight = air_chargeable_weight(pieces, divisor)
        chargeable = weight.chargeable_kg
        assert rate.price_per_kg is not None  # checked in Rate
        cost = money(chargeable * rate.price_per_kg)
        kg_per_m3 = (_CM3_PER_M3 / divisor).quantize(Decimal(1))
        breakdown.append(
            f"gross {_fmt_qty(weight.gross_kg)} kg, volumetric {_fmt_qty(weight.volumetric_kg)} kg "
            f"({_fmt_qty(weight.volume_m3)} m³ at 1 m³ = {_fmt_qty(kg_per_m3)} kg, "
            f"L×W×H cm / {_fmt_qty(divisor)}); the greater, rounded up to 0.5 kg, is chargeable"
        )
        breakdown.append(
            f"{_fmt_qty(chargeable)} kg chargeable × {_fmt_price(rate.price_per_kg)} {currency}/kg = "
            f"{_fmt_money(cost)} {currency}"
        )
        service = rate.service or ("Air freight" if rate.mode == "air" else "Road freight")
    else:
        plan = plan_ocean(
            pieces,
            rate.container_prices,
            rate.price_per_cbm,
            rate.price_per_tonne,
            lcl_minimum=rate.minimum_charge,
        )
        cost = plan.cost
        breakdown.extend(plan.reasons)
        breakdown.append(f"Ocean {plan.chosen}: {_fmt_money(cost)} {currency}")
        if rate.service:
            service = rate.service if plan.chosen in rate.service else f"{rate.service} ({plan.chosen})"
        else:
            service = f"Ocean {plan.chosen}"
    if cost < rate.minimum_charge:
        breakdown.append(
            f"below the minimum charge, so {_fmt_money(rate.minimum_charge)} {currency} "
            f"(instead of {_fmt_money(cost)})"
        )
        cost = money(rate.minimum_charge)
    arrival = ready_date + timedelta(days=rate.transit_days)
    return FreightOption(
        mode=rate.mode,
        service=service,
        carrier=rate.carrier,
        cost=cost,
        currency=currency,
        transit_days=rate.transit_days,
        departure=ready_date,
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
        chargeable_kg=chargeable,
        ocean_plan=plan,
        breakdown=breakdown,
        pieces_labels=tuple(p.label for p in pieces),
    )


def _options(
    pieces: list[Piece], rates: list[Rate], ready_date: date, required_by: date | None
) -> tuple[list[FreightOption], list[str]]:
    """Options for the rates that can carry the pieces, and a note for each that cannot."""
    options, notes = [], []
    for rate in rates:
        try:
            options.append(_price(rate, pieces, ready_date, required_by))
        except ValueError as error:
            notes.append(f"{rate.mode} rate {rate.carrier or rate.service or rate.lane} skipped: {error}")
    options.sort(key=lambda o: (o.cost, o.arrival, o.mode))
    return options, notes


def freight_options(
    pieces: Iterable[Piece],
    rates: Iterable[Rate],
    ready_date: date,
    required_by: date | None = None,
    *,
    origin_country: str | None = None,
    destination_country: str | None = None,
) -> list[FreightOption]:
    """One option per rate valid on the ready date (optionally only on the given lane), by cost.

    Raises NoRateError when no rate applies, ValueError for mixed currencies or lanes, and
    ValueError when rates apply but none can carry the load (saying why for each).
    """
    items = _labelled(pieces)
    applicable = _applicable_rates(rates, ready_date, origin_country, destination_country)
    options, notes = _options(items, applicable, ready_date, required_by)
    if not options:
        raise ValueError("No rate can carry this load: " + "; ".join(notes))
    return options


# ---------------------------------------------------------------------------------------------
# Recommendation


@dataclass
class SplitPlan:
    """Air for the time-critical, compact hardware and ocean for the rest."""

    air: FreightOption
    ocean: FreightOption
    cost: Decimal
    arrival: date
    on_time: bool | None


@dataclass
class Recommendation:
    """Exactly one of `option` (one mode for everything) and `split` is set. `options` lists the
    single-mode options considered, cheapest first."""

    option: FreightOption | None
    split: SplitPlan | None
    reasons: list[str]
    options: list[FreightOption] = field(default_factory=list)


def _describe(option: FreightOption) -> str:
    cost = f"{_fmt_money(option.cost)} {option.currency}"
    return f"{option.summary()}, {cost}, arrives {option.arrival.isoformat()}"


def _alternatives(chosen: FreightOption, options: list[FreightOption], required_by: date | None) -> str:
    """'air would cost 48,300.00 USD' for the cheapest option of each other mode."""
    parts = []
    for mode in MODES:
        if mode == chosen.mode:
            continue
        of_mode = [o for o in options if o.mode == mode]
        if not of_mode:
            continue
        cheapest = min(of_mode, key=lambda o: (o.cost, o.arrival))
        text = f"{mode} would cost {_fmt_money(cheapest.cost)} {cheapest.currency}"
        if required_by is not None and not cheapest.on_time:
            text += f" but arrive {_days(cheapest.late_by_days(required_by))} late"
        parts.append(text)
    return "; " + "; ".join(parts) if parts else ""


def _best_leg(options: list[FreightOption], required_by: date | None) -> FreightOption | None:
    candidates = options if required_by is None else [o for o in options if o.on_time]
    return min(candidates, key=lambda o: (o.cost, o.arrival), default=None)


def _consider_split(
    items: list[Piece], rates: list[Rate], ready_date: date, required_by: date | None
) -> tuple[SplitPlan | None, list[str]]:
    by_air = [p for p in items if p.category in AIR_FIRST]
    by_sea = [p for p in items if p.category not in AIR_FIRST]
    if not by_air or not by_sea or not {"air", "ocean"} <= {r.mode for r in rates}:
        return None, []
    air_options, air_notes = _options(by_air, [r for r in rates if r.mode == "air"], ready_date, required_by)
    sea_options, sea_notes = _options(
        by_sea, [r for r in rates if r.mode == "ocean"], ready_date, required_by
    )
    air, sea = _best_leg(air_options, required_by), _best_leg(sea_options, required_by)
    if air is None or sea is None:
        missing = "air" if air is None else "ocean"
        when = "" if required_by is None else f" arriving by {required_by.isoformat()}"
        return None, [f"No split: no {missing} option{when} for its share", *air_notes, *sea_notes]
    arrival = max(air.arrival, sea.arrival)
    split = SplitPlan(
        air=air,
        ocean=sea,
        cost=money(air.cost + sea.cost),
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
    )
    return split, []


def _split_legs(split: SplitPlan, items: list[Piece]) -> str:
    text = (
        f"air for {', '.join(split.air.pieces_labels)} ({_describe(split.air)}) and ocean for "
        f"{', '.join(split.ocean.pieces_labels)} ({_describe(split.ocean)})"
    )
    total_value = sum((p.value for p in items), Decimal(0))
    if total_value > 0:
        air_value = sum((p.value for p in items if p.category in AIR_FIRST), Decimal(0))
        share = (air_value / total_value * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        text += f"; the air leg carries {share} % of the goods value"
    return text


def recommend(
    pieces: Iterable[Piece],
    rates: Iterable[Rate],
    ready_date: date,
    required_by: date | None = None,
    *,
    origin_country: str | None = None,
    destination_country: str | None = None,
) -> Recommendation:
    """The cheapest option arriving by `required_by` (or the cheapest at all without a date); if
    none is on time, the earliest arrival. Then a split (AIR_FIRST categories by air, the rest by
    ocean) replaces it when the split is on time and cheaper, or on time where the single is not.
    """
    items = _labelled(pieces)
    applicable = _applicable_rates(rates, ready_date, origin_country, destination_country)
    options, notes = _options(items, applicable, ready_date, required_by)
    split, split_notes = _consider_split(items, applicable, ready_date, required_by)
    if not options and split is None:
        raise ValueError("No rate can carry this load: " + "; ".join(notes + split_notes))

    reasons: list[str] = []
    single: FreightOption | None = None
    if options:
        if required_by is None:
            single = options[0]
            reasons.append(f"No required date: cheapest option is {_describe(single)}")
        else:
            on_time = [o for o in options if o.on_time]
            if on_time:
                single = on_time[0]  # options are sorted by cost
                reasons.append(
                    f"Cheapest option arriving by {required_by.isoformat()}: {_describe(single)}"
                    f"{_alternatives(single, options, required_by)}"
                )
            else:
                single = min(options, key=lambda o: (o.arrival, o.cost))
                reasons.append(
                    f"No option arrives by {required_by.isoformat()}: the earliest is {_describe(single)}, "
                    f"{_days(single.late_by_days(required_by))} late"
                )
    reasons.extend(notes)

    if split is not None:
        legs = _split_legs(split, items)
        total = f"{_fmt_money(split.cost)} {split.air.currency}"
        split_ok = split.on_time is not False
        if single is None and split_ok:
            reasons.append(f"Split shipment: {legs}; total {total}; no single mode carries everything")
            return Recommendation(option=None, split=split, reasons=reasons, options=options)
        if single is not None and split_ok and split.cost < single.cost:
            saving = _fmt_money(single.cost - split.cost)
            reasons.append(
                f"Split shipment instead: {legs}; total {total}, {saving} {split.air.currency} less than "
                f"{single.summary()}"
            )
            return Recommendation(option=None, split=split, reasons=reasons, options=options)
        if single is not None and split.on_time and not single.on_time:
            reasons.append(
                f"Split shipment instead: {legs}; total {total}, arriving {split.arrival.isoformat()} "
                f"by the required date, which no single option does"
            )
            return Recommendation(option=None, split=split, reasons=reasons, options=options)
        if single is not None:
            if split.on_time is False:
                why = f"arriving {split.arrival.isoformat()}, after {required_by}"
            else:
                why = f"{_fmt_money(split.cost - single.cost)} {split.air.currency} more"
            reasons.append(f"Splitting would cost {total}, {why}: {legs}")
    reasons.extend(split_notes)
    return Recommendation(option=single, split=None, reasons=reasons, options=options)
