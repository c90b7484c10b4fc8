"""Freight options of a 3,000-line, 3-leg consolidated shipment (API, browser panel, shipment page).

The shipment is a consolidation as the demo's "[Demo B]" is one, only bigger: two inbound legs to
the Singapore bonded hub — Taiwan by ocean and Mexico by air, carrying disjoint halves of the
lines — and the main carriage Singapore → Chennai. It is a draft, so its freight is priced leg by
leg from the rate table (`selectors.freight_route`, `freight.plan_route`, the landed cost with the
main carriage as the customs freight), not read from what was booked.

Correctness (fails the run): the SQL queries of each request are the same for a 300-line and a
3,000-line shipment, for `GET /api/v1/shipments/{ref}/freight-options/` (DRF's APIClient, an
operator coordinator's token), the browser's freight panel (`shipments:freight-panel`) and the
shipment page (`/shipments/{ref}/`, Django's test client, logged in); every answer is a priced
route of three legs, each with a chosen option, and a landed cost.

Timing (printed only): median and min wall time of those three requests at both sizes, beside
two baselines measured in the same turns: a `values()` read of the shipment's lines and the pure
engine (`freight.plan_route`) on the route's pre-built pieces; and the size of each answer.
"""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal
from typing import Any
from unittest import mock

from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind, Registration, User
from apps.accounts.roles import Role
from apps.catalog.models import Manufacturer, Part, PartCategory
from apps.shipments import selectors
from apps.shipments.engines import freight as freight_engine
from apps.shipments.models import (
    DestinationTax,
    FreightRate,
    Leg,
    LegRole,
    PartyRole,
    Shipment,
    ShipmentLine,
    ShipmentParty,
    Site,
    SiteKind,
    TariffRate,
)
from bench.harness import Report, api_client_for, round_robin

SIZES = (300, 3_000)
REPEAT = {300: 7, 3_000: 7}
LINE_BATCH = 1_000
SURFACES = ("API freight-options", "browser freight panel", "shipment page")
# What the engine reads of a line and its part (selectors.shipment_pieces_by_line): the baseline read.
LINE_VALUES_FIELDS = (
    "id",
    "line_number",
    "quantity",
    "unit_value",
    "description",
    "hs_code",
    "part_id",
    "part__category",
    "part__contains_lithium_batteries",
    "part__unit_weight_kg",
    "part__length_cm",
    "part__width_cm",
    "part__height_cm",
)
# part number, category, L × W × H cm, kg, unit value, HS code, country of origin. The Taiwanese
# half of the lines is servers, accelerators and PDUs (and a rack every 50th line); the Mexican half
# networking.
TW_PARTS = (
    ("BF-GPU-SRV", PartCategory.SERVER, ("90", "60", "25"), "62.000", "285000.00", "847150", "TW"),
    ("BF-H100-SXM", PartCategory.ACCELERATOR, ("40", "30", "15"), "4.500", "27500.00", "847330", "TW"),
    ("BF-PDU-3P", PartCategory.PDU, ("180", "15", "10"), "12.000", "2400.00", "853710", "TW"),
)
RACK = ("BF-RACK-48U", PartCategory.RACK, ("120", "60", "220"), "160.000", "3900.00", "940320", "TW")
MX_PARTS = (
    ("BF-SW-64P", PartCategory.NETWORK_SWITCH, ("70", "45", "9"), "11.000", "23800.00", "851762", "MX"),
    ("BF-OSFP-800G", PartCategory.OPTICAL_TRANSCEIVER, ("12", "6", "3"), "0.150", "1150.00", "851770", "MX"),
    ("BF-DAC-2M", PartCategory.CABLE, ("30", "20", "5"), "0.600", "180.00", "854442", "MX"),
)
# The demo's rate table for the three lanes (apps/shipments/demo.py): mode, carrier, per kg,
# 20GP / 40GP / 40HC, per m³, per tonne, minimum, transit days.
RATES = (
    ("TW", "SG", "air", "EVA Air Cargo", "2.10", None, None, None, None, None, "150", 3),
    ("TW", "SG", "ocean", "Evergreen", None, "650", "1100", "1200", "40", "30", "100", 7),
    ("MX", "SG", "air", "Lufthansa Cargo", "5.80", None, None, None, None, None, "300", 6),
    ("MX", "SG", "ocean", "CMA CGM", None, "2900", "4000", "4200", "85", "60", "200", 35),
    ("SG", "IN", "air", "Singapore Airlines Cargo", "1.90", None, None, None, None, None, "150", 2),
    ("SG", "IN", "ocean", "ONE", None, "600", "850", "900", "40", "30", "100", 7),
)
TARIFF_IN = (
    ("8471", "0"),
    ("847330", "0"),
    ("8517", "0.20"),
    ("8544", "0.10"),
    ("8537", "0.10"),
    ("9403", "0.25"),
)


def run(report: Report) -> None:
    world = _World()
    queries: dict[str, dict[int, int]] = {surface: {} for surface in SURFACES}
    sqls: dict[str, list[str]] = {}
    for size in SIZES:
        began = time.perf_counter()
        shipment = world.consolidation(size)
        built = time.perf_counter() - began
        calls = world.calls(shipment)
        for surface in SURFACES:
            calls[surface]()  # warm-up: also keeps the token's once-a-minute last_used_at write out
            with CaptureQueriesContext(connection) as captured:
                response = calls[surface]()
            queries[surface][size] = len(captured)
            sqls.setdefault(surface, [q["sql"] for q in captured.captured_queries])
            _check_answer(report, surface, size, shipment, response)
        baselines = world.baselines(shipment)
        timed = round_robin({**calls, **baselines}, repeat=REPEAT[size], setup=cache.clear)
        sizes = {surface: len(calls[surface]().content) for surface in SURFACES}
        values, engine = timed["values() of the lines"], timed["plan_route() on pre-built pieces"]
        for surface in SURFACES:
            timing = timed[surface]
            report.row(
                benchmark=f"freight {surface}",
                lines=size,
                queries=queries[surface][size],
                **{
                    "ms (median, min)": str(timing),
                    "bytes": sizes[surface],
                    "values() ms": f"{values.median_ms:.2f}",
                    "engine ms": f"{engine.median_ms:.2f}",
                    "ratio to engine": f"{timing.median_ms / engine.median_ms:.1f}x",
                },
            )
        report.row(
            "the baselines (median, min ms, same turns as the requests)",
            lines=size,
            **{
                "values() of the lines": str(values),
                "plan_route() on pre-built pieces": str(engine),
                "building the shipment (s)": f"{built:.2f}",
            },
        )
    for surface, by_size in queries.items():
        report.check(
            len(set(by_size.values())) == 1,
            f"{surface}: the queries grow with the lines: "
            + ", ".join(f"{n:,} lines: {q}" for n, q in by_size.items()),
        )
    for surface, captured in sqls.items():
        report.note(f"{surface} runs {len(captured)} queries: " + " | ".join(_gist(s) for s in captured))
    report.note(
        f"{REPEAT[SIZES[-1]]} turns per figure; each turn runs the three requests and the two baselines "
        "in turn (cache cleared, untimed, before each)."
    )


def _check_answer(report: Report, surface: str, size: int, shipment: Shipment, response) -> None:
    where = f"{surface} at {size:,} lines"
    if not report.check(response.status_code == 200, f"{where}: status {response.status_code}"):
        return
    if surface == "API freight-options":
        body = response.json()
        route = body.get("route") or {}
        legs = route.get("legs") or []
        report.check(len(legs) == 3, f"{where}: {len(legs)} legs priced, expected 3 ({body.get('message')})")
        report.check(all(leg.get("chosen") for leg in legs), f"{where}: a leg without a chosen option")
        report.check(body.get("landed_cost") is not None, f"{where}: no landed cost")
        carried = sum(_count_lines(leg.get("pieces_labels")) for leg in legs if leg.get("role") == "inbound")
        report.check(carried == size, f"{where}: the inbound legs carry {carried:,} lines, expected {size:,}")
    elif surface == "browser freight panel":
        html = response.content.decode()
        report.check('id="freight-route-legs"' in html, f"{where}: no route table in the panel")
        report.check('id="landed-cost"' in html, f"{where}: no landed cost in the panel")
    else:
        html = response.content.decode()
        report.check(shipment.reference in html, f"{where}: the page does not name {shipment.reference}")
        report.check(
            reverse("shipments:freight-panel", args=[shipment.reference]) in html,
            f"{where}: the page does not load the freight panel",
        )


def _count_lines(labels: Any) -> int:
    """How many lines a leg's pieces_labels name ("line 7"; the lines are not packed here)."""
    return sum(1 for label in labels or [] if str(label).startswith("line "))


def _gist(sql: str) -> str:
    sql = " ".join(sql.split())
    return sql[:60] + ("…" if len(sql) > 60 else "")


class _World:
    """Organisations, sites, parts, the rate table of the three lanes, India's tariff and taxes, an
    operator coordinator with an API token and a browser session."""

    def __init__(self) -> None:
        def org(kind: str, name: str, city: str, country: str) -> Organisation:
            return Organisation.objects.create(
                kind=kind, legal_name=name, address_line1="1 Bench Street", city=city, country=country
            )

        self.operator = org(OrganisationKind.OPERATOR, "Bench Operator Inc.", "Palo Alto", "US")
        self.supplier = org(OrganisationKind.SUPPLIER, "Bench Servers Co", "Taoyuan", "TW")
        self.customer = org(OrganisationKind.CUSTOMER, "Bench Compute Pvt Ltd", "Chennai", "IN")
        for scheme, number in (("iec", "AAKCC5521M"), ("gstin", "33AAKCC5521M1Z2")):
            Registration.objects.create(
                organisation=self.customer, scheme=scheme, number=number, country="IN"
            )
        self.coordinator = User.objects.create_user(
            "bench-coordinator", organisation=self.operator, role=Role.COORDINATOR
        )

        def site(owner, name, kind, city, country, **extra) -> Site:
            return Site.objects.create(owner=owner, name=name, kind=kind, city=city, country=country, **extra)

        self.taiwan = site(self.supplier, "Bench factory Guishan", SiteKind.FACTORY, "Taoyuan", "TW")
        self.mexico = site(self.operator, "Bench factory Guadalajara", SiteKind.FACTORY, "Guadalajara", "MX")
        self.hub = site(
            self.operator, "Bench bonded hub Singapore", SiteKind.WAREHOUSE, "Singapore", "SG", is_bonded=True
        )
        self.chennai = site(self.operator, "Bench DC Siruseri", SiteKind.DATA_CENTRE, "Chennai", "IN")
        manufacturer = Manufacturer.objects.create(name="Bench Manufacturer", country="TW")
        self.tw_parts = [self._part(manufacturer, *spec) for spec in TW_PARTS]
        self.mx_parts = [self._part(manufacturer, *spec) for spec in MX_PARTS]
        self.rack = self._part(manufacturer, *RACK)
        self.today = timezone.localdate()
        valid = {
            "valid_from": self.today - dt.timedelta(days=365),
            "valid_to": self.today + dt.timedelta(days=365),
        }
        for origin, destination, mode, carrier, kg, gp20, gp40, hc40, cbm, tonne, minimum, days in RATES:
            FreightRate.objects.create(
                origin_country=origin,
                destination_country=destination,
                mode=mode,
                service="Air general cargo" if mode == "air" else "Ocean FCL/LCL",
                carrier=carrier,
                currency="USD",
                price_per_kg=_dec(kg),
                price_20gp=_dec(gp20),
                price_40gp=_dec(gp40),
                price_40hc=_dec(hc40),
                price_per_cbm=_dec(cbm),
                price_per_tonne=_dec(tonne),
                minimum_charge=Decimal(minimum),
                transit_days=days,
                **valid,
            )
        for prefix, rate in TARIFF_IN:
            TariffRate.objects.create(destination_country="IN", hs_prefix=prefix, duty_rate=Decimal(rate))
        DestinationTax.objects.create(
            country="IN",
            valuation_basis="CIF",
            vat_name="IGST",
            vat_rate=Decimal("0.18"),
            levy_on_duty_rate=Decimal("0.10"),
            brokerage_fee=Decimal("350"),
            handling_fee=Decimal("120"),
        )
        self.api = api_client_for(self.coordinator, "bench freight")
        self.browser = Client()
        self.browser.force_login(self.coordinator)

    def _part(self, manufacturer, number, category, dims, kg, value, hs_code, country) -> Part:
        length, width, height = (Decimal(d) for d in dims)
        return Part.objects.create(
            owner=self.operator,
            manufacturer=manufacturer,
            part_number=number,
            name=f"Benchmark {category.label}",
            category=category,
            unit_weight_kg=Decimal(kg),
            length_cm=length,
            width_cm=width,
            height_cm=height,
            unit_value=Decimal(value),
            country_of_origin=country,
            hs_code=hs_code,
            is_serialised=False,
        )

    def consolidation(self, n_lines: int) -> Shipment:
        """A draft TW + MX → SG hub → IN shipment of `n_lines` lines: the first half Taiwanese parts
        on the ocean inbound leg, the second half Mexican parts on the air inbound leg, all of them
        on the main carriage (air) from the hub to Chennai."""
        ready = self.today + dt.timedelta(days=3)
        shipment = Shipment.objects.create(
            reference=f"SHP-2026-C{n_lines:05d}",
            owner=self.operator,
            created_by=self.coordinator,
            origin=self.taiwan,
            destination=self.chennai,
            incoterm="DAP",
            incoterm_place="Siruseri DC1, Chennai",
            mode="multimodal",
            ready_date=ready,
            required_by=ready + dt.timedelta(days=45),
            currency="USD",
            insurance_value=Decimal("5000000.00"),
            instructions="Consolidate at the Singapore bonded hub; fly SIN→MAA on one AWB.",
        )
        ShipmentParty.objects.bulk_create(
            [
                ShipmentParty(shipment=shipment, role=PartyRole.SHIPPER, organisation=self.supplier),
                ShipmentParty(shipment=shipment, role=PartyRole.CONSIGNEE, organisation=self.customer),
            ]
        )
        half = n_lines // 2
        lines = []
        for number in range(1, n_lines + 1):
            if number % 50 == 0 and number <= half:
                part = self.rack  # a rack every 50th line of the Taiwanese half
            else:
                parts = self.tw_parts if number <= half else self.mx_parts
                part = parts[number % len(parts)]
            lines.append(
                ShipmentLine(
                    shipment=shipment,
                    line_number=number,
                    part=part,
                    description=part.name,
                    quantity=1 + number % 2,
                    unit_value=part.unit_value,
                    country_of_origin=part.country_of_origin,
                    hs_code=part.hs_code,
                )
            )
        lines = ShipmentLine.objects.bulk_create(lines, batch_size=LINE_BATCH)
        if lines[0].pk is None:  # a backend that does not return ids from bulk_create
            lines = list(shipment.lines.order_by("line_number"))
        legs = Leg.objects.bulk_create(
            [
                Leg(
                    shipment=shipment,
                    sequence=1,
                    role=LegRole.INBOUND,
                    origin=self.taiwan,
                    destination=self.hub,
                    mode="ocean",
                    planned_departure=ready,
                ),
                Leg(
                    shipment=shipment,
                    sequence=2,
                    role=LegRole.INBOUND,
                    origin=self.mexico,
                    destination=self.hub,
                    mode="air",
                    planned_departure=ready + dt.timedelta(days=10),
                ),
                Leg(
                    shipment=shipment,
                    sequence=3,
                    role=LegRole.MAIN,
                    origin=self.hub,
                    destination=self.chennai,
                    mode="air",
                ),
            ]
        )
        through = Leg.lines.through
        through.objects.bulk_create(
            [through(leg_id=legs[0].pk, shipmentline_id=line.pk) for line in lines[:half]]
            + [through(leg_id=legs[1].pk, shipmentline_id=line.pk) for line in lines[half:]],
            batch_size=LINE_BATCH,
        )
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        return shipment

    def calls(self, shipment: Shipment) -> dict[str, Any]:
        reference = shipment.reference
        api_url = f"/api/v1/shipments/{reference}/freight-options/"
        panel_url = reverse("shipments:freight-panel", args=[reference])
        page_url = f"/shipments/{reference}/"
        return {
            SURFACES[0]: lambda: self.api.get(api_url),
            SURFACES[1]: lambda: self.browser.get(panel_url),
            SURFACES[2]: lambda: self.browser.get(page_url),
        }

    def baselines(self, shipment: Shipment) -> dict[str, Any]:
        """A values() read of the lines, and plan_route on the route legs freight_route builds."""
        lines = (
            ShipmentLine.objects.filter(shipment=shipment).order_by("line_number").values(*LINE_VALUES_FIELDS)
        )
        captured: dict[str, Any] = {}
        original = freight_engine.plan_route

        def capture(*args, **kwargs):
            captured["args"], captured["kwargs"] = args, kwargs
            return original(*args, **kwargs)

        with mock.patch.object(freight_engine, "plan_route", capture):
            selectors.freight_route(
                Shipment.objects.select_related("origin", "destination").get(pk=shipment.pk)
            )
        args, kwargs = captured["args"], captured["kwargs"]
        return {
            "values() of the lines": lambda: list(lines.all()),
            "plan_route() on pre-built pieces": lambda: original(*args, **kwargs),
        }


def _dec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)
