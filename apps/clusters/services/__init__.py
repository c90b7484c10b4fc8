"""The clusters app's services, one module per subject: every write goes through them.

- `designs`: designs, their inputs to the sizing engine, sizing runs and comparing two runs.
- `boms`: bills of materials made from a run, their lines, issuing.
- `compliance_summary`: what a bill of materials needs licensed (made in the background).
- `coverage`: how much of a bill of materials is on order, in stock, shipped and delivered.
- `shipment_plan`: the shipments a bill of materials needs, and draft shipments made of them.
- `own_or_rent`: owning the cluster against renting the GPUs, month by month.

The design and bill-of-materials services are imported from here; the planning subjects that
read other apps are imported from their modules (`services.coverage`, …).
"""

from .boms import (
    bom_csv_rows,
    bom_current,
    bom_from_run,
    bom_issue,
    bom_line_lead_time_set,
    bom_line_update,
)
from .designs import (
    SIZING_TASK,
    bom_cost,
    design_copy_values,
    design_create,
    design_delete,
    design_field_for,
    design_inputs,
    design_refusals,
    design_template_values,
    design_update,
    errors_by_field,
    inputs_snapshot,
    next_number,
    run_result,
    runs_compare,
    sizing_run_create,
    sizing_run_execute,
    sizing_run_now,
    sizing_run_start,
)

__all__ = [
    "SIZING_TASK",
    "bom_cost",
    "bom_csv_rows",
    "bom_current",
    "bom_from_run",
    "bom_issue",
    "bom_line_lead_time_set",
    "bom_line_update",
    "design_copy_values",
    "design_create",
    "design_delete",
    "design_field_for",
    "design_inputs",
    "design_refusals",
    "design_template_values",
    "design_update",
    "errors_by_field",
    "inputs_snapshot",
    "next_number",
    "run_result",
    "runs_compare",
    "sizing_run_create",
    "sizing_run_execute",
    "sizing_run_now",
    "sizing_run_start",
]
