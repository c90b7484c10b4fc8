"""Tags, summaries and examples of the stock API (`api/stock.py`) in the OpenAPI schema
(`/api/docs/`), and the examples the other warehouse subjects share (a dock, a bin, a unit)."""

from drf_spectacular.utils import OpenApiParameter

from apps.core.api_docs import documented, example

from ..serializers.stock import (
    AdjustmentSerializer,
    AllocationSerializer,
    CountResultSerializer,
    CountSerializer,
    DispatchSerializer,
    MovementSerializer,
    MoveSerializer,
    ReceiptSerializer,
    StockChangeSerializer,
    UnitsAndAllocationsSerializer,
)

STOCK = "Stock"

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    description="A repeated key returns the first result and changes nothing.",
)

BOND = "SG-TWH-2026-0042"
DOCK = {"id": 31, "code": "RCV", "warehouse": 5, "warehouse_name": "Singapore bonded hub"}
BIN = {"id": 32, "code": "A-01-02-03", "warehouse": 5, "warehouse_name": "Singapore bonded hub"}
LINE = {"id": 311, "shipment": "SHP-2026-000123", "line_number": 1}

LOCATION_WRITE = {"site": 5, "zone": "A", "aisle": "01", "rack": "02", "bin": "03"}
LOCATION = {
    "id": 32,
    "site": 5,
    "site_name": "Singapore bonded hub",
    "code": "A-01-02-03",
    **{k: v for k, v in LOCATION_WRITE.items() if k != "site"},
    "is_active": True,
}

UNIT = {
    "id": 5021,
    "part": 42,
    "part_number": "D74H-7U-HGX-H100",
    "serial": "QCT-HGX-24110031",
    "owner": 7,
    "status": "available",
    "customs_status": "in_bond",
    "country_of_origin": "TW",
    "location": BIN,
    "customs_reference": BOND,
    "allocated_to": None,
    "received_at": "2026-11-30T08:14:03Z",
}
UNIT_ALLOCATED = {**UNIT, "status": "allocated", "allocated_to": LINE}

LOT = {
    "id": 77,
    "part": 58,
    "part_number": "MCP1650-H002E26",
    "location": BIN,
    "owner": 7,
    "customs_status": "in_bond",
    "customs_reference": BOND,
    "quantity": 100,
    "allocated": 30,
    "free": 70,
    "created_at": "2026-11-30T08:20:41Z",
}
LOT_ALLOCATION = {
    "id": 19,
    "lot": 77,
    "part_number": "MCP1650-H002E26",
    "location_code": "A-01-02-03",
    "line": {"id": 312, "shipment": "SHP-2026-000123", "line_number": 2},
    "quantity": 30,
    "status": "allocated",
}

MOVEMENT = {
    "id": 9004,
    "kind": "put_away",
    "occurred_at": "2026-11-30T09:02:11Z",
    "actor": "Wei Ling Tan (Rackpass Technologies Inc.)",
    "reason": "",
    "part": 42,
    "part_number": "D74H-7U-HGX-H100",
    "unit": 5021,
    "serial": "QCT-HGX-24110031",
    "owner": 7,
    "quantity": 1,
    "from_location": DOCK,
    "to_location": BIN,
    "customs_status": "in_bond",
    "customs_reference": BOND,
    "status_before": "received",
    "status_after": "available",
    "shipment": None,
    "line": None,
}

ON_HAND = {
    "kind": "units",
    "part": 42,
    "part_number": "D74H-7U-HGX-H100",
    "part_name": "QCT QuantaGrid D74H-7U, 8x NVIDIA H100 SXM5 (HGX H100)",
    "warehouse": 5,
    "warehouse_name": "Singapore bonded hub",
    "location": 32,
    "location_code": "A-01-02-03",
    "status": "available",
    "customs_status": "in_bond",
    "quantity": 2,
    "unit_value": "373000.00",
    "value": "746000.00",
    "currency": "USD",
    "oldest_received_at": "2026-11-30T08:14:03Z",
    "days_in_stock": 3,
}

CHANGE_UNITS = {"units": [UNIT], "lot": None, "allocations": []}
CHANGE_LOT = {"units": [], "lot": LOT, "allocations": []}


def _action(summary: str, request, response, examples: list, *, status: int = 201) -> dict:
    return {
        "summary": summary,
        "request": request,
        "responses": {status: response, 422: None},
        "parameters": [IDEMPOTENCY_KEY],
        "examples": examples,
    }


unit_docs = documented(
    STOCK,
    "unit",
    "serialised units, with where each is",
    read=UNIT,
    history={
        "summary": "A unit's movements in the ledger, newest first",
        "responses": MovementSerializer(many=True),
        "examples": [example("A put-away", MOVEMENT)],
    },
)
location_docs = documented(STOCK, "location", "warehouse locations", read=LOCATION, write=LOCATION_WRITE)
lot_docs = documented(STOCK, "lot", "lots of non-serialised goods", read=LOT)
movement_docs = documented(STOCK, "movement", "the movement ledger (newest first)", read=MOVEMENT)
on_hand_docs = documented(
    STOCK,
    "stock on hand row",
    "stock on hand by part, warehouse, location, status and customs status, with value and age",
    read=ON_HAND,
)
receipt_docs = documented(
    STOCK,
    create=_action(
        "Receive units (by serial) or a lot quantity into a location",
        ReceiptSerializer,
        StockChangeSerializer,
        [
            example(
                "Servers into the bonded hub's dock",
                {
                    "location": 31,
                    "part": 42,
                    "owner": 7,
                    "serials": ["QCT-HGX-24110031", "QCT-HGX-24110032"],
                    "customs_reference": BOND,
                },
                request=True,
            ),
            example(
                "Cables as a lot",
                {"location": 32, "part": 58, "owner": 7, "quantity": 100, "customs_reference": BOND},
                request=True,
            ),
            example(
                "The units received",
                {"units": [{**UNIT, "status": "received", "location": DOCK}], "lot": None, "allocations": []},
                status=201,
            ),
        ],
    ),
)
move_docs = documented(
    STOCK,
    create=_action(
        "Move units or lot pieces to another location of the same warehouse (put-away)",
        MoveSerializer,
        StockChangeSerializer,
        [
            example("Put a server away", {"to_location": 32, "units": [5021]}, request=True),
            example("Move 20 cables", {"to_location": 33, "lot": 77, "quantity": 20}, request=True),
            example("The units moved", CHANGE_UNITS, status=201),
        ],
    ),
)
adjustment_docs = documented(
    STOCK,
    create=_action(
        "Adjust a lot's quantity on hand, with a reason",
        AdjustmentSerializer,
        StockChangeSerializer,
        [
            example(
                "Two damaged cables", {"lot": 77, "delta": -2, "reason": "Crushed connectors"}, request=True
            ),
            example("The lot after", {**CHANGE_LOT, "lot": {**LOT, "quantity": 98, "free": 68}}, status=201),
        ],
    ),
)
count_docs = documented(
    STOCK,
    create=_action(
        "Book a cycle count of a location",
        CountSerializer,
        CountResultSerializer,
        [
            example(
                "Bin A-01-02-03 counted",
                {"location": 32, "serials": ["QCT-HGX-24110031"], "lots": [{"lot": 77, "counted": 99}]},
                request=True,
            ),
            example(
                "One cable short",
                {
                    "agrees": False,
                    "corrected": [{"lot": {**LOT, "quantity": 99, "free": 69}, "before": 100, "counted": 99}],
                    "missing": [],
                    "found": [],
                },
                status=201,
            ),
        ],
    ),
)
allocation_docs = documented(
    STOCK,
    "lot allocation",
    "lot allocations to outbound shipment lines",
    read=LOT_ALLOCATION,
    create=_action(
        "Allocate available units or a lot quantity to an outbound shipment line",
        AllocationSerializer,
        StockChangeSerializer,
        [
            example("Two servers", {"line": 311, "units": [5021, 5022]}, request=True),
            example("Thirty cables", {"line": 312, "lot": 77, "quantity": 30}, request=True),
            example(
                "The lot allocation",
                {"units": [], "lot": LOT, "allocations": [LOT_ALLOCATION]},
                status=201,
            ),
        ],
    ),
    release=_action(
        "Release allocated units and lot allocations back to stock",
        UnitsAndAllocationsSerializer,
        StockChangeSerializer,
        [
            example("A server and the cables", {"units": [5021], "allocations": [19]}, request=True),
            example(
                "Released",
                {
                    "units": [UNIT],
                    "lot": None,
                    "allocations": [{**LOT_ALLOCATION, "status": "released"}],
                },
                status=201,
            ),
        ],
    ),
)
pick_docs = documented(
    STOCK,
    create=_action(
        "Pick allocated units and lot allocations",
        UnitsAndAllocationsSerializer,
        StockChangeSerializer,
        [
            example("A server and the cables", {"units": [5021], "allocations": [19]}, request=True),
            example(
                "Picked",
                {
                    "units": [{**UNIT_ALLOCATED, "status": "picked"}],
                    "lot": None,
                    "allocations": [{**LOT_ALLOCATION, "status": "picked"}],
                },
                status=201,
            ),
        ],
    ),
)
dispatch_docs = documented(
    STOCK,
    create=_action(
        "Ship a line's picked stock out of the warehouse",
        DispatchSerializer,
        StockChangeSerializer,
        [
            example("Line 1 leaves", {"line": 311}, request=True),
            example(
                "Shipped",
                {
                    "units": [
                        {
                            **UNIT,
                            "status": "shipped",
                            "customs_status": "",
                            "location": None,
                            "customs_reference": "",
                            "received_at": None,
                        }
                    ],
                    "lot": None,
                    "allocations": [],
                },
                status=201,
            ),
        ],
    ),
)
