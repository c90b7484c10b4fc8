"""Shipment pages in the browser: list with filters, detail, forms with errors, status buttons."""

import datetime as dt

from django.utils import timezone

from apps.shipments import services
from apps.shipments.models import Shipment, Site

from .conftest import crate


def test_list_page_queries_stay_constant(coordinator, browser_as, make_shipment, django_assert_num_queries):
    client = browser_as(coordinator)
    make_shipment()
    with django_assert_num_queries(5):  # session, user, count, page, line counts
        client.get("/shipments/")
    for _ in range(8):
        make_shipment(mode="ocean", incoterm="CIF")
    with django_assert_num_queries(5):
        response = client.get("/shipments/?mode=ocean")
    assert len(response.context["object_list"]) == 8
    partial = client.get("/shipments/?status=draft", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and "SHP-" in partial


def test_create_form_shows_errors_then_creates(
    coordinator, browser_as, factory_site, datacentre, supplier, customer
):
    client = browser_as(coordinator)
    today = timezone.localdate()
    data = {
        "origin": factory_site.pk,
        "destination": factory_site.pk,
        "incoterm": "FOB",
        "incoterm_place": "TPE",
        "mode": "air",
        "ready_date": today,
        "required_by": today - dt.timedelta(days=1),
        "currency": "USD",
        "party_shipper": supplier.pk,
        "party_consignee": customer.pk,
        "reason_for_export": "sale",
    }
    response = client.post("/shipments/new/", data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert {"destination", "incoterm", "required_by"} <= set(errors)
    assert not Shipment.objects.exists()
    data |= {"destination": datacentre.pk, "incoterm": "FCA", "required_by": today + dt.timedelta(days=9)}
    response = client.post("/shipments/new/", data)
    assert response.status_code == 302
    shipment = Shipment.objects.get()
    assert set(shipment.parties.values_list("role", flat=True)) == {"shipper", "consignee"}


def test_detail_page_add_line_errors_and_success(
    coordinator, browser_as, make_shipment, gpu_server, django_assert_num_queries
):
    shipment = make_shipment()
    client = browser_as(coordinator)
    url = f"/shipments/{shipment.reference}/"
    # A fixed number whatever the shipment holds: session, user, the shipment with its prefetches,
    # importer/exporter-of-record providers, compliance and documents state, audit trail, and the
    # choices of the leg form's lines carried and the event form's leg, and of the line form's
    # shipper and exporter of record (issue 11), the lines shown (paged) with the totals of all, and
    # the package picker's lines, units packed and unpacked serials (issue 12), and the serialised
    # lines short of serial numbers, which the documents will need (shipments.readiness), and the
    # audit trail's names of the organisation, sites and people its changes point at.
    with django_assert_num_queries(32):
        page = client.get(url).content.decode()
    assert "can act as importer of record" in page and "Submit for compliance review" in page
    bad = client.post(f"{url}lines/", {"part": gpu_server.pk, "quantity": 0})
    assert bad.status_code == 400 and "quantity" in bad.context["line_form"].errors
    bad = client.post(f"{url}lines/", {"part": gpu_server.pk, "quantity": 1, "serials": "A\nB"})
    assert bad.status_code == 400 and "1 units" not in bad.content.decode()
    assert "2 serial numbers for a quantity of 1." in bad.content.decode()
    ok = client.post(f"{url}lines/", {"part": gpu_server.pk, "quantity": 2, "serials": "A, B"})
    assert ok.status_code == 302
    assert shipment.lines.get().serials.count() == 2


def test_refused_transition_shows_the_reasons(coordinator, browser_as, make_shipment):
    shipment = make_shipment()
    client = browser_as(coordinator)
    response = client.post(f"/shipments/{shipment.reference}/transition/", {"to": "compliance_review"})
    # Post, redirect, get: the refusal stays on the shipment's page and a reload does not post again.
    assert response.status_code == 302 and response.url == shipment.get_absolute_url()
    page = client.get(response.url).content.decode()
    assert "The shipment has no lines." in page and "cannot move to compliance review" in page
    assert "The shipment has no lines." not in client.get(response.url).content.decode()  # said once


def test_package_leg_event_and_freight_panel(
    coordinator, browser_as, make_shipment, gpu_server, hub, datacentre, rates
):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=2, serials=["S1", "S2"])
    client = browser_as(coordinator)
    url = f"/shipments/{shipment.reference}/"
    bad = client.post(f"{url}packages/", crate() | {"contents": "1 of 2"})
    assert bad.status_code == 400 and "contents" in bad.context["package_form"].errors
    ok = client.post(f"{url}packages/", crate() | {"contents": "1:2", "serials": "S1\nS2", "keep_dry": "on"})
    assert ok.status_code == 302, ok.context["package_form"].errors
    leg = client.post(
        f"{url}legs/",
        {
            "role": "main",
            "origin": hub.pk,
            "destination": datacentre.pk,
            "mode": "air",
            "planned_arrival": "2026-12-24",
        },
    )
    assert leg.status_code == 302
    event = client.post(
        f"{url}events/", {"code": "picked_up", "occurred_at": "2026-12-01T10:00", "location": "Taoyuan"}
    )
    assert event.status_code == 302
    panel = client.get(f"{url}freight/").content.decode()
    assert "Recommendation" in panel and "freight-options" in panel and "Landed cost" in panel


def test_freight_panel_without_rates_says_so(coordinator, browser_as, make_shipment, gpu_server):
    shipment = make_shipment()
    services.line_add(shipment=shipment, part=gpu_server, quantity=1)
    panel = browser_as(coordinator).get(f"/shipments/{shipment.reference}/freight/").content.decode()
    assert "No air, ocean or road rate for lane TW → IN" in panel


def test_another_organisations_shipment_page_is_404(make_shipment, browser_as):
    from apps.accounts.roles import Role
    from tests.factories import OrganisationFactory, UserFactory

    shipment = make_shipment()
    outsider = UserFactory(organisation=OrganisationFactory(legal_name="Elsewhere"), role=Role.PARTNER)
    client = browser_as(outsider)
    for suffix in ("", "edit/", "freight/"):
        assert client.get(f"/shipments/{shipment.reference}/{suffix}").status_code == 404
    assert client.post(f"/shipments/{shipment.reference}/transition/", {"to": "cancelled"}).status_code == 404


def test_sites_page_and_form(coordinator, browser_as, datacentre):
    client = browser_as(coordinator)
    assert "Siruseri DC1" in client.get("/sites/").content.decode()
    bad = client.post(
        "/sites/new/",
        {"name": "MAA", "kind": "airport", "city": "Chennai", "country": "IN", "iata_code": "SIN"},
    )
    assert "iata_code" in bad.context["form"].errors
    ok = client.post(
        "/sites/new/",
        {"name": "MAA", "kind": "airport", "city": "Chennai", "country": "IN", "iata_code": "maa"},
    )
    assert ok.status_code == 302 and Site.objects.get(name="MAA").iata_code == "MAA"


def test_rates_page(coordinator, browser_as, rates):
    page = browser_as(coordinator).get("/freight-rates/?mode=ocean").content.decode()
    assert "TW → IN" in page and "2400.00" in page
