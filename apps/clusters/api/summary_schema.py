"""Examples of the compliance-summary and coverage endpoints in the OpenAPI schema (`/api/docs/`):
values as the endpoints answered them for a worked design (tests/clusters/), with the catalogue's
part numbers. The views (`api/summary.py`) take their `examples=` from here."""

from apps.core.api_docs import example

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
