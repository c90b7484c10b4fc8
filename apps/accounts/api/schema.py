"""Tags, summaries and examples of the accounts API in the OpenAPI schema (`/api/docs/`)."""

from apps.core.api_docs import documented, example

ACCOUNT = "Account"
ORGANISATIONS = "Organisations"

CONTACT = {
    "id": 12,
    "organisation": 7,
    "name": "Mei-Ling Chen",
    "job_title": "Export Compliance Manager",
    "email": "mei-ling.chen@qct.example.com",
    "phone": "+886 3 286 5000",
    "is_primary": True,
    "is_signatory": True,
}
CONTACT_WRITE = {k: v for k, v in CONTACT.items() if k != "id"}

REGISTRATION = {
    "id": 31,
    "organisation": 9,
    "scheme": "gstin",
    "number": "33AAKCC5521M1Z2",
    "country": "IN",
    "valid_until": None,
    "is_expired": False,
}
REGISTRATION_WRITE = {k: v for k, v in REGISTRATION.items() if k not in ("id", "is_expired")}

ORGANISATION_WRITE = {
    "kind": "supplier",
    "legal_name": "Quanta Cloud Technology Inc.",
    "trading_name": "QCT",
    "address_line1": "No. 211, Wenhua 2nd Rd., Guishan Dist.",
    "address_line2": "",
    "city": "Taoyuan City",
    "region": "",
    "postal_code": "33377",
    "country": "TW",
    "website": "https://www.qct.io",
    "notes": "",
    "is_active": True,
}
ORGANISATION = {
    "id": 7,
    **ORGANISATION_WRITE,
    "compliance_four_eyes": True,
    "four_eyes_note": "",
    "is_blocked": False,
    "blocks": [],
    "registrations": [],
    "contacts": [CONTACT],
    "created_at": "2026-10-02T08:30:00Z",
    "updated_at": "2026-11-18T14:05:12Z",
}

CONNECTION = {
    "id": 4,
    "organisation_a": 7,
    "organisation_a_name": "Quanta Cloud Technology Inc.",
    "organisation_b": 9,
    "organisation_b_name": "Chennai AI Compute Pvt. Ltd.",
    "note": "QCT supplies the Chennai cluster's HGX servers.",
    "created_by": "Priya Raman",
    "created_at": "2026-10-05T10:12:00Z",
}

TOKEN = {
    "id": 3,
    "name": "ERP integration",
    "key_prefix": "rp_7Hq2xK",
    "created_at": "2026-11-02T09:00:00Z",
    "expires_at": "2027-11-02T00:00:00Z",
    "last_used_at": "2026-11-30T17:41:09Z",
    "revoked_at": None,
    "status": "active",
}

ME = {
    "id": 15,
    "username": "supplier",
    "first_name": "Mei-Ling",
    "last_name": "Chen",
    "email": "mei-ling.chen@qct.example.com",
    "organisation": "Quanta Cloud Technology Inc.",
    "role": "partner",
}

organisation_docs = documented(
    ORGANISATIONS,
    "organisation",
    "organisations",
    read=ORGANISATION,
    write=ORGANISATION_WRITE,
    patch={"trading_name": "QCT", "website": "https://www.qct.io"},
)
registration_docs = documented(
    ORGANISATIONS,
    "registration",
    "registrations (IEC, GSTIN, EORI, VAT …)",
    read=REGISTRATION,
    write=REGISTRATION_WRITE,
)
contact_docs = documented(
    ORGANISATIONS,
    "contact",
    "contacts",
    read=CONTACT,
    write=CONTACT_WRITE,
    patch={"phone": "+886 3 286 5001", "is_signatory": True},
)
connection_docs = documented(
    ORGANISATIONS,
    "connection",
    "connections between organisations",
    read=CONNECTION,
    create={
        "summary": "Connect two organisations",
        "examples": [
            example(
                "Supplier and customer",
                {"organisation_a": 7, "organisation_b": 9, "note": CONNECTION["note"]},
                request=True,
            ),
            example("The connection", CONNECTION),
        ],
    },
)
token_docs = documented(
    ACCOUNT,
    "API token",
    "your API tokens",
    read=TOKEN,
    create={
        "summary": "Create an API token (its key is shown once)",
        "examples": [
            example(
                "A token for a year",
                {"name": "ERP integration", "expires_at": "2027-11-02T00:00:00Z"},
                request=True,
            ),
            example(
                "The token and its key",
                {**TOKEN, "last_used_at": None, "key": "rp_7Hq2xKc9Zb1mT4vQe8LwYp2NsRj6FdUa0GhXo3Ki5Bw"},
                status=201,
            ),
        ],
    },
    destroy={"summary": "Revoke an API token"},
)
me_docs = documented(
    ACCOUNT,
    get={"summary": "Who you are: user, organisation and role", "examples": [example("A partner", ME)]},
)
