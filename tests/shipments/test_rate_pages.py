"""Issue 12, "Everything the API can do, the browser can do": coordinators keep the freight rate
table in the browser (it was read-only there, editable only through the API or the admin)."""

import datetime as dt
from decimal import Decimal

import pytest

from apps.core.models import AuditEvent
from apps.shipments.models import FreightRate

pytestmark = pytest.mark.django_db

RATE = {
    "origin_country": "TW",
    "destination_country": "IN",
    "mode": "air",
    "service": "Air general cargo",
    "carrier": "China Airlines Cargo",
    "currency": "USD",
    "price_per_kg": "4.20",
    "minimum_charge": "250",
    "transit_days": "5",
    "valid_from": "2026-01-01",
    "valid_to": "2027-12-31",
}


def test_a_coordinator_adds_and_edits_a_rate(coordinator, browser_as):
    client = browser_as(coordinator)
    assert "Add a rate" in client.get("/freight-rates/").content.decode()
    response = client.post("/freight-rates/new/", RATE)
    assert response.status_code == 302, response.context["form"].errors
    rate = FreightRate.objects.get()
    assert (rate.price_per_kg, rate.valid_to) == (Decimal("4.20"), dt.date(2027, 12, 31))
    assert f"/freight-rates/{rate.pk}/edit/" in client.get("/freight-rates/").content.decode()
    response = client.post(f"/freight-rates/{rate.pk}/edit/", RATE | {"price_per_kg": "3.95"})
    assert response.status_code == 302
    rate.refresh_from_db()
    assert rate.price_per_kg == Decimal("3.95")
    assert AuditEvent.objects.for_object(rate).exists()


def test_a_rate_the_model_refuses_names_the_field_and_saves_nothing(coordinator, browser_as):
    response = browser_as(coordinator).post("/freight-rates/new/", RATE | {"price_per_kg": ""})
    assert response.status_code == 200
    assert "price_per_kg" in response.context["form"].errors
    assert not FreightRate.objects.exists()


def test_only_those_who_may_edit_rates_get_the_form(compliance_officer, supplier_user, browser_as, client):
    officer = browser_as(compliance_officer)
    assert "Add a rate" not in officer.get("/freight-rates/").content.decode()
    assert officer.get("/freight-rates/new/").status_code == 403
    client.logout()
    assert browser_as(supplier_user).post("/freight-rates/new/", RATE).status_code == 403
    assert not FreightRate.objects.exists()


def test_a_coordinator_adds_and_edits_an_exchange_rate(coordinator, browser_as):
    from apps.shipments.models import ExchangeRate

    client = browser_as(coordinator)
    fx = {
        "base": "EUR",
        "quote": "USD",
        "rate": "1.0850",
        "valid_on": "2026-12-01",
        "source": "ECB reference",
    }
    assert client.post("/exchange-rates/new/", fx).status_code == 302
    rate = ExchangeRate.objects.get()
    page = client.get("/freight-rates/").content.decode()
    assert "1 EUR in USD" in page and f"/exchange-rates/{rate.pk}/edit/" in page
    assert client.post(f"/exchange-rates/{rate.pk}/edit/", fx | {"rate": "1.0900"}).status_code == 302
    rate.refresh_from_db()
    assert str(rate.rate.normalize()) == "1.09"
    # A pair of one currency is refused on the form; nothing is saved.
    assert (
        client.post("/exchange-rates/new/", fx | {"quote": "EUR", "valid_on": "2026-12-02"}).status_code
        == 200
    )
    assert ExchangeRate.objects.count() == 1
