"""API tokens: created in the browser and admin, shown once, stored hashed, revocable, throttled per token."""

import datetime as dt
import hashlib

import pytest
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import ApiToken
from apps.accounts.services import api_token_create


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_only_the_hash_is_stored(supplier_user):
    token, key = api_token_create(user=supplier_user, name="TMS")
    assert key.startswith("rp_") and len(key) > 40
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in {stored.digest, stored.key_prefix, stored.name}
    assert key.startswith(stored.key_prefix)


def test_token_authenticates_and_records_last_use(supplier_user):
    token, key = api_token_create(user=supplier_user, name="TMS")
    response = _client(key).get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json()["username"] == supplier_user.username
    token.refresh_from_db()
    assert token.last_used_at is not None
    # Bearer works too.
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/v1/me/").status_code == 200


@pytest.mark.parametrize("header", ["Token nonsense", "Token", "Token a b"])
def test_bad_tokens_are_refused(db, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/me/")
    assert response.status_code == 401
    assert "detail" in response.json()


def test_revoked_and_expired_tokens_are_refused(supplier_user):
    token, key = api_token_create(user=supplier_user, name="old")
    api = _client(key)
    assert api.delete(f"/api/v1/tokens/{token.pk}/").status_code == 204
    response = api.get("/api/v1/me/")
    assert response.status_code == 401 and "revoked" in response.json()["detail"]
    assert ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=False).exists()  # kept, not deleted

    short, key = api_token_create(
        user=supplier_user, name="short", expires_at=timezone.now() + dt.timedelta(seconds=1)
    )
    # Time passes (a token cannot be created already expired).
    ApiToken.objects.filter(pk=short.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    response = _client(key).get("/api/v1/me/")
    assert response.status_code == 401 and "expired" in response.json()["detail"]


def test_inactive_user_token_is_refused(supplier_user):
    _, key = api_token_create(user=supplier_user, name="x")
    supplier_user.is_active = False
    supplier_user.save()
    assert _client(key).get("/api/v1/me/").status_code == 401


def test_api_lists_creates_and_sees_only_own_tokens(supplier_user, forwarder_user, api_as):
    foreign, _ = api_token_create(user=forwarder_user, name="theirs")
    api = api_as(supplier_user)
    created = api.post("/api/v1/tokens/", {"name": "ERP"}, format="json")
    assert created.status_code == 201 and created.json()["key"].startswith("rp_")
    names = [t["name"] for t in api.get("/api/v1/tokens/").json()["results"]]
    assert sorted(names) == ["ERP", "test"]
    assert all("key" not in t for t in api.get("/api/v1/tokens/").json()["results"])
    assert api.delete(f"/api/v1/tokens/{foreign.pk}/").status_code == 404
    assert api.post("/api/v1/tokens/", {"name": ""}, format="json").json() == {
        "name": ["This field may not be blank."]
    }


def test_browser_token_page_shows_key_once_and_revokes(supplier_user, browser_as):
    client = browser_as(supplier_user)
    response = client.post("/api-tokens/", {"name": "Forwarder TMS", "expires_at": ""})
    assert response.status_code == 200
    key = response.context["new_key"]
    assert key in response.content.decode()
    token = ApiToken.objects.get(name="Forwarder TMS")
    assert token.digest == ApiToken.hash_key(key)
    page = client.get("/api-tokens/").content.decode()
    assert key not in page and token.key_prefix in page
    response = client.post(f"/api-tokens/{token.pk}/revoke/", follow=True)
    assert "revoked" in response.content.decode()
    assert _client(key).get("/api/v1/me/").status_code == 401


def test_browser_token_form_shows_field_errors(supplier_user, browser_as):
    response = browser_as(supplier_user).post("/api-tokens/", {"name": "", "expires_at": "not a date"})
    form = response.context["form"]
    assert set(form.errors) == {"name", "expires_at"}
    assert not ApiToken.objects.exists()


def test_admin_creates_a_token_and_shows_the_key_once(admin_user, supplier_user, client):
    client.force_login(admin_user)
    response = client.post(
        "/admin/accounts/apitoken/add/",
        {"user": supplier_user.pk, "name": "Set up by admin", "expires_at": ""},
        follow=True,
    )
    assert response.status_code == 200
    token = ApiToken.objects.get(name="Set up by admin")
    shown = [str(m) for m in response.context["messages"]]
    key = next(m.split(": ")[1].split(" ")[0] for m in shown if "API key" in m)
    assert ApiToken.hash_key(key) == token.digest
    client.post("/admin/accounts/apitoken/", {"action": "revoke", "_selected_action": [token.pk]})
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_throttling_is_per_token(supplier_user, settings):
    from rest_framework.settings import api_settings
    from rest_framework.throttling import SimpleRateThrottle

    cache.clear()
    rates = {"token": "3/minute"}
    original = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = rates
    try:
        _, first = api_token_create(user=supplier_user, name="one")
        _, second = api_token_create(user=supplier_user, name="two")
        statuses = [_client(first).get("/api/v1/me/").status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        assert _client(second).get("/api/v1/me/").status_code == 200
    finally:
        SimpleRateThrottle.THROTTLE_RATES = original
        cache.clear()
    assert api_settings.DEFAULT_THROTTLE_CLASSES


def test_tokens_filter_by_active(supplier_user, api_as):
    api = api_as(supplier_user)
    old, _ = api_token_create(user=supplier_user, name="old")
    api.delete(f"/api/v1/tokens/{old.pk}/")
    active = [t["name"] for t in api.get("/api/v1/tokens/?active=true").json()["results"]]
    inactive = [t["name"] for t in api.get("/api/v1/tokens/?active=false").json()["results"]]
    assert active == ["test"] and inactive == ["old"]
