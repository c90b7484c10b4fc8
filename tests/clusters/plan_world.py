"""A small world for the shipment plan and own-or-rent tests: parts from three countries on a
bill of materials, factories to ship from, the Singapore bonded hub with its handling rate, a
rate table and India's duty and IGST (figures chosen so the tests can work them out by hand)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

from apps.accounts.models import OrganisationKind
from apps.catalog.models import PartCategory
from apps.clusters.engines import types as engine
from apps.clusters.models import BillOfMaterials, BomLine, RunStatus, SizingRun
from apps.shipments.models import (
    DestinationTax,
    ExchangeRate,
    FreightRate,
    HubHandlingRate,
    Site,
    TariffRate,
)
from tests.factories import ManufacturerFactory, OrganisationFactory, PartFactory

VALID = (dt.date(2026, 1, 1), dt.date(2027, 12, 31))
IT_KW = 100.0


def air(origin: str, destination: str, per_kg: str, minimum: str, days: int) -> FreightRate:
    return FreightRate.objects.create(
        origin_country=origin, destination_country=destination, mode="air", service="Air general cargo",
        carrier=f"{origin}{destination} Air", currency="USD", price_per_kg=D(per_kg),
        minimum_charge=D(minimum), transit_days=days, valid_from=VALID[0], valid_to=VALID[1],
    )  # fmt: skip


def ocean(
    origin: str, destination: str, per_cbm: str, per_tonne: str, minimum: str, days: int
) -> FreightRate:
    return FreightRate.objects.create(
        origin_country=origin, destination_country=destination, mode="ocean", service="Ocean LCL",
        carrier=f"{origin}{destination} Lines", currency="USD", price_per_cbm=D(per_cbm),
        price_per_tonne=D(per_tonne), minimum_charge=D(minimum), transit_days=days,
        valid_from=VALID[0], valid_to=VALID[1],
    )  # fmt: skip


def rates() -> None:
    """Air TW/MX → SG and SG → IN; ocean US → IN. No air US → IN, nothing from US to SG."""
    air("TW", "SG", "2.10", "150", 3)
    air("MX", "SG", "5.80", "300", 6)
    air("SG", "IN", "1.90", "150", 2)
    ocean("US", "IN", "90", "60", "200", 32)


def hub(operator) -> Site:
    site = Site.objects.create(
        owner=operator, name="Bonded Hub Singapore", kind="warehouse", city="Singapore", country="SG",
        is_bonded=True,
    )  # fmt: skip
    HubHandlingRate.objects.create(
        site=site, currency="USD", price_per_kg=D("0.18"), minimum_charge=D("95"),
        valid_from=VALID[0], valid_to=VALID[1],
    )  # fmt: skip
    return site


def factories(operator) -> dict[str, Site]:
    taiwan = OrganisationFactory(
        kind=OrganisationKind.SUPPLIER, legal_name="Formosa Servers Co.", country="TW"
    )

    def factory(owner, name: str, city: str, country: str) -> Site:
        return Site.objects.create(owner=owner, name=name, kind="factory", city=city, country=country)

    return {
        "TW": factory(taiwan, "Formosa Guishan factory", "Taoyuan", "TW"),
        "MX": factory(operator, "Jabil Guadalajara (NVIDIA networking)", "Zapopan", "MX"),
        "US": factory(operator, "Schneider Electric, St. Louis", "St. Louis", "US"),
    }


def plan_parts(operator) -> dict:
    nvidia = ManufacturerFactory(name="NVIDIA")
    schneider = ManufacturerFactory(name="Schneider Electric")

    def part(number, category, maker, origin, kg, dims, value, hs):
        return PartFactory(
            owner=operator, manufacturer=maker, part_number=number, name=number, category=category,
            country_of_origin=origin, unit_weight_kg=D(kg), length_cm=D(dims[0]), width_cm=D(dims[1]),
            height_cm=D(dims[2]), unit_value=D(value), hs_code=hs,
            gpus_per_server=8 if category == "server" else None,
        )  # fmt: skip

    return {
        "server": part("DGX-T", PartCategory.SERVER, nvidia, "TW", "130", (90, 48, 36), "300000", "847150"),
        "switch": part(
            "QM-T", PartCategory.NETWORK_SWITCH, nvidia, "MX", "15", (66, 44, 5), "30000", "851762"
        ),
        "rack": part("RACK-T", PartCategory.RACK, schneider, "US", "170", (120, 60, 225), "3000", "940320"),
    }


def bom(design, parts: dict, *, quantities=(("system", "server", 4), ("compute_leaf", "switch", 4),
                                            ("rack", "rack", 2))) -> BillOfMaterials:  # fmt: skip
    """Version 1 of the design's bill of materials, from a run whose IT load is `IT_KW`."""
    result = engine.SizingResult(
        engine_version="test",
        figures=(engine.Figure("power.it_kw", "power", "IT load", IT_KW, "kW", "test"),),
        bom=(), warnings=(), racks=(), power_by_component_kw={}, switches_by_tier={},
    )  # fmt: skip
    number = SizingRun.objects.filter(design=design).count() + 1
    run = SizingRun.objects.create(
        design=design,
        number=number,
        status=RunStatus.SUCCEEDED,
        result=result.as_dict(),
        engine_version="test",
    )
    version = BillOfMaterials.objects.filter(design=design).count() + 1
    made = BillOfMaterials.objects.create(design=design, run=run, version=version)
    for role, key, quantity in quantities:
        BomLine.objects.create(
            bom=made, part=parts[key], role=role, quantity=quantity, engine_quantity=quantity
        )
    return made


def india_taxes() -> None:
    """India's IGST 18 %, SWS 10 % of duty, no fees; duty 20 % on 8517, 25 % on 9403, 0 on 8471."""
    DestinationTax.objects.create(
        country="IN", valuation_basis="CIF", vat_name="IGST", vat_rate=D("0.18"), levy_on_duty_rate=D("0.10"),
        brokerage_fee=D("0"), handling_fee=D("0"), currency="USD",
    )  # fmt: skip
    for prefix, rate in (("8471", "0"), ("8517", "0.20"), ("9403", "0.25")):
        TariffRate.objects.create(destination_country="IN", hs_prefix=prefix, duty_rate=D(rate))
    ExchangeRate.objects.create(base="USD", quote="INR", rate=D("84.5"), valid_on=dt.date(2026, 11, 1))
