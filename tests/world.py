"""Two partner organisations and everything one of them owns: the data the API contract sweeps
(`test_isolation_sweep.py`, `test_schemathesis.py`) run against.

Organisation A owns one of every kind of object a partner can own or be named on — private parts,
a site, a shipment with lines, packages, legs, events, a compliance check (with line and party
results, hold reasons, a screening hit and a block), documents, a licence, screenings, contacts,
registrations, API tokens, a task, and warehouse stock (a location, a unit, a lot and their ledger
rows) — all built through the services, as the app builds them.
Organisation B, a second partner, owns a little of its own (so its lists are not trivially
empty). Every text A owns carries `MARK`, so a response that shows any of it is easy to spot.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import models
from django.utils import timezone

from apps.accounts import services as account_services
from apps.accounts.models import ApiToken, Contact, Organisation, OrganisationKind, Registration, User
from apps.accounts.roles import Role
from apps.catalog.models import Part, Unit
from apps.clusters import services as clusters
from apps.clusters.models import BillOfMaterials, BomLine, ClusterDesign, SizingRun
from apps.compliance import services as compliance
from apps.compliance.models import (
    ComplianceAlert,
    ComplianceApproval,
    ComplianceCheck,
    HoldReason,
    Licence,
    PartClassification,
    PartyBlock,
    Screening,
    ScreeningHit,
)
from apps.core.models import TaskRecord
from apps.documents import services as documents
from apps.documents.models import Document
from apps.shipments import services as shipments
from apps.shipments.models import (
    ExchangeRate,
    FreightRate,
    Leg,
    Package,
    Shipment,
    ShipmentLine,
    Site,
    TrackingEvent,
)
from apps.warehouse import services as warehouse
from apps.warehouse.models import (
    Discrepancy,
    Location,
    Lot,
    Movement,
    Receipt,
    SerialImport,
    UnitPlacement,
)

from .clusters.builders import cluster_parts, design_fields
from .factories import OperatorFactory, OrganisationFactory, PartFactory, UserFactory

MARK = "Zqxa"  # in every text organisation A owns; never in anything else

SCREENING_LIST = {
    "results": [
        {
            "id": "el-world-1",
            "source": "Entity List (EL) - Bureau of Industry and Security",
            "type": "Entity",
            "name": "ZQXA FRONT COMPANY TRADING LIMITED",
            "alt_names": [],
            "addresses": [{"country": "HK"}],
            "programs": [],
            "license_requirement": "For all items subject to the EAR.",
            "license_policy": "Presumption of denial.",
            "federal_register_notice": "89 FR 1",
            "source_list_url": "",
        }
    ]
}


@dataclass
class World:
    operator: Organisation
    coordinator: User
    admin: User
    org_a: Organisation
    user_a: User
    key_a: str
    org_b: Organisation
    user_b: User
    key_b: str
    # Organisation A's objects by model; the first of each is "the" object routes are tested with.
    private: dict[type[models.Model], list[models.Model]] = field(default_factory=dict)
    # Strings that identify A's objects but carry no MARK (generated references and numbers).
    references: list[str] = field(default_factory=list)
    task_id: str = ""
    shipment_b: Shipment | None = None

    def first(self, model: type[models.Model]) -> models.Model | None:
        objects = self.private.get(model) or []
        return objects[0] if objects else None

    def leaks(self, text: str) -> list[str]:
        """A's identifying strings found in `text`."""
        found = [MARK] if MARK.lower() in text.lower() else []
        return found + [r for r in self.references if r in text]


def build_world() -> World:
    operator = OperatorFactory()
    coordinator = UserFactory(organisation=operator, role=Role.COORDINATOR, username="world-coordinator")
    admin = UserFactory(
        organisation=operator, role=Role.ADMIN, username="world-admin", is_staff=True, is_superuser=True
    )
    compliance.country_data_load_default()
    compliance.screening_list_import(
        name="CSL",
        source_format="csl_json",
        data=json.dumps(SCREENING_LIST).encode(),
        version="world-1",
        rescreen=False,
    )
    today = timezone.localdate()
    # The master catalogue (the operator's parts) is every organisation's to read and choose.
    PartFactory(
        owner=operator,
        part_number="WORLD-MASTER-GPU",
        name="Master catalogue accelerator",
        category="accelerator",
        hs_code="847330",
    )

    # --- organisation A and what it owns --------------------------------------------------------
    org_a = OrganisationFactory(
        kind=OrganisationKind.SUPPLIER, legal_name=f"{MARK} Servers Co., Ltd.", city="Taoyuan", country="TW"
    )
    customer_a = OrganisationFactory(
        kind=OrganisationKind.CUSTOMER, legal_name=f"{MARK} Compute Pvt. Ltd.", city="Chennai", country="IN"
    )
    listed_a = OrganisationFactory(
        kind=OrganisationKind.CUSTOMER, legal_name="ZQXA Front Company Trading Limited", country="HK"
    )
    # A works with its customer and the listed company: the operator records the connections.
    connections = [
        account_services.connection_create(actor=None, organisation=org_a, other=other)
        for other in (customer_a, listed_a)
        if hasattr(account_services, "connection_create")
    ]
    user_a = UserFactory(organisation=org_a, role=Role.PARTNER, username="world-partner-a")
    token_a, key_a = account_services.api_token_create(user=user_a, name=f"{MARK} integration")
    registrations = [
        Registration.objects.create(organisation=customer_a, scheme="iec", number="AAKCZ5521M", country="IN"),
        Registration.objects.create(
            organisation=customer_a, scheme="gstin", number="33AAKCZ5521M1Z2", country="IN"
        ),
    ]
    contact = Contact.objects.create(
        organisation=org_a, name=f"{MARK} Export Desk", email="export@zqxa.example.com"
    )
    gpu = PartFactory(
        owner=org_a,
        part_number=f"{MARK}-GPU-1",
        name=f"{MARK} accelerator",
        category="accelerator",
        hs_code="847330",
        dense_tops={"8": "1979"},
        die_area_mm2=Decimal("814"),
    )
    server = PartFactory(
        owner=org_a,
        part_number=f"{MARK}-SRV-8",
        name=f"{MARK} 8-GPU server",
        category="server",
        hs_code="847150",
        accelerator=gpu,
        gpus_per_server=8,
        unit_value=Decimal("373000"),
        unit_weight_kg=Decimal("130"),
        length_cm=Decimal("130"),
        width_cm=Decimal("85"),
        height_cm=Decimal("110"),
        country_of_origin="TW",
    )
    site_a = Site.objects.create(
        owner=org_a, name=f"{MARK} Guishan factory", kind="factory", city="Taoyuan", country="TW"
    )
    datacentre = Site.objects.create(
        owner=operator, name="World DC Chennai", kind="data_centre", city="Chennai", country="IN"
    )
    licence = compliance.licence_save(
        licence=Licence(),
        fields={
            "number": "ZQXA-LIC-0001",
            "licensee": org_a,
            "eccns": "4A090.a",
            "destination_countries": "IN",
            "consignee": customer_a,
            "permitted_quantity": 10,
            "permitted_value": Decimal("5000000"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": dt.date(2030, 12, 31),
            "conditions": f"{MARK} conditions",
        },
    )
    shipment = shipments.shipment_create(
        actor=user_a,
        fields={
            "origin": site_a,
            "destination": datacentre,
            "incoterm": "DAP",
            "incoterm_place": f"{MARK} Chennai",
            "mode": "air",
            "end_use": f"{MARK} training cluster",
            "instructions": f"{MARK} handle with care",
            "ready_date": today,
            "required_by": today + dt.timedelta(days=30),
        },
        parties={"shipper": org_a, "consignee": customer_a, "notify_party": listed_a},
    )
    line = shipments.line_add(shipment=shipment, part=server, quantity=2, serials=["ZQXA-S1", "ZQXA-S2"])
    package = shipments.package_add(
        shipment=shipment,
        fields={
            "package_type": "crate",
            "length_cm": Decimal("130"),
            "width_cm": Decimal("90"),
            "height_cm": Decimal("120"),
            "gross_kg": Decimal("300"),
            "net_kg": Decimal("260"),
            "marks": f"{MARK} crate 1",
        },
        items=[(line, 2)],
        serials=["ZQXA-S1", "ZQXA-S2"],
    )
    leg = shipments.leg_add(
        shipment=shipment,
        fields={
            "role": "main",
            "origin": site_a,
            "destination": datacentre,
            "mode": "air",
            "carrier": f"{MARK} Air Cargo",
            "transport_document": "618-12345675",
        },
    )
    event = shipments.event_record(
        shipment=shipment,
        actor=user_a,
        code="exception",
        occurred_at=timezone.now(),
        location=f"{MARK} Taoyuan",
        remarks=f"{MARK} remark",
    )
    # The check screens every party (the notify party matches the list: a hit, a hold reason),
    # classifies the parts and uses the licence.
    check = compliance.compliance_check_run(shipment=shipment, actor=coordinator)
    hit = ScreeningHit.objects.filter(organisation=listed_a).first()
    if hit is not None:
        compliance.hit_confirm(hit=hit, actor=admin, reason=f"{MARK} confirmed match")
    document = documents.document_generate(
        shipment=shipment, doc_type="commercial_invoice", actor=coordinator
    )
    screening = compliance.adhoc_screen(names=[f"{MARK} prospective partner"], actor=user_a)
    # Warehouse stock of A at the operator's warehouse: a location only A's stock is in, a server
    # received there and a lot of A's cables (issue 13).
    warehouse_site = Site.objects.create(
        owner=operator, name="World warehouse Singapore", kind="warehouse", city="Singapore", country="SG"
    )
    cable = PartFactory(
        owner=org_a,
        part_number=f"{MARK}-CBL-2M",
        name=f"{MARK} DAC cable",
        category="cable",
        hs_code="854442",
        is_serialised=False,
    )
    location = warehouse.location_create(site=warehouse_site, zone=MARK, aisle="01")
    [stocked] = warehouse.units_receive(
        location=location, part=server, serials=[f"{MARK}-W1"], owner=org_a, actor=coordinator
    )
    lot = warehouse.lot_receive(location=location, part=cable, quantity=40, owner=org_a, actor=coordinator)
    # A receipt of A's shipment with a discrepancy, and an import of serials A's user uploaded.
    receipt = Receipt.objects.create(
        reference="RCV-2026-900001", shipment=shipment, location=location, received_at=timezone.now(),
        customs_reference=f"{MARK}-BOND",
    )  # fmt: skip
    discrepancy = Discrepancy.objects.create(
        receipt=receipt, kind="extra", serial=f"{MARK}-EXTRA-1", resolution=""
    )
    serial_import = SerialImport.objects.create(
        site=warehouse_site, owner=org_a, file_name=f"{MARK}-serials.csv", created_by=user_a
    )
    # A cluster design of A's for its customer at a data centre of A's, a run of it and a bill of
    # materials (issue 14). The run and the BOM are written as a finished sizing leaves them.
    cluster_site = Site.objects.create(
        owner=org_a, name=f"{MARK} DC Chennai", kind="data_centre", city="Chennai", country="IN",
        power_mw=Decimal("12"), cooling_air=True, cooling_liquid=True,
    )  # fmt: skip
    cluster_kit = cluster_parts(org_a, prefix=MARK)
    design = clusters.design_create(
        owner=org_a,
        fields=design_fields(cluster_kit, customer=customer_a, site=cluster_site, name=f"{MARK} cluster"),
        actor=user_a,
    )
    run = clusters.sizing_run_create(design=design, actor=user_a)
    SizingRun.objects.filter(pk=run.pk).update(status="succeeded", engine_version="1.0.0", result={})
    bom = BillOfMaterials.objects.create(design=design, run=run, version=1, created_by=user_a)
    bom_line = BomLine.objects.create(
        bom=bom, part=cluster_kit["switch"], role="compute_leaf", quantity=16, engine_quantity=16,
        figure="fabric.compute.leaves", note=f"{MARK} two spares",
    )  # fmt: skip
    task = TaskRecord.objects.create(
        task_id="zqxa-task-0001",
        kind="compliance check",
        user=user_a,
        organisation=org_a,
        object_repr=shipment.reference,
        object_url=shipment.get_absolute_url(),
    )

    # --- organisation B: a partner with a little of its own --------------------------------------
    org_b = OrganisationFactory(
        kind=OrganisationKind.FREIGHT_FORWARDER, legal_name="Bravo Freight Pte. Ltd.", country="SG"
    )
    user_b = UserFactory(organisation=org_b, role=Role.PARTNER, username="world-partner-b")
    _, key_b = account_services.api_token_create(user=user_b, name="bravo integration")
    site_b = Site.objects.create(
        owner=org_b, name="Bravo hub", kind="warehouse", city="Singapore", country="SG"
    )
    shipment_b = shipments.shipment_create(
        actor=user_b,
        fields={
            "origin": site_b,
            "destination": datacentre,
            "incoterm": "DAP",
            "incoterm_place": "Chennai",
            "mode": "air",
            "end_use": "Bravo cluster",
            "ready_date": today,
            "required_by": today + dt.timedelta(days=30),
        },
        parties={"shipper": org_b},
    )
    FreightRate.objects.create(
        origin_country="TW",
        destination_country="IN",
        mode="air",
        service="Air",
        price_per_kg=Decimal("4.20"),
        minimum_charge=Decimal("250"),
        transit_days=5,
        valid_from=dt.date(2026, 1, 1),
        valid_to=dt.date(2030, 12, 31),
    )
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), valid_on=dt.date(2026, 12, 1), source="World test rate"
    )

    hits = list(ScreeningHit.objects.filter(organisation=listed_a))
    world = World(
        operator=operator,
        coordinator=coordinator,
        admin=admin,
        org_a=org_a,
        user_a=user_a,
        key_a=key_a,
        org_b=org_b,
        user_b=user_b,
        key_b=key_b,
        task_id=task.task_id,
        shipment_b=shipment_b,
        private={
            # A four-eyes request of organisation A (written directly: officers are the operator's,
            # but the door must hold for any organisation's requests).
            ComplianceApproval: [
                ComplianceApproval.objects.create(
                    organisation=org_a,
                    kind="classification_override",
                    reason=f"{MARK} override asked in A",
                    requested_by=user_a,
                    part=server,
                    eccn="EAR99",
                )
            ],
            # An alert on organisation A's shipment (its check changed after the goods left).
            ComplianceAlert: [
                ComplianceAlert.objects.create(
                    shipment=shipment,
                    compliance_check=check,
                    status_then=shipment.status,
                    text=f"{MARK} alert",
                )
            ],
            Organisation: [org_a, customer_a, listed_a],
            **({type(connections[0]): connections} if connections else {}),
            User: [user_a],
            ApiToken: [token_a],
            Registration: registrations,
            Contact: [contact],
            Part: [server, gpu, cable],
            PartClassification: list(PartClassification.objects.filter(part__in=[server, gpu])),
            Site: [site_a],
            Shipment: [shipment],
            ShipmentLine: [line],
            Package: [package],
            Leg: [leg],
            TrackingEvent: [event],
            Licence: [licence],
            ComplianceCheck: [check],
            HoldReason: list(HoldReason.objects.filter(compliance_check__shipment=shipment)),
            ScreeningHit: hits,
            PartyBlock: list(PartyBlock.objects.filter(organisation=listed_a)),
            Screening: [screening, *Screening.objects.filter(organisation__in=[org_a, customer_a, listed_a])],
            Document: [document],
            TaskRecord: [task],
            Location: [location],
            Unit: [stocked, *Unit.objects.filter(owner=org_a).exclude(pk=stocked.pk).order_by("pk")],
            UnitPlacement: list(UnitPlacement.objects.filter(unit__owner=org_a)),
            Lot: [lot],
            Movement: list(Movement.objects.filter(owner=org_a).order_by("pk")),
            Receipt: [receipt],
            Discrepancy: [discrepancy],
            SerialImport: [serial_import],
            ClusterDesign: [design],
            SizingRun: [run],
            BillOfMaterials: [bom],
            BomLine: [bom_line],
        },
    )
    world.references = [
        shipment.reference,
        document.number,
        "ZQXA-LIC-0001",
        token_a.key_prefix,
        "AAKCZ5521M",
        task.task_id,
    ]
    return world


# --- routes → organisation A's objects ---------------------------------------------------------

# URL keyword arguments that name no object of an organisation, with the value to use.
# `kind`: a picker's name (apps/core/pickers.py), not an object; its answers are swept on their own.
PUBLIC_KWARGS = {"code": "IN", "format": "json", "kind": "part"}


def view_model(view_class) -> type[models.Model] | None:
    """The model a view reads, from its queryset or `model` attribute."""
    queryset = getattr(view_class, "queryset", None)
    if queryset is not None:
        return queryset.model
    return getattr(view_class, "model", None)


def kwarg_value(world: World, view_class, name: str, *, model: type[models.Model] | None = None):
    """Organisation A's value for the URL keyword argument `name` of a route of `view_class`, or
    None when the sweep does not know which object it names."""
    if name in PUBLIC_KWARGS:
        return PUBLIC_KWARGS[name]
    if name in ("reference", "shipment_reference"):
        return world.first(Shipment).reference
    if name == "task_id":
        return world.task_id
    if name == "receipt":  # a warehouse receipt's reference (RCV-…)
        return world.first(Receipt).reference
    # Under a cluster design (`/clusters/{id}/…`): its run, bill-of-materials version and line.
    cluster_children = {"run_pk": SizingRun, "bom_pk": BillOfMaterials, "line_pk": BomLine}
    if name in cluster_children and world.first(cluster_children[name]) is not None:
        return world.first(cluster_children[name]).pk
    if name in ("pk", "id") or name.endswith("_pk"):
        model = model or view_model(view_class)
        obj = world.first(model) if model else None
        return obj.pk if obj is not None else None
    return None


def fill_schema_path(world: World, path: str) -> str:
    """An OpenAPI path (`/api/v1/parts/{id}/history/`) with organisation A's objects filled in (or,
    for objects no organisation owns, such as freight rates, the first one)."""
    import re

    from django.urls import resolve

    names = re.findall(r"{(\w+)}", path)
    probe = path
    for name in names:
        # A digit fits every route's converter (`int` and `str` alike); only the view is looked for.
        probe = probe.replace("{" + name + "}", "1")
    match = resolve(probe)
    view_class = getattr(match.func, "cls", None) or getattr(match.func, "view_class", None)
    for name in names:
        value = kwarg_value(world, view_class, "pk" if name == "id" else name)
        model = view_model(view_class)
        if value is None and name == "id" and model is not None and model not in world.private:
            value = getattr(model.objects.order_by("pk").first(), "pk", None)
        if value is None:
            raise LookupError(f"no object of organisation A for {{{name}}} in {path}")
        path = path.replace("{" + name + "}", str(value))
    return path
