"""Tags, summaries and examples of receiving against a notice, discrepancies and packing
(`api/receipts.py`) in the OpenAPI schema (`/api/docs/`)."""

from apps.core.api_docs import documented, example

from ..serializers.receipts import (
    DiscrepancyDetailSerializer,
    DiscrepancyResolveSerializer,
    NoticeReceiptRecordSerializer,
    NoticeReceiptSerializer,
    PackedSerializer,
    PackSerializer,
)
from .stock import BOND, DOCK, STOCK, _action

SHIPMENT_IN = "SHP-2026-000118"
DISCREPANCY = {
    "id": 41,
    "kind": "missing",
    "line": 290,
    "line_number": 1,
    "part": 42,
    "part_number": "D74H-7U-HGX-H100",
    "serial": "QCT-HGX-24110033",
    "unit": 5023,
    "quantity": 1,
    "note": "",
    "is_open": True,
    "resolution": "",
    "resolved_by": "",
    "resolved_at": None,
}
DISCREPANCY_SHORT = {
    **DISCREPANCY,
    "id": 42,
    "kind": "short",
    "line": 291,
    "line_number": 2,
    "part": 58,
    "part_number": "MCP1650-H002E26",
    "serial": "",
    "unit": None,
    "quantity": 2,
}
NOTICE_RECEIPT = {
    "id": 12,
    "reference": "RCV-2026-000012",
    "shipment": SHIPMENT_IN,
    "leg": 77,
    "leg_sequence": 1,
    "location": DOCK,
    "status": "open",
    "customs_reference": BOND,
    "received_by": "Wei Ling Tan",
    "received_at": "2026-11-30T08:14:03Z",
    "expected_units": 3,
    "received_units": 2,
    "open_discrepancies": 2,
    "discrepancies": [DISCREPANCY, DISCREPANCY_SHORT],
}
DISCREPANCY_READ = {
    "id": 41,
    "receipt": 12,
    "receipt_reference": "RCV-2026-000012",
    "shipment": SHIPMENT_IN,
    **{k: v for k, v in DISCREPANCY.items() if k != "id"},
}
PACKABLE = {
    "unit": 5021,
    "serial": "QCT-HGX-24110031",
    "part": 42,
    "part_number": "D74H-7U-HGX-H100",
    "line": 311,
    "line_number": 1,
    "location": 32,
    "location_code": "A-01-02-03",
}
CRATE = {
    "package_type": "crate",
    "length_cm": "130.0",
    "width_cm": "90.0",
    "height_cm": "120.0",
    "gross_kg": "300.00",
    "net_kg": "260.00",
}

notice_receipt_docs = documented(
    STOCK,
    "receipt against a notice",
    "receipts against advance notices, open ones first, with their discrepancies",
    read=NOTICE_RECEIPT,
    create=_action(
        "Receive an inbound shipment (or one leg) against its advance notice",
        NoticeReceiptRecordSerializer,
        NoticeReceiptSerializer,
        [
            example(
                "Servers and cables at the bonded hub: one server missing, two cables short",
                {
                    "shipment": SHIPMENT_IN,
                    "leg": 77,
                    "location": 31,
                    "scanned": ["QCT-HGX-24110031", "QCT-HGX-24110032"],
                    "damaged": [],
                    "counted": [{"line": 291, "counted": 18}],
                    "customs_reference": BOND,
                },
                request=True,
            ),
            example("The receipt, two discrepancies open", NOTICE_RECEIPT, status=201),
        ],
    ),
)
discrepancy_docs = documented(
    STOCK,
    "discrepancy",
    "discrepancies of receipts, open ones first",
    read=DISCREPANCY_READ,
    resolve=_action(
        "Resolve a discrepancy with a note (a missing unit found, a damaged one released)",
        DiscrepancyResolveSerializer,
        DiscrepancyDetailSerializer,
        [
            example(
                "The missing server turned up",
                {"resolution": "On the next pallet of the same AWB", "found": True},
                request=True,
            ),
            example(
                "Resolved",
                {
                    **DISCREPANCY_READ,
                    "is_open": False,
                    "resolution": "On the next pallet of the same AWB",
                    "resolved_by": "Wei Ling Tan",
                    "resolved_at": "2026-11-30T10:02:41Z",
                },
                status=201,
            ),
        ],
    ),
)
pack_docs = documented(
    STOCK,
    "packable unit",
    "picked units waiting to be packed into their outbound shipment",
    read=PACKABLE,
    create=_action(
        "Pack picked units into a new package of their outbound shipment",
        PackSerializer,
        PackedSerializer,
        [
            example(
                "Two servers in a crate",
                {"shipment": "SHP-2026-000123", "units": [5021, 5022], **CRATE, "marks": "Chennai 1/4"},
                request=True,
            ),
            example(
                "The package",
                {
                    "shipment": "SHP-2026-000123",
                    "package": {
                        "id": 88,
                        "number": 1,
                        **CRATE,
                        "volume_m3": "1.404",
                        "items": [{"line": 1, "quantity": 2}],
                        "serials": ["QCT-HGX-24110031", "QCT-HGX-24110032"],
                        "dangerous_goods": [],
                        "tilt_indicator": False,
                        "shock_indicator": False,
                        "keep_dry": True,
                        "marks": "Chennai 1/4",
                    },
                },
                status=201,
            ),
        ],
    ),
)
