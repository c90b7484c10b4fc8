"""The warehouse API's OpenAPI annotations, one module per subject beside `api/stock.py` and
`api/receipts.py` (the serial import's are in `api/imports.py` itself). The views decorate with
`schema.<name>_docs`, re-exported here."""

from .receipts import discrepancy_docs, notice_receipt_docs, pack_docs
from .stock import (
    adjustment_docs,
    allocation_docs,
    count_docs,
    dispatch_docs,
    location_docs,
    lot_docs,
    move_docs,
    movement_docs,
    on_hand_docs,
    pick_docs,
    receipt_docs,
    unit_docs,
)

__all__ = [
    "adjustment_docs",
    "allocation_docs",
    "count_docs",
    "discrepancy_docs",
    "dispatch_docs",
    "location_docs",
    "move_docs",
    "lot_docs",
    "movement_docs",
    "notice_receipt_docs",
    "on_hand_docs",
    "pack_docs",
    "pick_docs",
    "receipt_docs",
    "unit_docs",
]
