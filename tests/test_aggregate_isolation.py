"""Every read that adds up another app's rows reads through its reader's door.

An aggregate — a cluster's coverage, compliance summary, shipment plan and own-or-rent, the
dashboard's tiles, stock on hand, the stock pages and their CSV/XLSX exports, the pickers, a
list's search — sums or lists rows of other apps (shipments, warehouse stock, parts). Each must
count only what `visible_to(reader)` gives the reader: the same figures the reader's own lists
show, whoever the object that gathers them belongs to.

One world is built once: the operator, a supplier, a forwarder and a customer each own a private
part, stock at a bonded hub (units and a lot, under their own customs reference), a shipment to
the data centre in transit, and a cluster design naming the next organisation as its customer
(operator → supplier → forwarder → customer → operator), its shipment linked to it. Nothing is held
for anyone, so a partner sees exactly its own stock and shipments; the operator's staff see all.
Then every organisation reads every aggregate and the others' marks and figures must not appear.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from dataclasses import dataclass

import openpyxl
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.clusters import services as clusters
from apps.clusters.services import compliance_summary
from apps.clusters.services.coverage import cluster_shipment_link
from apps.compliance import services as compliance
from apps.core.dashboard import tiles_for
from apps.shipments import services as shipments
from apps.shipments.models import Shipment, Site
from apps.warehouse import services as warehouse

from .clusters.builders import cluster_parts, design_fields
from .clusters.test_compliance_summary import hand_bom
from .conftest import token_client
from .factories import OperatorFactory, OrganisationFactory, PartFactory, UserFactory

pytestmark = pytest.mark.django_db

TAGS = ("OPR", "SUP", "FWD", "CUS")  # in this order, each names the next as its design's customer


@dataclass
class Holding:
    """One organisation's things in the world, and the marks that identify them in any text."""

    tag: str
    organisation: Organisation
    user: User
    units: int
    lot: int
    shipped: int
    shipment: Shipment
    design: object

    @property
    def marks(self) -> list[str]:
        # Serials, the customs reference, the shipment's reference and the private part (the
        # operator's parts are the master catalogue, everyone's to read).
        private = [f"PRIV{self.tag}"] if self.tag != "OPR" else []
        return [f"SER{self.tag}-", f"BOND{self.tag}", self.shipment.reference, *private]


def _build() -> dict[str, Holding]:
    operator = OperatorFactory()
    coordinator = UserFactory(organisation=operator, role=Role.COORDINATOR, username="agg-coordinator")
    compliance.country_data_load_default()
    parts = cluster_parts(operator, prefix="AGG")  # the master catalogue: everyone's to read
    parts["fibre"].is_serialised = False  # cables come in lots
    parts["fibre"].save()
    hub = Site.objects.create(
        owner=operator, name="Aggregate hub", kind="warehouse", city="Singapore", country="SG", is_bonded=True
    )
    shelf = warehouse.location_create(site=hub, zone="A", aisle="01")
    dc = Site.objects.create(
        owner=operator, name="Aggregate DC", kind="data_centre", city="Chennai", country="IN",
        power_mw="12", cooling_air=True, cooling_liquid=True,
    )  # fmt: skip
    factory = Site.objects.create(owner=operator, name="Aggregate factory", kind="factory", country="TW")
    kinds = {
        "SUP": OrganisationKind.SUPPLIER,
        "FWD": OrganisationKind.FREIGHT_FORWARDER,
        "CUS": OrganisationKind.CUSTOMER,
    }
    organisations = {"OPR": operator} | {
        tag: OrganisationFactory(kind=kind, legal_name=f"Aggregate {kind.label} Ltd.")
        for tag, kind in kinds.items()
    }
    users = {"OPR": coordinator} | {
        tag: UserFactory(organisation=org, role=Role.PARTNER, username=f"agg-{tag.lower()}")
        for tag, org in organisations.items()
        if tag != "OPR"
    }
    today = timezone.localdate()
    world: dict[str, Holding] = {}
    for n, tag in enumerate(TAGS, start=1):
        org = organisations[tag]
        PartFactory(owner=org, part_number=f"PRIV{tag}-1", name=f"PRIV{tag} private kit")
        warehouse.units_receive(
            location=shelf, part=parts["system"], serials=[f"SER{tag}-{i}" for i in range(n)], owner=org,
            actor=coordinator, customs_reference=f"BOND{tag}",
        )  # fmt: skip
        warehouse.lot_receive(
            location=shelf, part=parts["fibre"], quantity=1000 * n + 7, owner=org, actor=coordinator,
            customs_reference=f"BOND{tag}",
        )  # fmt: skip
        shipment = shipments.shipment_create(
            actor=coordinator,
            fields={
                "origin": factory, "destination": dc, "incoterm": "DAP", "incoterm_place": "Chennai",
                "mode": "air", "end_use": "AI training cluster", "ready_date": today,
                "required_by": today + dt.timedelta(days=30),
            },
            parties={"shipper": org, "consignee": org},
        )  # fmt: skip
        shipments.line_add(shipment=shipment, part=parts["system"], quantity=10 * n)
        Shipment.objects.filter(pk=shipment.pk).update(status="in_transit")
        world[tag] = Holding(tag, org, users[tag], units=n, lot=1000 * n + 7, shipped=10 * n,
                             shipment=shipment, design=None)  # fmt: skip
    for i, tag in enumerate(TAGS):
        customer = organisations[TAGS[(i + 1) % len(TAGS)]]
        design = clusters.design_create(
            owner=organisations[tag],
            fields=design_fields(parts, customer=customer, site=dc, name=f"Design of {tag}"),
            actor=users[tag],
        )
        hand_bom(design, [("system", parts["system"], 64), ("compute_cable", parts["fibre"], 100)])
        cluster_shipment_link(design=design, shipment=world[tag].shipment)
        compliance_summary.compliance_summary_now(design=design, actor=coordinator)
        world[tag].design = design
    return world


def _sees(reader: Holding, owner: Holding) -> bool:
    """Whether `reader` may see `owner`'s stock and shipment in this world."""
    return reader.tag == "OPR" or reader.tag == owner.tag


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _download(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    if content[:2] == b"PK":  # XLSX
        book = openpyxl.load_workbook(io.BytesIO(content), read_only=True)
        return " ".join(
            str(cell) for sheet in book for row in sheet.iter_rows(values_only=True) for cell in row
        )
    return "\n".join(",".join(row) for row in csv.reader(io.StringIO(content.decode())))


def _texts(reader: Holding, world: dict[str, Holding]) -> dict[str, str]:
    """Every aggregate's answer to `reader`, as text, by where it was read."""
    api, browser = token_client(reader.user), _browser(reader.user)
    texts: dict[str, str] = {}
    for holding in world.values():
        design = holding.design
        for name in ("coverage", "compliance-summary", "shipment-plan", "own-or-rent"):
            answer = api.get(f"/api/v1/clusters/{design.pk}/{name}/")
            texts[f"api {name} of {holding.tag}'s design"] = f"{answer.status_code} {answer.content.decode()}"
        for name in ("coverage-panel", "compliance-summary-panel", "shipment-plan-panel"):
            page = browser.get(reverse(f"clusters:{name}", args=[design.pk]))
            texts[f"{name} of {holding.tag}'s design"] = f"{page.status_code} {page.content.decode()}"
    texts["dashboard"] = browser.get(reverse("dashboard")).content.decode()
    texts["on-hand"] = api.get("/api/v1/stock/on-hand/").content.decode()
    texts["units"] = api.get("/api/v1/units/", {"search": "SER"}).content.decode()
    texts["lots"] = api.get("/api/v1/stock/lots/").content.decode()
    texts["ledger"] = api.get("/api/v1/stock/movements/").content.decode()
    for name in ("stock-list", "lot-list", "movement-list"):
        url = reverse(f"warehouse:{name}")
        texts[name] = browser.get(url).content.decode()
        for export in ("csv", "xlsx"):
            texts[f"{name} {export}"] = _download(browser.get(url, {"export": export}))
    for other in world.values():
        texts[f"stock search for {other.tag}"] = browser.get(
            reverse("warehouse:stock-list"), {"q": f"SER{other.tag}"}
        ).content.decode()
        texts[f"shipment search for {other.tag}"] = api.get(
            "/api/v1/shipments/", {"search": other.shipment.reference}
        ).content.decode()
        texts[f"part picker for {other.tag}"] = browser.get(
            "/pick/part/", {"q": f"PRIV{other.tag}"}
        ).content.decode()
        texts[f"lot picker for {other.tag}"] = browser.get(
            "/pick/lot/", {"q": f"BOND{other.tag}"}
        ).content.decode()
    return texts


def test_every_aggregate_reads_through_its_readers_door(django_db_blocker):
    world = _build()
    for reader in world.values():
        texts = _texts(reader, world)
        hidden = [owner for owner in world.values() if not _sees(reader, owner)]
        for where, text in texts.items():
            for owner in hidden:
                leaked = [mark for mark in owner.marks if mark in text]
                assert not leaked, f"{reader.tag} reads {owner.tag}'s {leaked} in {where}"

        # The figures are those of what the reader may see.
        api = token_client(reader.user)
        for holding in world.values():
            answer = api.get(f"/api/v1/clusters/{holding.design.pk}/coverage/")
            customer = next(h for h in world.values() if h.organisation.pk == holding.design.customer_id)
            if answer.status_code == 404:
                assert reader.tag not in (holding.tag, customer.tag)
                continue
            lines = {line["role"]: line for line in answer.json()["lines"]}
            stock_seen = _sees(reader, customer)
            assert lines["system"]["in_stock"] == (customer.units if stock_seen else 0), (
                reader.tag,
                holding.tag,
            )
            assert lines["compute_cable"]["in_stock"] == (customer.lot if stock_seen else 0)
            shipped_seen = _sees(reader, holding)
            assert lines["system"]["shipped"] == (holding.shipped if shipped_seen else 0)
            assert answer.json()["hidden_shipments"] == (0 if shipped_seen else 1)
        seen = [h for h in world.values() if _sees(reader, h)]
        on_hand = json.loads(texts["on-hand"])
        assert sum(int(row["quantity"]) for row in on_hand["results"]) == sum(h.units + h.lot for h in seen)
        tiles = {tile.label: tile.count for tile in tiles_for(reader.user)}
        assert tiles["units in stock"] == sum(h.units for h in seen)
        assert tiles["open shipments"] == len(seen)
        assert tiles["cluster designs"] == (4 if reader.tag == "OPR" else 2)
