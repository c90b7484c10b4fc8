"""Own or rent: the Django side of `engines/economics.py`.

The hardware is taken at its landed cost in the site's country, worked out by the shipments app's
landed-cost engine as the shipments app does for a shipment (`shipments.selectors.landed_cost`):
the BOM's lines grouped by HS code with their value, the destination's tariff lines, import
VAT/GST (India: IGST), the levy on duty (India: Social Welfare Surcharge), brokerage and handling,
its valuation rules, and the freight of the shipment plan where every proposal is priced (else no
freight, and the answer says so). Power is the latest sizing's IT load at the design's PUE and
electricity price, converted into the hardware's currency with the dated exchange rates.

Input-tax credit: the buyer (the design's customer) can claim the import VAT/GST back where it
holds the country's VAT/GST registration (India: a GSTIN; `economics.INPUT_TAX_RULES` names the
rule and its source). Then the comparison credits it by default, in `credit_month` (1: the next
month's return); the planner may leave it out, and claiming it for a buyer that cannot is refused
naming the field.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone

from apps.accounts.models import Registration
from apps.shipments.engines import landed_cost as landed_cost_engine
from apps.shipments.models import DestinationTax, ExchangeRate, TariffRate

from ..engines import economics
from ..models import BillOfMaterials, ClusterDesign
from .boms import bom_current
from .designs import run_result
from .shipment_plan import plan_for

DEFAULT_SUPPORT_RATE = Decimal("10")
DEFAULT_MONTHS = 60
DEFAULT_UTILISATION = Decimal("100")
DEFAULT_CREDIT_MONTH = 1


@dataclass(frozen=True)
class InputTaxCredit:
    """Whether the buyer can claim the import VAT/GST back, whether the comparison does, and why."""

    claimable: bool
    claimed: bool
    month: int | None
    reason: str
    rule: economics.InputTaxRule


@dataclass(frozen=True)
class OwnOrRentAnswer:
    result: economics.OwnOrRent
    landed: landed_cost_engine.LandedCost
    bom: BillOfMaterials
    it_kw: Decimal
    electricity_price: Decimal
    notes: tuple[str, ...]
    input_tax: InputTaxCredit | None = None


def input_tax_claimable(design: ClusterDesign) -> tuple[bool, str, economics.InputTaxRule]:
    """Whether the design's buyer (its customer) can claim import VAT/GST in the site's country:
    it holds the registration the rule asks for there (India: a GSTIN), valid today."""
    country = design.site.country
    rule = economics.input_tax_rule(country)
    buyer = design.customer
    today = timezone.localdate()
    registered = (
        Registration.objects.filter(organisation_id=buyer.pk, scheme=rule.registration, country=country)
        .filter(Q(valid_until__isnull=True) | Q(valid_until__gte=today))
        .exists()
    )
    if registered:
        return (
            True,
            f"{buyer} holds a {rule.registration_name} in {country}: it can claim the {rule.tax}.",
            rule,
        )
    return (
        False,
        f"{buyer} holds no {rule.registration_name} in {country}: the {rule.tax} is a cost it "
        "cannot claim back.",
        rule,
    )


def _exchange_rates(currency: str, foreign: set[str], on: dt.date) -> list[landed_cost_engine.ExchangeRate]:
    if not foreign:
        return []
    rows = ExchangeRate.objects.filter(
        Q(base=currency, quote__in=foreign) | Q(base__in=foreign, quote=currency), valid_on__lte=on
    )
    return [landed_cost_engine.ExchangeRate(r.base, r.quote, r.rate, r.valid_on, r.source) for r in rows]


def hardware_landed_cost(
    bom: BillOfMaterials, *, today: dt.date | None = None
) -> tuple[landed_cost_engine.LandedCost, list[str]]:
    """The BOM's hardware landed in the site's country, and notes on what it leaves out."""
    design = bom.design
    country = design.site.country
    on = today or timezone.localdate()
    notes: list[str] = []
    by_code: dict[str, Decimal] = {}
    refs: dict[str, list[str]] = {}
    currencies = set()
    for line in bom.lines.filter(quantity__gt=0).select_related("part").order_by("id"):
        part = line.part
        currencies.add(part.currency)
        by_code[part.hs_code] = by_code.get(part.hs_code, Decimal("0")) + part.unit_value * line.quantity
        refs.setdefault(part.hs_code, []).append(part.part_number)
    if not by_code:
        raise ValidationError(
            {"bom": f"Version {bom.version} has no lines with a quantity: nothing to cost."}
        )
    if len(currencies) > 1:
        raise ValidationError(
            {
                "bom": f"Version {bom.version} prices parts in {', '.join(sorted(currencies))}: "
                "give them one currency."
            }
        )
    currency = currencies.pop()
    goods = sum(by_code.values(), Decimal("0"))
    if goods <= 0:
        raise ValidationError({"bom": f"Version {bom.version}'s parts have no value in the catalogue."})
    freight_cost = air_cost = Decimal("0")
    freight_currency = currency
    try:
        plan = plan_for(bom, today=on)
    except ValidationError as error:
        plan = None
        notes.append(f"Freight not counted: the shipment plan was refused ({'; '.join(error.messages)}).")
    if plan is not None:
        if plan.unpriced:
            notes.append(
                f"Freight not counted: {len(plan.unpriced)} of the shipment plan's proposals "
                f"{'has' if len(plan.unpriced) == 1 else 'have'} no rate "
                f"({', '.join(plan.unpriced)}), so the landed cost is goods, insurance, duty and taxes only."
            )
        elif len(plan.freight_by_currency) == 1:
            freight_currency, freight_cost = next(iter(plan.freight_by_currency.items()))
            air_cost = sum((p.cost for p in plan.proposals if p.mode == "air"), Decimal("0"))
            notes.append(f"Freight from the shipment plan: {freight_cost:,.2f} {freight_currency}.")
        elif plan.freight_by_currency:
            notes.append("Freight not counted: the plan's rates are in several currencies.")
    tax = DestinationTax.objects.filter(country=country).first()
    if tax is None:
        notes.append(f"No import tax data for {country}: VAT/GST and fees are not known.")
    tariff = [
        landed_cost_engine.TariffLine(hs_prefix=t.hs_prefix, duty_rate=t.duty_rate, note=t.note)
        for t in TariffRate.objects.filter(destination_country=country)
    ]
    fees_currency = tax.currency if tax else currency
    rates = _exchange_rates(currency, {freight_currency, fees_currency} - {currency}, on)
    rules = landed_cost_engine.ValuationRules()
    if tax:
        rules = landed_cost_engine.ValuationRules(
            air_freight_cap_of_fob=tax.air_freight_cap_of_fob,
            insurance_of_fob_when_unknown=tax.insurance_of_fob_when_unknown,
            citation=tax.valuation_rules_citation,
        )
    lines = sorted(by_code.items())
    try:
        landed = landed_cost_engine.landed_cost(
            landed_cost_engine.LandedCostInput(
                incoterm="DAP",
                valuation_basis=tax.valuation_basis if tax else "CIF",
                goods_value=goods,
                freight_cost=freight_cost,
                freight_currency=freight_currency,
                air_freight_cost=air_cost,
                lines=lines,
                line_refs={code: ", ".join(numbers[:5]) for code, numbers in refs.items()},
                tariff=tariff,
                vat_rate=tax.vat_rate if tax else None,
                social_welfare_surcharge_rate=tax.levy_on_duty_rate if tax else Decimal("0"),
                brokerage_fee=tax.brokerage_fee if tax else Decimal("0"),
                handling_fee=tax.handling_fee if tax else Decimal("0"),
                fees_currency=fees_currency,
                currency=currency,
                destination=country,
                valuation_rules=rules,
                exchange_rates=rates,
                exchange_date=on,
            )
        )
    except landed_cost_engine.CurrencyMismatch as error:
        raise ValidationError({"bom": str(error)}) from None
    except ValueError as error:
        raise ValidationError({"bom": f"Version {bom.version}: {error}"}) from None
    return landed, notes


def _it_kw(bom: BillOfMaterials) -> Decimal:
    result = run_result(bom.run)
    try:
        return Decimal(str(result.value("power.it_kw")))
    except (KeyError, LookupError):
        raise ValidationError(
            {"bom": f"Run {bom.run.number} has no IT power figure: size the design again."}
        ) from None


def own_or_rent_for(
    design: ClusterDesign,
    *,
    gpu_hour_price: Decimal,
    support_rate: Decimal = DEFAULT_SUPPORT_RATE,
    months: int = DEFAULT_MONTHS,
    utilisation: Decimal = DEFAULT_UTILISATION,
    input_tax_credit: bool | None = None,
    credit_month: int | None = None,
    today: dt.date | None = None,
) -> OwnOrRentAnswer:
    """Own (landed hardware, power, support) against rent (the same GPU-hours) for the design's
    current bill of materials. The price per GPU-hour is in the hardware's currency.
    `input_tax_credit`: claim the import VAT/GST back (None: when the buyer can), credited in
    `credit_month` (default the next month)."""
    claimable, reason, rule = input_tax_claimable(design)
    claimed = claimable if input_tax_credit is None else bool(input_tax_credit)
    if claimed and not claimable:
        raise ValidationError({"input_tax_credit": reason})
    month = (DEFAULT_CREDIT_MONTH if credit_month is None else credit_month) if claimed else None
    bom = bom_current(design)
    if bom is None:
        raise ValidationError({"bom": "The design has no bill of materials yet: size it and make one first."})
    bom = BillOfMaterials.objects.select_related("design__site", "run").get(pk=bom.pk)
    on = today or timezone.localdate()
    landed, notes = hardware_landed_cost(bom, today=on)
    currency = landed.currency
    price = design.electricity_price
    if design.electricity_currency != currency:
        found = landed_cost_engine.find_rate(
            _exchange_rates(currency, {design.electricity_currency}, on),
            design.electricity_currency,
            currency,
            on,
        )
        if found is None:
            raise ValidationError(
                {
                    "electricity_currency": f"No exchange rate {design.electricity_currency} → "
                    f"{currency} on or before {on.isoformat()}: add one to compare power with the hardware."
                }
            )
        multiplier, used = found
        # To the micro-unit, as the note shows it: the sum is worked and explained with one price
        # (an unrounded product printed as 0.09999999999999999999999999997 USD/kWh).
        converted = (price * multiplier).quantize(Decimal("0.000001"))
        notes.append(
            f"Electricity {price.normalize():f} {design.electricity_currency}/kWh at 1 {used.base} = "
            f"{used.rate.normalize():f} {used.quote} ({used.valid_on.isoformat()}) = "
            f"{converted.normalize():f} {currency}/kWh."
        )
        price = converted
    it_kw = _it_kw(bom)
    try:
        result = economics.own_or_rent(
            economics.OwnOrRentInputs(
                hardware_cost=landed.total_landed,
                currency=currency,
                it_kw=it_kw,
                pue=design.pue,
                electricity_price=price,
                support_rate=support_rate,
                gpus=design.gpus,
                gpu_hour_price=gpu_hour_price,
                utilisation=utilisation,
                months=months,
                import_tax=landed.vat,
                input_tax_credit_month=month,
                import_tax_name=rule.tax,
            )
        )
    except economics.EconomicsError as error:
        field = "credit_month" if error.field == "input_tax_credit_month" else error.field
        raise ValidationError({field: error.message}) from None
    return OwnOrRentAnswer(
        result=result,
        landed=landed,
        bom=bom,
        it_kw=it_kw,
        electricity_price=price,
        notes=tuple(notes),
        input_tax=InputTaxCredit(claimable=claimable, claimed=claimed, month=month, reason=reason, rule=rule),
    )


def answer_as_dict(answer: OwnOrRentAnswer) -> dict:
    """JSON-safe: money as strings."""
    r, landed = answer.result, answer.landed
    return {
        "bom_version": answer.bom.version,
        "currency": r.currency,
        "months": r.months,
        "hardware_landed": str(r.hardware),
        "landed_cost": {
            "goods": str(landed.goods_value),
            "freight": str(landed.freight),
            "insurance": str(landed.insurance),
            "duty": str(landed.duty),
            "levies": str(landed.levies),
            "vat": str(landed.vat),
            "brokerage": str(landed.brokerage),
            "handling": str(landed.handling),
            "total": str(landed.total_landed),
            "complete": landed.complete,
            "explanation": list(landed.explanation),
        },
        "it_kw": str(answer.it_kw),
        "power_per_month": str(r.power_per_month),
        "support_per_month": str(r.support_per_month),
        "own_running_per_month": str(r.own_running_per_month),
        "gpu_hours_per_month": str(r.gpu_hours_per_month),
        "rent_per_month": str(r.rent_per_month),
        "break_even_month": r.break_even_month,
        "break_even_beyond": r.break_even_beyond,
        "verdict": r.verdict,
        "explanation": list(r.explanation),
        "notes": list(answer.notes),
        "input_tax_credit": {
            "tax": tax.rule.tax,
            "amount": str(r.input_tax_credit),
            "claimable": tax.claimable,
            "claimed": tax.claimed,
            "month": tax.month,
            "reason": tax.reason,
            "rule": tax.rule.rule,
            "source": tax.rule.source,
        }
        if (tax := answer.input_tax) is not None
        else None,
        "points": [{"month": p.month, "own": str(p.own), "rent": str(p.rent)} for p in r.points],
    }
