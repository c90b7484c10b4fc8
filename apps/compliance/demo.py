"""Demo compliance data: EAR country data, a subset of the real screening list, India's import
requirements, classifications of every part, a licence, and shipments that pass, need a licence
and hit a restricted party. Safe to run again."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

from django.utils import timezone

from apps.accounts.demo import connect
from apps.accounts.models import Contact, Organisation, OrganisationKind, User
from apps.catalog.models import Part
from apps.shipments import services as shipment_services
from apps.shipments.models import Shipment, ShipmentStatus, Site

from . import services
from .models import (
    ApprovalStatus,
    ComplianceApproval,
    ImportRequirement,
    Licence,
    PartCertification,
    RequirementKind,
    ScreeningList,
)

CSL_DEMO = Path(__file__).parent / "data" / "csl-demo.json"
LIST_NAME = "US Consolidated Screening List"
DEMO_VERSION = "2026-07-31 (demo subset)"


def load_reference(**_options) -> dict[str, int]:
    """Everything the checks read; loaded before the demo shipments."""
    services.country_data_load_default(loaded_by="load_demo")
    if CSL_DEMO.exists() and not ScreeningList.objects.filter(name=LIST_NAME, version=DEMO_VERSION).exists():
        services.screening_list_import(
            name=LIST_NAME,
            source_format="csl_json",
            data=CSL_DEMO.read_bytes(),
            version=DEMO_VERSION,
            rescreen=False,
        )
    for kind, scheme, name, hs, categories, authority in [
        (RequirementKind.IMPORTER_REGISTRATION, "iec", "Importer-Exporter Code (IEC)", "", "", "DGFT"),
        (RequirementKind.IMPORTER_REGISTRATION, "gstin", "GST registration (GSTIN)", "", "", "GSTN"),
        (
            RequirementKind.PRODUCT_REGISTRATION,
            "bis_crs",
            "BIS Compulsory Registration Scheme (CRS)",
            "8471",
            "server,storage_system",
            "Bureau of Indian Standards",
        ),
    ]:
        ImportRequirement.objects.get_or_create(
            country="IN",
            kind=kind,
            scheme=scheme,
            defaults={"name": name, "hs_prefixes": hs, "categories": categories, "authority": authority},
        )
    for number, part_number in [
        ("R-41012345", "DGXH-G640F+P2CMI36"),
        ("R-41019876", "SYS-821GE-TNHR"),
        ("R-41033333", "DGXH-G1128F+P2CMI36"),
    ]:
        part = Part.objects.get(part_number=part_number, owner__kind="operator")
        PartCertification.objects.get_or_create(
            part=part,
            scheme="bis_crs",
            country="IN",
            defaults={"number": number, "valid_until": dt.date(2028, 6, 30)},
        )
    classified = confirmed = 0
    officer = User.objects.filter(username="compliance").first()
    second = User.objects.filter(username="compliance2").first()
    for part in Part.objects.select_related("manufacturer", "accelerator__manufacturer"):
        current = part.classifications.filter(is_current=True).first()
        if current is None:
            current = services.part_classify(part=part)
            classified += 1
        if current.needs_confirmation and officer is not None and second is not None:
            # The demo's officer has checked the catalogue's category defaults against the
            # manufacturers' published classifications and the second officer approved each (four
            # eyes), so the demo shipments rely on confirmed ones.
            asked = services.part_classification_override(
                part=part,
                eccn=current.eccn,
                reason="Demo: the manufacturer's published classification matches the category default.",
                actor=officer,
            )
            if isinstance(asked, ComplianceApproval):
                services.approval_approve(approval=asked, actor=second)
            confirmed += 1
    return {
        "classified parts": classified,
        "confirmed default classifications": confirmed,
        "requests awaiting a second officer": _pending_downgrade(officer),
    }


def _pending_downgrade(officer: User | None) -> int:
    """One override the review queue shows as awaiting a second officer: the demo's officer asks to
    take a 4A090.a server down to EAR99 on a vendor's letter; nothing changes until compliance2
    approves or rejects it. Asked once."""
    server = Part.objects.filter(part_number="SYS-821GE-TNHR", owner__kind="operator").first()
    if officer is None or server is None:
        return 0
    if not ComplianceApproval.objects.filter(part=server).exists():
        current = services.current_classification(server) or services.part_classify(part=server)
        if current.eccn != "4A090.a":
            return 0
        services.part_classification_override(
            part=server,
            eccn="EAR99",
            reason="Demo: the vendor's letter says the chassis ships without GPUs and is EAR99.",
            actor=officer,
        )
    return ComplianceApproval.objects.filter(status=ApprovalStatus.PENDING).count()


def approve(shipment: Shipment, moved_by: User) -> Shipment:
    """How the shipments demo approves (registered in apps.py): the compliance officer runs the
    check, which approves a passing shipment, as in real use."""
    officer = User.objects.get(username="compliance")
    services.compliance_check_run(shipment=shipment, actor=officer)
    shipment.refresh_from_db()
    return shipment


def _org(legal_name: str, **fields) -> Organisation:
    org = Organisation.objects.filter(legal_name=legal_name).first()
    if org is None:
        org = Organisation(legal_name=legal_name, **fields)
        org.full_clean()
        org.save()
    return org


def _signatory(organisation: Organisation, name: str, title: str, email: str) -> None:
    """The person who signs the organisation's declarations (e.g. its end-user statements)."""
    if not organisation.contacts.filter(is_signatory=True).exists():
        Contact.objects.create(
            organisation=organisation,
            name=name,
            job_title=title,
            email=email,
            is_primary=True,
            is_signatory=True,
        )


def _site(owner, name, city, country, customer) -> Site:
    """A customer's data centre kept by the operator: seen by the customer, those connected with
    it and its shipments' parties, not by every partner."""
    site = Site.objects.filter(owner=owner, name=name).first()
    if site is None:
        site = Site(owner=owner, customer=customer, name=name, kind="data_centre", city=city, country=country)
        site.full_clean()
        site.save()
    elif site.customer_id is None:
        site.customer = customer
        site.full_clean()
        site.save()
    return site


def _restricted_name() -> tuple[str, str] | None:
    """An Entity List name (and its country) from the demo list, to show a screening hit."""
    if not CSL_DEMO.exists():
        return None
    data = json.loads(CSL_DEMO.read_text())
    listed = [
        e
        for e in data["results"]
        if "Entity List" in e.get("source", "")
        and e.get("type") in (None, "Entity")
        and any(a.get("country") for a in e.get("addresses") or [])
    ]
    # Prefer a well-known AI-compute entity, so the demo reads like a real near miss.
    listed.sort(key=lambda e: not any(k in e["name"].lower() for k in ("sugon", "inspur", "sensetime")))
    if not listed:
        return None
    entry = listed[0]
    return entry["name"], next(a["country"] for a in entry["addresses"] if a.get("country"))


def load_shipments(**_options) -> dict[str, int]:
    coordinator = User.objects.get(username="coordinator")
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    qct = Organisation.objects.get(legal_name="Quanta Cloud Technology Inc.")
    factory = Site.objects.get(name="QCT Guishan Factory")
    dgx = Part.objects.get(part_number="DGXH-G640F+P2CMI36", owner__kind="operator")
    today = timezone.localdate()
    created = 0

    def make(marker, destination, consignee, quantity, **fields):
        nonlocal created
        if Shipment.objects.filter(instructions__startswith=marker).exists():
            return None
        created += 1
        shipment = shipment_services.shipment_create(
            actor=coordinator,
            fields={
                "origin": factory,
                "destination": destination,
                "incoterm": "DAP",
                "incoterm_place": destination.city,
                "mode": "air",
                "ready_date": today + dt.timedelta(days=3),
                "required_by": today + dt.timedelta(days=20),
                "instructions": marker,
                "end_use": "AI training cluster",
                **fields,
            },
            parties={"shipper": qct, "consignee": consignee, "ultimate_consignee": consignee},
        )
        serials = [f"{marker[6]}-DGX{n:04d}" for n in range(1, quantity + 1)]
        line = shipment_services.line_add(shipment=shipment, part=dgx, quantity=quantity, serials=serials)
        for n, serial in enumerate(serials, start=1):  # packed as a coordinator would: one crate each
            shipment_services.package_add(
                shipment=shipment,
                fields={
                    "package_type": "crate",
                    "length_cm": Decimal("110"),
                    "width_cm": Decimal("70"),
                    "height_cm": Decimal("60"),
                    "gross_kg": Decimal("168"),
                    "net_kg": Decimal("130.45"),
                    "marks": f"{consignee.legal_name[:20].upper()}/{n}",
                    "tilt_indicator": True,
                },
                items=[(line, 1)],
                serials=[serial],
            )
        shipment_services.shipment_transition(
            shipment=shipment, target=ShipmentStatus.COMPLIANCE_REVIEW, actor=coordinator
        )
        services.compliance_check_run(shipment=shipment, actor=coordinator)
        return shipment

    riyadh_org = _org(
        "Riyadh Compute Company",
        kind=OrganisationKind.CUSTOMER,
        address_line1="King Fahd Road",
        city="Riyadh",
        country="SA",
    )
    _signatory(riyadh_org, "Faisal Al-Harbi", "Chief Technology Officer", "f.alharbi@riyadh-compute.example")
    riyadh = _site(operator, "Riyadh Compute — RUH1", "Riyadh", "SA", riyadh_org)
    connect(qct.legal_name, riyadh_org.legal_name)
    if not Licence.objects.filter(number="D1234567").exists():
        services.licence_save(
            licence=Licence(),
            fields={
                "number": "D1234567",
                "licensee": qct,
                "eccns": "4A090.a",
                "destination_countries": "SA",
                "consignee": riyadh_org,
                "end_user": riyadh_org,
                "permitted_quantity": 16,
                "permitted_value": Decimal("6000000"),
                "valid_from": dt.date(2026, 3, 1),
                "expires_on": dt.date(2027, 2, 28),
                "conditions": "No re-export; end-user visit within 6 months of delivery.",
            },
        )
    # G: 4A090.a to Saudi Arabia (D:4) under a licence held: passes, with a drawdown.
    make("[Demo G]", riyadh, riyadh_org, 4)

    hanoi_org = _org(
        "Hanoi AI Research JSC",
        kind=OrganisationKind.CUSTOMER,
        address_line1="Duy Tan Street",
        city="Hanoi",
        country="VN",
    )
    _signatory(hanoi_org, "Nguyen Thi Lan", "Director of Infrastructure", "lan.nguyen@hanoi-ai.example")
    # H: the same systems to Vietnam (D:1) with no licence: held for a licence.
    connect(qct.legal_name, hanoi_org.legal_name)
    make("[Demo H]", _site(operator, "Hanoi AI Research — HAN DC", "Hanoi", "VN", hanoi_org), hanoi_org, 2)

    restricted = _restricted_name()
    if restricted:
        name, country = restricted
        lookalike = _org(
            name.replace("Co., Ltd.", "Company Limited")[:200],
            kind=OrganisationKind.CUSTOMER,
            address_line1="Science Park Road",
            city="Shenzhen" if country == "CN" else "—",
            country=country,
        )
        destination = _site(
            operator, f"{lookalike.legal_name[:60]} data centre", lookalike.city, country, lookalike
        )
        # I: a consignee whose name matches an Entity List entry: held for review. Connected with
        # nobody: no partner may name it, only the operator's staff.
        make("[Demo I]", destination, lookalike, 1)
    return {"compliance shipments": created}
