"""Tags, summaries and examples of the documents API in the OpenAPI schema (`/api/docs/`)."""

from apps.core.api_docs import documented, example

DOCUMENTS = "Documents"

DOCUMENT = {
    "id": 301,
    "shipment": "SHP-2026-000123",
    "doc_type": "commercial_invoice",
    "number": "CI-2026-000123",
    "version": 1,
    "status": "issued",
    "watermark": "",
    "sha256": "9be29cc6f68f889274eba7dbe76762ad5fc510623319d97decf3b2d10482c927",
    "size": 22004,
    "page_count": 2,
    "created_at": "2026-12-01T10:14:09Z",
    "issued_at": "2026-12-01T10:20:31Z",
    "voided_at": None,
    "void_reason": "",
    "download_url": "/api/v1/documents/301/download/",
}
VOID = {"reason": "Consignee address corrected; replaced by version 2."}
REQUIRED = {
    "required": [
        {
            "doc_type": "commercial_invoice",
            "why": "Every international shipment is declared on a commercial invoice.",
            "issued": True,
            "problems": [],
        },
        {
            "doc_type": "end_user_statement",
            "why": "Lines need a licence or are advanced-computing items (3A090/4A090): collect the end "
            "user's statement.",
            "issued": False,
            "problems": [],
        },
    ],
    "not_required": [
        {
            "doc_type": "certificate_of_origin",
            "why": "Customs in India do not usually ask for one on IT hardware.",
        }
    ],
}
GENERATION_STARTED = {
    "task_id": "0c5f3e0b-8d1e-4a8e-b0e9-6a0e4b1f2d7c",
    "status_url": "/api/v1/tasks/0c5f3e0b-8d1e-4a8e-b0e9-6a0e4b1f2d7c/",
}

document_docs = documented(
    DOCUMENTS,
    "document",
    "documents",
    read=DOCUMENT,
    download={"summary": "Download a document's PDF (checked against its SHA-256)"},
    issue={
        "summary": "Issue a document (its bytes become final)",
        "examples": [example("Issued", DOCUMENT)],
    },
    void={
        "summary": "Void a document",
        "examples": [
            example("Why", VOID, request=True),
            example(
                "Voided",
                {**DOCUMENT, "status": "void", "watermark": "VOID", "voided_at": "2026-12-02T08:00:00Z"}
                | {"void_reason": VOID["reason"]},
            ),
        ],
    },
)
shipment_documents_docs = documented(
    DOCUMENTS,
    get=({"summary": "The documents a shipment needs, and why", "examples": [example("To India", REQUIRED)]}),
    post={
        "summary": "Generate a shipment's documents in the background",
        "examples": [
            example("Every required document not issued yet", {}, request=True),
            example("Some", {"doc_types": ["commercial_invoice", "packing_list"]}, request=True),
            example("Started", GENERATION_STARTED, status=202),
        ],
    },
)
bundle_docs = documented(
    DOCUMENTS, get={"summary": "Download a shipment's issued documents as one ZIP or merged PDF"}
)
