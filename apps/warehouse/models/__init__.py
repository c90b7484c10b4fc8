"""The warehouse's models, one module per subject: stock (locations, units placed, lots, their
allocations and the movement ledger), receipts against advance notices, and serial imports.
Everything is re-exported here, so `from apps.warehouse.models import Lot` reads as before."""

from .imports import LEASE, SerialImport, SerialImportStatus
from .receipts import Discrepancy, DiscrepancyKind, Receipt, ReceiptStatus
from .stock import (
    LOT_QUANTITY_MAX,
    QUANTITY_MAX,
    WAREHOUSE_KINDS,
    AllocationStatus,
    Location,
    Lot,
    LotAllocation,
    Movement,
    MovementKind,
    UnitPlacement,
)

__all__ = [
    "LEASE",
    "LOT_QUANTITY_MAX",
    "QUANTITY_MAX",
    "WAREHOUSE_KINDS",
    "AllocationStatus",
    "Discrepancy",
    "DiscrepancyKind",
    "Location",
    "Lot",
    "LotAllocation",
    "Movement",
    "MovementKind",
    "Receipt",
    "ReceiptStatus",
    "SerialImport",
    "SerialImportStatus",
    "UnitPlacement",
]
