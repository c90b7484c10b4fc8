"""Browser forms of the warehouse, one module per subject: `stock` (the flows, locations, counts,
adjustments, quarantine), `receipts` (receiving against a notice, resolving a discrepancy,
packing) and `imports` (the serial upload). Each only reads and checks what was typed; the
services decide."""

from .imports import SerialImportForm
from .receipts import PackForm, ReceiptForm, ResolveForm
from .stock import (
    MAX_SERIALS,
    AllocateForm,
    CountForm,
    LocationForm,
    LotAdjustForm,
    MoveForm,
    PickForm,
    ReceiveForm,
    ShipForm,
    UnitStatusForm,
)

__all__ = [
    "MAX_SERIALS",
    "AllocateForm",
    "CountForm",
    "LocationForm",
    "LotAdjustForm",
    "MoveForm",
    "PackForm",
    "PickForm",
    "ReceiptForm",
    "ReceiveForm",
    "ResolveForm",
    "SerialImportForm",
    "ShipForm",
    "UnitStatusForm",
]
