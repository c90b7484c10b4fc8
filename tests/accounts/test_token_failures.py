"""Failed API token authentication is limited per client address, refused before any lookup."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create
from apps.accounts.throttling import FailedTokenThrottle, client_address
from config.settings import base

SHIPPED_RATE = base.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["token_failure"]
LIMIT = int(SHIPPED_RATE.split("/")[0])


@pytest.fixture
def shipped_rate(monkeypatch):
    """The rate the project ships (the test settings raise it so that the suite never meets it)."""
    monkeypatch.setattr(FailedTokenThrottle, "rate", SHIPPED_RATE, raising=False)
    cache.clear()
    yield
    cache.clear()


def _get(header: str, address: str = "203.0.113.7"):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header, REMOTE_ADDR=address)
    return client.get("/api/v1/me/")


def test_shipped_rate():
    assert SHIPPED_RATE == "30/minute"


def test_invalid_tokens_from_one_address_are_then_refused_with_429(db, shipped_rate, supplier_user):
    statuses = [_get(f"Token rp_guess{n}").status_code for n in range(LIMIT)]
    assert statuses == [401] * LIMIT
    refused = _get("Token rp_another-guess")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    # Even a valid token from that address waits: the address is the unit, not the key.
    _, key = api_token_create(user=supplier_user, name="TMS")
    assert _get(f"Token {key}").status_code == 429
    # Another address is unaffected.
    assert _get(f"Token {key}", address="192.0.2.5").status_code == 200


def test_a_throttled_attempt_reads_nothing_from_the_database(db, shipped_rate, django_assert_num_queries):
    for n in range(LIMIT):
        _get(f"Token rp_guess{n}")
    with django_assert_num_queries(0):
        assert _get("Token rp_another-guess").status_code == 429


def test_malformed_headers_count_as_failures(db, shipped_rate):
    for _ in range(LIMIT):
        assert _get("Token a b").status_code == 401
    assert _get("Token rp_x").status_code == 429


def test_valid_tokens_do_not_use_the_failure_budget(db, shipped_rate, supplier_user):
    _, key = api_token_create(user=supplier_user, name="TMS")
    for _ in range(LIMIT + 5):
        assert _get(f"Token {key}").status_code == 200
    assert _get("Token rp_guess").status_code == 401


def test_the_client_address_ignores_forwarded_for_unless_proxies_are_configured(rf, settings):
    request = rf.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.9")
    assert client_address(request) == "10.0.0.2"  # a client cannot choose its own address
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert client_address(request) == "203.0.113.9"  # the address the one trusted proxy saw
