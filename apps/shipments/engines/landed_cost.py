"""Landed cost at the destination: customs value, duty by HS line, levies on duty, import VAT/GST.

No Django imports. Money is Decimal in one currency, rounded to cents (half up) at the end of
each step, and every step is written out in `explanation` with its numbers.

Conventions:
- `goods_value` is the value of the goods alone (no freight or insurance in it), whatever the
  Incoterm; `freight_cost` is the main carriage to the destination border, whoever pays it.
- Customs value: CIF basis = goods + freight + insurance; FOB basis = goods only. For per-line
  duty, freight and insurance are shared out over the lines in proportion to their value, cent
  remainders going to the largest fractions so the lines add up to the total exactly.
- The levy on duty (e.g. India's Social Welfare Surcharge, 10 % of duty) is worked out on the
  total duty; import VAT/GST = (customs value + duty + levies) × rate, at one rate for the
  consignment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Literal

from .incoterms import rule

CENT = Decimal("0.01")
DEFAULT_INSURANCE_RATE = Decimal("0.003")
MAX_RATE = Decimal(5)  # 500 %: catches "10" typed for 10 % while allowing punitive tariffs


def _decimal(value: object, field_name: str) -> Decimal:
    if isinstance(value, bool | float):
        raise TypeError(f"{field_name} must be a Decimal, not {type(value).__name__} ({value!r})")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, int | str):
        try:
            result = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"{field_name} is not a number: {value!r}") from None
    else:
        raise TypeError(f"{field_name} must be a Decimal, not {type(value).__name__}")
    if not result.is_finite():
        raise ValueError(f"{field_name} must be a finite number, not {value!r}")
    return result


def _money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _m(value: Decimal) -> str:
    return f"{_money(value):,.2f}"


def _pct(rate: Decimal) -> str:
    """Decimal('0.003') → '0.3 %', Decimal('0.20') → '20 %'."""
    return f"{(rate * 100).normalize():f} %"


def _rate(value: object, field_name: str) -> Decimal:
    rate = _decimal(value, field_name)
    if not Decimal(0) <= rate <= MAX_RATE:
        raise ValueError(f"{field_name} is a fraction (0.10 for 10 %) between 0 and {MAX_RATE}; got {rate}")
    return rate


def _digits(hs_code: str) -> str:
    return "".join(ch for ch in hs_code if ch not in " .-")


@dataclass(frozen=True)
class TariffLine:
    """A duty rate for HS codes starting with `hs_prefix` (2 to 10 digits) at one destination."""

    hs_prefix: str
    duty_rate: Decimal
    note: str = ""

    def __post_init__(self) -> None:
        prefix = _digits(self.hs_prefix or "")
        if not (prefix.isdigit() and 2 <= len(prefix) <= 10):
            raise ValueError(f"Tariff line hs_prefix must be 2 to 10 digits (got {self.hs_prefix!r})")
        object.__setattr__(self, "hs_prefix", prefix)
        object.__setattr__(self, "duty_rate", _rate(self.duty_rate, f"Tariff line {prefix}: duty_rate"))


def duty_rate_for(hs_code: str, tariff_lines: Sequence[TariffLine]) -> tuple[Decimal, TariffLine | None]:
    """The duty rate of the longest tariff prefix matching the HS code; (0, None) without a match."""
    code = _digits(hs_code or "")
    if not code.isdigit():
        raise ValueError(f"HS code {hs_code!r} must be digits (dots and spaces are ignored)")
    matches = [t for t in tariff_lines if code.startswith(t.hs_prefix)]
    if not matches:
        return Decimal(0), None
    longest = max(len(t.hs_prefix) for t in matches)
    best = [t for t in matches if len(t.hs_prefix) == longest]
    if len({t.duty_rate for t in best}) > 1:
        raise ValueError(f"Tariff has conflicting rates for prefix {best[0].hs_prefix}")
    return best[0].duty_rate, best[0]


@dataclass(frozen=True, kw_only=True)
class LandedCostInput:
    """What is needed to cost an import; all money in `currency`, rates as fractions.

    `lines` are (HS code, value) pairs that add up to `goods_value`. Without `insurance_cost`
    insurance is estimated as `insurance_rate` × (goods + freight).
    """

    incoterm: str
    valuation_basis: Literal["CIF", "FOB"]
    goods_value: Decimal
    freight_cost: Decimal
    insurance_cost: Decimal | None = None
    insurance_rate: Decimal = DEFAULT_INSURANCE_RATE
    lines: Sequence[tuple[str, Decimal]]
    tariff: Sequence[TariffLine]
    vat_rate: Decimal
    social_welfare_surcharge_rate: Decimal = Decimal(0)
    brokerage_fee: Decimal = Decimal(0)
    handling_fee: Decimal = Decimal(0)
    currency: str

    def __post_init__(self) -> None:
        rule(self.incoterm)  # raises for an unknown code
        if self.valuation_basis not in ("CIF", "FOB"):
            raise ValueError(f"valuation_basis must be 'CIF' or 'FOB' (got {self.valuation_basis!r})")
        if not (isinstance(self.currency, str) and len(self.currency) == 3 and self.currency.isupper()):
            raise ValueError(f"currency must be an ISO 4217 code such as 'USD' (got {self.currency!r})")
        amounts = ["goods_value", "freight_cost", "brokerage_fee", "handling_fee"]
        if self.insurance_cost is not None:
            amounts.append("insurance_cost")
        for name in amounts:
            amount = _decimal(getattr(self, name), name)
            if amount < 0:
                raise ValueError(f"{name} cannot be negative (got {amount})")
            object.__setattr__(self, name, amount)
        if self.goods_value <= 0:
            raise ValueError(f"goods_value must be greater than 0 (got {self.goods_value})")
        for name in ("insurance_rate", "vat_rate", "social_welfare_surcharge_rate"):
            object.__setattr__(self, name, _rate(getattr(self, name), name))
        lines = []
        for index, line in enumerate(self.lines):
            try:
                hs_code, value = line
            except (TypeError, ValueError):
                raise ValueError(f"lines[{index}] must be a (hs_code, value) pair (got {line!r})") from None
            if not (isinstance(hs_code, str) and _digits(hs_code).isdigit()):
                raise ValueError(
                    f"lines[{index}]: HS code {hs_code!r} must be digits (dots and spaces are ignored)"
                )
            value = _decimal(value, f"lines[{index}] ({hs_code}) value")
            if value < 0:
                raise ValueError(f"lines[{index}] ({hs_code}) value cannot be negative (got {value})")
            lines.append((hs_code, value))
        if not lines:
            raise ValueError("lines: give at least one (HS code, value) line")
        total = sum((v for _, v in lines), Decimal(0))
        if total != self.goods_value:
            raise ValueError(f"lines add up to {_m(total)} but goods_value is {_m(self.goods_value)}")
        object.__setattr__(self, "lines", tuple(lines))
        object.__setattr__(self, "tariff", tuple(self.tariff))


@dataclass(frozen=True)
class DutyLine:
    """Duty on one HS line: its value, its share of freight and insurance, its rate."""

    hs_code: str
    value: Decimal
    customs_value: Decimal
    duty_rate: Decimal
    duty: Decimal
    tariff_line: TariffLine | None


@dataclass
class LandedCost:
    """The landed cost and the arithmetic behind it, one formula per `explanation` line."""

    currency: str
    goods_value: Decimal
    freight: Decimal
    insurance: Decimal
    insurance_estimated: bool
    customs_value: Decimal
    duty_lines: list[DutyLine]
    duty: Decimal
    levies: Decimal
    vat: Decimal
    brokerage: Decimal
    handling: Decimal
    total_landed: Decimal
    who_pays_duty: Literal["seller", "buyer"]
    explanation: list[str] = field(default_factory=list)


def _apportion(amount: Decimal, weights: Sequence[Decimal]) -> list[Decimal]:
    """Share `amount` (in cents) in proportion to `weights`; largest remainders get the odd cents."""
    total = sum(weights, Decimal(0))
    raw = [amount * w / total for w in weights]
    shares = [r.quantize(CENT, rounding=ROUND_DOWN) for r in raw]
    left = int((amount - sum(shares, Decimal(0))) / CENT)
    order = sorted(range(len(raw)), key=lambda i: raw[i] - shares[i], reverse=True)
    for i in order[:left]:
        shares[i] += CENT
    return shares


def landed_cost(inp: LandedCostInput) -> LandedCost:
    """Work out duty, levies, import VAT/GST and the total landed cost of a consignment."""
    cur = inp.currency
    explain: list[str] = []
    goods, freight = _money(inp.goods_value), _money(inp.freight_cost)

    if inp.insurance_cost is None:
        insurance = _money(inp.insurance_rate * (goods + freight))
        explain.append(
            f"Insurance (estimated) = {_pct(inp.insurance_rate)} × "
            f"({_m(goods)} goods + {_m(freight)} freight) = {_m(insurance)} {cur}"
        )
    else:
        insurance = _money(inp.insurance_cost)
        explain.append(f"Insurance (quoted) = {_m(insurance)} {cur}")

    if inp.valuation_basis == "CIF":
        customs_value = goods + freight + insurance
        explain.append(
            f"Customs value (CIF) = {_m(goods)} goods + {_m(freight)} freight + {_m(insurance)} insurance "
            f"= {_m(customs_value)} {cur}"
        )
        shares = _apportion(freight + insurance, [v for _, v in inp.lines])
    else:
        customs_value = goods
        explain.append(f"Customs value (FOB) = {_m(goods)} goods (freight and insurance not included) {cur}")
        shares = [Decimal(0)] * len(inp.lines)

    duty_lines = []
    for (hs_code, value), share in zip(inp.lines, shares, strict=True):
        rate, tariff_line = duty_rate_for(hs_code, inp.tariff)
        line_cv = _money(value) + share
        duty = _money(line_cv * rate)
        duty_lines.append(DutyLine(hs_code, value, line_cv, rate, duty, tariff_line))
        basis = f"{_m(value)} goods + {_m(share)} freight and insurance" if share else f"{_m(value)} goods"
        source = f"tariff {tariff_line.hs_prefix}" if tariff_line else "no tariff line, so 0 %"
        note = f", {tariff_line.note}" if tariff_line and tariff_line.note else ""
        explain.append(
            f"Duty on HS {hs_code} = {_m(line_cv)} ({basis}) × {_pct(rate)} ({source}{note}) "
            f"= {_m(duty)} {cur}"
        )
    duty_total = sum((d.duty for d in duty_lines), Decimal(0))
    if len(duty_lines) > 1:
        explain.append(f"Duty total = {' + '.join(_m(d.duty) for d in duty_lines)} = {_m(duty_total)} {cur}")

    levies = _money(duty_total * inp.social_welfare_surcharge_rate)
    if inp.social_welfare_surcharge_rate:
        explain.append(
            f"Levy on duty = {_pct(inp.social_welfare_surcharge_rate)} × {_m(duty_total)} duty "
            f"= {_m(levies)} {cur}"
        )

    vat_base = customs_value + duty_total + levies
    vat = _money(vat_base * inp.vat_rate)
    explain.append(
        f"Import VAT/GST = {_pct(inp.vat_rate)} × ({_m(customs_value)} customs value + {_m(duty_total)} duty "
        f"+ {_m(levies)} levies = {_m(vat_base)}) = {_m(vat)} {cur}"
    )

    brokerage, handling = _money(inp.brokerage_fee), _money(inp.handling_fee)
    total = goods + freight + insurance + duty_total + levies + vat + brokerage + handling
    explain.append(
        f"Total landed = {_m(goods)} goods + {_m(freight)} freight + {_m(insurance)} insurance + "
        f"{_m(duty_total)} duty + {_m(levies)} levies + {_m(vat)} VAT/GST + {_m(brokerage)} brokerage + "
        f"{_m(handling)} handling = {_m(total)} {cur}"
    )
    incoterm = rule(inp.incoterm)
    explain.append(
        f"Duty and import taxes are paid by the {incoterm.duties_paid_by} "
        f"under {incoterm.code} ({incoterm.name})"
    )
    return LandedCost(
        currency=cur,
        goods_value=goods,
        freight=freight,
        insurance=insurance,
        insurance_estimated=inp.insurance_cost is None,
        customs_value=customs_value,
        duty_lines=duty_lines,
        duty=duty_total,
        levies=levies,
        vat=vat,
        brokerage=brokerage,
        handling=handling,
        total_landed=total,
        who_pays_duty=incoterm.duties_paid_by,
        explanation=explain,
    )
