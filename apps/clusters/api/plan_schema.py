"""Examples of the shipment-plan and own-or-rent endpoints in the OpenAPI schema (`/api/docs/`):
values as the endpoints answered them for a worked design (tests/clusters/), with the catalogue's
part numbers. The views (`api/plan.py`) take their `examples=` from here."""

from apps.core.api_docs import example

_PLAN_SERVERS = {
    "bom_line": 301,
    "description": "NVIDIA DGX H100 (System)",
    "quantity": 4,
    "value": "1200000.00",
    "currency": "USD",
    "gross_kg": "520.000",
    "country_of_origin": "TW",
    "supplier": "NVIDIA",
    "why": "air: light, high-value hardware (130 kg a unit, server), and no ocean rate on TW → IN or "
    "through Bonded Hub Singapore valid on 2026-12-04",
    "ready_date": None,
}
_PLAN_LEAVES = {
    "bom_line": 302,
    "description": "NVIDIA Quantum-2 QM9700 (Compute leaf switch)",
    "quantity": 4,
    "value": "120000.00",
    "currency": "USD",
    "gross_kg": "60.000",
    "country_of_origin": "MX",
    "supplier": "NVIDIA",
    "why": "air: light, high-value hardware (15 kg a unit, network switch), and no ocean rate on MX → IN "
    "or through Bonded Hub Singapore valid on 2026-12-04",
    "ready_date": None,
}
_PLAN_RACKS = {
    "bom_line": 303,
    "description": "Schneider Electric NetShelter SX 48U (Rack)",
    "quantity": 2,
    "value": "6000.00",
    "currency": "USD",
    "gross_kg": "340.000",
    "country_of_origin": "US",
    "supplier": "Schneider Electric",
    "why": "ocean: rack, bulky or low value for its weight; the fastest sea route (32 days) arrives "
    "2027-01-05, by the required 2027-03-04",
    "ready_date": "2026-12-04",
}


_LEG_FIELDS = (
    "role", "origin_country", "destination_country", "supplier", "mode", "cost", "currency", "service",
    "departure", "arrival", "bom_lines",
)  # fmt: skip


def _legs(*rows: tuple) -> list[dict]:
    return [dict(zip(_LEG_FIELDS, row, strict=True)) for row in rows]


# role, from, to, supplier, mode, cost, currency, service, departure, arrival, BOM lines
_AIR_LEGS = _legs(
    ("inbound", "TW", "SG", "NVIDIA", "air", "1092.00", "USD", "Air general cargo (TWSG Air)",
     "2026-12-04", "2026-12-07", [301]),
    ("inbound", "MX", "SG", "NVIDIA", "air", "348.00", "USD", "Air general cargo (MXSG Air)",
     "2026-12-04", "2026-12-10", [302]),
    ("main", "SG", "IN", "", "air", "1102.00", "USD", "Air general cargo (SGIN Air)",
     "2026-12-10", "2026-12-12", [301, 302]),
)  # fmt: skip
_OCEAN_LEGS = _legs(
    ("direct", "US", "IN", "Schneider Electric", "ocean", "291.60", "USD", "Ocean LCL (USIN Lines)",
     "2026-12-04", "2027-01-05", [303]),
)  # fmt: skip
_AIR_VIA_SG = {
    "key": "air-via-sg",
    "kind": "consolidated",
    "mode": "air",
    "origin_countries": ["MX", "TW"],
    "suppliers": ["NVIDIA"],
    "destination_country": "IN",
    "hub": "Bonded Hub Singapore",
    "lines": [_PLAN_SERVERS, _PLAN_LEAVES],
    "legs": _AIR_LEGS,
    "goods_value": {"USD": "1320000.00"},
    "gross_kg": "580.000",
    "cost": "2646.40",
    "currency": "USD",
    "arrival": "2026-12-12",
    "ready_date": "2026-12-04",
    "on_time": True,
    "reasons": [
        "Consolidated at Bonded Hub Singapore (SG): the air goods come from 2 countries (MX, TW); inbound "
        "legs meet there and one air main carriage takes them to the site (SG → IN): one import clearance "
        "instead of 2",
        "Priced leg by leg: 2,646.40 USD with the hub's handling, arriving 2026-12-12 (in time)",
    ],
    "missing": [],
    "priced": True,
}
_OCEAN_US = {
    "key": "ocean-us-schneider-electric",
    "kind": "direct",
    "mode": "ocean",
    "origin_countries": ["US"],
    "suppliers": ["Schneider Electric"],
    "destination_country": "IN",
    "hub": "",
    "lines": [_PLAN_RACKS],
    "legs": _OCEAN_LEGS,
    "goods_value": {"USD": "6000.00"},
    "gross_kg": "340.000",
    "cost": "291.60",
    "currency": "USD",
    "arrival": "2027-01-05",
    "ready_date": "2026-12-04",
    "on_time": True,
    "reasons": [
        "Schneider Electric's goods from US, ocean straight to the site (US → IN)",
        "Priced Ocean LCL (USIN Lines): 291.60 USD, 32 days, arriving 2027-01-05 (the cheapest arriving by "
        "2027-03-04)",
    ],
    "missing": [],
    "priced": True,
}
# The freight engine's working quotes the operator's rate card: operator staff only.
_AIR_VIA_SG_WORKING = [
    "NVIDIA from TW (TW → SG): cheapest option arriving by 2027-03-02 (the fastest main carriage then takes "
    "2 days): Air general cargo (TWSG Air), 1,092.00 USD, arrives 2026-12-07",
    "NVIDIA from MX (MX → SG): cheapest option arriving by 2027-03-02 (the fastest main carriage then takes "
    "2 days): Air general cargo (MXSG Air), 348.00 USD, arrives 2026-12-10",
    "Main carriage from Bonded Hub Singapore (SG → IN): cheapest option arriving by 2027-03-04 (the required "
    "date): Air general cargo (SGIN Air), 1,102.00 USD, arrives 2026-12-12",
    "Hub handling at Bonded Hub Singapore: 580 kg gross × 0.18 USD/kg, at least 95.00 = 104.40 USD.",
    "Route total: 1,092.00 + 348.00 + 1,102.00 + 104.40 hub handling = 2,646.40 USD, arriving 2026-12-12 "
    "(on time)",
    "NVIDIA from TW (TW → SG): 520 kg chargeable × 2.10 USD/kg = 1,092.00 USD",
    "NVIDIA from MX (MX → SG): 60 kg chargeable × 5.80 USD/kg = 348.00 USD",
    "Main carriage from Bonded Hub Singapore (SG → IN): 580 kg chargeable × 1.90 USD/kg = 1,102.00 USD",
]
_OCEAN_US_WORKING = [
    "2.25 m tall piece 'BOM line 303' needs a 40' high cube (door 2.58 m; standard doors are 2.27 m, and "
    "5 cm clearance is kept)",
    "FCL not offered: no container prices",
    "LCL (weight or measure): greater of 3.24 m³ × 90.00 = 291.60, 0.34 t × 60.00 = 20.40, minimum 200.00 "
    "→ 291.60",
    "Ocean LCL: 291.60 USD",
]
PLAN = {
    "design": 3,
    "bom_version": 1,
    "proposals": [_AIR_VIA_SG, _OCEAN_US],
    "ready_date": "2026-12-04",
    "required_by": "2027-03-04",
    "freight_by_currency": {"USD": "2938.00"},
    "unpriced": [],
    "reasons": [],
}
PLAN_FOR_STAFF = {
    **PLAN,
    "proposals": [
        {**_AIR_VIA_SG, "breakdown": _AIR_VIA_SG_WORKING},
        {**_OCEAN_US, "breakdown": _OCEAN_US_WORKING},
    ],
}
_MISSING_RATE = "no air rate for lane TW → IN valid on 2026-12-04: add one in the rate table"
PLAN_UNPRICED = {
    "design": 3,
    "bom_version": 2,
    "proposals": [
        {
            "key": "air-tw-nvidia",
            "kind": "direct",
            "mode": "air",
            "origin_countries": ["TW"],
            "suppliers": ["NVIDIA"],
            "destination_country": "IN",
            "hub": "",
            "lines": [_PLAN_SERVERS],
            "legs": _legs(("direct", "TW", "IN", "NVIDIA", "air", None, "", "", None, None, [301])),
            "goods_value": {"USD": "1200000.00"},
            "gross_kg": "520.000",
            "cost": None,
            "currency": "",
            "arrival": None,
            "ready_date": "2026-12-04",
            "on_time": None,
            "reasons": [
                "NVIDIA's goods from TW, air straight to the site (TW → IN): no consolidation hub",
                f"Not priced: {_MISSING_RATE}",
            ],
            "missing": [_MISSING_RATE],
            "priced": False,
        }
    ],
    "ready_date": "2026-12-04",
    "required_by": "2027-03-01",
    "freight_by_currency": {},
    "unpriced": ["air-tw-nvidia"],
    "reasons": ["1 of 1 proposals are not priced (no rate on their lane): the freight total leaves them out"],
}
PLAN_EXAMPLES = [
    example("As operator staff read it (with the freight working)", PLAN_FOR_STAFF),
    example("As the owner or the customer reads it (totals and reasons)", PLAN),
    example("No rate prices a lane", PLAN_UNPRICED),
]
PLAN_CREATE_EXAMPLES = [
    example("One proposal", {"proposals": ["air-via-sg"]}, request=True),
    example("Every proposal of version 2, again", {"bom": 2, "again": True}, request=True),
    example(
        "Made",
        {
            "shipments": [
                {
                    "reference": "SHP-2026-000131",
                    "url": "/shipments/SHP-2026-000131/",
                    "mode": "air",
                    "lines": 2,
                    "legs": 3,
                    "shipper": "Quanta Cloud Technology Inc.",
                }
            ],
            "already": {},
        },
        status=201,
    ),
    example(
        "Asked again: nothing new",
        {"shipments": [], "already": {"air-via-sg": ["SHP-2026-000131"]}},
        status=200,
    ),
]

_OWN = ("1420248.00", "1443210.48", "1466172.96", "1489135.44", "1512097.92", "1535060.40", "1558022.88")
_RENT = ("0.00", "747520.00", "1495040.00", "2242560.00", "2990080.00", "3737600.00", "4485120.00")
OWN_OR_RENT = {
    "bom_version": 1,
    "currency": "USD",
    "months": 6,
    "hardware_landed": "1420248.00",
    "landed_cost": {
        "goods": "1200000.00",
        "freight": "0.00",
        "insurance": "3600.00",
        "duty": "0.00",
        "levies": "0.00",
        "vat": "216648.00",
        "brokerage": "0.00",
        "handling": "0.00",
        "total": "1420248.00",
        "complete": True,
        "explanation": [
            "Insurance (estimated) = 0.3 % × (1,200,000.00 goods + 0.00 freight) = 3,600.00 USD",
            "Customs value (CIF) = 1,200,000.00 goods + 0.00 freight + 3,600.00 insurance = 1,203,600.00 USD",
            "Duty on HS 847150 (DGX H100) = 1,203,600.00 (1,200,000.00 goods + 3,600.00 freight and "
            "insurance) × 0 % (tariff 8471) = 0.00 USD",
            "Levy on duty = 10 % × 0.00 duty = 0.00 USD",
            "Import VAT/GST = 18 % × (1,203,600.00 customs value + 0.00 duty + 0.00 levies = 1,203,600.00) "
            "= 216,648.00 USD",
            "Total landed = 1,200,000.00 goods + 0.00 freight + 3,600.00 insurance + 0.00 duty + 0.00 levies "
            "+ 216,648.00 VAT/GST + 0.00 brokerage + 0.00 handling = 1,420,248.00 USD",
            "Duty and import taxes are paid by the buyer under DAP (Delivered at Place)",
        ],
    },
    "it_kw": "100.0",
    "power_per_month": "8760.00",
    "support_per_month": "14202.48",
    "own_running_per_month": "22962.48",
    "gpu_hours_per_month": "373760",
    "rent_per_month": "747520.00",
    "break_even_month": 2,
    "break_even_beyond": None,
    "verdict": "Owning breaks even in month 2: by then renting has cost 1,495,040.00 USD against "
    "1,466,172.96 USD owned.",
    "explanation": [
        "Hardware at landed cost, paid in month 0: 1,420,248.00 USD",
        "Power a month = 100 kW IT × 1.2 PUE × 730 h = 87,600 kWh × 0.10 USD/kWh = 8,760.00 USD",
        "IGST of 216,648.00 USD is not claimed: it stays in the hardware's cost",
        "Support a month = 1,420,248.00 × 12 % a year / 12 = 14,202.48 USD",
        "Owning costs 22,962.48 USD a month to run",
        "Renting a month = 512 GPUs × 730 h × 100 % utilisation = 373,760 GPU-hours × 2 USD = 747,520.00 USD",
        "Owning breaks even in month 2: by then renting has cost 1,495,040.00 USD against 1,466,172.96 USD "
        "owned.",
    ],
    "notes": [
        "Freight not counted: 1 of the shipment plan's proposals has no rate (air-tw-nvidia), so the landed "
        "cost is goods, insurance, duty and taxes only.",
        "Electricity 8.45 INR/kWh at 1 USD = 84.5 INR (2026-11-01) = 0.1 USD/kWh.",
    ],
    "input_tax_credit": {
        "tax": "IGST",
        "amount": "0.00",
        "claimable": False,
        "claimed": False,
        "month": None,
        "reason": "Chennai AI Compute Pvt. Ltd. holds no GSTIN in IN: the IGST is a cost it cannot "
        "claim back.",
        "rule": "IGST paid on imported goods is input tax: a GST-registered importer that uses the goods "
        "in the course or furtherance of its business takes it as credit on the bill of entry …",
        "source": "Customs Tariff Act 1975 s. 3(7) with IGST Act 2017 s. 5(1) proviso …",
    },
    "points": [
        {"month": m, "own": own, "rent": rent} for m, (own, rent) in enumerate(zip(_OWN, _RENT, strict=True))
    ],
}
OWN_OR_RENT_EXAMPLES = [example("2 USD a GPU-hour, 12 % support, 6 months", OWN_OR_RENT)]
