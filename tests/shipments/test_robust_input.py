"""Robust under any input (issue 9), shipments: bounded lines, packages, legs, events and dates;
every nested list answers 200, also when a stored row overflows what is derived from it."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from apps.core.models import AuditEvent
from apps.shipments import services
from apps.shipments.models import Leg, Package, Shipment, ShipmentLine

from .conftest import crate

MONEY_MAX = "9999999999999.99"


def _lenient(client):
    client.raise_request_exception = False
    return client


@pytest.fixture
def full_shipment(make_shipment, gpu_server, cable, hub, datacentre, rates):
    """A draft with two lines, a package, an inbound and a main leg and an event."""
    # With an inbound leg the freight plan prices each leg on its own lane (issue 11): give the
    # TW → SG and SG → IN lanes a rate, as the TW → IN lane has in `rates`.
    air, _ocean = rates
    for origin, destination in (("TW", "SG"), ("SG", "IN")):
        air.pk = None
        air.origin_country, air.destination_country = origin, destination
        air.save()
    shipment = make_shipment()
    line = services.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["S1", "S2"])
    services.line_add(shipment=shipment, part=cable, quantity=10)
    services.package_add(shipment=shipment, fields=crate(), items=[(line, 2)], serials=["S1", "S2"])
    services.leg_add(
        shipment=shipment,
        fields={"role": "inbound", "origin": shipment.origin, "destination": hub, "mode": "road"},
        lines=[line],
    )
    services.leg_add(
        shipment=shipment, fields={"role": "main", "origin": hub, "destination": datacentre, "mode": "air"}
    )
    return shipment


def test_legs_list_answers_200(coordinator, api_as, full_shipment):
    response = api_as(coordinator).get(f"/api/v1/shipments/{full_shipment.reference}/legs/")
    assert response.status_code == 200, response.content[:300]
    assert [leg["role"] for leg in response.json()["results"]] == ["inbound", "main"]
    assert response.json()["results"][0]["lines"] == [1]


def test_partner_legs_list_shows_only_its_sites_as_choices(supplier_user, api_as, full_shipment, forwarder):
    from apps.shipments.models import Site

    private = Site.objects.create(
        owner=forwarder, name="Forwarder private depot", kind="warehouse", city="X", country="SG"
    )
    api = api_as(supplier_user)
    base = f"/api/v1/shipments/{full_shipment.reference}/legs/"
    assert api.get(base).status_code == 200
    leg = {
        "role": "onward",
        "origin": private.pk,
        "destination": full_shipment.destination_id,
        "mode": "road",
    }
    response = api.post(base, leg, format="json")
    assert response.status_code == 400 and "origin" in response.json()
    assert "Forwarder private depot" not in response.content.decode()


def _shipment_get_routes():
    """Every GET route under /api/v1/shipments/{reference}/ that lists or reads a child."""

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern), p.callback

    routes = set()
    for route, callback in walk(get_resolver().url_patterns):
        if not route.startswith("api/v1/") or "format" in route or "<int:pk>" in route or "(?P<pk>" in route:
            continue
        actions = getattr(callback, "actions", None)
        view_class = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        gets = (actions or {}).get("get") if actions is not None else hasattr(view_class, "get")
        if not gets:
            continue
        route = route.replace("api/v1/^", "api/v1/").rstrip("$")
        path = re.sub(r"<str:shipment_reference>|\(\?P<reference>\[\^/\.\]\+\)", "{ref}", route)
        if "{ref}" in path:
            routes.add("/" + path)
    return sorted(routes)


def test_the_route_list_is_complete():
    routes = _shipment_get_routes()
    for child in ("lines", "packages", "legs", "events", "history", "freight-options", "documents"):
        assert f"/api/v1/shipments/{{ref}}/{child}/" in routes, routes


@pytest.mark.parametrize("route", _shipment_get_routes())
def test_every_nested_shipment_route_answers_200(coordinator, supplier_user, api_as, full_shipment, route):
    path = route.format(ref=full_shipment.reference)
    for user in (coordinator, supplier_user):
        response = _lenient(api_as(user)).get(path)
        assert response.status_code == 200, (user.username, path, response.content[:300])


# --- bounded lines -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, fields",
    [
        ({"quantity": 2147483647}, {"quantity"}),
        ({"quantity": 1_000_001}, {"quantity"}),
        ({"quantity": 2147483647, "unit_value": MONEY_MAX}, {"quantity", "unit_value"}),
        ({"quantity": 2, "unit_value": MONEY_MAX}, {"quantity", "unit_value"}),
        ({"unit_value": "100000000000000.00"}, {"unit_value"}),
        ({"unit_value": "10000000000000.00"}, {"unit_value"}),
        ({"description": "DGX \u202eXGD"}, {"description"}),
        ({"serials": ["S1\u2067"]}, {"serials"}),
    ],
)
def test_a_line_whose_value_would_overflow_is_a_400(
    coordinator, api_as, make_shipment, gpu_server, change, fields
):
    shipment = make_shipment()
    body = {"part": gpu_server.pk, "quantity": 1} | change
    response = api_as(coordinator).post(f"/api/v1/shipments/{shipment.reference}/lines/", body, format="json")
    assert response.status_code == 400, response.content[:300]
    assert set(response.json()) & fields, response.json()
    assert not ShipmentLine.objects.exists()


def test_a_line_at_the_column_limit_is_accepted(coordinator, api_as, make_shipment, gpu_server):
    shipment = make_shipment()
    body = {"part": gpu_server.pk, "quantity": 1, "unit_value": MONEY_MAX}
    response = api_as(coordinator).post(f"/api/v1/shipments/{shipment.reference}/lines/", body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["line_value"] == MONEY_MAX


def test_raising_the_quantity_of_a_line_is_checked_against_its_value(
    coordinator, api_as, make_shipment, gpu_server
):
    shipment = make_shipment()
    line = services.line_add(
        shipment=shipment, part=gpu_server, quantity=1, fields={"unit_value": Decimal(MONEY_MAX)}
    )
    response = api_as(coordinator).patch(
        f"/api/v1/shipments/{shipment.reference}/lines/{line.pk}/", {"quantity": 2}, format="json"
    )
    assert response.status_code == 400 and "quantity" in response.json()
    line.refresh_from_db()
    assert line.quantity == 1


def test_an_overflowing_stored_line_does_not_break_the_lines_list(
    coordinator, api_as, browser_as, full_shipment
):
    ShipmentLine.objects.filter(shipment=full_shipment, line_number=1).update(
        quantity=2147483647, unit_value=Decimal(MONEY_MAX)
    )
    response = api_as(coordinator).get(f"/api/v1/shipments/{full_shipment.reference}/lines/")
    assert response.status_code == 200
    values = [line["line_value"] for line in response.json()["results"]]
    assert values == [None, "1800.00"]
    page = _lenient(browser_as(coordinator)).get(f"/shipments/{full_shipment.reference}/")
    assert page.status_code == 200


# --- packages, legs, events, shipments: bounded figures, business dates, clean text --------------


@pytest.mark.parametrize(
    "change, field",
    [
        ({"length_cm": "9999999.9"}, "length_cm"),
        ({"gross_kg": "99999999.99", "net_kg": "1"}, "gross_kg"),
        ({"marks": "THIS SIDE UP\u202e"}, "marks"),
    ],
)
def test_package_figures_are_bounded(coordinator, api_as, make_shipment, gpu_server, change, field):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    body = crate() | {"items": [{"line": 1, "quantity": 1}]} | change
    response = api_as(coordinator).post(
        f"/api/v1/shipments/{shipment.reference}/packages/", body, format="json"
    )
    assert response.status_code == 400 and field in response.json(), response.content[:300]
    assert not Package.objects.exists()


@pytest.mark.parametrize(
    "change, field",
    [
        ({"planned_departure": "9999-12-31", "planned_arrival": "9999-12-31"}, "planned_departure"),
        ({"planned_arrival": "0001-01-01"}, "planned_arrival"),
        ({"carrier": "Air \u202eIndia"}, "carrier"),
        ({"transport_document": "618\u200b-20240010"}, "transport_document"),
    ],
)
def test_leg_dates_and_text_are_checked(coordinator, api_as, make_shipment, hub, datacentre, change, field):
    shipment = make_shipment()
    body = {"role": "main", "origin": hub.pk, "destination": datacentre.pk, "mode": "air"} | change
    response = api_as(coordinator).post(f"/api/v1/shipments/{shipment.reference}/legs/", body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content[:300]
    assert not Leg.objects.exists()


@pytest.fixture
def shipment_payload(factory_site, datacentre, supplier, customer):
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


@pytest.mark.parametrize(
    "change, field",
    [
        ({"ready_date": "0001-01-01"}, "ready_date"),
        ({"required_by": "9999-12-31"}, "required_by"),
        ({"currency": "XXX"}, "currency"),
        ({"currency": "XTS"}, "currency"),
        ({"insurance_value": "100000000000000.00"}, "insurance_value"),
        ({"insurance_value": "10000000000000.00"}, "insurance_value"),
        ({"freight_charge": "-1.00"}, "freight_charge"),
        ({"insurance_charge": "10000000000000.00"}, "insurance_charge"),
        ({"instructions": "x" * 1_000_000}, "instructions"),
        ({"instructions": "Keep dry \u202e"}, "instructions"),
        ({"incoterm_place": "Chennai\u2066"}, "incoterm_place"),
        ({"end_use": "AI\x07 cluster"}, "end_use"),
    ],
)
def test_doubtful_shipment_values_are_refused(coordinator, api_as, shipment_payload, change, field):
    response = _lenient(api_as(coordinator)).post(
        "/api/v1/shipments/", shipment_payload | change, format="json"
    )
    assert response.status_code == 400 and field in response.json(), response.content[:300]
    assert not Shipment.objects.exists()


def test_event_dates_are_business_dates(coordinator, api_as, make_shipment):
    shipment = make_shipment()
    api = _lenient(api_as(coordinator))
    base = f"/api/v1/shipments/{shipment.reference}/events/"
    far = {"code": "exception", "occurred_at": "9999-12-31T23:59:59Z", "remarks": "x"}
    response = api.post(base, far, format="json")
    assert response.status_code == 400 and "occurred_at" in response.json(), response.content[:300]
    eta = {"code": "exception", "occurred_at": timezone.now().isoformat(), "eta": "9999-12-31"}
    response = api.post(base, eta, format="json")
    assert response.status_code == 400 and "eta" in response.json(), response.content[:300]
    remarks = {"code": "exception", "occurred_at": timezone.now().isoformat(), "remarks": "ok\u202e"}
    response = api.post(base, remarks, format="json")
    assert response.status_code == 400 and "remarks" in response.json(), response.content[:300]


def test_transition_reason_is_clean_text(coordinator, api_as, make_shipment):
    shipment = make_shipment()
    response = api_as(coordinator).post(
        f"/api/v1/shipments/{shipment.reference}/transition/",
        {"to": "cancelled", "reason": "duplicate \u202eorder"},
        format="json",
    )
    assert response.status_code == 400 and "reason" in response.json()
    shipment.refresh_from_db()
    assert shipment.status == "draft"


def test_a_500_while_adding_a_line_leaves_no_line_and_no_audit_row(
    coordinator, api_as, make_shipment, gpu_server, monkeypatch
):
    shipment = make_shipment()
    real = services.line_add

    def adds_then_fails(**kwargs):
        real(**kwargs)
        raise RuntimeError("failure after the first write")

    monkeypatch.setattr(services, "line_add", adds_then_fails)
    api = _lenient(api_as(coordinator))
    audit_before = AuditEvent.objects.count()
    response = api.post(
        f"/api/v1/shipments/{shipment.reference}/lines/",
        {"part": gpu_server.pk, "quantity": 1},
        format="json",
    )
    assert response.status_code == 500
    assert not ShipmentLine.objects.exists()
    assert AuditEvent.objects.count() == audit_before


def test_event_remarks_are_free_text(coordinator, api_as, make_shipment):
    shipment = make_shipment()
    body = {"code": "exception", "occurred_at": timezone.now().isoformat(), "remarks": "Pallet 3\n\tdented"}
    response = api_as(coordinator).post(
        f"/api/v1/shipments/{shipment.reference}/events/", body, format="json"
    )
    assert response.status_code == 201, response.json()


def test_a_service_error_on_a_field_the_form_lacks_is_shown_not_a_500(
    coordinator, browser_as, make_shipment, gpu_server
):
    from apps.catalog.models import Part

    # A part named before the rules: the line's description is copied from it and refused.
    Part.objects.filter(pk=gpu_server.pk).update(name="DGX \u202eH100")
    gpu_server.refresh_from_db()
    shipment = make_shipment()
    response = _lenient(browser_as(coordinator)).post(
        f"/shipments/{shipment.reference}/lines/", {"part": gpu_server.pk, "quantity": 1}
    )
    assert response.status_code == 400
    assert "description:" in response.content.decode()
    assert not ShipmentLine.objects.exists()
    too_much = {"part": gpu_server.pk, "quantity": 2, "unit_value": MONEY_MAX}
    Part.objects.filter(pk=gpu_server.pk).update(name="DGX H100")
    response = _lenient(browser_as(coordinator)).post(f"/shipments/{shipment.reference}/lines/", too_much)
    assert response.status_code == 400 and "largest line value" in response.content.decode()
