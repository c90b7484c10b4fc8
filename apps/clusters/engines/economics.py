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
- Import VAT/GST (`import_tax`, part of the landed hardware cost): a buyer registered for it in
  the site's country who uses the cluster in its taxable business claims it back as input tax
  (`INPUT_TAX_RULES` names the rule and its source). Then it is a timing cost, not a sunk cost:
  paid in month 0 with the hardware, credited in `input_tax_credit_month` (set against the
  buyer's output tax in that month's return), and support is a percentage of the hardware
  without it. Not claimed, it stays in the hardware's cost for good. Customs duty and levies on
  duty (India's Social Welfare Surcharge) are never credited.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
HOURS_PER_MONTH = Decimal("730")  # 8,760 hours a year / 12
MONTHS_MAX = 600
HUNDRED = Decimal("100")


@dataclass(frozen=True)
class InputTaxRule:
    """Who may claim import VAT/GST back in a country, and where the rule is written."""

    tax: str  # what the country calls it
    registration: str  # the registration scheme the buyer must hold there (accounts' Scheme value)
    registration_name: str
    rule: str
    source: str


INPUT_TAX_RULES: dict[str, InputTaxRule] = {
    "IN": InputTaxRule(
        tax="IGST",
        registration="gstin",
        registration_name="GSTIN",
        rule="IGST paid on imported goods is input tax: a GST-registered importer that uses the goods in "
        "the course or furtherance of its business takes it as credit on the bill of entry and sets it "
        "against its output GST. Basic customs duty and the Social Welfare Surcharge are not credited; "
        "no credit where depreciation is claimed on the tax (CGST Act s. 16(3)).",
        source="Customs Tariff Act 1975 s. 3(7) with IGST Act 2017 s. 5(1) proviso (IGST on imports); "
        "CGST Act 2017 ss. 2(62), 16(1)–(2) and CGST Rules 2017 r. 36(1)(d) (the bill of entry as the "
        "tax-paying document); s. 17(5) (blocked credits: not IT hardware for business use).",
    ),
}
DEFAULT_INPUT_TAX_RULE = InputTaxRule(
    tax="import VAT",
    registration="vat",
    registration_name="VAT registration",
    rule="Import VAT paid by a VAT-registered business on goods used for its taxable supplies is "
    "deductible input tax.",
    source="EU VAT Directive 2006/112/EC art. 168(e); UK VAT Act 1994 ss. 24–26; as a rule in VAT/GST "
    "systems (check the country's own law).",
)


def input_tax_rule(country: str) -> InputTaxRule:
    return INPUT_TAX_RULES.get(country, DEFAULT_INPUT_TAX_RULE)


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
    # Import VAT/GST inside `hardware_cost`, and the month it is credited back (None: not claimed).
    import_tax: Decimal = Decimal("0")
    input_tax_credit_month: int | None = None
    import_tax_name: str = "import VAT/GST"

    def __post_init__(self) -> None:
        for name in ("hardware_cost", "it_kw", "pue", "electricity_price", "support_rate", "gpu_hour_price",
                     "utilisation", "hours_per_month", "import_tax"):  # fmt: skip
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
        if not 0 <= self.import_tax <= self.hardware_cost:
            raise EconomicsError(
                "import_tax", "The import VAT/GST is part of the hardware's cost: from 0 to that cost."
            )
        month = self.input_tax_credit_month
        if month is not None and (
            isinstance(month, bool) or not isinstance(month, int) or not 0 <= month <= MONTHS_MAX
        ):
            raise EconomicsError(
                "input_tax_credit_month",
                f"The month the input tax is credited is a whole number from 0 to {MONTHS_MAX} "
                f"(got {month!r}).",
            )
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
    # The import VAT/GST credited back and when (0 and None when not claimed).
    input_tax_credit: Decimal = Decimal("0.00")
    input_tax_credit_month: int | None = None

    @property
    def own_total(self) -> Decimal:
        return self.points[-1].own

    @property
    def rent_total(self) -> Decimal:
        return self.points[-1].rent


def _break_even_after(hardware: Decimal, credit: Decimal, credit_month: int | None, margin: Decimal) -> int:
    """The first month m ≥ 1 with hardware − credit (once m ≥ the credit month) + running × m ≤ rent × m,
    where `margin` = rent − running > 0: m ≥ (hardware − credit) ÷ margin."""
    before = max(1, math.ceil(hardware / margin))
    if not credit or credit_month is None or before < credit_month:
        return before
    return max(1, credit_month, math.ceil((hardware - credit) / margin))


def own_or_rent(inp: OwnOrRentInputs) -> OwnOrRent:
    """Cumulative own and rent costs for months 0..N and the break-even month."""
    cur = inp.currency
    hardware = _money(inp.hardware_cost)
    credit_month = inp.input_tax_credit_month
    credit = _money(inp.import_tax) if credit_month is not None else Decimal("0.00")
    # A credited tax is no part of what the equipment cost: support is priced on the rest.
    support_base = hardware - credit
    kwh = inp.it_kw * inp.pue * inp.hours_per_month
    power = _money(kwh * inp.electricity_price)
    support = _money(support_base * inp.support_rate / HUNDRED / 12)
    running = power + support
    gpu_hours = inp.gpus * inp.hours_per_month * inp.utilisation / HUNDRED
    rent = _money(gpu_hours * inp.gpu_hour_price)

    def credited(month: int) -> Decimal:
        return credit if credit_month is not None and month >= credit_month else Decimal("0.00")

    points = [MonthPoint(0, hardware - credited(0), Decimal("0.00"))]
    for month in range(1, inp.months + 1):
        points.append(MonthPoint(month, hardware - credited(month) + running * month, rent * month))
    break_even = next((p.month for p in points[1:] if p.rent >= p.own), None)
    beyond = None
    if break_even is not None:
        at = points[break_even]
        verdict = (
            f"Owning breaks even in month {break_even}: by then renting has cost {_fmt(at.rent)} {cur} "
            f"against {_fmt(at.own)} {cur} owned."
        )
    elif rent > running:
        beyond = _break_even_after(hardware, credit, credit_month, rent - running)
        verdict = f"Not within {inp.months} months: owning would break even in month {beyond}."
    else:
        verdict = (
            f"Owning never breaks even: renting ({_fmt(rent)} {cur} a month) costs no more than running the "
            f"owned cluster ({_fmt(running)} {cur} a month)."
        )
    tax = inp.import_tax_name
    if credit_month is not None:
        tax_line = (
            f"{tax} of {_fmt(credit)} {cur}, paid with the hardware in month 0, is credited back in month "
            f"{credit_month} (input-tax credit): a timing cost, not a sunk cost"
        )
    elif inp.import_tax:
        tax_line = (
            f"{tax} of {_fmt(_money(inp.import_tax))} {cur} is not claimed: it stays in the hardware's cost"
        )
    else:
        tax_line = ""
    explanation = (
        f"Hardware at landed cost, paid in month 0: {_fmt(hardware)} {cur}",
        *((tax_line,) if tax_line else ()),
        f"Power a month = {_num(inp.it_kw)} kW IT × {_num(inp.pue)} PUE × {_num(inp.hours_per_month)} h = "
        f"{_num(kwh)} kWh × {_num(inp.electricity_price)} {cur}/kWh = {_fmt(power)} {cur}",
        f"Support a month = {_fmt(support_base)}"
        + (f" (the hardware without the credited {tax})" if credit else "")
        + f" × {_num(inp.support_rate)} % a year / 12 = {_fmt(support)} {cur}",
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
        input_tax_credit=credit,
        input_tax_credit_month=credit_month,
    )
