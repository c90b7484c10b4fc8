"""Freight planning: chargeable weight, container planning, rate comparison and choice of mode.

No Django imports: the shipments app adapts its rows to these dataclasses. Money, weights and
volumes are Decimal throughout; money is rounded to cents (half up) at the end of each step.
Callers import every name from here; the work is done by subject, each module importing only
the ones below it:

- `common`: constants, errors, number helpers, `FreightLimits`, `Piece`, the dry containers and
  `Rate` (with the rates that apply to a lane on a day).
- `air`: which deck or aircraft a package needs, lithium-ion batteries classified (UN3480 /
  UN3481, PI965 to PI967), chargeable weight (air's divisor 6,000; road's 3,000 reuses it).
- `ocean`: the cheapest container mix by floor space, height and payload, LCL, and the cheaper.
- `options`: every applicable rate priced into a `FreightOption`, and `recommend` (one mode, or
  a split: compact, time-critical hardware by air and the rest by sea).
- `consolidation`: a route priced leg by leg through a hub (`plan_route`).
- `booking`: an option's stable name (`option_id`: mode, carrier, service, lane), to book it by.

Simplifications, on purpose: containers are planned by floor space, height and payload (packages
upright, turned on the floor, stacked only when stackable); aircraft limits are typical wide-body
figures in `FreightLimits`, overridable by the caller; departure is the ready date and arrival is
departure + the rate's transit days (no sailing schedules, cut-offs or port dwell times).
"""

from __future__ import annotations

from .air import (
    AIRCRAFT_ANY,
    AIRCRAFT_CARGO_ONLY,
    AIRCRAFT_MAIN_DECK,
    BATTERIES_ALONE,
    BATTERIES_IN_EQUIPMENT,
    BATTERIES_WITH_EQUIPMENT,
    BATTERY_PACKINGS,
    CARGO_AIRCRAFT_NET_KG,
    PASSENGER_NET_KG,
    PI965_SMALL_GROSS_KG,
    SECTION_II_NET_KG,
    SMALL_BATTERY_WH,
    AirWeight,
    LithiumBatteries,
    air_acceptance,
    air_chargeable_weight,
    air_deck,
    classify_lithium_batteries,
    road_chargeable_weight,
    volumetric_weight_kg,
)
from .booking import option_id
from .common import (
    AIR_FIRST,
    AIR_VOLUMETRIC_DIVISOR,
    CENT,
    CONTAINER_BY_CODE,
    CONTAINERS,
    DEFAULT_LCL_MAX_M3,
    DEFAULT_LIMITS,
    MAX_CONTAINERS,
    MODES,
    ROAD_VOLUMETRIC_DIVISOR,
    USABLE_VOLUME_FACTOR,
    CannotCarryError,
    ContainerType,
    DangerousGoods,
    FreightError,
    FreightLimits,
    MissingFiguresError,
    Mode,
    NoRateError,
    Piece,
    Rate,
    RateTableConflict,
    as_decimal,
    money,
    round_up_half_kg,
)
from .consolidation import (
    LEG_INBOUND,
    LegPlan,
    RouteLeg,
    RoutePlan,
    plan_route,
)
from .ocean import (
    OceanPlan,
    floor_positions,
    plan_ocean,
)
from .options import (
    FreightOption,
    Recommendation,
    SplitPlan,
    freight_options,
    recommend,
)

__all__ = [
    "AIRCRAFT_ANY",
    "AIRCRAFT_CARGO_ONLY",
    "AIRCRAFT_MAIN_DECK",
    "AIR_FIRST",
    "AIR_VOLUMETRIC_DIVISOR",
    "AirWeight",
    "BATTERIES_ALONE",
    "BATTERIES_IN_EQUIPMENT",
    "BATTERIES_WITH_EQUIPMENT",
    "BATTERY_PACKINGS",
    "CARGO_AIRCRAFT_NET_KG",
    "CENT",
    "CONTAINERS",
    "CONTAINER_BY_CODE",
    "CannotCarryError",
    "ContainerType",
    "DEFAULT_LCL_MAX_M3",
    "DEFAULT_LIMITS",
    "DangerousGoods",
    "FreightError",
    "FreightLimits",
    "FreightOption",
    "LEG_INBOUND",
    "LegPlan",
    "LithiumBatteries",
    "MAX_CONTAINERS",
    "MODES",
    "MissingFiguresError",
    "Mode",
    "NoRateError",
    "OceanPlan",
    "PASSENGER_NET_KG",
    "PI965_SMALL_GROSS_KG",
    "Piece",
    "ROAD_VOLUMETRIC_DIVISOR",
    "Rate",
    "RateTableConflict",
    "Recommendation",
    "RouteLeg",
    "RoutePlan",
    "SECTION_II_NET_KG",
    "SMALL_BATTERY_WH",
    "SplitPlan",
    "USABLE_VOLUME_FACTOR",
    "air_acceptance",
    "air_chargeable_weight",
    "option_id",
    "air_deck",
    "as_decimal",
    "classify_lithium_batteries",
    "floor_positions",
    "freight_options",
    "money",
    "plan_ocean",
    "plan_route",
    "recommend",
    "road_chargeable_weight",
    "round_up_half_kg",
    "volumetric_weight_kg",
]
