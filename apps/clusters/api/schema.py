"""Tags, summaries and examples of the clusters API in the OpenAPI schema (`/api/docs/`)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from apps.core.api_docs import documented, example

from .serializers import (
    BillOfMaterialsBriefSerializer,
    BillOfMaterialsSerializer,
    BomFromRunSerializer,
    BomLineSerializer,
    BomLineUpdateSerializer,
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
        "summary": "Change a bill-of-materials line's quantity",
        "parameters": [LINE_PK],
        "request": BomLineUpdateSerializer,
        "responses": BomLineSerializer,
        "examples": [
            example("Two spare leaves", {"quantity": 18, "note": "Two spares on site"}, request=True),
            example("The line", {**LINE, "quantity": 18, "note": "Two spares on site"}),
        ],
    },
)


# --- compliance summary, coverage (api/summary.py), shipment plan, own or rent (api/plan.py) -------
# Values as the endpoints answered them for a worked design (tests/clusters/), with the catalogue's
# part numbers. The views take their `examples=` from here.

SUMMARY_TASK = "93b62912-46bb-4094-a980-4fab1744cae4"
SUMMARY_QUEUED = {
    "id": 21,
    "bom": 7,
    "bom_version": 1,
    "status": "queued",
    "task_id": SUMMARY_TASK,
    "status_url": f"/api/v1/tasks/{SUMMARY_TASK}/",
    "requested_by": "Priya Raman",
    "created_at": "2026-11-22T08:10:00Z",
    "started_at": None,
    "finished_at": None,
    "error": "",
    "is_current": False,
    "result": None,
}
SUMMARY_STARTED = {
    "summary": SUMMARY_QUEUED,
    "task_id": SUMMARY_TASK,
    "status_url": f"/api/v1/tasks/{SUMMARY_TASK}/",
}
_NO_X = (
    "no X in AT 1 for Vietnam (VN) → no licence for these reasons. 738.4(a)(2)(ii)(B): no X means no "
    "licence is required on that reason for control and destination ONLY IF General Prohibitions Four "
    "through Ten do not apply and the ECCN's License Requirements section does not refer you elsewhere in "
    "the EAR. It is not a conclusion that the transaction is permitted."
)
_NEEDS_LICENCE = "3A090/4A090/.z item: licence required because Vietnam (VN) is in D:1 and not in A:5/A:6"
_NOT_CLASSIFIED = (
    "Not classified: no compliance classification of this part yet. The classification engine would "
    "propose EAR99; a compliance officer classifies the part (or a shipment's compliance check does)."
)
_NLR = "No licence required (NLR)"


def _classified(eccn: str) -> dict:
    return {
        "eccn": eccn,
        "source": "officer",
        "classified_on": "2026-11-21",
        "rule_version": "ccl-2026-07-23.1",
        "missing": [],
        "status": "classified",
        "text": f"Compliance officer: {eccn}.",
    }


def _summary_line(line: int, role: str, role_label: str, part: dict, quantity: int, **rest) -> dict:
    value = f"{quantity * int(part['unit_value'].split('.')[0])}.00"
    return {
        "line": line,
        "role": role,
        "role_label": role_label,
        **part,
        "quantity": quantity,
        "value": value,
        **rest,
    }


_SERVER = {
    "part": 31,
    "part_number": "DGXH-G640F+P2EDI36",
    "part_name": "NVIDIA DGX H100",
    "manufacturer": "NVIDIA",
    "unit_value": "373000.00",
    "currency": "USD",
}
_LEAF = {
    "part": 40,
    "part_number": "MQM9700-NS2F",
    "part_name": "NVIDIA Quantum-2 QM9700",
    "manufacturer": "NVIDIA",
    "unit_value": "25000.00",
    "currency": "USD",
}
_OPTIC = {
    "part": 47,
    "part_number": "MMA4Z00-NS",
    "part_name": "NVIDIA OSFP 800G 2xSR4 transceiver",
    "manufacturer": "NVIDIA",
    "unit_value": "1200.00",
    "currency": "USD",
}
SUMMARY_RESULT = {
    "design": 4,
    "bom": 7,
    "bom_version": 1,
    "destination": "VN",
    "destination_name": "Vietnam",
    "site": "Hanoi DC, Hanoi",
    "customer": {
        "organisation": 12,
        "name": "Hanoi GPU Cloud JSC",
        "country": "VN",
        "status": "clear",
        "text": "Hanoi GPU Cloud JSC matches no entry of the active lists and is not blocked.",
        "blocks": [],
        "open_hits": 0,
        "new_matches": [],
        "list_versions": ["CSL 2026-11-18"],
    },
    "rules": {"determination": "ear-2026-07-23.1", "country_data_as_of": "2026-07-23"},
    "lines": [
        _summary_line(
            1,
            "system",
            "System",
            _SERVER,
            64,
            classification=_classified("4A090.a"),
            eccn="4A090.a",
            determination={
                "outcome": "licence_required",
                "exception": "",
                "exception_code": "",
                "conditions": [],
                "rules": [
                    {"code": "EAR 742.6(a)(6)", "text": _NEEDS_LICENCE, "effect": "licence_required"},
                    {
                        "code": "LE ACA 740.8",
                        "text": "ACA (C68) not available: data-centre 3A090.a-level item",
                        "effect": "note",
                    },
                    {"code": "CCC AT 1", "text": f"4A090: {_NO_X}", "effect": "no_licence"},
                ],
                "text": _NEEDS_LICENCE,
            },
            outcome="licence_required",
            outcome_label="Licence required",
            attention=[_NEEDS_LICENCE],
        ),
        _summary_line(
            2,
            "compute_leaf",
            "Compute leaf switch",
            _LEAF,
            16,
            classification=_classified("5A992.c"),
            eccn="5A992.c",
            determination={
                "outcome": "NLR",
                "exception": "",
                "exception_code": "",
                "conditions": [],
                "rules": [{"code": "CCC AT 1", "text": f"5A992: {_NO_X}", "effect": "no_licence"}],
                "text": _NLR,
            },
            outcome="NLR",
            outcome_label=_NLR,
            attention=[],
        ),
        _summary_line(
            3,
            "compute_node_optic",
            "Compute transceiver, node side",
            _OPTIC,
            100,
            classification={
                "status": "not_classified",
                "eccn": "",
                "source": "",
                "text": _NOT_CLASSIFIED,
                "engine_proposal": "EAR99",
                "missing": [],
            },
            eccn="",
            determination={"outcome": "not_classified", "text": _NOT_CLASSIFIED},
            outcome="not_classified",
            outcome_label="Not classified",
            attention=[_NOT_CLASSIFIED],
        ),
    ],
    "eccn_totals": [
        {
            "eccn": "Not classified",
            "lines": 1,
            "quantity": 100,
            "value": {"USD": "120000.00"},
            "outcomes": ["not_classified"],
            "outcome_labels": ["Not classified"],
        },
        {
            "eccn": "4A090.a",
            "lines": 1,
            "quantity": 64,
            "value": {"USD": "23872000.00"},
            "outcomes": ["licence_required"],
            "outcome_labels": ["Licence required"],
        },
        {
            "eccn": "5A992.c",
            "lines": 1,
            "quantity": 16,
            "value": {"USD": "400000.00"},
            "outcomes": ["NLR"],
            "outcome_labels": [_NLR],
        },
    ],
    "outcome_totals": [
        {
            "outcome": "licence_required",
            "label": "Licence required",
            "lines": 1,
            "quantity": 64,
            "value": {"USD": "23872000.00"},
        },
        {
            "outcome": "not_classified",
            "label": "Not classified",
            "lines": 1,
            "quantity": 100,
            "value": {"USD": "120000.00"},
        },
        {"outcome": "NLR", "label": _NLR, "lines": 1, "quantity": 16, "value": {"USD": "400000.00"}},
    ],
    "value_total": {"USD": "24392000.00"},
    "licence_required_value": {"USD": "23872000.00"},
    "attention_lines": 2,
    "attention": True,
    "headline": "To Vietnam (VN): licence required: 1 line(s), 23,872,000.00 USD; not classified: 1 line(s), "
    "120,000.00 USD.",
}
SUMMARY = {
    **SUMMARY_QUEUED,
    "status": "succeeded",
    "started_at": "2026-11-22T08:10:01Z",
    "finished_at": "2026-11-22T08:10:03Z",
    "is_current": True,
    "result": SUMMARY_RESULT,
}
# A partner (here the customer) reads a restricted-party concern only as "under review": no list, no
# entry, no officer's decision (compliance_summary.result_for); the determinations stay.
_UNDER_REVIEW = "The end user is under restricted-party review by Rackpass compliance."
_PARTNER_LEAF = _summary_line(
    1,
    "compute_leaf",
    "Compute leaf switch",
    _LEAF,
    4,
    classification=_classified("5A992.c"),
    eccn="5A992.c",
    determination={
        "outcome": "licence_required",
        "exception": "",
        "exception_code": "",
        "conditions": [],
        "rules": [
            {"code": "EL 744.11", "text": _UNDER_REVIEW, "effect": "licence_required"},
            {
                "code": "CCC AT 1",
                "text": f"5A992: {_NO_X}".replace("Vietnam (VN)", "China (CN)"),
                "effect": "no_licence",
            },
        ],
        "text": "Licence required",
    },
    outcome="licence_required",
    outcome_label="Licence required",
    attention=["Licence required"],
)
SUMMARY_UNDER_REVIEW = {
    **SUMMARY,
    "id": 22,
    "bom": 9,
    "task_id": "",
    "status_url": "",
    "requested_by": "Rackpass staff",
    "result": {
        **SUMMARY_RESULT,
        "design": 5,
        "bom": 9,
        "destination": "CN",
        "destination_name": "China",
        "site": "Shenzhen DC, Shenzhen",
        "customer": {
            "organisation": 13,
            "name": "Shenzhen Demo AI Technology Co., Ltd.",
            "country": "CN",
            "status": "under_review",
            "text": "The end user is under restricted-party review by Rackpass compliance; the cluster's "
            "shipments wait for the decision.",
            "blocks": [],
            "open_hits": 0,
            "new_matches": [],
            "list_versions": [],
        },
        "lines": [_PARTNER_LEAF],
        "eccn_totals": [
            {
                "eccn": "5A992.c",
                "lines": 1,
                "quantity": 4,
                "value": {"USD": "100000.00"},
                "outcomes": ["licence_required"],
                "outcome_labels": ["Licence required"],
            }
        ],
        "outcome_totals": [
            {
                "outcome": "licence_required",
                "label": "Licence required",
                "lines": 1,
                "quantity": 4,
                "value": {"USD": "100000.00"},
            }
        ],
        "value_total": {"USD": "100000.00"},
        "licence_required_value": {"USD": "100000.00"},
        "attention_lines": 1,
        "headline": "To China (CN): licence required: 1 line(s), 100,000.00 USD. The customer needs "
        "restricted-party attention.",
    },
}
SUMMARY_EXAMPLES = [example("A summary", SUMMARY), example("As a partner reads it", SUMMARY_UNDER_REVIEW)]
SUMMARY_START_EXAMPLES = [
    example("The newest bill of materials", {}, request=True),
    example("Version 1", {"bom_version": 1}, request=True),
    example("Queued", SUMMARY_STARTED, status=202),
]


def _shipment(pk: int, status: str, label: str, stage: str, *, counted=True, destination="Siruseri DC1"):
    return {
        "shipment": pk,
        "reference": f"SHP-2026-{pk:06d}",
        "status": status,
        "status_label": label,
        "stage": stage,
        "counted": counted,
        "destination": destination,
    }


COVERAGE = {
    "design": 3,
    "bom": 7,
    "bom_version": 1,
    "site": 14,
    "customer": 9,
    "lines": [
        {
            "line": 301,
            "role": "system",
            "role_label": "System",
            "part": 31,
            "part_number": "DGXH-G640F+P2EDI36",
            "part_name": "NVIDIA DGX H100",
            "quantity": 64,
            "on_order": 13,
            "in_stock": 2,
            "shipped": 20,
            "delivered": 30,
            "outstanding": 0,
            "surplus": 1,
            "shares_part": False,
        },
        {
            "line": 302,
            "role": "compute_leaf",
            "role_label": "Compute leaf switch",
            "part": 40,
            "part_number": "MQM9700-NS2F",
            "part_name": "NVIDIA Quantum-2 QM9700",
            "quantity": 16,
            "on_order": 0,
            "in_stock": 0,
            "shipped": 16,
            "delivered": 0,
            "outstanding": 0,
            "surplus": 0,
            "shares_part": False,
        },
        {
            "line": 303,
            "role": "compute_node_optic",
            "role_label": "Compute transceiver, node side",
            "part": 47,
            "part_number": "MMA4Z00-NS",
            "part_name": "NVIDIA OSFP 800G 2xSR4 transceiver",
            "quantity": 100,
            "on_order": 30,
            "in_stock": 31,
            "shipped": 0,
            "delivered": 0,
            "outstanding": 39,
            "surplus": 0,
            "shares_part": False,
        },
    ],
    "totals": {
        "quantity": 180,
        "on_order": 43,
        "in_stock": 33,
        "shipped": 36,
        "delivered": 30,
        "outstanding": 39,
        "lines_waiting": 3,
        "lines_uncovered": 1,
    },
    "shipments": [
        _shipment(118, "draft", "Draft", "on_order"),
        _shipment(119, "on_hold", "On hold", "on_order"),
        _shipment(120, "in_transit", "In transit", "shipped"),
        _shipment(121, "delivered", "Delivered", "delivered"),
    ],
    "hidden_shipments": 1,
    "installed_note": "Installation is not recorded in Rackpass yet, so there is no installed column.",
}
COVERAGE_EXAMPLES = [example("The newest bill of materials", COVERAGE)]

_PLAN_SERVERS = {
    "bom_line": 301,
    "description": "NVIDIA DGX H100 (System)",
    "quantity": 4,
    "value": "1200000.00",
    "currency": "USD",
    "gross_kg": "520.000",
    "country_of_origin": "TW",
    "supplier": "NVIDIA",
    "why": "air: light, high-value hardware (130 kg a unit, server)",
}
_PLAN_LEAVES = {
    "bom_line": 302,
    "description": "NVIDIA Quantum-2 QM9700 (Compute leaf switch)",
    "quantity": 4,
    "value": "120000.00",
    "currency": "USD",
    "gross_kg": "60.000",
    "country_of_origin": "MX",
    "supplier": "NVIDIA",
    "why": "air: light, high-value hardware (15 kg a unit, network switch)",
}
_PLAN_RACKS = {
    "bom_line": 303,
    "description": "Schneider Electric NetShelter SX 48U (Rack)",
    "quantity": 2,
    "value": "6000.00",
    "currency": "USD",
    "gross_kg": "340.000",
    "country_of_origin": "US",
    "supplier": "Schneider Electric",
    "why": "ocean: rack, bulky or low value for its weight; the fastest sea route (32 days) arrives "
    "2027-01-05, by the required 2027-03-04",
}


_LEG_FIELDS = (
    "role", "origin_country", "destination_country", "supplier", "mode", "cost", "currency", "service",
    "departure", "arrival", "bom_lines",
)  # fmt: skip


def _legs(*rows: tuple) -> list[dict]:
    return [dict(zip(_LEG_FIELDS, row, strict=True)) for row in rows]


# role, from, to, supplier, mode, cost, currency, service, departure, arrival, BOM lines
_AIR_LEGS = _legs(
    ("inbound", "TW", "SG", "NVIDIA", "air", "1092.00", "USD", "Air general cargo (TWSG Air)",
     "2026-12-04", "2026-12-07", [301]),
    ("inbound", "MX", "SG", "NVIDIA", "air", "348.00", "USD", "Air general cargo (MXSG Air)",
     "2026-12-04", "2026-12-10", [302]),
    ("main", "SG", "IN", "", "air", "1102.00", "USD", "Air general cargo (SGIN Air)",
     "2026-12-10", "2026-12-12", [301, 302]),
)  # fmt: skip
_OCEAN_LEGS = _legs(
    ("direct", "US", "IN", "Schneider Electric", "ocean", "291.60", "USD", "Ocean LCL (USIN Lines)",
     "2026-12-04", "2027-01-05", [303]),
)  # fmt: skip
_AIR_VIA_SG = {
    "key": "air-via-sg",
    "kind": "consolidated",
    "mode": "air",
    "origin_countries": ["MX", "TW"],
    "suppliers": ["NVIDIA"],
    "destination_country": "IN",
    "hub": "Bonded Hub Singapore",
    "lines": [_PLAN_SERVERS, _PLAN_LEAVES],
    "legs": _AIR_LEGS,
    "goods_value": {"USD": "1320000.00"},
    "gross_kg": "580.000",
    "cost": "2646.40",
    "currency": "USD",
    "arrival": "2026-12-12",
    "on_time": True,
    "reasons": [
        "Consolidated at Bonded Hub Singapore (SG): the air goods come from 2 countries (MX, TW); inbound "
        "legs meet there and one air main carriage takes them to the site (SG → IN): one import clearance "
        "instead of 2",
        "Priced leg by leg: 2,646.40 USD with the hub's handling, arriving 2026-12-12 (in time)",
    ],
    "missing": [],
    "priced": True,
}
_OCEAN_US = {
    "key": "ocean-us-schneider-electric",
    "kind": "direct",
    "mode": "ocean",
    "origin_countries": ["US"],
    "suppliers": ["Schneider Electric"],
    "destination_country": "IN",
    "hub": "",
    "lines": [_PLAN_RACKS],
    "legs": _OCEAN_LEGS,
    "goods_value": {"USD": "6000.00"},
    "gross_kg": "340.000",
    "cost": "291.60",
    "currency": "USD",
    "arrival": "2027-01-05",
    "on_time": True,
    "reasons": [
        "Schneider Electric's goods from US, ocean straight to the site (US → IN)",
        "Priced Ocean LCL (USIN Lines): 291.60 USD, 32 days, arriving 2027-01-05 (the cheapest arriving by "
        "2027-03-04)",
    ],
    "missing": [],
    "priced": True,
}
# The freight engine's working quotes the operator's rate card: operator staff only.
_AIR_VIA_SG_WORKING = [
    "NVIDIA from TW (TW → SG): cheapest option arriving by 2027-03-02 (the fastest main carriage then takes "
    "2 days): Air general cargo (TWSG Air), 1,092.00 USD, arrives 2026-12-07",
    "NVIDIA from MX (MX → SG): cheapest option arriving by 2027-03-02 (the fastest main carriage then takes "
    "2 days): Air general cargo (MXSG Air), 348.00 USD, arrives 2026-12-10",
    "Main carriage from Bonded Hub Singapore (SG → IN): cheapest option arriving by 2027-03-04 (the required "
    "date): Air general cargo (SGIN Air), 1,102.00 USD, arrives 2026-12-12",
    "Hub handling at Bonded Hub Singapore: 580 kg gross × 0.18 USD/kg, at least 95.00 = 104.40 USD.",
    "Route total: 1,092.00 + 348.00 + 1,102.00 + 104.40 hub handling = 2,646.40 USD, arriving 2026-12-12 "
    "(on time)",
    "NVIDIA from TW (TW → SG): 520 kg chargeable × 2.10 USD/kg = 1,092.00 USD",
    "NVIDIA from MX (MX → SG): 60 kg chargeable × 5.80 USD/kg = 348.00 USD",
    "Main carriage from Bonded Hub Singapore (SG → IN): 580 kg chargeable × 1.90 USD/kg = 1,102.00 USD",
]
_OCEAN_US_WORKING = [
    "2.25 m tall piece 'BOM line 303' needs a 40' high cube (door 2.58 m; standard doors are 2.27 m, and "
    "5 cm clearance is kept)",
    "FCL not offered: no container prices",
    "LCL (weight or measure): greater of 3.24 m³ × 90.00 = 291.60, 0.34 t × 60.00 = 20.40, minimum 200.00 "
    "→ 291.60",
    "Ocean LCL: 291.60 USD",
]
PLAN = {
    "design": 3,
    "bom_version": 1,
    "proposals": [_AIR_VIA_SG, _OCEAN_US],
    "ready_date": "2026-12-04",
    "required_by": "2027-03-04",
    "freight_by_currency": {"USD": "2938.00"},
    "unpriced": [],
    "reasons": [],
}
PLAN_FOR_STAFF = {
    **PLAN,
    "proposals": [
        {**_AIR_VIA_SG, "breakdown": _AIR_VIA_SG_WORKING},
        {**_OCEAN_US, "breakdown": _OCEAN_US_WORKING},
    ],
}
_MISSING_RATE = "no air rate for lane TW → IN valid on 2026-12-04: add one in the rate table"
PLAN_UNPRICED = {
    "design": 3,
    "bom_version": 2,
    "proposals": [
        {
            "key": "air-tw-nvidia",
            "kind": "direct",
            "mode": "air",
            "origin_countries": ["TW"],
            "suppliers": ["NVIDIA"],
            "destination_country": "IN",
            "hub": "",
            "lines": [_PLAN_SERVERS],
            "legs": _legs(("direct", "TW", "IN", "NVIDIA", "air", None, "", "", None, None, [301])),
            "goods_value": {"USD": "1200000.00"},
            "gross_kg": "520.000",
            "cost": None,
            "currency": "",
            "arrival": None,
            "on_time": None,
            "reasons": [
                "NVIDIA's goods from TW, air straight to the site (TW → IN): no consolidation hub",
                f"Not priced: {_MISSING_RATE}",
            ],
            "missing": [_MISSING_RATE],
            "priced": False,
        }
    ],
    "ready_date": "2026-12-04",
    "required_by": "2027-03-01",
    "freight_by_currency": {},
    "unpriced": ["air-tw-nvidia"],
    "reasons": ["1 of 1 proposals are not priced (no rate on their lane): the freight total leaves them out"],
}
PLAN_EXAMPLES = [
    example("As operator staff read it (with the freight working)", PLAN_FOR_STAFF),
    example("As the owner or the customer reads it (totals and reasons)", PLAN),
    example("No rate prices a lane", PLAN_UNPRICED),
]
PLAN_CREATE_EXAMPLES = [
    example("One proposal", {"proposals": ["air-via-sg"]}, request=True),
    example("Every proposal of version 2, again", {"bom": 2, "again": True}, request=True),
    example(
        "Made",
        {
            "shipments": [
                {
                    "reference": "SHP-2026-000131",
                    "url": "/shipments/SHP-2026-000131/",
                    "mode": "air",
                    "lines": 2,
                    "legs": 3,
                }
            ]
        },
        status=201,
    ),
]

_OWN = ("1420248.00", "1443210.48", "1466172.96", "1489135.44", "1512097.92", "1535060.40", "1558022.88")
_RENT = ("0.00", "747520.00", "1495040.00", "2242560.00", "2990080.00", "3737600.00", "4485120.00")
OWN_OR_RENT = {
    "bom_version": 1,
    "currency": "USD",
    "months": 6,
    "hardware_landed": "1420248.00",
    "landed_cost": {
        "goods": "1200000.00",
        "freight": "0.00",
        "insurance": "3600.00",
        "duty": "0.00",
        "levies": "0.00",
        "vat": "216648.00",
        "brokerage": "0.00",
        "handling": "0.00",
        "total": "1420248.00",
        "complete": True,
        "explanation": [
            "Insurance (estimated) = 0.3 % × (1,200,000.00 goods + 0.00 freight) = 3,600.00 USD",
            "Customs value (CIF) = 1,200,000.00 goods + 0.00 freight + 3,600.00 insurance = 1,203,600.00 USD",
            "Duty on HS 847150 (DGX H100) = 1,203,600.00 (1,200,000.00 goods + 3,600.00 freight and "
            "insurance) × 0 % (tariff 8471) = 0.00 USD",
            "Levy on duty = 10 % × 0.00 duty = 0.00 USD",
            "Import VAT/GST = 18 % × (1,203,600.00 customs value + 0.00 duty + 0.00 levies = 1,203,600.00) "
            "= 216,648.00 USD",
            "Total landed = 1,200,000.00 goods + 0.00 freight + 3,600.00 insurance + 0.00 duty + 0.00 levies "
            "+ 216,648.00 VAT/GST + 0.00 brokerage + 0.00 handling = 1,420,248.00 USD",
            "Duty and import taxes are paid by the buyer under DAP (Delivered at Place)",
        ],
    },
    "it_kw": "100.0",
    "power_per_month": "8760.00",
    "support_per_month": "14202.48",
    "own_running_per_month": "22962.48",
    "gpu_hours_per_month": "373760",
    "rent_per_month": "747520.00",
    "break_even_month": 2,
    "break_even_beyond": None,
    "verdict": "Owning breaks even in month 2: by then renting has cost 1,495,040.00 USD against "
    "1,466,172.96 USD owned.",
    "explanation": [
        "Hardware at landed cost, paid in month 0: 1,420,248.00 USD",
        "Power a month = 100 kW IT × 1.2 PUE × 730 h = 87,600 kWh × 0.10 USD/kWh = 8,760.00 USD",
        "Support a month = 1,420,248.00 × 12 % a year / 12 = 14,202.48 USD",
        "Owning costs 22,962.48 USD a month to run",
        "Renting a month = 512 GPUs × 730 h × 100 % utilisation = 373,760 GPU-hours × 2 USD = 747,520.00 USD",
        "Owning breaks even in month 2: by then renting has cost 1,495,040.00 USD against 1,466,172.96 USD "
        "owned.",
    ],
    "notes": [
        "Freight not counted: 1 of the shipment plan's proposals has no rate (air-tw-nvidia), so the landed "
        "cost is goods, insurance, duty and taxes only.",
        "Electricity 8.45 INR/kWh at 1 USD = 84.5 INR (2026-11-01) = 0.1 USD/kWh.",
    ],
    "points": [
        {"month": m, "own": own, "rent": rent} for m, (own, rent) in enumerate(zip(_OWN, _RENT, strict=True))
    ],
}
OWN_OR_RENT_EXAMPLES = [example("2 USD a GPU-hour, 12 % support, 6 months", OWN_OR_RENT)]
