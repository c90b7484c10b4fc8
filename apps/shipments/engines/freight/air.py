"""Freight by air (and the chargeable weight road shares with it): which deck or aircraft a
package needs, how lithium-ion batteries are classified, the chargeable weight, and whether the
aircraft take a load at all.

- Pieces are checked against lower-deck and main-deck freighter limits (height, footprint, weight
  a piece; `FreightLimits`, overridable by the caller). Lithium-ion batteries are classified
  (UN3480 / UN3481, PI965 to PI967); air options say when only a freighter can take them, or are
  not offered.
- Chargeable weight is the greater of gross and volumetric weight, rounded up to the next 0.5 kg:
  air's IATA divisor of 6,000, road's 3,000 (333 kg/m³, the usual road ratio).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .common import (
    _M3_STEP,
    AIR_VOLUMETRIC_DIVISOR,
    CENT,
    DEFAULT_LIMITS,
    ROAD_VOLUMETRIC_DIVISOR,
    CannotCarryError,
    DangerousGoods,
    FreightLimits,
    Piece,
    _checked_pieces,
    _fmt_qty,
    _some,
    as_decimal,
    round_up_half_kg,
)

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
# Chargeable weight


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
# Whether aircraft take the load


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
