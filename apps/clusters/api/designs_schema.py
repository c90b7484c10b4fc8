"""Tags, summaries and examples of the cluster designs API (`api/designs.py`: designs, sizing runs,
bills of materials) in the OpenAPI schema (`/api/docs/`)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from apps.core.api_docs import documented, example

from .serializers import (
    BillOfMaterialsBriefSerializer,
    BillOfMaterialsSerializer,
    BomFromRunSerializer,
    BomLineSerializer,
    BomLineUpdateSerializer,
    ClusterDesignSerializer,
    DesignCopySerializer,
    DesignTemplateSerializer,
    RunComparisonSerializer,
    SizingRunListSerializer,
    SizingRunSerializer,
    SizingRunStartedSerializer,
)

CLUSTERS = "Clusters"

DESIGN_WRITE = {
    "customer": 9,
    "site": 14,
    "name": "Speech-AI training cluster, 512 × H100",
    "system": 31,
    "gpus": 512,
    "compute_fabric": "infiniband",
    "compute_bandwidth_gbps": 400,
    "compute_switch": 40,
    "compute_topology": "auto",
    "compute_oversubscription": "1.00",
    "su_systems": 32,
    "compute_node_optic": 47,
    "compute_switch_optic": 47,
    "compute_cable": 55,
    "storage_appliance": 58,
    "storage_capacity_tb": "2000.00",
    "storage_read_gbs_per_node": "8.00",
    "storage_write_gbs_per_node": "4.00",
    "storage_fabric": "infiniband",
    "storage_switch": 40,
    "storage_oversubscription": "1.33",
    "storage_node_optic": 48,
    "storage_switch_optic": 47,
    "storage_cable": 55,
    "inband_switch": 43,
    "inband_cable": None,
    "oob_switch": 44,
    "oob_cable": None,
    "rack": 66,
    "rack_units": None,
    "rack_power_limit_kw": "130.00",
    "pdu": 60,
    "pdus_per_rack": 4,
    "pdu_redundancy": 1,
    "cooling": "liquid",
    "pue": "1.20",
    "cdu": 62,
    "cdu_redundancy": 1,
    "electricity_price": "8.5000",
    "electricity_currency": "INR",
    "params_billion": "70.000",
    "bytes_per_param": "14.00",
    "gpu_mtbf_hours": "50000.0",
    "cluster_interruptions_per_day": None,
    "restart_minutes": "10.00",
    "checkpoint_interval_minutes": "30.00",
    "required_on_site": "2027-06-30",
}
DESIGN = {
    "id": 3,
    "owner": 1,
    **DESIGN_WRITE,
    "gpus_per_server": 8,
    "created_at": "2026-11-20T09:14:03Z",
    "updated_at": "2026-11-21T10:02:41Z",
}

RUN = {
    "id": 12,
    "number": 2,
    "status": "succeeded",
    "task_id": "5f0c6d2e-8a41-4a53-9c1e-2b7f1e0a9d11",
    "engine_version": "1.0.0",
    "errors": {},
    "started_by": "Priya Raman",
    "started_at": "2026-11-21T10:03:00Z",
    "finished_at": "2026-11-21T10:03:01Z",
    "created_at": "2026-11-21T10:02:59Z",
}
REFUSED_RUN = {
    **RUN,
    "id": 13,
    "number": 3,
    "status": "failed",
    "errors": {"compute_switch": "The switch has no radix (compute.switch.ports)."},
}
RUN_DETAIL = {
    **RUN,
    "inputs": {"gpus": 512, "compute": {"kind": "infiniband", "bandwidth_per_gpu_gbps": 400}},
    "result": {
        "engine_version": "1.0.0",
        "switches_by_tier": {"compute leaf": 16, "compute spine": 8},
        "figures": [
            {
                "key": "fabric.compute.leaves",
                "label": "Compute leaf switches",
                "value": 16,
                "unit": "switches",
                "formula": "leaves = 8 rails × 1 per SU × 2 SU = 16",
            }
        ],
    },
}
STARTED = {
    "run": {**RUN, "status": "queued", "started_at": None, "finished_at": None, "engine_version": ""},
    "task_id": RUN["task_id"],
    "status_url": f"/api/v1/tasks/{RUN['task_id']}/",
}
COMPARISON = {
    "a": 1,
    "b": 2,
    "engine_versions": {"a": "1.0.0", "b": "1.0.0"},
    "switches_by_tier": {
        "compute leaf": {"a": 8, "b": 16, "change": 8},
        "compute spine": {"a": 4, "b": 8, "change": 4},
    },
    "power_by_component_kw": {"systems": {"a": 326.4, "b": 652.8, "change": 326.4}},
    "it_kw": {"a": 352.1, "b": 704.9, "change": 352.8},
    "racks": {"a": 8, "b": 15, "change": 7},
    "bom_cost": {"USD": {"a": "12450000.00", "b": "24980000.00", "change": "12530000.00"}},
}
LINE = {
    "id": 301,
    "role": "compute_leaf",
    "part": 40,
    "manufacturer": "NVIDIA",
    "part_number": "MQM9700-NS2F",
    "part_name": "NVIDIA Quantum-2 QM9700",
    "quantity": 16,
    "engine_quantity": 16,
    "unit_value": "32000.00",
    "currency": "USD",
    "figure": "fabric.compute.leaves",
    "note": "",
    "lead_time_days": 56,
}
BOM_BRIEF = {
    "id": 7,
    "version": 1,
    "status": "draft",
    "run": 2,
    "issued_at": None,
    "created_at": "2026-11-21T10:05:00Z",
}
BOM = {**BOM_BRIEF, "lines": [LINE], "totals": {"USD": "512000.00"}}

RUN_PK = OpenApiParameter("run_pk", int, OpenApiParameter.PATH, description="The run's id.")
BOM_PK = OpenApiParameter("bom_pk", int, OpenApiParameter.PATH, description="The version's id.")
LINE_PK = OpenApiParameter("line_pk", int, OpenApiParameter.PATH, description="The line's id.")

design_docs = documented(
    CLUSTERS,
    "cluster design",
    "cluster designs",
    read=DESIGN,
    write=DESIGN_WRITE,
    patch={"gpus": 1024, "checkpoint_interval_minutes": "20.00"},
    design_templates={
        "summary": "List the templates a new design may start from",
        "responses": DesignTemplateSerializer(many=True),
        "examples": [
            example(
                "A template",
                {
                    "key": "dgx-h100-air",
                    "name": "DGX H100, 512 GPUs, InfiniBand NDR, air-cooled",
                    "summary": "64 DGX H100 systems in two SuperPOD scalable units …",
                    "values": {"gpus": 512, "cooling": "air", "pue": "1.45", "system": 31},
                    "missing_parts": [],
                },
            )
        ],
    },
    copy={
        "summary": "Copy a design into a new one of your organisation",
        "request": DesignCopySerializer,
        "responses": {201: ClusterDesignSerializer},
        "examples": [
            example("Named", {"name": "Speech AI, second hall"}, request=True),
            example("The copy", {**DESIGN, "id": 4, "name": "Speech AI, second hall"}, status=201),
        ],
    },
    sizing_runs=[
        {
            "methods": ["GET"],
            "summary": "List a design's sizing runs",
            "responses": SizingRunListSerializer(many=True),
            "examples": [example("A run", RUN), example("A refused run", REFUSED_RUN)],
        },
        {
            "methods": ["POST"],
            "summary": "Size a design (in the background)",
            "request": None,
            "responses": {202: SizingRunStartedSerializer},
            "examples": [example("Queued", STARTED, status=202)],
        },
    ],
    sizing_run={
        "summary": "Read a sizing run",
        "parameters": [RUN_PK],
        "responses": SizingRunSerializer,
        "examples": [example("A run with its result", RUN_DETAIL)],
    },
    sizing_runs_compare={
        "summary": "Compare two sizing runs",
        "parameters": [
            OpenApiParameter("a", int, required=True, description="The first run's number."),
            OpenApiParameter("b", int, required=True, description="The second run's number."),
        ],
        "responses": RunComparisonSerializer,
        "examples": [example("Run 1 against run 2", COMPARISON)],
    },
    bom=[
        {
            "methods": ["GET"],
            "summary": "Read the current bill of materials",
            "responses": BillOfMaterialsSerializer,
            "examples": [example("A bill of materials", BOM)],
        },
        {
            "methods": ["POST"],
            "summary": "Make a bill of materials from a run",
            "request": BomFromRunSerializer,
            "responses": {201: BillOfMaterialsSerializer},
            "examples": [example("From run 2", {"run": 2}, request=True), example("Made", BOM, status=201)],
        },
    ],
    bom_versions={
        "summary": "List the bill of materials' versions",
        "responses": BillOfMaterialsBriefSerializer(many=True),
        "examples": [example("A version", BOM_BRIEF)],
    },
    bom_version={
        "summary": "Read a version of the bill of materials",
        "parameters": [BOM_PK],
        "responses": BillOfMaterialsSerializer,
        "examples": [example("A bill of materials", BOM)],
    },
    bom_issue={
        "summary": "Issue a version of the bill of materials",
        "parameters": [BOM_PK],
        "request": None,
        "responses": BillOfMaterialsSerializer,
        "examples": [
            example("Issued", {**BOM, "status": "issued", "issued_at": "2026-11-22T08:00:00Z"}),
        ],
    },
    bom_csv={
        "summary": "Download a version of the bill of materials as CSV",
        "parameters": [BOM_PK],
        "responses": {(200, "text/csv"): OpenApiTypes.BINARY},
    },
    bom_line={
        "summary": "Change a bill-of-materials line's quantity or lead time",
        "parameters": [LINE_PK],
        "request": BomLineUpdateSerializer,
        "responses": BomLineSerializer,
        "examples": [
            example("Two spare leaves", {"quantity": 18, "note": "Two spares on site"}, request=True),
            example("An eight-week lead time", {"lead_time_days": 56}, request=True),
            example("The line", {**LINE, "quantity": 18, "note": "Two spares on site"}),
        ],
    },
)
