"""Issue 12, "Everything the API can do, the browser can do": a compliance officer edits a licence
and ends it early in the browser, and licences show how much of them is drawn."""

import pytest
from django.core.exceptions import ValidationError

from apps.compliance import services
from apps.compliance.models import Licence
from apps.core.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_licences_show_how_much_is_drawn(
    submitted, saudi_customer, saudi_licence, dgx, coordinator, browser_as
):
    shipment = submitted(saudi_customer, "SA", "Riyadh", [(dgx, 4)])
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "pass"
    # 4 of 6 units (67 %) and 4 × the DGX's value of 3,000,000: the larger share shows.
    used = max(round(100 * 4 / 6), round(100 * float(4 * dgx.unit_value) / 3_000_000))
    client = browser_as(coordinator)
    page = client.get(f"/compliance/licences/{saudi_licence.pk}/").content.decode()
    assert f'id="licence-used" max="100" value="{used}"' in page
    assert (
        f'value="{used}" aria-label="D1234567: {used} % drawn"'
        in client.get("/compliance/licences/").content.decode()
    )


def test_an_officer_edits_a_licence(saudi_licence, compliance_officer, browser_as):
    client = browser_as(compliance_officer)
    page = client.get(f"/compliance/licences/{saudi_licence.pk}/edit/").content.decode()
    assert 'value="D1234567"' in page
    data = {
        "number": "D1234567",
        "issuing_authority": saudi_licence.issuing_authority,
        "eccns": "4A090.a, 3A090.a",
        "destination_countries": "SA",
        "licensee": saudi_licence.licensee_id,
        "consignee": saudi_licence.consignee_id,
        "permitted_quantity": "8",
        "permitted_value": "4000000",
        "currency": "USD",
        "valid_from": "2026-01-01",
        "expires_on": "2027-12-31",
    }
    response = client.post(f"/compliance/licences/{saudi_licence.pk}/edit/", data)
    assert response.status_code == 302, response.context["form"].errors
    saudi_licence.refresh_from_db()
    assert (saudi_licence.permitted_quantity, saudi_licence.eccns) == (8, "4A090.a, 3A090.a")
    bad = client.post(f"/compliance/licences/{saudi_licence.pk}/edit/", data | {"expires_on": "2025-01-01"})
    assert bad.status_code == 400
    saudi_licence.refresh_from_db()
    assert str(saudi_licence.expires_on) == "2027-12-31"


def test_ending_a_licence_needs_a_reason_and_then_it_covers_nothing(
    submitted, saudi_customer, saudi_licence, dgx, coordinator, compliance_officer, browser_as
):
    client = browser_as(compliance_officer)
    url = f"/compliance/licences/{saudi_licence.pk}/expire/"
    client.post(url, {"reason": "no"})
    saudi_licence.refresh_from_db()
    assert not saudi_licence.is_expired
    client.post(url, {"reason": "Revoked by BIS letter of 2026-12-01"})
    saudi_licence.refresh_from_db()
    assert saudi_licence.is_expired
    assert AuditEvent.objects.for_object(saudi_licence).filter(message__contains="Revoked by BIS").exists()
    shipment = submitted(saudi_customer, "SA", "Riyadh", [(dgx, 1)])
    assert services.compliance_check_run(shipment=shipment, actor=coordinator).result == "hold"
    with pytest.raises(ValidationError):
        services.licence_expire(
            licence=saudi_licence, reason="Already ended, again", actor=compliance_officer
        )


def test_coordinators_and_partners_cannot_edit_or_end_licences(
    saudi_licence, coordinator, supplier_user, browser_as
):
    client = browser_as(coordinator)
    assert client.get(f"/compliance/licences/{saudi_licence.pk}/edit/").status_code == 403
    assert (
        client.post(f"/compliance/licences/{saudi_licence.pk}/expire/", {"reason": "x" * 20}).status_code
        == 403
    )
    assert not Licence.objects.get(pk=saudi_licence.pk).is_expired
