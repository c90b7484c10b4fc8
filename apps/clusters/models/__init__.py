"""The clusters app's models, one module per subject; import them from here.

- `designs`: a cluster design and its sizing runs, with the choices their fields take.
- `boms`: the versioned bills of materials made from a run, and their lines.
- `compliance_summary`: what a version of the bill of materials needs licensed.
- `shipments`: which shipments carry a cluster's goods.
"""

from .boms import BillOfMaterials, BomLine, BomRole, BomStatus
from .compliance_summary import ComplianceSummary, SummaryStatus
from .designs import (
    GPUS_MAX,
    PARAMS_BILLION_MAX,
    PART_FIELDS,
    BandwidthPerGpu,
    ClusterDesign,
    Cooling,
    FabricKind,
    RunStatus,
    SizingRun,
    Topology,
)
from .shipments import ClusterShipment

__all__ = [
    "GPUS_MAX",
    "PARAMS_BILLION_MAX",
    "PART_FIELDS",
    "BandwidthPerGpu",
    "BillOfMaterials",
    "BomLine",
    "BomRole",
    "BomStatus",
    "ClusterDesign",
    "ClusterShipment",
    "ComplianceSummary",
    "Cooling",
    "FabricKind",
    "RunStatus",
    "SizingRun",
    "SummaryStatus",
    "Topology",
]
