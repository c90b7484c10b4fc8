"""Tags, summaries and examples of the compliance API in the OpenAPI schema (`/api/docs/`)."""

from apps.core.api_docs import documented, example

CLASSIFICATION = "Classification"
LICENCES = "Licences"
SCREENING = "Screening"
CHECKS = "Compliance checks"
TASKS = "Tasks"

_REASONING = [
    "accelerator: dense 8-bit 1,979 TOPS × 8 = 15,832 [15 CFR 774 Supp. 1, 3A090 Technical Notes]: "
    "TPP = 2 × MacTOPS × bit length, dense",
    "accelerator: TPP 15,832 ≥ 4,800 → 3A090.a (PD not needed) [15 CFR 774 Supp. 1, ECCN 3A090.a.1]",
    "contains NVIDIA H100 SXM5 × 8 meeting 3A090.a → 4A090.a [15 CFR 774 Supp. 1, ECCN 4A090.a]",
]
CLASSIFICATION_ROW = {
    "id": 64,
    "part": 42,
    "part_number": "D74H-7U-HGX-H100",
    "eccn": "4A090.a",
    "is_complete": True,
    "needs_confirmation": False,
    "source": "engine",
    "reasoning": _REASONING,
    "figures_used": {
        "category": "server",
        "accelerator_count": "8",
        "accelerator": "NVIDIA H100 SXM5",
        "accelerator.tpp": "15,832",
    },
    "missing": [],
    "rule_version": "ccl-2026-07-23.1",
    "override_reason": "",
    "is_current": True,
    "created_by": "compliance",
    "created_at": "2026-11-20T10:02:11Z",
}
OVERRIDE = {
    "part": 57,
    "eccn": "5A992.c",
    "reason": "Mass-market encryption per the manufacturer's CCATS G178542; classification request on file.",
}

DETERMINATION_REQUEST = {
    "eccn": "4A090.a",
    "destination": "SA",
    "end_user_name": "Riyadh AI Campus",
    "end_user_country": "SA",
    "end_use_flags": [],
    "data_centre": True,
}
DETERMINATION = {
    "outcome": "licence_required",
    "exception": None,
    "exception_code": None,
    "conditions": [],
    "rules": [
        {
            "code": "EAR 742.6(a)(6)",
            "text": "3A090/4A090/.z item: licence required because Saudi Arabia (SA) is in D:4 and not "
            "in A:5/A:6",
            "effect": "licence_required",
        },
        {
            "code": "LE ACA 740.8",
            "text": "ACA (C68) not available: data-centre 3A090.a-level item",
            "effect": "note",
        },
    ],
    "eccn": "4A090.a",
    "destination": "SA",
    "rule_version": "ear-2026-07-23.1",
}
COUNTRY = {
    "country": "IN",
    "name": "India",
    "as_of": "2026-07-23",
    "groups": ["A:1", "A:2", "A:3", "A:5", "B"],
    "chart_marks": ["CB 1", "MT 1", "NP 1", "NS 1", "RS 1"],
    "embargoed": False,
}

LICENCE_WRITE = {
    "number": "D1234567",
    "issuing_authority": "US Department of Commerce, BIS",
    "eccns": "4A090.a",
    "destination_countries": "SA",
    "licensee": 1,
    "consignee": 12,
    "end_user": 12,
    "permitted_quantity": 16,
    "permitted_value": "6400000.00",
    "currency": "USD",
    "valid_from": "2026-06-01",
    "expires_on": "2030-05-31",
    "conditions": "No re-export or transfer without prior BIS authorisation.",
}
LICENCE = {
    "id": 3,
    **LICENCE_WRITE,
    "remaining_quantity": 12,
    "remaining_value": "4800000.00",
    "is_expired": False,
}
DRAWDOWNS = {
    "results": [
        {
            "shipment": "SHP-2026-000104",
            "line_number": 1,
            "quantity": 4,
            "value": "1600000.00",
            "created_at": "2026-11-12T08:20:00Z",
            "released_at": None,
            "released_reason": "",
        }
    ]
}

SCREENING_LIST = {
    "id": 2,
    "name": "CSL",
    "source_format": "csl_json",
    "version": "2026-11-28",
    "published": "2026-11-28",
    "entry_count": 12744,
    "is_active": True,
    "imported_at": "2026-11-29T06:00:12Z",
}
HIT = {
    "id": 19,
    "organisation": None,
    "organisation_id": None,
    "list_entry_id": "el-7f3a21",
    "query_name": "Zhonghai Front Trading",
    "matched_name": "ZHONGHAI FRONT TRADING LIMITED",
    "score": "0.9412",
    "country_match": None,
    "reasons": ["name score 0.94"],
    "status": "open",
    "entry_name": "ZHONGHAI FRONT TRADING LIMITED",
    "entry_source": "Entity List (EL) - Bureau of Industry and Security",
    "entry_countries": ["HK"],
    "entry_programs": [],
    "license_requirement": "For all items subject to the EAR.",
    "decision_reason": "",
    "decided_at": None,
    "created_at": "2026-11-30T09:41:02Z",
}
SCREENING_ROW = {
    "id": 88,
    "names": ["Zhonghai Front Trading"],
    "country": "HK",
    "threshold": "0.800",
    "list_versions": ["CSL 2026-11-28"],
    "hit_count": 1,
    "open_hit_count": 1,
    "trigger": "ad_hoc",
    "created_at": "2026-11-30T09:41:02Z",
    "hits": [HIT],
    "note": "Screening compares names only: it does not cover entities owned 50 % or more by listed "
    "parties (the affiliates rule). Check ownership separately.",
}
QUEUE_HIT = {
    **HIT,
    "organisation": "Zhonghai Front Trading Ltd.",
    "organisation_id": 23,
    "country_match": True,
    "reasons": ["name score 0.94", "country HK matches"],
    "shipments": [
        {
            "reference": "SHP-2026-000131",
            "status": "compliance_review",
            "roles": ["notify_party"],
            "url": "https://rackpass.example.com/api/v1/shipments/SHP-2026-000131/",
        }
    ],
}
PARTY_BLOCK = {
    "id": 5,
    "organisation": 23,
    "organisation_name": "Zhonghai Front Trading Ltd.",
    "list_kind": "entity_list",
    "list_kind_label": "Entity List",
    "reason": "Same name, address and country as the listed entry.",
    "since": "2026-11-30T10:05:00Z",
    "hit": 19,
    "list_entry_id": "el-7f3a21",
    "entry_name": "ZHONGHAI FRONT TRADING LIMITED",
    "entry_source": "Entity List (EL) - Bureau of Industry and Security",
    "is_active": True,
    "lift_requested_by": None,
    "lift_requested_at": None,
    "lift_reason": "",
    "lifted_by": None,
    "lifted_at": None,
    "needs_second_officer": True,
}
HOLD_REASON = {
    "id": 41,
    "kind": "licence",
    "text": "Line 1 (4A090.a) to SA: licence required under EAR 742.6(a)(6); no licence held covers it.",
    "line": 1,
    "organisation": None,
    "hit": None,
    "resolved_by": None,
    "resolved_at": None,
    "resolved_via": "",
    "resolution": "",
}
COMPLIANCE_CHECK = {
    "id": 77,
    "shipment": "SHP-2026-000131",
    "shipment_version": "9f7c0c55c6566ed97da0780068328a247318a805a6f2711149ceb6b75d888699",
    "current": True,
    "stale_since": None,
    "stale_reason": "",
    "result": "hold",
    "summary": "Hold: 1 reason to resolve.",
    "rule_versions": {"classification": "ccl-2026-07-23.1", "determination": "ear-2026-07-23.1"},
    "list_versions": ["CSL 2026-11-28"],
    "task_id": "5b0d6a0e-2f57-4f7e-9a43-3b8f4b8e0c1d",
    "started_at": "2026-11-30T09:40:58Z",
    "finished_at": "2026-11-30T09:41:03Z",
    "line_results": [
        {
            "line_number": 1,
            "eccn": "4A090.a",
            "classification_source": "engine",
            "outcome": "licence_required",
            "licence_exception": "",
            "licence": None,
            "rules": DETERMINATION["rules"][:1],
            "result": "hold",
            "reasons": [DETERMINATION["rules"][0]["text"]],
        }
    ],
    "party_results": [
        {
            "role": "consignee",
            "organisation": "Riyadh AI Campus LLC",
            "result": "pass",
            "reasons": ["No match at threshold 0.80 against CSL 2026-11-28."],
            "screening": 87,
        }
    ],
    "hold_reasons": [HOLD_REASON],
}
TASK_STARTED = {
    "task_id": "5b0d6a0e-2f57-4f7e-9a43-3b8f4b8e0c1d",
    "status_url": "/api/v1/tasks/5b0d6a0e-2f57-4f7e-9a43-3b8f4b8e0c1d/",
}
TASK = {
    "task_id": TASK_STARTED["task_id"],
    "kind": "compliance check",
    "object": "SHP-2026-000131",
    "object_url": "/shipments/SHP-2026-000131/",
    "state": "PROGRESS",
    "message": "Running: screening the parties.",
    "owed": False,
    "stale": False,
    "percent": 60,
    "step": "Screening parties",
    "result": None,
    "error": None,
}

classification_docs = documented(
    CLASSIFICATION,
    "classification",
    "part classifications (ECCN)",
    read=CLASSIFICATION_ROW,
    create={
        "summary": "Override a part's ECCN (compliance officers)",
        "examples": [
            example("An officer's ECCN", OVERRIDE, request=True),
            example(
                "The new current classification",
                {
                    **CLASSIFICATION_ROW,
                    "part": 57,
                    "eccn": "5A992.c",
                    "source": "officer",
                    "override_reason": OVERRIDE["reason"],
                },
                status=201,
            ),
        ],
    },
    run={
        "summary": "Classify a part now with the classification engine",
        "examples": [
            example("A part", {"part": 42}, request=True),
            example("Its classification", CLASSIFICATION_ROW),
        ],
    },
)
determination_docs = documented(
    CLASSIFICATION,
    post={
        "summary": "Licence determination for an ECCN, destination, end user and end use",
        "examples": [
            example("HGX servers to Saudi Arabia", DETERMINATION_REQUEST, request=True),
            example("Licence required", DETERMINATION),
        ],
    },
)
country_docs = documented(
    CLASSIFICATION,
    get={
        "summary": "EAR country groups and chart marks of a country",
        "examples": [example("India", COUNTRY)],
    },
)
licence_docs = documented(
    LICENCES,
    "licence",
    "licences",
    read=LICENCE,
    write=LICENCE_WRITE,
    patch={"expires_on": "2030-11-30", "conditions": LICENCE_WRITE["conditions"]},
    drawdowns={
        "summary": "What a licence was drawn down by",
        "examples": [example("One drawdown", DRAWDOWNS)],
    },
)
screening_list_docs = documented(
    SCREENING,
    "screening list edition",
    "imported screening list editions",
    read=SCREENING_LIST,
    create={
        "summary": "Import a screening list edition (multipart file upload)",
        "examples": [example("The imported edition", SCREENING_LIST, status=201)],
    },
)
screening_docs = documented(
    SCREENING,
    "screening",
    "your organisation's screenings",
    read=SCREENING_ROW,
    create={
        "summary": "Screen a name ad hoc against the active lists",
        "examples": [
            example(
                "A prospective partner",
                {"name": "Zhonghai Front Trading", "aliases": [], "country": "HK", "threshold": "0.80"},
                request=True,
            ),
            example("One possible match", SCREENING_ROW, status=201),
        ],
    },
)
_DECISION = {"reason": "Different address and registration number; not the listed entity."}
screening_hit_docs = documented(
    SCREENING,
    "screening hit",
    "screening hits awaiting review",
    read=QUEUE_HIT,
    clear={
        "summary": "Ask to clear a hit as a false positive (a second compliance officer approves it)",
        "examples": [
            example("Why it is not a match", _DECISION, request=True),
            example("Awaiting a second officer", {**QUEUE_HIT, "status": "open"}, status=202),
            example(
                "The cleared hit (four eyes off)",
                {**QUEUE_HIT, "status": "cleared", "decision_reason": _DECISION["reason"]},
            ),
        ],
    },
    confirm={
        "summary": "Confirm a hit as a true match (blocks the party)",
        "examples": [
            example("Why it is a match", {"reason": PARTY_BLOCK["reason"]}, request=True),
            example(
                "The confirmed hit",
                {**QUEUE_HIT, "status": "confirmed", "decision_reason": PARTY_BLOCK["reason"]},
            ),
        ],
    },
)
_LIFT = {"reason": "The listed entry was removed from the Entity List on 2026-12-01 (90 FR 51234)."}
_LIFT_REQUESTED = {
    **PARTY_BLOCK,
    "lift_requested_by": "compliance",
    "lift_requested_at": "2026-12-02T08:00:00Z",
    "lift_reason": _LIFT["reason"],
}
party_block_docs = documented(
    SCREENING,
    "party block",
    "blocked parties",
    read=PARTY_BLOCK,
    request_lift={
        "summary": "Request to lift a block (reverses the confirmed match)",
        "examples": [example("Why", _LIFT, request=True), example("Lift requested", _LIFT_REQUESTED)],
    },
    approve_lift={
        "summary": "Approve another officer's lift request",
        "examples": [
            example(
                "Lifted",
                {
                    **_LIFT_REQUESTED,
                    "is_active": False,
                    "lifted_by": "compliance2",
                    "lifted_at": "2026-12-02T09:30:00Z",
                },
            )
        ],
    },
    withdraw_lift={
        "summary": "Withdraw or refuse a lift request",
        "examples": [
            example("Why not", {"reason": "The removal notice names another address."}, request=True),
            example("The block stays", PARTY_BLOCK),
        ],
    },
)
compliance_check_docs = documented(CHECKS, "compliance check", "compliance checks", read=COMPLIANCE_CHECK)
compliance_check_start_docs = documented(
    CHECKS,
    post={
        "summary": "Start (or re-run) a shipment's compliance check",
        "examples": [example("Started", TASK_STARTED, status=202)],
    },
)
hold_reason_docs = documented(
    CHECKS,
    "hold reason",
    "hold reasons",
    read=HOLD_REASON,
    resolve={
        "summary": "Resolve a hold reason",
        "examples": [
            example("A licence held", {"resolution": "", "licence_number": "D1234567"}, request=True),
            example(
                "Resolved",
                {
                    **HOLD_REASON,
                    "resolved_by": "compliance",
                    "resolved_at": "2026-11-30T11:00:00Z",
                    "resolved_via": "licence",
                    "resolution": "Licence D1234567 covers it.",
                },
            ),
        ],
    },
)
APPROVAL = {
    "id": 12,
    "kind": "classification_override",
    "kind_label": "Classification override",
    "status": "pending",
    "status_label": "Awaiting second officer",
    "subject": "Supermicro SYS-821GE-TNHR: 4A090.a → EAR99",
    "reason": "The vendor's letter of 2026-11-28 classifies the chassis without GPUs as EAR99.",
    "requested_by": "compliance",
    "requested_at": "2026-12-02T08:00:00Z",
    "decided_by": None,
    "decided_at": None,
    "decision_note": "",
    "four_eyes_note": "",
    "part": 57,
    "part_number": "SYS-821GE-TNHR",
    "eccn_before": "4A090.a",
    "eccn": "EAR99",
    "control_change": "4A090.a (a controlled entry (x0xx–x8xx, 600 series, .z paragraph)) → EAR99 "
    "(EAR99: on no CCL entry) lowers control",
    "hold_reason": None,
    "shipment": None,
    "block": None,
    "four_eyes": None,
    "classification": None,
    "hit": None,
}
approval_docs = documented(
    "Four eyes",
    "four-eyes request",
    "four-eyes requests",
    read=APPROVAL,
    create={
        "summary": "Ask for a four-eyes decision (a second compliance officer approves it)",
        "examples": [
            example(
                "Override a server to EAR99",
                {
                    "kind": "classification_override",
                    "part": 57,
                    "eccn": "EAR99",
                    "reason": APPROVAL["reason"],
                },
                request=True,
            ),
            example(
                "Release a compliance hold",
                {
                    "kind": "hold_release",
                    "shipment": "SHP-2026-000123",
                    "reason": "Licence D1234567 granted.",
                },
                request=True,
            ),
            example(
                "Clear a possible match",
                {
                    "kind": "hit_clearance",
                    "hit": 4031,
                    "reason": "Indian start-up, different CIN; no link to the listed entity.",
                },
                request=True,
            ),
            example(
                "Switch four eyes off",
                {"kind": "policy_change", "four_eyes": False, "reason": "Audit week: one officer on duty."},
                request=True,
            ),
            example("Awaiting second officer", APPROVAL, status=201),
        ],
    },
    approve={
        "summary": "Approve another officer's request (it takes effect now)",
        "examples": [
            example(
                "Approved",
                {
                    **APPROVAL,
                    "status": "approved",
                    "status_label": "Approved by a second officer",
                    "decided_by": "compliance2",
                    "decided_at": "2026-12-02T09:30:00Z",
                    "classification": 311,
                },
            )
        ],
    },
    reject={
        "summary": "Reject another officer's request, saying why",
        "examples": [
            example("Why not", {"reason": "The letter covers another configuration."}, request=True)
        ],
    },
    withdraw={
        "summary": "Withdraw your own request",
        "examples": [
            example(
                "Withdrawn",
                {
                    **APPROVAL,
                    "status": "withdrawn",
                    "status_label": "Withdrawn",
                    "decided_by": "compliance",
                    "decided_at": "2026-12-02T08:20:00Z",
                    "decision_note": "Withdrawn by the officer who asked.",
                },
            )
        ],
    },
)
task_docs = documented(
    TASKS,
    get={"summary": "State and progress of a background task", "examples": [example("Running", TASK)]},
)
