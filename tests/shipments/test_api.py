"""The shipments API: create, bad input, nested lines/packages/legs, events, transitions, scoping."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.shipments import services
from apps.shipments.models import Shipment, ShipmentLine, TrackingEvent
from tests.factories import OrganisationFactory

from .conftest import crate


@pytest.fixture
def payload(factory_site, datacentre, supplier, customer):
    today = timezone.localdate()
    return {
        "origin": factory_site.pk,
        "destination": datacentre.pk,
        "incoterm": "DAP",
        "incoterm_place": "Chennai",
        "mode": "air",
        "ready_date": str(today),
        "required_by": str(today + dt.timedelta(days=20)),
        "currency": "USD",
        "parties": {"shipper": supplier.pk, "consignee": customer.pk},
    }


def test_create_and_read(coordinator, api_as, payload):
    api = api_as(coordinator)
    response = api.post("/api/v1/shipments/", payload, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["reference"].startswith(f"SHP-{timezone.now().year}-")
    assert body["status"] == "draft"
    assert {p["role"] for p in body["parties"]} == {"shipper", "consignee"}
    assert body["incoterm_rule"]["import_clearance"] == "buyer"
    detail = api.get(f"/api/v1/shipments/{body['reference']}/").json()
    assert detail["reference"] == body["reference"]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"incoterm": "XYZ"}, "incoterm"),
        ({"mode": "teleport"}, "mode"),
        ({"incoterm": "FOB"}, "incoterm"),  # sea-only rule with air
        ({"parties": {"captain": 1}}, "parties"),
        ({"required_by": "2020-01-01"}, "required_by"),
        ({"currency": "XXQ"}, "currency"),
    ],
)
def test_bad_shipment_input_names_the_field(coordinator, api_as, payload, change, field):
    response = api_as(coordinator).post("/api/v1/shipments/", payload | change, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()
    assert not Shipment.objects.exists()


def test_destination_equal_to_origin(coordinator, api_as, payload):
    response = api_as(coordinator).post(
        "/api/v1/shipments/", payload | {"destination": payload["origin"]}, format="json"
    )
    assert response.status_code == 400 and list(response.json()) == ["destination"]


def test_lines_packages_and_legs(coordinator, api_as, make_shipment, gpu_server, cable, hub, datacentre):
    shipment = make_shipment()
    api = api_as(coordinator)
    base = f"/api/v1/shipments/{shipment.reference}"
    line = api.post(
        f"{base}/lines/", {"part": gpu_server.pk, "quantity": 2, "serials": ["A1", "A2"]}, format="json"
    )
    assert line.status_code == 201, line.json()
    assert line.json()["hs_code"] == "847150" and line.json()["serials"] == ["A1", "A2"]
    assert line.json()["line_value"] == "746000.00"
    cables = api.post(
        f"{base}/lines/", {"part": cable.pk, "quantity": 10, "hs_code": "8544.42.90"}, format="json"
    )
    assert cables.json()["hs_code"] == "85444290"
    too_many = api.post(
        f"{base}/lines/", {"part": gpu_server.pk, "quantity": 1, "serials": ["X", "Y"]}, format="json"
    )
    assert too_many.status_code == 400 and "serials" in too_many.json()
    assert ShipmentLine.objects.filter(shipment=shipment).count() == 2  # nothing half-saved

    package = api.post(
        f"{base}/packages/",
        crate() | {"items": [{"line": 1, "quantity": 2}], "serials": ["A1", "A2"]},
        format="json",
    )
    assert package.status_code == 201, package.json()
    assert package.json()["dangerous_goods"] == [
        "UN3481 Lithium ion batteries contained in equipment, class 9, PI967 Section II"
    ]
    over = api.post(f"{base}/packages/", crate() | {"items": [{"line": 1, "quantity": 1}]}, format="json")
    assert over.status_code == 400 and "only 0 of 2 left to pack" in over.json()["items"][0]
    wrong_serial = api.post(
        f"{base}/packages/",
        crate() | {"items": [{"line": 2, "quantity": 10}], "serials": ["NOPE"]},
        format="json",
    )
    assert wrong_serial.status_code == 400 and "serials" in wrong_serial.json()

    leg = api.post(
        f"{base}/legs/",
        {
            "role": "main",
            "origin": hub.pk,
            "destination": datacentre.pk,
            "mode": "air",
            "transport_document": "618-20240010",
            "planned_arrival": "2026-12-20",
            "planned_departure": "2026-12-18",
        },
        format="json",
    )
    assert leg.status_code == 201, leg.json()
    bad_awb = api.post(
        f"{base}/legs/",
        {
            "role": "main",
            "origin": hub.pk,
            "destination": datacentre.pk,
            "mode": "air",
            "transport_document": "618-20240011",
        },
        format="json",
    )
    assert bad_awb.status_code == 400 and "check digit" in bad_awb.json()["transport_document"][0]
    assert api.get(f"/api/v1/shipments/{shipment.reference}/").json()["eta"] == "2026-12-20"


def test_list_filters_and_constant_queries(coordinator, api_as, make_shipment, django_assert_num_queries):
    api = api_as(coordinator)
    api.get("/api/v1/me/")
    make_shipment()
    with django_assert_num_queries(5):  # token, count, page, parties, line counts
        api.get("/api/v1/shipments/")
    for _ in range(5):
        make_shipment(mode="ocean", incoterm="CIF")
    with django_assert_num_queries(5):
        body = api.get("/api/v1/shipments/").json()
    assert body["count"] == 6
    assert api.get("/api/v1/shipments/?mode=ocean").json()["count"] == 5
    assert api.get("/api/v1/shipments/?destination_country=IN").json()["count"] == 6
    assert api.get("/api/v1/shipments/?status=delivered").json()["count"] == 0
    assert api.get("/api/v1/shipments/?late=true").json()["count"] == 0


def test_late_filter(coordinator, api_as, make_shipment):
    late = make_shipment()
    Shipment.objects.filter(pk=late.pk).update(eta=late.required_by + dt.timedelta(days=3))
    make_shipment()
    api = api_as(coordinator)
    assert [s["reference"] for s in api.get("/api/v1/shipments/?late=true").json()["results"]] == [
        late.reference
    ]
    assert api.get(f"/api/v1/shipments/{late.reference}/").json()["is_late"] is True


def test_transition_endpoint_answers_409_when_refused(coordinator, api_as, make_shipment):
    shipment = make_shipment()
    api = api_as(coordinator)
    refused = api.post(f"/api/v1/shipments/{shipment.reference}/transition/", {"to": "booked"}, format="json")
    assert refused.status_code == 409 and "cannot go from draft to booked" in refused.json()["detail"]
    guard = api.post(
        f"/api/v1/shipments/{shipment.reference}/transition/", {"to": "compliance_review"}, format="json"
    )
    assert guard.status_code == 409 and "The shipment has no lines." in guard.json()["reasons"]


class TestEvents:
    def _post(self, api, shipment, key=None, **data):
        body = {"code": "departed", "occurred_at": timezone.now().isoformat(), "location": "TPE"} | data
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        return api.post(f"/api/v1/shipments/{shipment.reference}/events/", body, format="json", **headers)

    def _booked(self, ready_to_book, coordinator, compliance_officer, forwarder=None):
        """Booked the way the app books: parties named while a draft, then a passing compliance
        check of the shipment as it is (a party named later would make that answer stale, and the
        departure milestone would be refused)."""
        from apps.documents.services import documents_issue_required

        from .test_workflow import approve

        shipment = ready_to_book()
        if forwarder is not None:
            services.party_set(
                shipment=shipment, role="freight_forwarder", organisation=forwarder, actor=coordinator
            )
        shipment = approve(shipment, coordinator)
        documents_issue_required(shipment=shipment, actor=coordinator)
        return services.shipment_transition(shipment=shipment, target="booked", actor=coordinator)

    def test_repeated_key_returns_first_result_and_creates_nothing(
        self, ready_to_book, coordinator, compliance_officer, forwarder, forwarder_user, api_as
    ):
        # A forwarder posts on its own shipments.
        shipment = self._booked(ready_to_book, coordinator, compliance_officer, forwarder=forwarder)
        api = api_as(forwarder_user)
        when = timezone.now().isoformat()
        first = self._post(api, shipment, key="evt-001", remarks="CI 5701", occurred_at=when)
        assert first.status_code == 201, first.json()
        assert first.json()["status_after"] == "in_transit"
        again = self._post(api, shipment, key="evt-001", remarks="CI 5701", occurred_at=when)
        assert again.status_code == 201 and again.json() == first.json()
        assert again["Idempotent-Replayed"] == "true"
        assert TrackingEvent.objects.filter(shipment=shipment).count() == 1
        reused = self._post(api, shipment, key="evt-001", remarks="different", occurred_at=when)
        assert reused.status_code == 422
        assert TrackingEvent.objects.filter(shipment=shipment).count() == 1

    def test_out_of_order_events_sort_by_time_and_never_move_backwards(
        self, ready_to_book, coordinator, compliance_officer, api_as
    ):
        shipment = self._booked(ready_to_book, coordinator, compliance_officer)
        api = api_as(coordinator)
        now = timezone.now()
        # The arrival at destination proves the departure: booked → in transit (inferred) → at customs.
        arrived = self._post(
            api, shipment, code="arrived", occurred_at=(now - dt.timedelta(hours=1)).isoformat()
        )
        assert arrived.json()["status_after"] == "at_customs"
        assert "in transit inferred" in arrived.json()["status_note"]
        departed = self._post(
            api, shipment, code="departed", occurred_at=(now - dt.timedelta(days=2)).isoformat()
        )
        assert departed.json()["status_after"] == ""  # it is behind the shipment: nothing moves back
        picked = self._post(
            api, shipment, code="picked_up", occurred_at=(now - dt.timedelta(days=3)).isoformat()
        )
        assert picked.json()["status_after"] == ""
        codes = [
            e["code"] for e in api.get(f"/api/v1/shipments/{shipment.reference}/events/").json()["results"]
        ]
        assert codes == ["picked_up", "departed", "arrived"]

    def test_customs_hold_and_release_through_events(
        self, ready_to_book, coordinator, compliance_officer, api_as
    ):
        shipment = self._booked(ready_to_book, coordinator, compliance_officer)
        api = api_as(coordinator)
        for code in ("departed", "arrived"):
            self._post(api, shipment, code=code)
        hold = self._post(api, shipment, code="customs_hold", remarks="BIS certificate requested")
        assert hold.json()["status_after"] == "on_hold"
        shipment.refresh_from_db()
        assert (shipment.held_from, shipment.hold_kind, shipment.hold_reason) == (
            "at_customs",
            "customs",
            "BIS certificate requested",
        )
        released = self._post(api, shipment, code="customs_released")
        assert released.json()["status_after"] == "cleared"
        assert self._post(api, shipment, code="delivered").json()["status_after"] == "delivered"

    def test_event_for_a_cancelled_shipment_is_refused(self, make_shipment, coordinator, api_as):
        shipment = make_shipment()
        services.shipment_transition(shipment=shipment, target="cancelled", actor=coordinator, reason="x")
        response = self._post(api_as(coordinator), shipment, key="k1")
        assert response.status_code == 400 and "cancelled" in response.json()["shipment"][0]
        assert not TrackingEvent.objects.exists()

    @pytest.mark.parametrize(
        "change, field",
        [
            ({"code": "exploded"}, "code"),
            ({"occurred_at": "yesterday"}, "occurred_at"),
            ({"leg": 999}, "leg"),
        ],
    )
    def test_bad_events_name_the_field(self, make_shipment, coordinator, api_as, change, field):
        response = self._post(api_as(coordinator), make_shipment(), **change)
        assert response.status_code == 400 and field in response.json()


def test_freight_options_endpoint(coordinator, api_as, make_shipment, gpu_server, rates):
    shipment = make_shipment(required_by=timezone.localdate() + dt.timedelta(days=40))
    services.line_add(shipment=shipment, part=gpu_server, quantity=4)
    body = api_as(coordinator).get(f"/api/v1/shipments/{shipment.reference}/freight-options/").json()
    modes = {o["mode"] for o in body["options"]}
    assert modes == {"air", "ocean"}
    air = next(o for o in body["options"] if o["mode"] == "air")
    # 4 × 130×85×110 cm = 4 × 202.58 kg volumetric = 810.33 → 810.5 kg; gross 520 kg → 810.5 × 4.20
    assert air["chargeable_kg"] == "810.5" and air["cost"] == "3404.10"
    assert body["recommendation"]["option"]["mode"] == "ocean"  # 40 days allow the sea
    assert body["landed_cost"]["vat"] != "0.00"


def test_freight_options_for_a_lane_without_rates(coordinator, api_as, make_shipment, gpu_server):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    response = api_as(coordinator).get(f"/api/v1/shipments/{shipment.reference}/freight-options/")
    assert response.status_code == 400 and "TW → IN" in response.json()["lane"][0]


class TestScoping:
    """Another organisation's shipment is not found, on every endpoint."""

    @pytest.fixture
    def foreign(self, make_shipment, gpu_server):
        shipment = make_shipment()
        services.line_add(shipment=shipment, part=gpu_server, quantity=1)
        return shipment

    @pytest.fixture
    def outsider(self, db):
        from apps.accounts.roles import Role
        from tests.factories import UserFactory

        org = OrganisationFactory(kind="freight_forwarder", legal_name="Other Forwarder", country="SG")
        return UserFactory(organisation=org, role=Role.PARTNER, username="outsider")

    @pytest.mark.parametrize(
        "method, suffix",
        [
            ("get", "/"),
            ("patch", "/"),
            ("get", "/history/"),
            ("get", "/events/"),
            ("post", "/events/"),
            ("post", "/transition/"),
            ("get", "/freight-options/"),
            ("get", "/lines/"),
            ("post", "/lines/"),
            ("get", "/lines/{line}/"),
            ("patch", "/lines/{line}/"),
            ("delete", "/lines/{line}/"),
            ("get", "/packages/"),
            ("post", "/packages/"),
            ("get", "/legs/"),
            ("post", "/legs/"),
        ],
    )
    def test_outsider_gets_404(self, foreign, outsider, api_as, method, suffix):
        line = foreign.lines.get().pk
        url = f"/api/v1/shipments/{foreign.reference}{suffix.format(line=line)}"
        response = getattr(api_as(outsider), method)(url, {}, format="json")
        assert response.status_code == 404
        assert foreign.reference not in response.content.decode()

    def test_outsider_list_is_empty_and_party_sees_it(
        self, foreign, outsider, supplier_user, customer, api_as
    ):
        assert api_as(outsider).get("/api/v1/shipments/").json()["count"] == 0
        # The supplier is the shipper: it sees the shipment.
        assert api_as(supplier_user).get("/api/v1/shipments/").json()["count"] == 1

    def test_consignee_may_read_but_not_change(self, foreign, customer, api_as):
        from apps.accounts.roles import Role
        from tests.factories import UserFactory

        user = UserFactory(organisation=customer, role=Role.PARTNER, username="cust")
        api = api_as(user)
        assert api.get(f"/api/v1/shipments/{foreign.reference}/").status_code == 200
        assert (
            api.patch(
                f"/api/v1/shipments/{foreign.reference}/", {"instructions": "x"}, format="json"
            ).status_code
            == 404
        )
        assert (
            api.post(
                f"/api/v1/shipments/{foreign.reference}/transition/", {"to": "cancelled"}, format="json"
            ).status_code
            == 403
        )

    def test_sites_are_scoped(self, factory_site, datacentre, hub, outsider, api_as):
        ids = {s["id"] for s in api_as(outsider).get("/api/v1/sites/").json()["results"]}
        # The operator's shared hub; not the supplier's factory, nor a data centre (issue 9: where a
        # customer's cluster stands is not every partner's business).
        assert ids == {hub.pk}
        assert api_as(outsider).get(f"/api/v1/sites/{factory_site.pk}/").status_code == 404
        assert api_as(outsider).get(f"/api/v1/sites/{datacentre.pk}/").status_code == 404


def test_rate_table_api(coordinator, compliance_officer, api_as):
    api = api_as(coordinator)
    payload = {
        "origin_country": "TW",
        "destination_country": "IN",
        "mode": "air",
        "service": "Air",
        "price_per_kg": "4.20",
        "transit_days": 5,
        "valid_from": "2026-01-01",
        "valid_to": "2026-12-31",
    }
    assert api.post("/api/v1/freight-rates/", payload, format="json").status_code == 201
    no_price = api.post("/api/v1/freight-rates/", payload | {"price_per_kg": None}, format="json")
    assert no_price.status_code == 400 and "price_per_kg" in no_price.json()
    backwards = api.post("/api/v1/freight-rates/", payload | {"valid_to": "2025-01-01"}, format="json")
    assert backwards.status_code == 400 and "valid_to" in backwards.json()
    assert api.get("/api/v1/freight-rates/?valid_on=2026-06-01&mode=air").json()["count"] == 1
    assert (
        api_as(compliance_officer).post("/api/v1/freight-rates/", payload, format="json").status_code == 403
    )
