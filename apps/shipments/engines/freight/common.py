"""Freight's shared vocabulary: the numbers, errors, limits and types every mode plans with.

Money, weights and volumes are Decimal throughout (floats are refused); money is rounded to cents
(half up) at the end of each step. Here: the constants (volumetric divisors, modes, what goes by
air first), the errors the API answers 4xx with, number and text helpers, the physical limits
(`FreightLimits`), a package (`Piece`) with the dangerous goods it holds (`DangerousGoods`; the
lithium-battery classification is in `air`), the dry containers, and a rate (`Rate`) with the
choice of the rates that apply to a lane on a day. No Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import ROUND_CEILING, Decimal
from typing import Literal

from ..decimals import CENT, as_decimal, money  # noqa: F401  (re-exported: the freight package's names)

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


# ---------------------------------------------------------------------------------------------
# Dangerous goods a package holds (classified for air in `air`)


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


# ---------------------------------------------------------------------------------------------
# Pieces


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


# ---------------------------------------------------------------------------------------------
# Dry containers


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


# ---------------------------------------------------------------------------------------------
# Rates


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
