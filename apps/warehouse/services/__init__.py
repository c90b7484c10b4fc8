"""Writes of the warehouse, one module per subject: `units` (the one service that changes a unit's
status), `stock` (locations, receiving, put-away and moves, adjustments, counts), `allocation`
(setting stock aside for a shipment line and giving it back), `shipping` (picking and shipping a
line), `packing`, `receipts` (receiving against an advance notice) and `imports` (bulk serial
imports); `ledger` holds what they share. The public services are re-exported here, so
`services.units_receive(...)` reads as before.

Services never import the tasks module: a service that needs background work enqueues the task by
its name through the outbox (`apps.core.tasks_outbox.enqueue_on_commit`)."""

from .allocation import (
    ALLOCATABLE,
    SHIPPABLE,
    lot_allocate,
    lot_allocation_release,
    release_for_cancelled,
    units_allocate,
    units_give_back,
)
from .imports import (
    ImportRefused,
    import_template,
    serial_import_create,
    serial_import_rerun,
    serial_import_run,
)
from .packing import packable, units_pack
from .receipts import RECEIVABLE, discrepancy_resolve, receipt_record
from .shipping import Shipped, line_ship, lot_allocation_pick, units_pick
from .stock import (
    CountResult,
    location_count,
    location_create,
    lot_adjust,
    lot_move,
    lot_receive,
    receive_problems,
    unit_move,
    units_receive,
)
from .units import unit_transition, whereabouts

__all__ = [
    "ALLOCATABLE",
    "RECEIVABLE",
    "SHIPPABLE",
    "CountResult",
    "ImportRefused",
    "Shipped",
    "discrepancy_resolve",
    "import_template",
    "line_ship",
    "location_count",
    "location_create",
    "lot_adjust",
    "lot_allocate",
    "lot_allocation_pick",
    "lot_allocation_release",
    "lot_move",
    "lot_receive",
    "packable",
    "receipt_record",
    "receive_problems",
    "release_for_cancelled",
    "serial_import_create",
    "serial_import_rerun",
    "serial_import_run",
    "unit_move",
    "unit_transition",
    "units_allocate",
    "units_give_back",
    "units_pack",
    "units_pick",
    "units_receive",
    "whereabouts",
]
