"""Own or rent: the cluster's cumulative cost month by month, owned against rented.

No Django imports; all money is Decimal, in one currency (`currency`), rounded to cents once a
month's figure is known, so the cumulative sums add up exactly.

- Owning: the hardware at its landed cost in month 0 (paid up front), then every month power
  (IT kW × PUE × hours in a month × the price per kWh) and support (the yearly support rate, a
  percentage of the hardware, over 12 months). Power is counted at the full IT load around the
  clock: idle systems still draw most of it, and the site's contract is for the capacity.
- Renting: the same GPU-hours (GPUs × hours in a month × utilisation) at the price per GPU-hour.
- Break-even: the first month in which renting has cost at least as much as owning. When renting
  costs no more a month than running the owned cluster, owning never pays back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
HOURS_PER_MONTH = Decimal("730")  # 8,760 hours a year / 12
MONTHS_MAX = 600
HUNDRED = Decimal("100")


class EconomicsError(ValueError):
    """An input the comparison cannot use, naming it (`field`)."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name
        self.message = message


def _money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _fmt(value: Decimal) -> str:
    return f"{value:,.2f}"


def _num(value: Decimal) -> str:
    return f"{value.normalize():,f}"


@dataclass(frozen=True, kw_only=True)
class OwnOrRentInputs:
    """`support_rate` and `utilisation` are percentages (10 is 10 %); `electricity_price` is per kWh
    and `gpu_hour_price` per GPU-hour, both in `currency`, as `hardware_cost` is."""

    hardware_cost: Decimal
    currency: str
    it_kw: Decimal
    pue: Decimal
    electricity_price: Decimal
    support_rate: Decimal
    gpus: int
    gpu_hour_price: Decimal
    utilisation: Decimal = HUNDRED
    months: int = 60
    hours_per_month: Decimal = HOURS_PER_MONTH

    def __post_init__(self) -> None:
        for name in ("hardware_cost", "it_kw", "pue", "electricity_price", "support_rate", "gpu_hour_price",
                     "utilisation", "hours_per_month"):  # fmt: skip
            raw = getattr(self, name)
            try:
                value = raw if isinstance(raw, Decimal) else Decimal(str(raw))
            except (InvalidOperation, ValueError, TypeError):
                raise EconomicsError(name, f"{name} must be a number (got {raw!r}).") from None
            if not value.is_finite():
                raise EconomicsError(name, f"{name} must be a finite number (got {raw!r}).")
            object.__setattr__(self, name, value)
        if self.gpu_hour_price <= 0:
            raise EconomicsError("gpu_hour_price", "The price per GPU-hour must be greater than 0.")
        if isinstance(self.months, bool) or not isinstance(self.months, int) or self.months <= 0:
            raise EconomicsError(
                "months", f"The number of months must be a whole number above 0 (got {self.months!r})."
            )
        if self.months > MONTHS_MAX:
            raise EconomicsError("months", f"At most {MONTHS_MAX} months (50 years) (got {self.months}).")
        if not 0 <= self.support_rate <= HUNDRED:
            raise EconomicsError("support_rate", "The yearly support rate is a percentage from 0 to 100.")
        if not 0 < self.utilisation <= HUNDRED:
            raise EconomicsError("utilisation", "Utilisation is a percentage above 0, at most 100.")
        if self.hardware_cost < 0:
            raise EconomicsError("hardware_cost", "The hardware cost cannot be negative.")
        if self.it_kw < 0:
            raise EconomicsError("it_kw", "The IT load cannot be negative.")
        if self.pue < 1:
            raise EconomicsError("pue", f"PUE is 1 or more (got {self.pue}).")
        if self.electricity_price < 0:
            raise EconomicsError("electricity_price", "The electricity price cannot be negative.")
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int) or self.gpus < 1:
            raise EconomicsError("gpus", f"The cluster needs at least one GPU (got {self.gpus!r}).")
        if self.hours_per_month <= 0:
            raise EconomicsError("hours_per_month", "Hours a month must be greater than 0.")
        if not (isinstance(self.currency, str) and len(self.currency) == 3 and self.currency.isupper()):
            raise EconomicsError(
                "currency", f"currency must be an ISO 4217 code such as 'USD' (got {self.currency!r})."
            )


@dataclass(frozen=True)
class MonthPoint:
    month: int
    own: Decimal
    rent: Decimal


@dataclass(frozen=True)
class OwnOrRent:
    currency: str
    months: int
    hardware: Decimal
    power_per_month: Decimal
    support_per_month: Decimal
    own_running_per_month: Decimal
    gpu_hours_per_month: Decimal
    rent_per_month: Decimal
    points: tuple[MonthPoint, ...]
    break_even_month: int | None
    # The month it would break even past the horizon; None when owning never pays back.
    break_even_beyond: int | None
    verdict: str
    explanation: tuple[str, ...]

    @property
    def own_total(self) -> Decimal:
        return self.points[-1].own

    @property
    def rent_total(self) -> Decimal:
        return self.points[-1].rent


def own_or_rent(inp: OwnOrRentInputs) -> OwnOrRent:
    """Cumulative own and rent costs for months 0..N and the break-even month."""
    cur = inp.currency
    hardware = _money(inp.hardware_cost)
    kwh = inp.it_kw * inp.pue * inp.hours_per_month
    power = _money(kwh * inp.electricity_price)
    support = _money(hardware * inp.support_rate / HUNDRED / 12)
    running = power + support
    gpu_hours = inp.gpus * inp.hours_per_month * inp.utilisation / HUNDRED
    rent = _money(gpu_hours * inp.gpu_hour_price)
    points = [MonthPoint(0, hardware, Decimal("0.00"))]
    for month in range(1, inp.months + 1):
        points.append(MonthPoint(month, hardware + running * month, rent * month))
    break_even = next((p.month for p in points[1:] if p.rent >= p.own), None)
    beyond = None
    if break_even is not None:
        at = points[break_even]
        verdict = (
            f"Owning breaks even in month {break_even}: by then renting has cost {_fmt(at.rent)} {cur} "
            f"against {_fmt(at.own)} {cur} owned."
        )
    elif rent > running:
        # hardware + running × m ≤ rent × m  ⇔  m ≥ hardware / (rent − running)
        beyond = max(1, math.ceil(hardware / (rent - running)))
        verdict = f"Not within {inp.months} months: owning would break even in month {beyond}."
    else:
        verdict = (
            f"Owning never breaks even: renting ({_fmt(rent)} {cur} a month) costs no more than running the "
            f"owned cluster ({_fmt(running)} {cur} a month)."
        )
    explanation = (
        f"Hardware at landed cost, paid in month 0: {_fmt(hardware)} {cur}",
        f"Power a month = {_num(inp.it_kw)} kW IT × {_num(inp.pue)} PUE × {_num(inp.hours_per_month)} h = "
        f"{_num(kwh)} kWh × {_num(inp.electricity_price)} {cur}/kWh = {_fmt(power)} {cur}",
        f"Support a month = {_fmt(hardware)} × {_num(inp.support_rate)} % a year / 12 "
        f"= {_fmt(support)} {cur}",
        f"Owning costs {_fmt(running)} {cur} a month to run",
        f"Renting a month = {inp.gpus:,} GPUs × {_num(inp.hours_per_month)} h × {_num(inp.utilisation)} % "
        f"utilisation = {_num(gpu_hours)} GPU-hours × {_num(inp.gpu_hour_price)} {cur} = {_fmt(rent)} {cur}",
        verdict,
    )
    return OwnOrRent(
        currency=cur,
        months=inp.months,
        hardware=hardware,
        power_per_month=power,
        support_per_month=support,
        own_running_per_month=running,
        gpu_hours_per_month=gpu_hours,
        rent_per_month=rent,
        points=tuple(points),
        break_even_month=break_even,
        break_even_beyond=beyond,
        verdict=verdict,
        explanation=explanation,
    )
