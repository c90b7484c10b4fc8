"""Landed cost at the destination: customs value, duty by HS line, levies on duty, import VAT/GST.

No Django imports. Money is Decimal, worked out in the shipment's currency and rounded to cents
(half up) at the end of each step; freight and fees priced in another currency are converted
first with a dated exchange rate (or refused with `CurrencyMismatch`). Every step is written out
in `explanation` with its numbers and currency.

Conventions:
- `goods_value` is the value of the goods alone (no freight or insurance in it), whatever the
  Incoterm; `freight_cost` is the main carriage to the destination border, whoever pays it.
- Customs value: CIF basis = goods + freight + insurance; FOB basis = goods only. For per-line
  duty, freight and insurance are shared out over the lines in proportion to their value, cent
  remainders going to the largest fractions so the lines add up to the total exactly.
- A destination's valuation rules (`ValuationRules`) change what freight and insurance count in
  the customs value, not what is paid: India counts air freight at most at 20 % of FOB and, when
  the insurance premium is not known (no charged premium, only our estimate), insurance at
  1.125 % of FOB (Customs Valuation Rules 2007, rule 10(2)). `goods_value` stands in for FOB.
- An HS code without a tariff line has an unknown duty rate, never 0 %: the result is marked
  incomplete (`complete=False`) and names the codes; totals leave that duty out.
- The levy on duty (e.g. India's Social Welfare Surcharge, 10 % of duty) is worked out on the
  total duty; import VAT/GST = (customs value + duty + levies) × rate, at one rate for the
  consignment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_DOWN, Decimal
from typing import Literal

from .decimals import CENT, as_decimal, money
from .incoterms import MINIMUM_COVER, minimum_cover, rule

DEFAULT_INSURANCE_RATE = Decimal("0.003")
MAX_RATE = Decimal(5)  # 500 %: catches "10" typed for 10 % while allowing punitive tariffs


def _m(value: Decimal) -> str:
    return f"{money(value):,.2f}"


def _pct(rate: Decimal) -> str:
    """Decimal('0.003') → '0.3 %', Decimal('0.20') → '20 %'."""
    return f"{(rate * 100).normalize():f} %"


def _rate(value: object, field_name: str) -> Decimal:
    rate = as_decimal(value, field_name)
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


def duty_rate_for(
    hs_code: str, tariff_lines: Sequence[TariffLine]
) -> tuple[Decimal | None, TariffLine | None]:
    """The duty rate of the longest tariff prefix matching the HS code; (None, None) without a match:
    a code the tariff does not list has an unknown rate, not a 0 % one."""
    code = _digits(hs_code or "")
    if not code.isdigit():
        raise ValueError(f"HS code {hs_code!r} must be digits (dots and spaces are ignored)")
    matches = [t for t in tariff_lines if code.startswith(t.hs_prefix)]
    if not matches:
        return None, None
    longest = max(len(t.hs_prefix) for t in matches)
    best = [t for t in matches if len(t.hs_prefix) == longest]
    if len({t.duty_rate for t in best}) > 1:
        raise ValueError(f"Tariff has conflicting rates for prefix {best[0].hs_prefix}")
    return best[0].duty_rate, best[0]


@dataclass(frozen=True)
class ValuationRules:
    """What a destination counts of freight and insurance in the customs value (CIF basis).

    `air_freight_cap_of_fob`: air freight counts at most this fraction of FOB (India: 0.20).
    `insurance_of_fob_when_unknown`: without a known premium, insurance counts as this fraction of
    FOB (India: 0.01125). `citation` names the rule in "how it was worked out".
    """

    air_freight_cap_of_fob: Decimal | None = None
    insurance_of_fob_when_unknown: Decimal | None = None
    citation: str = ""

    def __post_init__(self) -> None:
        for name in ("air_freight_cap_of_fob", "insurance_of_fob_when_unknown"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _rate(getattr(self, name), name))


@dataclass(frozen=True)
class ExchangeRate:
    """1 `base` = `rate` `quote` on `valid_on`, from `source` (e.g. the ECB reference rates)."""

    base: str
    quote: str
    rate: Decimal
    valid_on: date
    source: str = ""

    def __post_init__(self) -> None:
        rate = as_decimal(self.rate, f"exchange rate {self.base}/{self.quote}")
        if rate <= 0:
            raise ValueError(f"exchange rate {self.base}/{self.quote} must be greater than 0 (got {rate})")
        object.__setattr__(self, "rate", rate)


class CurrencyMismatch(ValueError):
    """An amount is in another currency than the shipment and no exchange rate converts it."""

    def __init__(self, what: str, from_currency: str, to_currency: str, on: date | None):
        self.from_currency, self.to_currency, self.on = from_currency, to_currency, on
        when = f" on or before {on.isoformat()}" if on else ""
        super().__init__(
            f"{what} is in {from_currency} but the shipment is in {to_currency}, and there is no "
            f"{from_currency}/{to_currency} exchange rate{when}. Add one to the exchange-rate table."
        )


@dataclass(frozen=True)
class Conversion:
    """One amount converted into the shipment's currency, and the rate used."""

    what: str
    amount: Decimal
    from_currency: str
    to_currency: str
    rate: Decimal
    converted: Decimal
    valid_on: date
    source: str


def find_rate(
    rates: Sequence[ExchangeRate], from_currency: str, to_currency: str, on: date | None
) -> tuple[Decimal, ExchangeRate] | None:
    """The latest rate on or before `on` converting `from_currency` into `to_currency`, as a multiplier.

    A rate quoted the other way round (1 EUR = 1.08 USD for USD → EUR) is used inverted; on the same
    date a direct quote wins."""
    candidates = []
    for r in rates:
        if on is not None and r.valid_on > on:
            continue
        if (r.base, r.quote) == (from_currency, to_currency):
            candidates.append((r.valid_on, 1, r.rate, r))
        elif (r.base, r.quote) == (to_currency, from_currency):
            candidates.append((r.valid_on, 0, Decimal(1) / r.rate, r))
    if not candidates:
        return None
    _, _, multiplier, chosen = max(candidates, key=lambda c: (c[0], c[1]))
    return multiplier, chosen


@dataclass(frozen=True, kw_only=True)
class LandedCostInput:
    """What is needed to cost an import; rates as fractions.

    Money is in `currency` (the shipment's) unless said otherwise: `freight_cost` and
    `air_freight_cost` are in `freight_currency`, the fees in `fees_currency` (both default to
    `currency`) and are converted with `exchange_rates` as of `exchange_date`.
    `lines` are (HS code, value) pairs that add up to `goods_value`; `line_refs` may name the
    shipment lines behind an HS code ("lines 3, 5") for messages. `vat_rate` None means the
    destination's import VAT/GST is not known: the estimate is then incomplete.
    `air_freight_cost` is the part of `freight_cost` flown, `air_goods_value` the value of the
    goods flown (default: all of them).
    `insurance_cost` is a premium actually charged; without it insurance is estimated as
    `insurance_rate` × `insured_value` or, without that, × (goods + freight), and under CIP and CIF
    × the seller's minimum cover, 110 % of (goods + freight).
    """

    incoterm: str
    valuation_basis: Literal["CIF", "FOB"]
    goods_value: Decimal
    freight_cost: Decimal
    freight_currency: str | None = None
    air_freight_cost: Decimal = Decimal(0)
    air_goods_value: Decimal | None = None
    insurance_cost: Decimal | None = None
    insured_value: Decimal | None = None
    insurance_rate: Decimal = DEFAULT_INSURANCE_RATE
    lines: Sequence[tuple[str, Decimal]]
    line_refs: Mapping[str, str] = field(default_factory=dict)
    tariff: Sequence[TariffLine]
    vat_rate: Decimal | None
    social_welfare_surcharge_rate: Decimal = Decimal(0)
    brokerage_fee: Decimal = Decimal(0)
    handling_fee: Decimal = Decimal(0)
    fees_currency: str | None = None
    currency: str
    destination: str = ""
    valuation_rules: ValuationRules = field(default_factory=ValuationRules)
    exchange_rates: Sequence[ExchangeRate] = ()
    exchange_date: date | None = None
    # How `freight_cost` was made up (a consolidation's legs and hub handling), for the explanation.
    freight_basis: str = ""

    def __post_init__(self) -> None:
        rule(self.incoterm)  # raises for an unknown code
        if self.valuation_basis not in ("CIF", "FOB"):
            raise ValueError(f"valuation_basis must be 'CIF' or 'FOB' (got {self.valuation_basis!r})")
        for name in ("currency", "freight_currency", "fees_currency"):
            code = getattr(self, name)
            if code is None and name != "currency":
                object.__setattr__(self, name, self.currency)
                continue
            if not (isinstance(code, str) and len(code) == 3 and code.isupper()):
                raise ValueError(f"{name} must be an ISO 4217 code such as 'USD' (got {code!r})")
        amounts = ["goods_value", "freight_cost", "air_freight_cost", "brokerage_fee", "handling_fee"]
        amounts += [
            n for n in ("insurance_cost", "insured_value", "air_goods_value") if getattr(self, n) is not None
        ]
        for name in amounts:
            amount = as_decimal(getattr(self, name), name)
            if amount < 0:
                raise ValueError(f"{name} cannot be negative (got {amount})")
            object.__setattr__(self, name, amount)
        if self.goods_value <= 0:
            raise ValueError(f"goods_value must be greater than 0 (got {self.goods_value})")
        if self.air_freight_cost > self.freight_cost:
            raise ValueError(
                f"air_freight_cost {_m(self.air_freight_cost)} is more than "
                f"freight_cost {_m(self.freight_cost)}"
            )
        if self.air_goods_value is not None and self.air_goods_value > self.goods_value:
            raise ValueError(
                f"air_goods_value {_m(self.air_goods_value)} is more than goods_value {_m(self.goods_value)}"
            )
        for name in ("insurance_rate", "vat_rate", "social_welfare_surcharge_rate"):
            if getattr(self, name) is not None or name != "vat_rate":
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
            value = as_decimal(value, f"lines[{index}] ({hs_code}) value")
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
        object.__setattr__(self, "exchange_rates", tuple(self.exchange_rates))


@dataclass(frozen=True)
class DutyLine:
    """Duty on one HS line: its value, its share of freight and insurance, its rate (None: unknown)."""

    hs_code: str
    value: Decimal
    customs_value: Decimal
    duty_rate: Decimal | None
    duty: Decimal | None
    tariff_line: TariffLine | None


@dataclass
class LandedCost:
    """The landed cost and the arithmetic behind it, one formula per `explanation` line.

    `freight` and `insurance` are what is paid; `customs_freight` and `customs_insurance` what the
    destination's valuation rules count of them in `customs_value`. When `complete` is False some
    duty is unknown (`unknown_duty` names the HS codes) and duty, levies, VAT and the total leave it out.
    """

    currency: str
    goods_value: Decimal
    freight: Decimal
    insurance: Decimal
    insurance_estimated: bool
    insurance_basis: str
    customs_freight: Decimal
    customs_insurance: Decimal
    customs_value: Decimal
    duty_lines: list[DutyLine]
    duty: Decimal
    levies: Decimal
    vat: Decimal
    brokerage: Decimal
    handling: Decimal
    total_landed: Decimal
    who_pays_duty: Literal["seller", "buyer"]
    complete: bool = True
    unknown_duty: list[str] = field(default_factory=list)
    incomplete_reasons: list[str] = field(default_factory=list)
    conversions: list[Conversion] = field(default_factory=list)
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


def _rate_text(rate: Decimal) -> str:
    return f"{rate.normalize():f}" if rate == rate.quantize(Decimal("0.000001")) else f"{rate:.6f}"


def landed_cost(inp: LandedCostInput) -> LandedCost:
    """Work out duty, levies, import VAT/GST and the total landed cost of a consignment.

    Raises CurrencyMismatch when freight or fees are in another currency and no rate converts them.
    """
    cur = inp.currency
    explain: list[str] = []
    conversions: list[Conversion] = []

    def convert(amount: Decimal, from_currency: str, what: str) -> Decimal:
        if from_currency == cur:
            return money(amount)
        found = find_rate(inp.exchange_rates, from_currency, cur, inp.exchange_date)
        if found is None:
            raise CurrencyMismatch(what, from_currency, cur, inp.exchange_date)
        multiplier, used = found
        converted = money(amount * multiplier)
        conversions.append(
            Conversion(
                what, money(amount), from_currency, cur, multiplier, converted, used.valid_on, used.source
            )
        )
        quoted = f"1 {used.base} = {_rate_text(used.rate)} {used.quote}"
        inverted = " (inverted)" if used.base == cur else ""
        source = f", {used.source}" if used.source else ""
        when = f", the latest on or before {inp.exchange_date.isoformat()}" if inp.exchange_date else ""
        explain.append(
            f"{what.capitalize()} {_m(amount)} {from_currency} → {cur} at {quoted}{inverted} "
            f"(rate of {used.valid_on.isoformat()}{source}{when}) = {_m(converted)} {cur}"
        )
        return converted

    goods = money(inp.goods_value)
    if inp.freight_basis:
        explain.append(f"Freight = {inp.freight_basis}")
    freight = convert(inp.freight_cost, inp.freight_currency, "freight")
    air_freight = Decimal(0)
    if inp.air_freight_cost:
        air_freight = (
            freight
            if inp.air_freight_cost == inp.freight_cost
            else convert(inp.air_freight_cost, inp.freight_currency, "air freight")
        )
    brokerage = convert(inp.brokerage_fee, inp.fees_currency, "brokerage fee")
    handling = convert(inp.handling_fee, inp.fees_currency, "handling fee")

    if inp.insurance_cost is not None:
        insurance = money(inp.insurance_cost)
        insurance_basis = "charged premium"
        explain.append(f"Insurance (charged premium) = {_m(insurance)} {cur}")
    elif inp.insured_value is not None:
        insurance = money(inp.insurance_rate * inp.insured_value)
        insurance_basis = "estimated"
        explain.append(
            f"Insurance (estimated) = {_pct(inp.insurance_rate)} × {_m(inp.insured_value)} "
            f"insured value = {_m(insurance)} {cur}"
        )
    elif rule(inp.incoterm).insurance_on_invoice:
        # CIP and CIF: the seller insures at least 110 % of the price (A5), and the premium is
        # charged on that cover, not on the price.
        insured = minimum_cover(goods + freight)
        insurance = money(inp.insurance_rate * insured)
        insurance_basis = "estimated"
        explain.append(
            f"Insurance (estimated) = {_pct(inp.insurance_rate)} × {_m(insured)} insured value "
            f"(the {inp.incoterm} minimum cover: {_pct(MINIMUM_COVER)} × ({_m(goods)} goods + "
            f"{_m(freight)} freight)) = {_m(insurance)} {cur}"
        )
    else:
        insurance = money(inp.insurance_rate * (goods + freight))
        insurance_basis = "estimated"
        explain.append(
            f"Insurance (estimated) = {_pct(inp.insurance_rate)} × "
            f"({_m(goods)} goods + {_m(freight)} freight) = {_m(insurance)} {cur}"
        )

    rules = inp.valuation_rules
    cite = f" ({rules.citation})" if rules.citation else ""
    customs_freight, customs_insurance = freight, insurance
    if inp.valuation_basis == "CIF":
        cap = rules.air_freight_cap_of_fob
        if cap is not None and air_freight:
            air_fob = money(inp.air_goods_value if inp.air_goods_value is not None else inp.goods_value)
            limit = money(cap * air_fob)
            counted = min(air_freight, limit)
            customs_freight = freight - air_freight + counted
            other = freight - air_freight
            explain.append(
                f"Air freight in the customs value = the lower of {_m(air_freight)} air freight and "
                f"{_pct(cap)} × {_m(air_fob)} FOB = {_m(limit)}: {_m(counted)} {cur}{cite}"
                + (f"; with {_m(other)} other freight, {_m(customs_freight)} {cur}" if other else "")
            )
        if inp.insurance_cost is None and rules.insurance_of_fob_when_unknown is not None:
            customs_insurance = money(rules.insurance_of_fob_when_unknown * goods)
            explain.append(
                f"Insurance in the customs value (premium not known) = "
                f"{_pct(rules.insurance_of_fob_when_unknown)} × {_m(goods)} FOB "
                f"= {_m(customs_insurance)} {cur}{cite}; a charged premium would count as charged"
            )
        customs_value = goods + customs_freight + customs_insurance
        explain.append(
            f"Customs value (CIF) = {_m(goods)} goods + {_m(customs_freight)} freight + "
            f"{_m(customs_insurance)} insurance = {_m(customs_value)} {cur}"
        )
        shares = _apportion(customs_freight + customs_insurance, [v for _, v in inp.lines])
    else:
        customs_freight, customs_insurance = Decimal(0), Decimal(0)
        customs_value = goods
        explain.append(f"Customs value (FOB) = {_m(goods)} goods {cur} (freight and insurance not included)")
        shares = [Decimal(0)] * len(inp.lines)

    duty_lines = []
    unknown: list[str] = []
    for (hs_code, value), share in zip(inp.lines, shares, strict=True):
        rate, tariff_line = duty_rate_for(hs_code, inp.tariff)
        line_cv = money(value) + share
        basis = f"{_m(value)} goods + {_m(share)} freight and insurance" if share else f"{_m(value)} goods"
        ref = inp.line_refs.get(hs_code, "")
        named = f"HS {hs_code}" + (f" ({ref})" if ref else "")
        if rate is None:
            duty_lines.append(DutyLine(hs_code, value, line_cv, None, None, None))
            unknown.append(named)
            tariff_name = f"{inp.destination}'s tariff" if inp.destination else "the destination's tariff"
            explain.append(
                f"Duty on {named} = {_m(line_cv)} {cur} ({basis}) × unknown rate: {tariff_name} has no "
                f"line for this code, so the duty is not known and is left out of the totals"
            )
            continue
        duty = money(line_cv * rate)
        duty_lines.append(DutyLine(hs_code, value, line_cv, rate, duty, tariff_line))
        note = f", {tariff_line.note}" if tariff_line.note else ""
        explain.append(
            f"Duty on {named} = {_m(line_cv)} ({basis}) × {_pct(rate)} "
            f"(tariff {tariff_line.hs_prefix}{note}) = {_m(duty)} {cur}"
        )
    known = [d.duty for d in duty_lines if d.duty is not None]
    duty_total = sum(known, Decimal(0))
    if len(known) > 1:
        explain.append(f"Duty total = {' + '.join(_m(d) for d in known)} = {_m(duty_total)} {cur}")

    levies = money(duty_total * inp.social_welfare_surcharge_rate)
    if inp.social_welfare_surcharge_rate:
        explain.append(
            f"Levy on duty = {_pct(inp.social_welfare_surcharge_rate)} × {_m(duty_total)} duty "
            f"= {_m(levies)} {cur}"
        )

    vat_base = customs_value + duty_total + levies
    reasons: list[str] = []
    if unknown:
        reasons.append(
            f"No duty rate for {', '.join(unknown)}: duty, levies and VAT/GST on that duty are missing, "
            f"so the total is too low"
        )
    if inp.vat_rate is None:
        vat = Decimal("0.00")
        where = inp.destination or "the destination"
        reasons.append(f"No import VAT/GST rate for {where}: VAT/GST is missing, so the total is too low")
        explain.append(f"Import VAT/GST = unknown rate for {where} (no tax data): left out of the totals")
    else:
        vat = money(vat_base * inp.vat_rate)
        explain.append(
            f"Import VAT/GST = {_pct(inp.vat_rate)} × ({_m(customs_value)} customs value + "
            f"{_m(duty_total)} duty + {_m(levies)} levies = {_m(vat_base)}) = {_m(vat)} {cur}"
        )

    total = goods + freight + insurance + duty_total + levies + vat + brokerage + handling
    explain.append(
        f"Total landed = {_m(goods)} goods + {_m(freight)} freight + {_m(insurance)} insurance + "
        f"{_m(duty_total)} duty + {_m(levies)} levies + {_m(vat)} VAT/GST + {_m(brokerage)} brokerage + "
        f"{_m(handling)} handling = {_m(total)} {cur}"
    )
    for reason in reasons:
        explain.append(f"Estimate incomplete: {reason}")
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
        insurance_basis=insurance_basis,
        customs_freight=customs_freight,
        customs_insurance=customs_insurance,
        customs_value=customs_value,
        duty_lines=duty_lines,
        duty=duty_total,
        levies=levies,
        vat=vat,
        brokerage=brokerage,
        handling=handling,
        total_landed=total,
        who_pays_duty=incoterm.duties_paid_by,
        complete=not reasons,
        unknown_duty=unknown,
        incomplete_reasons=reasons,
        conversions=conversions,
        explanation=explain,
    )
