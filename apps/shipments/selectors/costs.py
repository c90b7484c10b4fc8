"""Landed cost: freight, insurance, duties and taxes of a shipment to its destination, for the
route as legged or for a freight plan's recommendation."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.db.models import Q

from ..engines import landed_cost as landed_cost_engine
from ..models import DestinationTax, ExchangeRate, Shipment, TariffRate
from .freight import plan_date, shipment_pieces


def landed_cost_for_route(shipment: Shipment, route, *, today: dt.date | None = None):
    """The landed cost of a route. The freight counted is the carriage to the place of importation:
    the inbound legs to the hub, the hub's handling and the main carriage (India's valuation rules
    count "the cost of transport ... to the place of importation", loading and handling included);
    an onward leg inside the destination country comes after importation and is not counted. The
    air legs among them are the air freight a destination may cap. None while a leg is unpriced."""
    main_index = next(i for i, leg in enumerate(route.legs) if leg.sequence == route.main)
    counted = route.legs[: main_index + 1]
    if any(leg.chosen is None for leg in counted if leg.pieces_labels):
        return None
    chosen = [(leg, leg.chosen) for leg in counted if leg.chosen is not None]
    hub = route.hub_handling or Decimal("0")
    freight = sum((option.cost for _, option in chosen), hub)
    air = sum((option.cost for _, option in chosen if option.mode == "air"), Decimal("0"))
    terms = [f"{option.cost:,.2f} leg {leg.sequence} ({leg.role}, {option.mode})" for leg, option in chosen]
    if route.hub_handling is not None:
        terms.insert(-1, f"{hub:,.2f} hub handling")
    basis = (
        f"{' + '.join(terms)} = {freight:,.2f} {route.currency}: the carriage to the place of importation "
        "(inbound legs, hub handling, main carriage)"
    )
    if len(route.legs) > main_index + 1:
        basis += "; legs after the goods reach the destination country are not counted"
    return landed_cost(
        shipment,
        freight,
        freight_currency=route.currency,
        air_freight_cost=air,
        today=today,
        freight_basis=basis,
    )


def _line_refs(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in sorted(numbers)[:5])
    more = f" and {len(numbers) - 5} more" if len(numbers) > 5 else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"


def landed_cost(
    shipment: Shipment,
    freight_cost: Decimal,
    *,
    freight_currency: str | None = None,
    air_freight_cost: Decimal = Decimal("0"),
    air_goods_value: Decimal | None = None,
    today: dt.date | None = None,
    freight_basis: str = "",
):
    """The landed-cost estimate of the shipment with `freight_cost` (in `freight_currency`, default the
    shipment's), by the destination's tax and valuation rules (`DestinationTax`) and tariff.

    Freight and fees in another currency than the shipment's are converted at the latest
    `ExchangeRate` on or before the plan date (`plan_date`: the later of the ready date and today,
    the date the freight rates are read on); without one the engine raises `CurrencyMismatch`.
    A charged insurance premium (`insurance_charge`) is used as it is; otherwise insurance is
    estimated from the insured value or the goods and freight."""
    country = shipment.destination.country
    tax = DestinationTax.objects.filter(country=country).first()
    tariff = [
        landed_cost_engine.TariffLine(hs_prefix=t.hs_prefix, duty_rate=t.duty_rate, note=t.note)
        for t in TariffRate.objects.filter(destination_country=country)
    ]
    # Duty depends on the HS code only: one line per code keeps the estimate (and its explanation)
    # the size of the tariff, not of the shipment.
    by_code: dict[str, Decimal] = {}
    numbers: dict[str, list[int]] = {}
    rows = shipment.lines.values_list("hs_code", "unit_value", "quantity", "line_number")
    for hs_code, unit_value, quantity, number in rows:
        by_code[hs_code] = by_code.get(hs_code, Decimal("0")) + unit_value * quantity
        numbers.setdefault(hs_code, []).append(number)
    lines = sorted(by_code.items())
    goods = sum((value for _, value in lines), Decimal("0"))
    currency = shipment.currency
    freight_currency = freight_currency or currency
    fees_currency = tax.currency if tax else currency
    on = plan_date(shipment, today)
    foreign = {freight_currency, fees_currency} - {currency}
    exchange_rates = []
    if foreign:
        exchange_rates = [
            landed_cost_engine.ExchangeRate(r.base, r.quote, r.rate, r.valid_on, r.source)
            for r in ExchangeRate.objects.filter(
                Q(base=currency, quote__in=foreign) | Q(base__in=foreign, quote=currency), valid_on__lte=on
            )
        ]
    rules = landed_cost_engine.ValuationRules()
    if tax:
        rules = landed_cost_engine.ValuationRules(
            air_freight_cap_of_fob=tax.air_freight_cap_of_fob,
            insurance_of_fob_when_unknown=tax.insurance_of_fob_when_unknown,
            citation=tax.valuation_rules_citation,
        )
    return landed_cost_engine.landed_cost(
        landed_cost_engine.LandedCostInput(
            incoterm=shipment.incoterm,
            valuation_basis=tax.valuation_basis if tax else "CIF",
            goods_value=goods,
            freight_cost=freight_cost,
            freight_currency=freight_currency,
            air_freight_cost=air_freight_cost,
            air_goods_value=air_goods_value,
            insurance_cost=shipment.insurance_charge,
            insured_value=shipment.insurance_value or None,
            lines=lines,
            line_refs={code: _line_refs(found) for code, found in numbers.items()},
            tariff=tariff,
            vat_rate=tax.vat_rate if tax else None,
            social_welfare_surcharge_rate=tax.levy_on_duty_rate if tax else Decimal("0"),
            brokerage_fee=tax.brokerage_fee if tax else Decimal("0"),
            handling_fee=tax.handling_fee if tax else Decimal("0"),
            fees_currency=fees_currency,
            currency=currency,
            destination=country,
            valuation_rules=rules,
            exchange_rates=exchange_rates,
            exchange_date=on,
            freight_basis=freight_basis,
        )
    )


def landed_cost_for_plan(shipment: Shipment, recommendation, *, today: dt.date | None = None):
    """The landed cost of a recommended freight plan (one option or an air/ocean split); None when the
    recommendation has neither. Air freight is marked as such so that a cap on it can apply."""
    if recommendation.split is not None:
        air = recommendation.split.air
        flown = set(air.pieces_labels)
        air_goods = sum((p.value for p in shipment_pieces(shipment) if p.label in flown), Decimal("0"))
        return landed_cost(
            shipment,
            recommendation.split.cost,
            freight_currency=air.currency,
            air_freight_cost=air.cost,
            air_goods_value=air_goods or None,  # no values on the flown pieces: cap on all the goods
            today=today,
        )
    option = recommendation.option
    if option is None:
        return None
    return landed_cost(
        shipment,
        option.cost,
        freight_currency=option.currency,
        air_freight_cost=option.cost if option.mode == "air" else Decimal("0"),
        today=today,
    )
