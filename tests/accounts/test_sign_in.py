"""Sign-in: failed logins are limited per account and per address (django-axes), with the settings
the project ships (config/settings/base.py; the test settings change none of them)."""

import datetime as dt

import pytest
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher, get_hasher
from django.utils import timezone

from apps.accounts.roles import Role
from config.settings import base
from tests.factories import PASSWORD, UserFactory

LIMIT = base.AXES_FAILURE_LIMIT


@pytest.fixture
def sam(db):
    return UserFactory(username="sam", role=Role.COORDINATOR)


def _login(client, username, password, address="203.0.113.7", path="/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def _signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_the_shipped_settings_are_the_ones_tested():
    assert settings.AXES_FAILURE_LIMIT == LIMIT == 10
    assert settings.AXES_COOLOFF_TIME == base.AXES_COOLOFF_TIME == dt.timedelta(minutes=15)
    assert settings.AXES_LOCKOUT_PARAMETERS == base.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"


def test_the_password_hash_cost_is_kept():
    # Only the test settings trade PBKDF2 for speed; everything else keeps Django's default.
    assert not hasattr(base, "PASSWORD_HASHERS")
    assert PBKDF2PasswordHasher.iterations >= 1_000_000


def test_thirty_wrong_passwords_then_the_right_one_does_not_sign_in(client, sam):
    for _ in range(30):
        _login(client, "sam", "wrong-password")
    response = _login(client, "sam", PASSWORD)
    assert response.status_code == 429
    assert not _signed_in(client)


def test_the_lockout_page_says_why_and_how_long(client, sam):
    responses = [_login(client, "sam", "wrong-password") for _ in range(LIMIT)]
    assert [r.status_code for r in responses[:-1]] == [200] * (LIMIT - 1)
    locked = responses[-1]
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed sign-ins" in page and "15 minutes" in page
    assert 'action="/login/"' not in page  # no form to keep guessing with


def test_a_locked_out_attempt_costs_no_password_hash(client, sam, monkeypatch):
    hasher = type(get_hasher())
    hashed = []
    for method in ("verify", "encode"):  # checking a password, or hashing one for an unknown user
        original = getattr(hasher, method)
        monkeypatch.setattr(
            hasher, method, lambda *a, _original=original, **k: hashed.append(1) or _original(*a, **k)
        )
    _login(client, "sam", "wrong-password")
    assert hashed, "an attempt that is not locked out checks the password"
    for _ in range(LIMIT - 1):
        _login(client, "sam", "wrong-password")
    hashed.clear()
    assert _login(client, "sam", "another-guess").status_code == 429
    assert _login(client, "sam", PASSWORD).status_code == 429
    assert _login(client, "nobody", "guess").status_code == 429  # the address is locked too
    assert hashed == []


def test_an_account_is_locked_whatever_the_address(client, sam):
    for n in range(LIMIT):
        _login(client, "sam", "wrong-password", address=f"198.51.100.{n + 1}")
    assert _login(client, "sam", PASSWORD, address="192.0.2.200").status_code == 429
    # Another account signs in from any of those addresses.
    UserFactory(username="kim")
    assert _login(client, "kim", PASSWORD, address="192.0.2.201").status_code == 302


def test_an_address_is_locked_whatever_the_account(client, sam):
    for n in range(LIMIT):
        _login(client, f"guess{n}", "wrong-password")
    response = _login(client, "sam", PASSWORD)
    assert response.status_code == 429 and not _signed_in(client)
    # sam is not locked anywhere else.
    assert _login(client, "sam", PASSWORD, address="192.0.2.10").status_code == 302


def test_attempts_while_locked_do_not_count_against_other_accounts(client, sam):
    """A locked-out address cannot go on to lock every account out."""
    for n in range(LIMIT):
        _login(client, f"guess{n}", "wrong-password")
    for _ in range(LIMIT):
        _login(client, "sam", "wrong-password")
    assert _login(client, "sam", PASSWORD, address="192.0.2.10").status_code == 302


def test_the_lockout_ends_after_the_cool_off(client, sam):
    from axes.models import AccessAttempt

    for _ in range(LIMIT):
        _login(client, "sam", "wrong-password")
    assert _login(client, "sam", PASSWORD).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - dt.timedelta(minutes=16))
    assert _login(client, "sam", PASSWORD).status_code == 302


def test_a_success_clears_that_accounts_failures_from_that_address(client, sam):
    for _ in range(LIMIT - 1):
        _login(client, "sam", "wrong-password")
    assert _login(client, "sam", PASSWORD).status_code == 302
    client.post("/logout/")
    for _ in range(LIMIT - 1):
        _login(client, "sam", "wrong-password")
    assert _login(client, "sam", PASSWORD).status_code == 302


def test_signing_in_to_ones_own_account_does_not_clear_guesses_at_another(client, sam):
    UserFactory(username="mallory")
    attacker = "198.51.100.66"
    for _ in range(LIMIT - 1):
        _login(client, "sam", "wrong-password", address=attacker)
    assert _login(client, "mallory", PASSWORD, address=attacker).status_code == 302
    client.post("/logout/")
    _login(client, "sam", "wrong-password", address="192.0.2.99")
    assert _login(client, "sam", PASSWORD, address="192.0.2.99").status_code == 429


def test_the_admin_login_is_limited_too(client, db):
    UserFactory(username="boss", role=Role.ADMIN, is_staff=True, is_superuser=True)
    for _ in range(LIMIT):
        _login(client, "boss", "wrong-password", path="/admin/login/")
    response = _login(client, "boss", PASSWORD, path="/admin/login/")
    assert response.status_code == 429 and not _signed_in(client)


def test_force_login_in_tests_is_not_affected(client, sam):
    client.force_login(sam)
    assert client.get("/").status_code == 200
