"""Demo organisations and one user per role (`manage.py load_demo`). Safe to run again."""

from __future__ import annotations

from .models import Connection, Contact, Organisation, OrganisationKind, Registration, User
from .roles import Role

ORGANISATIONS = [
    {
        "kind": OrganisationKind.OPERATOR,
        "legal_name": "Rackpass Technologies Inc.",
        "address_line1": "2100 Geng Road, Suite 210",
        "city": "Palo Alto",
        "region": "CA",
        "postal_code": "94303",
        "country": "US",
        "registrations": [("ein", "84-2711935", "US")],
        "contacts": [("Maya Chen", "Head of Trade Operations", "maya.chen@rackpass.example", True, True)],
    },
    {
        "kind": OrganisationKind.SUPPLIER,
        "legal_name": "Quanta Cloud Technology Inc.",
        "address_line1": "No. 211, Wenhua 2nd Road",
        "city": "Taoyuan",
        "region": "Guishan District",
        "postal_code": "333",
        "country": "TW",
        "contacts": [
            ("Kevin Lin", "Export Sales", "kevin.lin@qct.example", True, False),
            (
                "Jenny Huang",
                "Director, Trade Compliance and Logistics",
                "jenny.huang@qct.example",
                False,
                True,
            ),
        ],
    },
    {
        "kind": OrganisationKind.SUPPLIER,
        "legal_name": "Super Micro Computer, Inc.",
        "address_line1": "980 Rock Avenue",
        "city": "San Jose",
        "region": "CA",
        "postal_code": "95131",
        "country": "US",
        "registrations": [("ein", "77-0353939", "US")],
        "contacts": [("Dana Ortiz", "Trade Compliance Manager", "dana.ortiz@supermicro.example", True, True)],
    },
    {
        # Builds NVIDIA's InfiniBand switches in Guadalajara and exports them itself: the Mexican
        # origin of the consolidated demo shipment.
        "kind": OrganisationKind.SUPPLIER,
        "legal_name": "Jabil Circuit de México, S. de R.L. de C.V.",
        "address_line1": "Av. Valdepeñas 1993",
        "city": "Zapopan",
        "region": "Jalisco",
        "postal_code": "45130",
        "country": "MX",
        "contacts": [
            ("Luis Hernández", "Export Compliance Lead", "luis.hernandez@jabil-mx.example", True, True)
        ],
    },
    {
        "kind": OrganisationKind.FREIGHT_FORWARDER,
        "legal_name": "Meridian Air & Ocean Freight Pte. Ltd.",
        "address_line1": "7 Airline Road, #03-12 Cargo Agents Building",
        "city": "Singapore",
        "postal_code": "819834",
        "country": "SG",
        "registrations": [("uen", "201912345K", "SG")],
        "contacts": [
            ("Priya Nair", "Key Account Manager", "priya.nair@meridian-freight.example", True, False),
            ("Daniel Goh", "Managing Director", "daniel.goh@meridian-freight.example", False, True),
        ],
    },
    {
        "kind": OrganisationKind.CUSTOMS_BROKER,
        "legal_name": "Coromandel Customs Brokers Pvt. Ltd.",
        "address_line1": "12 Rajaji Salai",
        "city": "Chennai",
        "region": "Tamil Nadu",
        "postal_code": "600001",
        "country": "IN",
        "registrations": [("gstin", "33AAECC4821K1ZP", "IN")],
        "contacts": [
            ("R. Subramanian", "Licensed Customs Broker", "subramanian@coromandel-cb.example", True, True)
        ],
    },
    {
        "kind": OrganisationKind.IOR_PROVIDER,
        "legal_name": "Bharat IOR Services Pvt. Ltd.",
        "address_line1": "4th Floor, Peninsula Business Park",
        "city": "Mumbai",
        "region": "Maharashtra",
        "postal_code": "400013",
        "country": "IN",
        "registrations": [("iec", "AAHCB7310Q", "IN"), ("gstin", "27AAHCB7310Q1ZD", "IN")],
        "contacts": [
            ("Anjali Mehta", "Head of IOR Operations", "anjali.mehta@bharat-ior.example", True, True)
        ],
    },
    {
        "kind": OrganisationKind.EOR_PROVIDER,
        "legal_name": "Formosa Export Services Co., Ltd.",
        "address_line1": "No. 100, Section 1, Roosevelt Road",
        "city": "Taipei",
        "postal_code": "100",
        "country": "TW",
        "contacts": [("Grace Wu", "EOR Desk Manager", "grace.wu@formosa-eor.example", True, True)],
    },
    {
        "kind": OrganisationKind.CUSTOMER,
        "legal_name": "Chennai AI Compute Pvt. Ltd.",
        "address_line1": "Plot 7, SIPCOT IT Park, Siruseri",
        "city": "Chennai",
        "region": "Tamil Nadu",
        "postal_code": "603103",
        "country": "IN",
        "registrations": [("iec", "AAKCC5521M", "IN"), ("gstin", "33AAKCC5521M1Z2", "IN")],
        "contacts": [
            ("Karthik Raman", "Data Centre Programme Lead", "karthik.raman@chennai-ai.example", True, False),
            ("Lakshmi Iyer", "Chief Financial Officer", "lakshmi.iyer@chennai-ai.example", False, True),
        ],
    },
]

# username, first, last, role, organisation legal name
USERS = [
    ("coordinator", "Sam", "Okafor", Role.COORDINATOR, "Rackpass Technologies Inc."),
    ("compliance", "Ines", "Duarte", Role.COMPLIANCE_OFFICER, "Rackpass Technologies Inc."),
    # The second pair of eyes: decisions that loosen control take two compliance officers.
    ("compliance2", "Bea", "Novak", Role.COMPLIANCE_OFFICER, "Rackpass Technologies Inc."),
    ("warehouse", "Wei", "Tan", Role.WAREHOUSE_OPERATOR, "Rackpass Technologies Inc."),
    ("admin", "Alex", "Morgan", Role.ADMIN, "Rackpass Technologies Inc."),
    ("forwarder", "Priya", "Nair", Role.PARTNER, "Meridian Air & Ocean Freight Pte. Ltd."),
    ("supplier", "Kevin", "Lin", Role.PARTNER, "Quanta Cloud Technology Inc."),
    ("customer", "Karthik", "Raman", Role.PARTNER, "Chennai AI Compute Pvt. Ltd."),
]


# Who works with whom in the demo: the parties of the demo shipments, so that each demo
# partner may name the others it ships with on shipments of its own. The Entity List look-alike
# of the compliance demo is connected with nobody.
CONNECTIONS = [
    ("Quanta Cloud Technology Inc.", "Chennai AI Compute Pvt. Ltd."),
    ("Super Micro Computer, Inc.", "Chennai AI Compute Pvt. Ltd."),
    ("Meridian Air & Ocean Freight Pte. Ltd.", "Chennai AI Compute Pvt. Ltd."),
    ("Coromandel Customs Brokers Pvt. Ltd.", "Chennai AI Compute Pvt. Ltd."),
    ("Bharat IOR Services Pvt. Ltd.", "Chennai AI Compute Pvt. Ltd."),
    ("Quanta Cloud Technology Inc.", "Meridian Air & Ocean Freight Pte. Ltd."),
    ("Super Micro Computer, Inc.", "Meridian Air & Ocean Freight Pte. Ltd."),
    ("Meridian Air & Ocean Freight Pte. Ltd.", "Coromandel Customs Brokers Pvt. Ltd."),
    ("Meridian Air & Ocean Freight Pte. Ltd.", "Bharat IOR Services Pvt. Ltd."),
    ("Quanta Cloud Technology Inc.", "Coromandel Customs Brokers Pvt. Ltd."),
    ("Quanta Cloud Technology Inc.", "Formosa Export Services Co., Ltd."),
    ("Jabil Circuit de México, S. de R.L. de C.V.", "Meridian Air & Ocean Freight Pte. Ltd."),
    ("Jabil Circuit de México, S. de R.L. de C.V.", "Chennai AI Compute Pvt. Ltd."),
]


def connect(first: str, second: str) -> int:
    """Connect two demo organisations by legal name, once; 1 when a connection was made."""
    a, b = Organisation.objects.get(legal_name=first), Organisation.objects.get(legal_name=second)
    if Connection.objects.between(a, b).exists():
        return 0
    from .services import connection_create

    connection_create(actor=None, organisation=a, other=b, note="Demo")
    return 1


def load(*, password: str, **_options) -> dict[str, int]:
    created = {"organisations": 0, "users": 0}
    for spec in ORGANISATIONS:
        spec = dict(spec)
        registrations = spec.pop("registrations", [])
        contacts = spec.pop("contacts", [])
        org = Organisation.objects.filter(legal_name=spec["legal_name"]).first()
        if org is None:
            org = Organisation(**spec)
            org.full_clean()
            org.save()
            created["organisations"] += 1
        for scheme, number, country in registrations:
            if not Registration.objects.filter(scheme=scheme, number=number, country=country).exists():
                reg = Registration(organisation=org, scheme=scheme, number=number, country=country)
                reg.full_clean()
                reg.save()
        # (name, title, email, primary, authorised signatory): signatories sign the documents
        # their organisation makes or authorises (apps/documents/signatures.py).
        for name, title, email, primary, signatory in contacts:
            contact, made = Contact.objects.get_or_create(
                organisation=org,
                email=email,
                defaults={"name": name, "job_title": title, "is_primary": primary, "is_signatory": signatory},
            )
            if signatory and not made and not contact.is_signatory:  # a demo loaded before signatories
                contact.job_title, contact.is_signatory = title, True
                contact.save(update_fields=["job_title", "is_signatory", "updated_at"])
    for username, first, last, role, org_name in USERS:
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User(
                username=username,
                first_name=first,
                last_name=last,
                role=role,
                email=f"{username}@demo.rackpass.example",
                organisation=Organisation.objects.get(legal_name=org_name),
            )
            user.is_staff = user.is_superuser = role == Role.ADMIN
            user.set_password(password)
            user.save()
            created["users"] += 1
    created["connections"] = sum(connect(first, second) for first, second in CONNECTIONS)
    return created


def logins(*, password: str, **_options) -> list[str]:
    """What `load_demo` prints after loading: how to sign in as each demo user."""
    return [
        f"Demo users (password for all: {password}):",
        *(f"  {username:<12} {role.label:<24} {org}" for username, _first, _last, role, org in USERS),
    ]
