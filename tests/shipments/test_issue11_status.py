"""Issue 11, "Status that follows the evidence, and cancelling that cancels": a held shipment that
has departed cannot be cancelled; cancelling voids the issued documents, supersedes the drafts
and gives licence room back in one transaction; the status follows the strongest evidence; what
partners read of freight options."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.core.models import AuditEvent
from apps.shipments import services
from apps.shipments.models import Leg, Shipment
from apps.shipments.services import TransitionRefused

from .test_out_of_order_events import post, transitions


@pytest.fixture
def booked(ready_to_book, coordinator):
    """A booked TW → IN shipment with its required documents issued."""
    from apps.documents.services import documents_issue_required

    from .test_workflow import approve

    shipment = approve(ready_to_book(), coordinator)
    documents_issue_required(shipment=shipment, actor=coordinator)
    return services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)


def hold(shipment, actor, kind="customs"):
    return services.shipment_transition(
        shipment=shipment, target="on_hold", actor=actor, reason="Inspection", hold_kind=kind
    )


# --- 1. goods in the air cannot be cancelled ---------------------------------------------------


def test_a_shipment_held_in_transit_cannot_be_cancelled(booked, coordinator, admin_user, api_as):
    api = api_as(coordinator)
    post(api, booked, "departed", 30)
    held = hold(Shipment.objects.get(pk=booked.pk), admin_user)
    assert held.status == "on_hold" and held.held_from == "in_transit"
    response = api.post(
        f"/api/v1/shipments/{booked.reference}/transition/",
        {"to": "cancelled", "reason": "Customer withdrew"},
        format="json",
    )
    assert response.status_code == 409, response.json()
    reasons = " ".join(response.json()["reasons"])
    assert "in transit" in reasons and "departed" in reasons
    assert Shipment.objects.get(pk=booked.pk).status == "on_hold"


def test_a_shipment_held_at_customs_cannot_be_cancelled_in_the_browser(
    booked,
    coordinator,
    api_as,
    browser_as,
):
    api = api_as(coordinator)
    post(api, booked, "departed", 30)
    post(api, booked, "arrived", 10)
    assert post(api, booked, "customs_hold", 5)["status_after"] == "on_hold"
    client = browser_as(coordinator)
    response = client.post(
        f"/shipments/{booked.reference}/transition/",
        {"to": "cancelled", "reason": "Customer withdrew"},
        follow=True,
    )
    assert response.redirect_chain[-1] == (booked.get_absolute_url(), 302)
    assert "departed" in response.content.decode()
    assert Shipment.objects.get(pk=booked.pk).status == "on_hold"


def test_a_shipment_held_before_departure_can_be_cancelled(booked, coordinator, admin_user):
    held = hold(booked, admin_user, kind="compliance")
    assert held.held_from == "booked"
    cancelled = services.shipment_transition(
        shipment=held, target="cancelled", actor=coordinator, reason="Customer withdrew"
    )
    assert cancelled.status == "cancelled"


def test_a_departure_during_a_compliance_hold_before_departure_is_refused(
    booked,
    coordinator,
    admin_user,
):
    """Goods held for compliance before they left must not leave: the forwarder's departure is
    refused (409 in the API), nothing of it is recorded, and the held shipment can still be
    cancelled."""
    held = hold(booked, admin_user, kind="compliance")
    with pytest.raises(TransitionRefused) as refused:
        services.event_record(
            shipment=held,
            actor=coordinator,
            code="departed",
            occurred_at=timezone.now() - dt.timedelta(hours=2),
        )
    assert "held for compliance" in refused.value.message
    assert not held.events.exists()
    cancelled = services.shipment_transition(
        shipment=held, target="cancelled", actor=coordinator, reason="Withdrawn"
    )
    assert cancelled.status == "cancelled"


# --- 3. the status follows the evidence --------------------------------------------------------


def test_a_customs_release_after_a_hold_in_transit_clears_the_shipment(booked, coordinator, api_as):
    """Held by destination customs while in transit (no arrival posted): the release proves the
    arrival and the clearance, so the shipment is cleared — not returned to in transit."""
    api = api_as(coordinator)
    post(api, booked, "departed", 30)
    held = post(api, booked, "customs_hold", 10, location="MAA")
    assert held["status_after"] == "on_hold" and "at customs inferred" in held["status_note"]
    assert Shipment.objects.get(pk=booked.pk).held_from == "at_customs"
    released = post(api, booked, "customs_released", 5)
    assert released["status_after"] == "cleared", released
    moves = transitions(booked)
    assert [s for s, _ in moves[-4:]] == ["at_customs", "on_hold", "at_customs", "cleared"]
    assert "inferred from Customs hold" in moves[-4][1]


def test_a_shipment_held_in_transit_by_hand_is_released_to_where_the_evidence_puts_it(
    booked,
    coordinator,
    admin_user,
    api_as,
):
    """Held in transit by a coordinator, then released by customs: the release proves the arrival
    (inferred) and the clearance; it does not go back to in transit."""
    api = api_as(coordinator)
    post(api, booked, "departed", 30)
    held = hold(Shipment.objects.get(pk=booked.pk), admin_user)
    assert held.held_from == "in_transit"
    early = post(api, booked, "customs_released", 5)  # dated before the hold was put
    assert early["status_after"] == "" and "the hold stands" in early["status_note"]
    released = post(api, booked, "customs_released", 0)
    assert released["status_after"] == "cleared"
    assert "at customs inferred" in released["status_note"]
    moves = transitions(booked)
    assert [s for s, _ in moves[-3:]] == ["in_transit", "at_customs", "cleared"]
    assert "release" in moves[-3][1]
    assert "inferred from Customs released" in moves[-2][1] and "inferred" not in moves[-1][1]


def test_a_customs_release_after_an_export_hold_returns_to_booked(booked, coordinator, api_as):
    """Held before departure (export customs): the release returns it to booked, nothing inferred."""
    api = api_as(coordinator)
    assert post(api, booked, "customs_hold", 10, location="TPE")["status_after"] == "on_hold"
    released = post(api, booked, "customs_released", 5)
    assert released["status_after"] == "booked"


def test_delivered_posted_before_departed_on_the_main_leg_delivers(booked, coordinator, api_as):
    api = api_as(coordinator)
    main = Leg.objects.get(shipment=booked, role="main")
    delivered = post(api, booked, "delivered", 1, leg=main.pk)
    assert delivered["status_after"] == "delivered"
    departed = post(api, booked, "departed", 40, leg=main.pk)
    assert departed["status_after"] == "" and "already delivered" in departed["status_note"]
    assert Shipment.objects.get(pk=booked.pk).status == "delivered"


def test_a_delivery_at_the_hub_on_an_inbound_leg_does_not_deliver(
    booked, coordinator, api_as, hub, factory_site
):
    inbound = Leg.objects.create(
        shipment=booked, sequence=0, role="inbound", origin=factory_site, destination=hub, mode="road"
    )
    event = post(api_as(coordinator), booked, "delivered", 1, leg=inbound.pk)
    assert event["status_after"] == "" and "hub" in event["status_note"]
    assert Shipment.objects.get(pk=booked.pk).status == "booked"


def test_delivered_while_on_customs_hold_in_transit_then_release_delivers(booked, coordinator, api_as):
    api = api_as(coordinator)
    post(api, booked, "departed", 30)
    post(api, booked, "customs_hold", 10)
    assert post(api, booked, "delivered", 1)["status_after"] == ""
    released = post(api, booked, "customs_released", 5)
    assert released["status_after"] == "delivered"
    statuses = [s for s, _ in transitions(booked)]
    assert statuses[-3:] == ["at_customs", "cleared", "delivered"]


# --- 2. cancelling voids the documents and gives licence room back, all or nothing --------------


@pytest.fixture
def drawdown(booked, supplier, customer):
    """A licence drawdown of the booked shipment's line (as a passing check with a licence writes)."""
    from decimal import Decimal

    from apps.compliance.models import Licence, LicenceDrawdown
    from apps.compliance.services import licence_save

    licence = licence_save(
        licence=Licence(),
        fields={
            "number": "D7654321",
            "licensee": supplier,
            "eccns": "4A090.a",
            "destination_countries": "IN",
            "consignee": customer,
            "permitted_quantity": 10,
            "permitted_value": Decimal("5000000"),
            "valid_from": dt.date(2026, 1, 1),
            "expires_on": dt.date(2027, 12, 31),
        },
    )
    line = booked.lines.get()
    return LicenceDrawdown.objects.create(
        licence=licence,
        compliance_check=booked.compliance_checks.latest("id"),
        line=line,
        quantity=line.quantity,
        value=line.unit_value * line.quantity,
    )


def test_cancelling_voids_issued_documents_and_releases_the_licence(booked, drawdown, coordinator, api_as):
    from apps.documents.models import Document
    from apps.documents.services import document_download

    issued = list(Document.objects.filter(shipment=booked, status="issued"))
    assert issued
    response = api_as(coordinator).post(
        f"/api/v1/shipments/{booked.reference}/transition/",
        {"to": "cancelled", "reason": "Customer withdrew"},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "cancelled"
    for document in issued:
        document.refresh_from_db()
        assert document.status == "void" and document.void_sha256
        assert document.void_reason == f"Shipment {booked.reference} cancelled: Customer withdrew"
        data, name = document_download(document)
        assert name.endswith("-VOID.pdf") and data.startswith(b"%PDF")
        audit = AuditEvent.objects.for_object(document).filter(action="transition").latest("id")
        assert audit.changes == {"status": ["issued", "void"]} and "cancelled" in audit.message
    drawdown.refresh_from_db()
    assert drawdown.released_at is not None and "Customer withdrew" in drawdown.released_reason
    messages = [e.message for e in AuditEvent.objects.for_object(booked)]
    assert any("licence drawdown released" in m for m in messages)
    assert any(f"{len(issued)} issued document(s) voided" in m for m in messages)


def test_cancelling_supersedes_drafts(ready_to_book, coordinator):
    from apps.documents.services import document_generate

    from .test_workflow import approve

    shipment = approve(ready_to_book(), coordinator)
    draft = document_generate(shipment=shipment, doc_type="commercial_invoice", actor=coordinator)
    services.shipment_transition(shipment=shipment, target="cancelled", actor=coordinator, reason="Duplicate")
    draft.refresh_from_db()
    assert draft.status == "superseded"
    audit = AuditEvent.objects.for_object(draft).filter(action="transition").latest("id")
    assert audit.changes == {"status": ["draft", "superseded"]}


def test_a_missing_document_file_refuses_the_cancel_and_nothing_changes(
    booked,
    drawdown,
    coordinator,
    api_as,
    browser_as,
):
    from apps.documents.models import Document

    issued = list(Document.objects.filter(shipment=booked, status="issued").order_by("pk"))
    lost = issued[-1]
    lost.pdf.storage.delete(lost.pdf.name)
    api, browser = api_as(coordinator), browser_as(coordinator)
    audit_before = AuditEvent.objects.count()
    response = api.post(
        f"/api/v1/shipments/{booked.reference}/transition/",
        {"to": "cancelled", "reason": "Customer withdrew"},
        format="json",
    )
    assert response.status_code == 409, response.json()
    assert any(str(lost) in r and "missing" in r for r in response.json()["reasons"])
    page = browser.post(
        f"/shipments/{booked.reference}/transition/",
        {"to": "cancelled", "reason": "Customer withdrew"},
        follow=True,
    )
    assert page.redirect_chain[-1] == (booked.get_absolute_url(), 302)
    assert str(lost) in page.content.decode()
    assert Shipment.objects.get(pk=booked.pk).status == "booked"
    statuses = Document.objects.filter(pk__in=[d.pk for d in issued]).values_list("status", flat=True)
    assert set(statuses) == {"issued"}
    drawdown.refresh_from_db()
    assert drawdown.released_at is None
    assert AuditEvent.objects.count() == audit_before


def test_the_page_offers_no_cancel_for_a_shipment_held_after_departure(
    booked, coordinator, admin_user, api_as, browser_as
):
    client = browser_as(admin_user)
    held_before = hold(booked, admin_user, kind="customs")
    assert 'value="cancelled"' in client.get(held_before.get_absolute_url()).content.decode()
    services.shipment_transition(shipment=held_before, target="release", actor=admin_user)
    post(api_as(coordinator), booked, "departed", 3)
    held_after = hold(Shipment.objects.get(pk=booked.pk), admin_user)
    assert 'value="cancelled"' not in client.get(held_after.get_absolute_url()).content.decode()


# --- 4. who reads carrier rates and the landed cost ---------------------------------------------

RATE_CARD = ("breakdown", "price_per_kg", "minimum_charge", "reasons", "rate_id")


def _keys(data):
    """Every key anywhere in a JSON document."""
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in _keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in _keys(v)}
    return set()


@pytest.fixture
def planned(make_shipment, gpu_server, rates, supplier_user, forwarder, forwarder_user):
    """A draft TW → IN shipment of four servers, the supplier its shipper, the forwarder named."""
    from apps.shipments.models import ShipmentParty

    shipment = make_shipment(required_by=timezone.localdate() + dt.timedelta(days=40))
    services.line_add(shipment=shipment, part=gpu_server, quantity=4)
    ShipmentParty.objects.create(shipment=shipment, role="freight_forwarder", organisation=forwarder)
    return shipment


def test_a_supplier_on_the_shipment_reads_no_rate_card_and_no_landed_cost(planned, supplier_user, api_as):
    response = api_as(supplier_user).get(f"/api/v1/shipments/{planned.reference}/freight-options/")
    assert response.status_code == 200
    body = response.json()
    assert {o["mode"] for o in body["options"]} == {"air", "ocean"}
    air = next(o for o in body["options"] if o["mode"] == "air")
    assert air["chargeable_kg"] == "810.5" and air["arrival"]
    keys = _keys(body)
    assert not keys & {*RATE_CARD, "cost", "fcl_cost", "lcl_cost"}
    assert body["landed_cost"] is None and "customer" in body["landed_cost_note"]
    assert "3404.10" not in response.content.decode() and "4.20" not in response.content.decode()


def test_the_customer_reads_totals_and_its_landed_cost_but_no_rate_card(planned, customer, api_as):
    from tests.factories import UserFactory

    customer_user = UserFactory(organisation=customer, role="partner", username="customer-api")
    body = api_as(customer_user).get(f"/api/v1/shipments/{planned.reference}/freight-options/").json()
    air = next(o for o in body["options"] if o["mode"] == "air")
    assert air["cost"] == "3404.10"
    assert not _keys(body["options"]) & set(RATE_CARD)
    assert body["landed_cost"]["vat"] != "0.00"


def test_operator_staff_read_the_whole_plan(planned, coordinator, api_as):
    body = api_as(coordinator).get(f"/api/v1/shipments/{planned.reference}/freight-options/").json()
    air = next(o for o in body["options"] if o["mode"] == "air")
    assert "4.20 USD/kg" in " ".join(air["breakdown"]) and body["landed_cost"]


def test_partners_cannot_read_the_rate_table(
    planned, supplier_user, forwarder_user, coordinator, api_as, browser_as
):
    for partner in (supplier_user, forwarder_user):
        assert api_as(partner).get("/api/v1/freight-rates/").status_code == 403
        assert browser_as(partner).get("/freight-rates/").status_code == 403
    assert api_as(coordinator).get("/api/v1/freight-rates/").json()["count"] == 2


def test_the_freight_panel_shows_a_supplier_no_prices(planned, supplier_user, browser_as):
    page = browser_as(supplier_user).get(f"/shipments/{planned.reference}/freight/").content.decode()
    assert "810.5" in page or "Air" in page
    assert "3404.10" not in page and "4.20" not in page and 'id="landed-cost"' not in page
    assert "landed-cost-hidden" in page


def test_a_supplier_reads_what_was_booked(booked, supplier_user, api_as):
    """Once booked, the plan is what was booked (legs, dates, the shipment's own charge): no rate
    card in it, so every party of the shipment reads it."""
    body = api_as(supplier_user).get(f"/api/v1/shipments/{booked.reference}/freight-options/").json()
    assert body["booked"]["legs"] and body["booked"]["status"] == "booked"
    assert not _keys(body) & {*RATE_CARD, "cost"}


# --- the rules as the pure engine states them ----------------------------------------------------


def test_the_engine_refuses_to_cancel_goods_that_left():
    from apps.shipments.engines.workflow import Status, cancel_problems

    assert cancel_problems(Status.ON_HOLD, held_from=Status.BOOKED) == []
    assert cancel_problems(Status.APPROVED) == []
    for held_from in (Status.IN_TRANSIT, Status.AT_CUSTOMS, Status.CLEARED):
        assert "departed" in cancel_problems(Status.ON_HOLD, held_from=held_from)[0]
    left = timezone.now()
    assert len(cancel_problems(Status.ON_HOLD, held_from=Status.AT_CUSTOMS, departed_at=left)) == 2


def test_the_engine_reads_a_hold_after_departure_as_destination_customs():
    from apps.shipments.engines.workflow import HoldKind, Milestone, Status, settle

    t0 = timezone.now() - dt.timedelta(days=3)

    def m(code, hours, **kwargs):
        return Milestone(code=code, occurred_at=t0 + dt.timedelta(hours=hours), **kwargs)

    departed, hold_ = m("departed", 0), m("customs_hold", 20)
    outcome = settle(Status.IN_TRANSIT, [departed, hold_], hold_)
    assert outcome.hold and outcome.steps == (Status.AT_CUSTOMS,) and outcome.inferred == (Status.AT_CUSTOMS,)
    release = m("customs_released", 30)
    released = settle(
        Status.ON_HOLD, [departed, hold_, release], release, held_from=Status.AT_CUSTOMS,
        hold_kind=HoldKind.CUSTOMS,
    )  # fmt: skip
    assert released.release and released.steps == (Status.CLEARED,)
    # Before the departure it is an export hold: released back to booked, nothing inferred.
    export = m("customs_hold", -5)
    assert settle(Status.BOOKED, [export], export).steps == ()
