"""Freight planning: chargeable weight, container planning, rate comparison and choice of mode.

No Django imports: the shipments app adapts its rows to these dataclasses. Money, weights and
volumes are Decimal throughout; money is rounded to cents (half up) at the end of each step.

Simplifications, on purpose:
- Containers are planned by floor space, height and payload, not volume alone: packages stay
  upright (height as given) but may be turned on the floor, stand in rows across the width, and
  are stacked only when the package says it is stackable. Each kind of package takes
  1 / (how many of it one container holds) of a container; kinds sharing a box add up. Pieces
  are checked one by one against door height and width (less a configurable clearance), inner
  length and payload.
- Aircraft: pieces are checked against lower-deck and main-deck freighter limits (height,
  footprint, weight a piece) and lithium-ion batteries are classified (UN3480 / UN3481, PI965 to
  PI967); air options say when only a freighter can take them, or are not offered. Limits live in
  `FreightLimits`, overridable by the caller.
- Dates: departure is the ready date and arrival is departure + the rate's transit days; there
  are no sailing schedules, cut-offs or port dwell times.
- Road freight uses a volumetric divisor of 3,000 (333 kg/m³, the usual road ratio) against
  air's IATA 6,000; both round the chargeable weight up to the next 0.5 kg.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
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


class FreightError(ValueError):
    """A plan the engine refuses, with a sentence saying why (the API answers 4xx, not 500)."""


class NoRateError(FreightError):
    """No rate applies to the lane on the ready date."""


class RateTableConflict(FreightError):
    """The applicable rates cannot be compared: several currencies or several lanes."""


class CannotCarryError(FreightError):
    """No rate, aircraft or container can carry the load (or one piece of it)."""


class MissingFiguresError(FreightError):
    """Lines whose part has no weight or dimensions: the plan would silently leave them out."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = tuple(lines)
        super().__init__(
            "Freight cannot be planned: "
            + "; ".join(self.lines)
            + ". Record the part's weight and dimensions in the catalogue, or pack the line."
        )


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


def _some(items: Sequence, describe, limit: int = 5) -> str:
    """'a, b and c', or 'a, b, c, d, e and 12 more': a reason stays short on a 3,000-line shipment."""
    shown = [describe(item) for item in items[:limit]]
    if len(items) > limit:
        return f"{', '.join(shown)} and {len(items) - limit} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def _ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def round_up_half_kg(kg: Decimal) -> Decimal:
    """Round up to the next 0.5 kg, as carriers do: 202.58 → 203.0, 250.2 → 250.5, 250 → 250.0."""
    return (Decimal(_ceil(kg * 2)) / 2).quantize(Decimal("0.1"))


# ---------------------------------------------------------------------------------------------
# What aircraft and containers take


@dataclass(frozen=True)
class FreightLimits:
    """Physical limits a plan is checked against, in cm and kg; Django settings may override any.

    Aircraft figures are typical wide-body values, estimates to edit per airline [E]: a lower deck
    (passenger aircraft's belly, or a freighter's) takes pieces up to 160 cm tall on a 317 × 243 cm
    (PMC) pallet and about 1,500 kg a piece; a main-deck freighter (B747-8F / B777F side door)
    up to 300 cm tall on a 606 × 243 cm (20 ft) pallet and 6,800 kg a piece (one PMC position).
    Anything bigger needs an outsize charter (An-124 class) or goes by sea.
    `door_clearance_cm` is kept between a piece and a container door (and inside height when
    stacking), so a 2.27 m crate is not planned through a 2.27 m door.
    """

    door_clearance_cm: Decimal = Decimal(5)
    lower_deck_max_height_cm: Decimal = Decimal(160)
    lower_deck_max_length_cm: Decimal = Decimal(317)
    lower_deck_max_width_cm: Decimal = Decimal(243)
    lower_deck_max_piece_kg: Decimal = Decimal(1500)
    main_deck_max_height_cm: Decimal = Decimal(300)
    main_deck_max_length_cm: Decimal = Decimal(606)
    main_deck_max_width_cm: Decimal = Decimal(243)
    main_deck_max_piece_kg: Decimal = Decimal(6800)

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            number = as_decimal(getattr(self, name), name, "FreightLimits")
            if number < 0 or (number == 0 and name != "door_clearance_cm"):
                raise ValueError(f"FreightLimits: {name} must be greater than 0 (got {number})")
            object.__setattr__(self, name, number)


DEFAULT_LIMITS = FreightLimits()

AIRCRAFT_ANY = "passenger or freighter"
AIRCRAFT_CARGO_ONLY = "cargo aircraft only"
AIRCRAFT_MAIN_DECK = "main-deck freighter"


def _deck_problem(piece: Piece, height: Decimal, length: Decimal, width: Decimal, kg: Decimal) -> str:
    """Why a piece exceeds a deck's limits ('' when it does not); it may be turned on the floor."""
    problems = []
    if piece.height_cm > height:
        problems.append(f"{_fmt_qty(piece.height_cm)} cm tall (limit {_fmt_qty(height)} cm)")
    long_side, short_side = max(piece.length_cm, piece.width_cm), min(piece.length_cm, piece.width_cm)
    if long_side > length or short_side > width:
        problems.append(
            f"{_fmt_qty(long_side)} × {_fmt_qty(short_side)} cm on the floor "
            f"(limit {_fmt_qty(length)} × {_fmt_qty(width)} cm)"
        )
    if piece.gross_kg > kg:
        problems.append(f"{_fmt_qty(piece.gross_kg)} kg (limit {_fmt_qty(kg)} kg a piece)")
    return ", ".join(problems)


def air_deck(piece: Piece, limits: FreightLimits = DEFAULT_LIMITS) -> tuple[str, str]:
    """Which aircraft can take one package: ('lower_deck' | 'main_deck' | 'charter', why)."""
    deck, problem = _air_deck_problem(piece, limits)
    if deck == "main_deck":
        return deck, f"{piece.name} is {problem}, over the lower-deck limits: main-deck freighter only"
    if deck == "charter":
        return deck, (
            f"{piece.name} is {problem}, over main-deck freighter limits: it needs an outsize charter "
            f"(An-124 class) or must go by sea"
        )
    return deck, ""


def _air_deck_problem(piece: Piece, limits: FreightLimits) -> tuple[str, str]:
    """The deck one package needs, and why it needs no lower one: what exceeds the lower deck's
    limits (for the main deck) or the main deck's (for a charter); '' on the lower deck."""
    lower = _deck_problem(
        piece,
        limits.lower_deck_max_height_cm,
        limits.lower_deck_max_length_cm,
        limits.lower_deck_max_width_cm,
        limits.lower_deck_max_piece_kg,
    )
    if not lower:
        return "lower_deck", ""
    main = _deck_problem(
        piece,
        limits.main_deck_max_height_cm,
        limits.main_deck_max_length_cm,
        limits.main_deck_max_width_cm,
        limits.main_deck_max_piece_kg,
    )
    if not main:
        return "main_deck", lower
    return "charter", main


# ---------------------------------------------------------------------------------------------
# Dangerous goods: lithium-ion batteries (IATA DGR packing instructions 965, 966, 967)

BATTERIES_IN_EQUIPMENT = "contained_in_equipment"
BATTERIES_WITH_EQUIPMENT = "packed_with_equipment"
BATTERIES_ALONE = "batteries_alone"
BATTERY_PACKINGS = (BATTERIES_IN_EQUIPMENT, BATTERIES_WITH_EQUIPMENT, BATTERIES_ALONE)
SMALL_BATTERY_WH = Decimal(100)  # Section II: batteries of at most 100 Wh (cells at most 20 Wh)
SECTION_II_NET_KG = Decimal(5)  # PI966/PI967 Section II: lithium batteries per package, net
PASSENGER_NET_KG = Decimal(5)  # PI966/PI967 Section I on passenger aircraft, per package
CARGO_AIRCRAFT_NET_KG = Decimal(35)  # PI965 IA, PI966/PI967 Section I on cargo aircraft
PI965_SMALL_GROSS_KG = Decimal(10)  # PI965 Section IB: per package, gross


@dataclass(frozen=True)
class LithiumBatteries:
    """The lithium-ion batteries of one unit of a part: how they travel, the watt-hours of each
    battery and their net mass in one unit (None when not recorded)."""

    packing: str
    battery_wh: Decimal | None = None
    net_kg_per_unit: Decimal | None = None

    def __post_init__(self) -> None:
        if self.packing not in BATTERY_PACKINGS:
            raise ValueError(
                f"battery packing must be one of {', '.join(BATTERY_PACKINGS)} (got {self.packing!r})"
            )
        for name in ("battery_wh", "net_kg_per_unit"):
            raw = getattr(self, name)
            if raw is not None:
                number = as_decimal(raw, name, "LithiumBatteries")
                if number < 0:
                    raise ValueError(f"LithiumBatteries: {name} cannot be negative (got {number})")
                object.__setattr__(self, name, number)


@dataclass(frozen=True)
class DangerousGoods:
    """How one package of lithium-ion batteries is classified, and what that allows by air.

    `air_forbidden` is the reason air is not possible ('' when it is); `cargo_aircraft_only`
    keeps it off passenger aircraft; `notes` say what was assumed."""

    un_number: str
    description: str
    packing_instruction: str
    section: str
    cargo_aircraft_only: bool = False
    air_forbidden: str = ""
    declaration: bool = False
    notes: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The line for documents and labels, e.g. 'UN3481 Lithium ion batteries contained in
        equipment, class 9, PI967 Section II'."""
        return (
            f"{self.un_number} {self.description}, class 9, {self.packing_instruction} Section {self.section}"
        )


_DESCRIPTIONS = {
    BATTERIES_IN_EQUIPMENT: ("UN3481", "Lithium ion batteries contained in equipment", "PI967"),
    BATTERIES_WITH_EQUIPMENT: ("UN3481", "Lithium ion batteries packed with equipment", "PI966"),
    BATTERIES_ALONE: ("UN3480", "Lithium ion batteries", "PI965"),
}


def classify_lithium_batteries(batteries: LithiumBatteries, units: int = 1) -> DangerousGoods:
    """Classify a package holding `units` units of a part with lithium-ion batteries.

    Batteries alone (UN3480, PI965) never fly on passenger aircraft: Section IA (over 100 Wh)
    allows 35 kg net per package on cargo aircraft, Section IB 10 kg gross. In or with equipment
    (UN3481, PI967 / PI966), Section II is for batteries of at most 100 Wh and 5 kg net per
    package; above that Section I allows 5 kg net on passenger aircraft and 35 kg on cargo
    aircraft. Above the cargo-aircraft limit air needs an approval: send it by sea or road.
    Unknown figures are read conservatively, except watt-hours of batteries inside equipment,
    which the small cells of servers (RTC, BMC) make Section II unless recorded otherwise.
    """
    un, description, instruction = _DESCRIPTIONS[batteries.packing]
    notes: list[str] = []
    wh = batteries.battery_wh
    net = None if batteries.net_kg_per_unit is None else batteries.net_kg_per_unit * units
    if wh is None:
        notes.append("battery watt-hours not recorded")
    if net is None:
        notes.append("net battery mass not recorded")
    small = wh <= SMALL_BATTERY_WH if wh is not None else batteries.packing == BATTERIES_IN_EQUIPMENT
    by_sea = "by air it needs a dangerous-goods approval; send it by sea or road (class 9)"

    def result(section: str, **kw: object) -> DangerousGoods:
        return DangerousGoods(un, description, instruction, section, notes=tuple(notes), **kw)  # type: ignore[arg-type]

    if batteries.packing == BATTERIES_ALONE:
        if small:
            section = "IB"
            if net is not None and net > PI965_SMALL_GROSS_KG:
                return result(
                    section,
                    cargo_aircraft_only=True,
                    declaration=True,
                    air_forbidden=f"{_fmt_qty(net)} kg of batteries in one package is over the "
                    f"{_fmt_qty(PI965_SMALL_GROSS_KG)} kg of PI965 Section IB; {by_sea}",
                )
            return result(section, cargo_aircraft_only=True, declaration=True)
        if net is None or net > CARGO_AIRCRAFT_NET_KG:
            held = "an unknown mass" if net is None else f"{_fmt_qty(net)} kg"
            return result(
                "IA",
                cargo_aircraft_only=True,
                declaration=True,
                air_forbidden=f"{held} of batteries over {_fmt_qty(SMALL_BATTERY_WH)} Wh in one package; "
                f"PI965 Section IA allows {_fmt_qty(CARGO_AIRCRAFT_NET_KG)} kg net on cargo aircraft only, "
                f"at most 30 % state of charge; {by_sea}",
            )
        return result("IA", cargo_aircraft_only=True, declaration=True)
    if small and (net is None or net <= SECTION_II_NET_KG):
        return result("II")
    if net is None or net > CARGO_AIRCRAFT_NET_KG:
        held = "an unknown mass" if net is None else f"{_fmt_qty(net)} kg"
        return result(
            "I",
            cargo_aircraft_only=True,
            declaration=True,
            air_forbidden=f"{held} of lithium batteries in one package; {instruction} Section I allows "
            f"{_fmt_qty(CARGO_AIRCRAFT_NET_KG)} kg net on cargo aircraft; {by_sea}",
        )
    return result("I", cargo_aircraft_only=net > PASSENGER_NET_KG, declaration=True)


# ---------------------------------------------------------------------------------------------
# Pieces and chargeable weight


@dataclass(frozen=True)
class Piece:
    """A package (crate, pallet, carton) as shipped; `quantity` identical ones.

    `value` is the total value of the goods in all `quantity` packages; `category` is the part
    category of what is inside (see AIR_FIRST); `label` is the package or line reference.
    `stackable` lets another package stand on it in a container (never assumed);
    `dangerous_goods` classifies what each one package holds.
    """

    length_cm: Decimal
    width_cm: Decimal
    height_cm: Decimal
    gross_kg: Decimal
    quantity: int = 1
    value: Decimal = Decimal("0")
    category: str = ""
    label: str = ""
    stackable: bool = False
    dangerous_goods: tuple[DangerousGoods, ...] = ()

    def __post_init__(self) -> None:
        who = self.name
        object.__setattr__(self, "dangerous_goods", tuple(self.dangerous_goods))
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
    aircraft: str = ""  # for air: AIRCRAFT_ANY, AIRCRAFT_CARGO_ONLY or AIRCRAFT_MAIN_DECK

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
        raise RateTableConflict(
            f"rates cover several lanes ({', '.join(lanes)}); pass origin_country and destination_country"
        )
    currencies = sorted({r.currency for r in applicable})
    if len(currencies) > 1:
        raise RateTableConflict(
            f"rates valid on {ready_date.isoformat()} are in several currencies ({', '.join(currencies)}); "
            f"convert them to one currency before comparing"
        )
    return applicable


def air_acceptance(pieces: Iterable[Piece], limits: FreightLimits = DEFAULT_LIMITS) -> tuple[str, list[str]]:
    """Which aircraft can carry all the pieces (AIRCRAFT_*) and why; CannotCarryError when none
    can: a piece over main-deck freighter limits, or dangerous goods air does not take.

    Pieces with the same reason share one sentence naming the first few ("Pieces 'line 3', 'line 7',
    … and 370 more are 220 cm tall …"): the reasons stay as many as the kinds of piece, not the
    pieces (a 3,000-line shipment would otherwise list a sentence per line in every air option)."""
    aircraft = AIRCRAFT_ANY
    grouped: dict[tuple[str, str], list[Piece]] = {}  # (what, why) → pieces, in first-seen order
    decks: dict[tuple[Decimal, ...], tuple[str, str]] = {}  # alike pieces sit on alike decks
    for piece in pieces:
        for goods in piece.dangerous_goods:
            if goods.air_forbidden:
                raise CannotCarryError(f"{piece.name} holds {goods.text}: {goods.air_forbidden}")
            if goods.cargo_aircraft_only:
                if aircraft == AIRCRAFT_ANY:
                    aircraft = AIRCRAFT_CARGO_ONLY
                grouped.setdefault(("goods", goods.text), []).append(piece)
        size = (piece.length_cm, piece.width_cm, piece.height_cm, piece.gross_kg)
        if size not in decks:
            decks[size] = _air_deck_problem(piece, limits)
        deck, problem = decks[size]
        if deck == "charter":
            raise CannotCarryError(air_deck(piece, limits)[1])
        if deck == "main_deck":
            aircraft = AIRCRAFT_MAIN_DECK
            grouped.setdefault(("deck", problem), []).append(piece)
    reasons = []
    for (what, why), alike in grouped.items():
        names = _piece_names(alike)
        if what == "goods":
            reasons.append(f"{names} hold{'s' if len(alike) == 1 else ''} {why}: cargo aircraft only")
        else:
            reasons.append(
                f"{names} {'is' if len(alike) == 1 else 'are'} {why}, over the lower-deck limits: "
                "main-deck freighter only"
            )
    return aircraft, reasons


def _piece_names(pieces: Sequence[Piece]) -> str:
    """ "Piece 'a'", or "Pieces 'a', 'b', 'c', 'd', 'e' and 12 more"."""
    if len(pieces) == 1:
        return pieces[0].name
    return "Pieces " + _some(pieces, lambda p: repr(p.label) if p.label else "(no label)")


def _price(
    rate: Rate,
    pieces: list[Piece],
    ready_date: date,
    required_by: date | None,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> FreightOption:
    """Price the pieces under one rate; ValueError when the rate cannot carry them."""
    currency = rate.currency
    breakdown: list[str] = []
    chargeable: Decimal | None = None
    plan: OceanPlan | None = None
    aircraft = ""
    if rate.mode == "air":
        aircraft, why = air_acceptance(pieces, limits)
        breakdown.extend(why)
        if aircraft != AIRCRAFT_ANY:
            breakdown.append(f"{aircraft}: confirm the rate covers freighter space")
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
            limits=limits,
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
        aircraft=aircraft,
    )


def _options(
    pieces: list[Piece],
    rates: list[Rate],
    ready_date: date,
    required_by: date | None,
    limits: FreightLimits = DEFAULT_LIMITS,
    priced: dict[int, FreightOption | ValueError] | None = None,
) -> tuple[list[FreightOption], list[str]]:
    """Options for the rates that can carry the pieces, and a note for each that cannot.

    `priced` (by id of the rate) keeps what each rate made of these pieces: asked again for another
    date, a rate's option is only moved to it, not priced again (a route prices its legs after the
    hub twice: for their fastest transit, then from the day the goods reach the hub)."""
    options, notes = [], []
    for rate in rates:
        try:
            known = None if priced is None else priced.get(id(rate))
            if known is None:
                try:
                    known = _price(rate, pieces, ready_date, required_by, limits)
                except ValueError as error:
                    known = error
                if priced is not None:
                    priced[id(rate)] = known
            if isinstance(known, ValueError):
                raise known
            options.append(_dated(known, ready_date, required_by))
        except ValueError as error:
            notes.append(f"{rate.mode} rate {rate.carrier or rate.service or rate.lane} skipped: {error}")
    options.sort(key=lambda o: (o.cost, o.arrival, o.mode))
    return options, notes


def _dated(option: FreightOption, departure: date, required_by: date | None) -> FreightOption:
    """The option leaving on `departure` (its price does not depend on the day)."""
    if option.departure == departure and option.on_time == (
        None if required_by is None else option.arrival <= required_by
    ):
        return option
    arrival = departure + timedelta(days=option.transit_days)
    return replace(
        option,
        departure=departure,
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
        breakdown=list(option.breakdown),
    )


def freight_options(
    pieces: Iterable[Piece],
    rates: Iterable[Rate],
    ready_date: date,
    required_by: date | None = None,
    *,
    origin_country: str | None = None,
    destination_country: str | None = None,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> list[FreightOption]:
    """One option per rate valid on the ready date (optionally only on the given lane), by cost.

    Raises NoRateError when no rate applies, RateTableConflict for mixed currencies or lanes, and
    CannotCarryError when rates apply but none can carry the load (saying why for each).
    """
    items = _labelled(pieces)
    applicable = _applicable_rates(rates, ready_date, origin_country, destination_country)
    options, notes = _options(items, applicable, ready_date, required_by, limits)
    if not options:
        raise CannotCarryError("No rate can carry this load: " + "; ".join(notes))
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
    items: list[Piece],
    rates: list[Rate],
    ready_date: date,
    required_by: date | None,
    limits: FreightLimits = DEFAULT_LIMITS,
) -> tuple[SplitPlan | None, list[str]]:
    by_air = [p for p in items if p.category in AIR_FIRST]
    by_sea = [p for p in items if p.category not in AIR_FIRST]
    if not by_air or not by_sea or not {"air", "ocean"} <= {r.mode for r in rates}:
        return None, []
    air_options, air_notes = _options(
        by_air, [r for r in rates if r.mode == "air"], ready_date, required_by, limits
    )
    sea_options, sea_notes = _options(
        by_sea, [r for r in rates if r.mode == "ocean"], ready_date, required_by, limits
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
    limits: FreightLimits = DEFAULT_LIMITS,
) -> Recommendation:
    """The cheapest option arriving by `required_by` (or the cheapest at all without a date); if
    none is on time, the earliest arrival. Then a split (AIR_FIRST categories by air, the rest by
    ocean) replaces it when the split is on time and cheaper, or on time where the single is not.
    """
    items = _labelled(pieces)
    applicable = _applicable_rates(rates, ready_date, origin_country, destination_country)
    options, notes = _options(items, applicable, ready_date, required_by, limits)
    split, split_notes = _consider_split(items, applicable, ready_date, required_by, limits)
    if not options and split is None:
        raise CannotCarryError("No rate can carry this load: " + "; ".join(notes + split_notes))

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


# ---------------------------------------------------------------------------------------------
# Routes: a consolidation priced leg by leg (issue 11)

LEG_INBOUND = "inbound"


@dataclass(frozen=True)
class RouteLeg:
    """One leg to price: its lane, the pieces it carries and the first day it can leave (its planned
    departure, or the shipment's ready date). Inbound legs end at the hub; every other leg (the
    main carriage, an onward leg) carries all the pieces, in sequence order, after the hub."""

    sequence: int
    role: str
    origin_country: str
    destination_country: str
    pieces: tuple[Piece, ...]
    ready_date: date
    label: str = ""
    # The mode the leg records (a draft's plan, or the booking): when the plan prices it by
    # another, it says so rather than putting that mode silently in its place.
    planned_mode: str = ""


@dataclass
class LegPlan:
    """A leg's options (priced on its own lane and dates) and the one chosen for it. `deadline` is
    the day it must arrive so that the legs after it can still meet the required date."""

    sequence: int
    role: str
    label: str
    origin_country: str
    destination_country: str
    pieces_labels: tuple[str, ...]
    departure: date
    deadline: date | None
    options: list[FreightOption]
    chosen: FreightOption | None
    reasons: list[str]


@dataclass
class RoutePlan:
    """The route as it is: inbound legs to the hub, hub handling, then the main carriage. `cost` is the
    sum of the chosen options and the hub handling charge; `main` is the sequence of the leg that
    carries the goods to the destination's border (its freight is the customs freight)."""

    legs: list[LegPlan]
    hub_handling: Decimal | None
    hub_handling_note: str
    cost: Decimal
    currency: str
    arrival: date
    on_time: bool | None
    main: int
    reasons: list[str]


def _leg_name(leg: RouteLeg) -> str:
    name = leg.label or f"Leg {leg.sequence}"
    return f"{name} ({leg.origin_country} → {leg.destination_country})"


def _leg_options(
    leg: RouteLeg,
    rates: list[Rate],
    departure: date,
    deadline: date | None,
    limits: FreightLimits,
    priced: dict[int, FreightOption | ValueError] | None = None,
) -> list[FreightOption]:
    try:
        applicable = _applicable_rates(rates, departure, leg.origin_country, leg.destination_country)
    except NoRateError as error:
        raise NoRateError(f"{_leg_name(leg)}: {error}. Add one in the rate table.") from None
    options, notes = _options(_labelled(leg.pieces), applicable, departure, deadline, limits, priced)
    if not options:
        raise CannotCarryError(f"{_leg_name(leg)}: no rate can carry its load: " + "; ".join(notes))
    return options


def _plan_leg(
    leg: RouteLeg,
    rates: list[Rate],
    departure: date,
    deadline: date | None,
    why_deadline: str,
    limits: FreightLimits,
    priced: dict[int, FreightOption | ValueError] | None = None,
) -> LegPlan:
    """The cheapest option arriving by the deadline; if none does, the earliest arrival."""
    name = _leg_name(leg)
    if not leg.pieces:
        return LegPlan(
            leg.sequence, leg.role, leg.label, leg.origin_country, leg.destination_country, (),
            departure, deadline, [], None, [f"{name} carries no lines: not priced"],
        )  # fmt: skip
    options = _leg_options(leg, rates, departure, deadline, limits, priced)
    if deadline is None:
        chosen = options[0]
        reason = f"{name}: no required date, cheapest option is {_describe(chosen)}"
    else:
        on_time = [o for o in options if o.on_time]
        if on_time:
            chosen = on_time[0]  # sorted by cost
            reason = (
                f"{name}: cheapest option arriving by {deadline.isoformat()} ({why_deadline}): "
                f"{_describe(chosen)}{_alternatives(chosen, options, deadline)}"
            )
        else:
            chosen = min(options, key=lambda o: (o.arrival, o.cost))
            reason = (
                f"{name}: no option arrives by {deadline.isoformat()} ({why_deadline}): the earliest is "
                f"{_describe(chosen)}, {_days(chosen.late_by_days(deadline))} late"
            )
    reasons = [reason]
    if leg.planned_mode and chosen.mode != leg.planned_mode:
        why = (
            "the cheapest"
            if deadline is None
            else "cheaper and on time"
            if chosen.on_time
            else "the earliest to arrive"
        )
        reasons.append(
            f"{name}: planned by {leg.planned_mode}, but the plan prices it by {chosen.mode} ({why}); "
            "the leg keeps its planned mode until you change it, and is booked by it."
        )
    return LegPlan(
        sequence=leg.sequence,
        role=leg.role,
        label=leg.label,
        origin_country=leg.origin_country,
        destination_country=leg.destination_country,
        pieces_labels=tuple(p.label for p in _labelled(leg.pieces)),
        departure=departure,
        deadline=deadline,
        options=options,
        chosen=chosen,
        reasons=reasons,
    )


def plan_route(
    legs: Sequence[RouteLeg],
    rates: Iterable[Rate],
    required_by: date | None = None,
    *,
    hub_handling: Decimal | None = None,
    hub_handling_currency: str = "",
    hub_handling_basis: str = "",
    hub_name: str = "the hub",
    limits: FreightLimits = DEFAULT_LIMITS,
) -> RoutePlan:
    """Price a consolidation leg by leg and choose an option per leg.

    Inbound legs leave on their own dates and must reach the hub by the required date less the
    fastest transit of the legs after the hub; the main carriage (then any onward leg) leaves on
    its own date or when the last chosen inbound leg reaches the hub, whichever is later, and must
    arrive by the required date (less the fastest transit of the legs after it). Each leg takes
    its cheapest option meeting its deadline, or its earliest when none does. The legs' rates
    must share one currency (RateTableConflict otherwise); a leg without a rate is a NoRateError
    naming it.
    """
    rates = list(rates)
    inbound = sorted((leg for leg in legs if leg.role == LEG_INBOUND), key=lambda leg: leg.sequence)
    after_hub = sorted((leg for leg in legs if leg.role != LEG_INBOUND), key=lambda leg: leg.sequence)
    if not after_hub:
        raise FreightError(
            "The route has no main carriage from the hub to the destination: add the main leg."
        )
    if not any(leg.pieces for leg in after_hub):
        raise FreightError("Nothing to carry: add lines (with catalogue dimensions) or packages.")
    # The fastest each leg after the hub can be, to give the legs before it a deadline.
    # Each leg after the hub is priced once: asked again from the day the goods reach the hub, its
    # options are only moved to that day (`priced`, per leg, by rate).
    priced: list[dict[int, FreightOption | ValueError]] = [{} for _ in after_hub]
    fastest = [
        min(o.transit_days for o in _leg_options(leg, rates, leg.ready_date, None, limits, known))
        for leg, known in zip(after_hub, priced, strict=True)
    ]

    def deadline_before(index: int) -> date | None:
        """The day leg `index` of after_hub must leave by (the hub deadline for index 0)."""
        if required_by is None:
            return None
        return required_by - timedelta(days=sum(fastest[index:]))

    plans: list[LegPlan] = []
    hub_deadline = deadline_before(0)
    for leg in inbound:
        why = f"the fastest main carriage then takes {_days(fastest[0])}" if fastest else ""
        plans.append(_plan_leg(leg, rates, leg.ready_date, hub_deadline, why, limits))
    reached = [p.chosen.arrival for p in plans if p.chosen is not None]
    previous = max(reached) if reached else None
    for index, leg in enumerate(after_hub):
        departure = leg.ready_date if previous is None else max(leg.ready_date, previous)
        deadline = deadline_before(index + 1)
        later = sum(fastest[index + 1 :])
        why = "the required date" if not later else f"the legs after it take at least {_days(later)}"
        plan = _plan_leg(leg, rates, departure, deadline, why, limits, priced[index])
        if previous is not None and departure > leg.ready_date:
            plan.reasons.insert(
                0, f"{_leg_name(leg)} leaves {departure.isoformat()}, when the goods are at {hub_name}"
            )
        plans.append(plan)
        if plan.chosen is not None:
            previous = plan.chosen.arrival

    chosen = [p.chosen for p in plans if p.chosen is not None]
    currencies = sorted({o.currency for o in chosen} | ({hub_handling_currency} if hub_handling else set()))
    if len(currencies) > 1:
        raise RateTableConflict(
            f"the route's legs are priced in several currencies ({', '.join(currencies)}); "
            f"convert the rates to one currency before adding them up"
        )
    currency = currencies[0]
    if hub_handling is None:
        hub_note = f"No hub handling charge is recorded for {hub_name}: none is counted."
    else:
        hub_handling = money(as_decimal(hub_handling, "hub_handling"))
        basis = f"{hub_handling_basis} = " if hub_handling_basis else ""
        hub_note = f"Hub handling at {hub_name}: {basis}{_fmt_money(hub_handling)} {currency}."
    cost = money(sum((o.cost for o in chosen), hub_handling or Decimal(0)))
    last = plans[-1]
    arrival = last.chosen.arrival if last.chosen is not None else max(o.arrival for o in chosen)
    main = next((p.sequence for p in plans if p.role == "main"), after_hub[-1].sequence)
    terms = " + ".join(f"{_fmt_money(o.cost)}" for o in chosen)
    if hub_handling is not None:
        terms += f" + {_fmt_money(hub_handling)} hub handling"
    reasons = [
        *(reason for p in plans for reason in p.reasons),
        hub_note,
        f"Route total: {terms} = {_fmt_money(cost)} {currency}, arriving {arrival.isoformat()}"
        + ("" if required_by is None else (" (on time)" if arrival <= required_by else
           f", {_days((arrival - required_by).days)} after {required_by.isoformat()}")),
    ]  # fmt: skip
    return RoutePlan(
        legs=plans,
        hub_handling=hub_handling,
        hub_handling_note=hub_note,
        cost=cost,
        currency=currency,
        arrival=arrival,
        on_time=None if required_by is None else arrival <= required_by,
        main=main,
        reasons=reasons,
    )
