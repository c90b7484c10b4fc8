"""Tags, summaries and examples of the shipments API in the OpenAPI schema (`/api/docs/`)."""

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

from apps.core.api_docs import documented, example

SITES = "Sites"
SHIPMENTS = "Shipments"
CONTENTS = "Lines, packages and legs"
RATES = "Freight and exchange rates"

SITE_WRITE = {
    "name": "Chennai AI Compute DC1",
    "kind": "data_centre",
    "is_bonded": False,
    "address_line1": "Plot 7, SIPCOT IT Park, Siruseri",
    "city": "Chennai",
    "postal_code": "603103",
    "country": "IN",
    "unlocode": "",
    "iata_code": "",
    "customer": 9,
}
SITE = {"id": 14, "owner": 1, **SITE_WRITE}


def _brief(site_id, name, kind, city, country, unlocode="", iata_code=""):
    return {
        "id": site_id,
        "name": name,
        "kind": kind,
        "city": city,
        "country": country,
        "unlocode": unlocode,
        "iata_code": iata_code,
    }


SHIPMENT_WRITE = {
    "origin": 3,
    "destination": 14,
    "incoterm": "DAP",
    "incoterm_place": "Chennai",
    "mode": "air",
    "ready_date": "2026-12-08",
    "required_by": "2027-01-15",
    "currency": "USD",
    "freight_charge": None,
    "insurance_charge": None,
    "insurance_value": None,
    "reason_for_export": "sale",
    "end_use": "AI training cluster, Chennai AI Compute DC1",
    "end_use_flags": [],
    "instructions": "Keep upright; tilt and shock indicators on every crate.",
    "payment_terms": "Net 30",
    "buyer_order_reference": "PO-CAC-2026-0412",
    "parties": {"shipper": 7, "consignee": 9},
}
SHIPMENT = {
    "reference": "SHP-2026-000123",
    "url": "https://rackpass.example.com/api/v1/shipments/SHP-2026-000123/",
    "status": "draft",
    "hold_kind": "",
    "hold_reason": "",
    "held_from": "",
    "owner": 1,
    "origin": _brief(3, "QCT Taoyuan factory", "factory", "Taoyuan City", "TW"),
    "destination": _brief(14, "Chennai AI Compute DC1", "data_centre", "Chennai", "IN"),
    "parties": [
        {"role": "shipper", "organisation": 7, "name": "Quanta Cloud Technology Inc.", "country": "TW"},
        {"role": "consignee", "organisation": 9, "name": "Chennai AI Compute Pvt. Ltd.", "country": "IN"},
    ],
    "incoterm": "DAP",
    "incoterm_place": "Chennai",
    "incoterm_rule": {
        "export_clearance": "seller",
        "import_clearance": "buyer",
        "main_carriage_paid_by": "seller",
        "insurance_by": None,
    },
    "mode": "air",
    "ready_date": "2026-12-08",
    "required_by": "2027-01-15",
    "eta": None,
    "is_late": False,
    "currency": "USD",
    "freight_charge": None,
    "insurance_charge": None,
    "insurance_value": None,
    "reason_for_export": "sale",
    "end_use": SHIPMENT_WRITE["end_use"],
    "end_use_flags": [],
    "instructions": SHIPMENT_WRITE["instructions"],
    "payment_terms": "Net 30",
    "buyer_order_reference": "PO-CAC-2026-0412",
    "line_count": 2,
    "amendments": 0,
    "created_at": "2026-11-24T09:12:44Z",
    "updated_at": "2026-11-24T09:30:02Z",
}

LINE_WRITE = {
    "part": 42,
    "quantity": 2,
    "unit_value": "373000.00",
    "serials": ["QCT-HGX-24110031", "QCT-HGX-24110032"],
}
LINE = {
    "id": 311,
    "line_number": 1,
    "part": 42,
    "part_number": "D74H-7U-HGX-H100",
    "description": "QCT QuantaGrid D74H-7U, 8x NVIDIA H100 SXM5 (HGX H100)",
    "quantity": 2,
    "unit_value": "373000.00",
    "line_value": "746000.00",
    "country_of_origin": "TW",
    "hs_code": "847150",
    "shipper": None,
    "exporter_of_record": None,
    "serials": ["QCT-HGX-24110031", "QCT-HGX-24110032"],
    "export_classification": {"eccn": "4A090.a", "source": "engine", "is_complete": True},
    "warnings": [],
}

PACKAGE_WRITE = {
    "package_type": "crate",
    "length_cm": "130.0",
    "width_cm": "90.0",
    "height_cm": "120.0",
    "gross_kg": "300.00",
    "net_kg": "260.00",
    "items": [{"line": 1, "quantity": 1}],
    "serials": ["QCT-HGX-24110031"],
    "tilt_indicator": True,
    "shock_indicator": True,
    "keep_dry": True,
    "marks": "SHP-2026-000123 / 1 of 2 / THIS WAY UP",
}
PACKAGE = {
    "id": 87,
    "number": 1,
    **PACKAGE_WRITE,
    "volume_m3": "1.404",
    "dangerous_goods": [],
}

LEG_WRITE = {
    "sequence": 1,
    "role": "main",
    "origin": 5,
    "destination": 6,
    "mode": "air",
    "carrier": "China Airlines Cargo",
    "transport_document": "297-12345675",
    "lines": [],
    "planned_departure": "2026-12-09",
    "planned_arrival": "2026-12-10",
}
LEG = {
    "id": 52,
    **LEG_WRITE,
    "actual_departure": None,
    "actual_arrival": None,
}

EVENT_WRITE = {
    "code": "departed",
    "occurred_at": "2026-12-09T22:40:00+08:00",
    "location": "TPE Taoyuan International Airport",
    "remarks": "Flight CI 5841 departed on time.",
    "eta": "2026-12-10",
    "leg": 52,
}
EVENT = {
    "id": 1204,
    **EVENT_WRITE,
    "occurred_at": "2026-12-09T14:40:00Z",
    "posted_by": "forwarder",
    "organisation": "Meridian Air & Ocean Freight Pte. Ltd.",
    "recorded_at": "2026-12-09T14:52:17Z",
    "status_before": "booked",
    "status_after": "in_transit",
    "status_note": "",
}


def _assessment(country, party_id, name, why):
    return {
        "country": country,
        "needed": False,
        "reasons": [why],
        "assessed_party": {"id": party_id, "legal_name": name},
        "named": None,
        "named_problem": None,
        "lines": [],
        "providers": [],
    }


_EXPORTER = _assessment(
    "TW",
    7,
    "Quanta Cloud Technology Inc.",
    "Quanta Cloud Technology Inc. has an entity in TW (no special registration) and can act as "
    "exporter of record.",
)
RECORD_PARTIES = {
    "importer": _assessment(
        "IN",
        9,
        "Chennai AI Compute Pvt. Ltd.",
        "Chennai AI Compute Pvt. Ltd. has an entity in IN (IEC, GSTIN) and can act as importer of record.",
    ),
    "exporter": _EXPORTER,
    "exporters": [_EXPORTER],
}

_AIR_OPTION = {
    "mode": "air",
    "service": "Air",
    "carrier": "China Airlines Cargo",
    "cost": "2520.00",
    "currency": "USD",
    "transit_days": 5,
    "departure": "2026-12-08",
    "arrival": "2026-12-13",
    "on_time": True,
    "chargeable_kg": "600.0",
    "ocean_plan": None,
    "breakdown": [
        "gross 600 kg, volumetric 468 kg (2.808 m³, L×W×H cm / 6,000); the greater, rounded up to "
        "0.5 kg, is chargeable",
        "600 kg chargeable × 4.20 USD/kg = 2,520.00 USD",
    ],
    "pieces_labels": ["package 1", "package 2"],
    "aircraft": "passenger or freighter",
}
FREIGHT_PLAN = {
    "recommendation": {
        "option": _AIR_OPTION,
        "split": None,
        "reasons": ["Cheapest option arriving by 2027-01-15: Air, 2,520.00 USD, arrives 2026-12-13"],
    },
    "options": [_AIR_OPTION],
    "landed_cost": {
        "currency": "USD",
        "goods_value": "746000.00",
        "freight": "2520.00",
        "insurance": "2245.56",
        "customs_value": "750765.56",
        "duty": "0.00",
        "levies": "0.00",
        "vat": "135137.80",
        "total_landed": "885903.36",
        "who_pays_duty": "buyer",
        "complete": True,
        "explanation": [
            "Customs value (CIF) = 746,000.00 goods + 2,520.00 freight + 2,245.56 insurance = 750,765.56 USD",
            "Import IGST 18 % of 750,765.56 USD = 135,137.80 USD",
        ],
    },
}

FREIGHT_RATE_WRITE = {
    "origin_country": "TW",
    "destination_country": "IN",
    "mode": "air",
    "service": "Air express",
    "carrier": "China Airlines Cargo",
    "currency": "USD",
    "price_per_kg": "4.20",
    "price_20gp": None,
    "price_40gp": None,
    "price_40hc": None,
    "price_per_cbm": None,
    "price_per_tonne": None,
    "minimum_charge": "250.00",
    "transit_days": 5,
    "valid_from": "2026-01-01",
    "valid_to": "2026-12-31",
}
FREIGHT_RATE = {"id": 8, **FREIGHT_RATE_WRITE}

EXCHANGE_RATE_WRITE = {
    "base": "USD",
    "quote": "INR",
    "rate": "84.72000000",
    "valid_on": "2026-12-01",
    "source": "RBI reference rate",
}
EXCHANGE_RATE = {"id": 17, **EXCHANGE_RATE_WRITE}

site_docs = documented(
    SITES,
    "site",
    "sites (factories, warehouses, ports, airports, data centres)",
    read=SITE,
    write=SITE_WRITE,
    patch={"postal_code": "603103"},
)
shipment_docs = documented(
    SHIPMENTS,
    "shipment",
    "shipments",
    read=SHIPMENT,
    write=SHIPMENT_WRITE,
    patch={"required_by": "2027-01-20", "parties": {"notify_party": 11}},
    transition={
        "summary": "Move a shipment along its status flow, or hold or release it",
        "examples": [
            example("Submit for compliance review", {"to": "compliance_review"}, request=True),
            example(
                "Hold for customs",
                {
                    "to": "on_hold",
                    "hold_kind": "customs",
                    "reason": "Customs asked for the end-user statement.",
                },
                request=True,
            ),
            example(
                "The shipment after the move",
                {
                    **SHIPMENT,
                    "status": "compliance_review",
                    "warnings": [
                        "Line 2: serialised parts without a serial number for every unit (line 2: 0 of "
                        "8). The packing list and commercial invoice list one per unit: add them on the "
                        "lines, or pack picked units from the warehouse, before the documents are "
                        "generated."
                    ],
                },
            ),
        ],
    },
    amend={
        "summary": "Amend an approved shipment that is not booked: back to draft, documents voided",
        "examples": [
            example(
                "Amend",
                {"reason": "Line 4 (optics) needs its serial numbers; the insured value was short."},
                request=True,
            ),
            example("The shipment, in draft again", {**SHIPMENT, "status": "draft", "amendments": 1}),
        ],
    },
    events=[
        {
            "methods": ["get"],
            "summary": "A shipment's tracking timeline",
            "examples": [example("A milestone", EVENT)],
        },
        {
            "methods": ["post"],
            "summary": "Post a tracking milestone",
            "examples": [
                example("Departed", EVENT_WRITE, request=True),
                example("The recorded event", EVENT, status=201),
            ],
        },
    ],
    record_parties={
        "summary": "Importer and exporter of record: who is needed, who is named, who could be",
        "examples": [example("Neither needed", RECORD_PARTIES)],
    },
    freight_options={
        "summary": "Freight options, a recommendation and the landed cost",
        "examples": [example("Air from Taiwan to India", FREIGHT_PLAN)],
    },
)
line_docs = documented(
    CONTENTS,
    "shipment line",
    "a shipment's lines",
    read=LINE,
    write=LINE_WRITE,
    patch={"quantity": 3, "serials": ["QCT-HGX-24110031", "QCT-HGX-24110032", "QCT-HGX-24110033"]},
)
package_docs = documented(CONTENTS, "package", "a shipment's packages", read=PACKAGE, write=PACKAGE_WRITE)
leg_docs = documented(
    CONTENTS,
    "leg",
    "a shipment's legs",
    read=LEG,
    write=LEG_WRITE,
    patch={"transport_document": "297-12345675", "planned_departure": "2026-12-10"},
)
freight_rate_docs = documented(
    RATES,
    "freight rate",
    "freight rates",
    read=FREIGHT_RATE,
    write=FREIGHT_RATE_WRITE,
    patch={"price_per_kg": "4.05", "valid_to": "2027-03-31"},
)
exchange_rate_docs = documented(
    RATES,
    "exchange rate",
    "exchange rates",
    read=EXCHANGE_RATE,
    write=EXCHANGE_RATE_WRITE,
    patch={"rate": "84.91000000"},
)

# The refusals of `GET /shipments/{reference}/freight-options/` besides those every operation has.
FREIGHT_OPTIONS_REFUSALS = {
    400: OpenApiResponse(
        description="No rate for the lane: no air, ocean or road rate from the origin to the "
        "destination country is valid on the ready date (`lane` says which lane and date)."
    ),
    409: OpenApiResponse(
        description="The lane's rates cannot be compared: they are in several currencies or for "
        "several lanes; the rate table must change (`rates` says how)."
    ),
    422: OpenApiResponse(
        response=inline_serializer(
            "FreightOptionsUnprocessable",
            {
                "detail": serializers.CharField(required=False),
                "currency": serializers.ListField(child=serializers.CharField(), required=False),
                "from_currency": serializers.CharField(required=False),
                "to_currency": serializers.CharField(required=False),
                "lines": serializers.ListField(child=serializers.CharField(), required=False),
                "load": serializers.ListField(child=serializers.CharField(), required=False),
            },
        ),
        description="Not priced: the landed cost cannot be added up in one currency (no exchange "
        "rate; `currency`, `from_currency`, `to_currency`), lines lack the weight or dimensions "
        "freight needs (`lines`, `detail`), or no rate, aircraft or container carries the load (`load`).",
    ),
}
