"""A deactivated organisation's users are refused everywhere: tokens, sessions, the login form."""

import pytest

from apps.accounts.models import Organisation
from apps.accounts.services import api_token_create, organisation_update
from apps.shipments.models import Shipment
from tests.factories import PASSWORD


@pytest.fixture
def deactivate(coordinator):
    def run(organisation):
        organisation_update(organisation=organisation, fields={"is_active": False})
        return Organisation.objects.get(pk=organisation.pk)

    return run


def test_tokens_of_a_deactivated_organisation_are_refused(supplier_user, api_as, deactivate):
    api = api_as(supplier_user)
    assert api.get("/api/v1/me/").status_code == 200
    deactivate(supplier_user.organisation)
    response = api.get("/api/v1/me/")
    assert response.status_code == 401
    assert api.post("/api/v1/shipments/", {}, format="json").status_code == 401
    assert api.get("/api/v1/parts/").status_code == 401


def test_sessions_of_a_deactivated_organisation_end(supplier_user, browser_as, deactivate):
    client = browser_as(supplier_user)
    assert client.get("/").status_code == 200
    deactivate(supplier_user.organisation)
    assert client.get("/").status_code == 302  # to the login page
    assert client.get("/shipments/new/").status_code == 302
    # The API through the browser session is refused as well.
    assert client.get("/api/v1/me/").status_code in (401, 403)
    assert client.post("/api/v1/shipments/", {}, content_type="application/json").status_code in (401, 403)
    assert not Shipment.objects.exists()


def test_login_form_refuses_a_deactivated_organisations_user(supplier_user, client, deactivate):
    deactivate(supplier_user.organisation)
    response = client.post("/login/", {"username": supplier_user.username, "password": PASSWORD})
    assert response.status_code == 200
    assert response.context["form"].errors
    assert "_auth_user_id" not in client.session


def test_a_user_of_an_active_organisation_still_signs_in(supplier_user, client):
    response = client.post("/login/", {"username": supplier_user.username, "password": PASSWORD})
    assert response.status_code == 302


def test_the_user_reads_as_disabled_and_sees_nothing(supplier_user, deactivate):
    assert supplier_user.can_sign_in
    supplier_user.organisation = deactivate(supplier_user.organisation)
    assert not supplier_user.can_sign_in
    assert not supplier_user.can("shipments.view")
    assert not Organisation.objects.visible_to(supplier_user).exists()


def test_reactivating_the_organisation_lets_its_users_in_again(supplier_user, deactivate):
    # Deactivation is not revocation: the tokens work again once the organisation is active.
    _, key = api_token_create(user=supplier_user, name="TMS")
    deactivate(supplier_user.organisation)
    organisation_update(organisation=supplier_user.organisation, fields={"is_active": True})
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/me/").status_code == 200
