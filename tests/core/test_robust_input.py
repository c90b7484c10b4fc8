"""Robust under any input (issue 9): a write is atomic with its response, every figure is bounded so
that what is derived from it fits, one bad stored row never breaks a list, and the API answers bad
bodies and searches with JSON 4xx naming what to fix — never a 500 or an HTML page."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.apps import apps as django_apps
from django.core.validators import MaxLengthValidator, MaxValueValidator
from django.db import models
from django.utils import timezone

from apps.accounts.models import ApiToken
from apps.catalog import services as catalog_services
from apps.catalog.models import Part
from apps.core.models import AuditEvent
from apps.core.validators import BUSINESS_DATE_MAX, BUSINESS_DATE_MIN, FREE_TEXT_MAX_LENGTH
from tests.factories import ManufacturerFactory, PartFactory

from .test_audit import PART_PAYLOAD


@pytest.fixture
def nvidia(db):
    return ManufacturerFactory(name="NVIDIA")


def _lenient(client):
    """A test client that answers a server error with its 500 response instead of raising it."""
    client.raise_request_exception = False
    return client


def _saves_then_fails(real):
    def service(**kwargs):
        real(**kwargs)
        raise RuntimeError("failure after the first write")

    return service


# --- a write and its response are one transaction ------------------------------------------------


def test_api_500_after_the_first_write_leaves_no_row_and_no_audit_row(
    coordinator, api_as, nvidia, monkeypatch
):
    monkeypatch.setattr("apps.catalog.api.views.part_create", _saves_then_fails(catalog_services.part_create))
    api = _lenient(api_as(coordinator))
    audit_before = AuditEvent.objects.count()
    response = api.post("/api/v1/parts/", PART_PAYLOAD, format="json")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json" and "nothing was saved" in response.json()["detail"]
    assert not Part.objects.exists()
    assert AuditEvent.objects.count() == audit_before


def test_api_refusal_after_the_first_write_leaves_nothing(coordinator, api_as, nvidia, monkeypatch):
    from django.core.exceptions import ValidationError

    def saves_then_refuses(**kwargs):
        catalog_services.part_create(**kwargs)
        raise ValidationError({"name": "Refused after saving."})

    monkeypatch.setattr("apps.catalog.api.views.part_create", saves_then_refuses)
    response = api_as(coordinator).post("/api/v1/parts/", PART_PAYLOAD, format="json")
    assert response.status_code == 400 and response.json() == {"name": ["Refused after saving."]}
    assert not Part.objects.exists()
    assert not AuditEvent.objects.filter(content_type__model="part").exists()


def test_browser_500_after_the_first_write_leaves_no_row_and_no_audit_row(
    coordinator, browser_as, nvidia, monkeypatch
):
    monkeypatch.setattr("apps.catalog.views.part_create", _saves_then_fails(catalog_services.part_create))
    data = PART_PAYLOAD | {
        "manufacturer": nvidia.pk,
        "dense_tops": "{}",
        "attributes": "{}",
        "is_active": "on",
    }
    response = _lenient(browser_as(coordinator)).post("/parts/new/", data)
    assert response.status_code == 500
    assert not Part.objects.exists()
    assert not AuditEvent.objects.filter(content_type__model="part").exists()


def test_reads_are_not_wrapped_in_a_transaction(coordinator, api_as):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api = api_as(coordinator)
    with CaptureQueriesContext(connection) as read:
        assert api.get("/api/v1/parts/").status_code == 200
    with CaptureQueriesContext(connection) as write:
        assert api.post("/api/v1/parts/", {}, format="json").status_code == 400
    # A read adds no SAVEPOINT to what a page costs; a write runs in one.
    assert not [q for q in read.captured_queries if "SAVEPOINT" in q["sql"].upper()]
    assert [q for q in write.captured_queries if "SAVEPOINT" in q["sql"].upper()]


# --- part figures are bounded so that TPP and performance density fit ---------------------------


@pytest.mark.parametrize(
    "change, field",
    [
        ({"category": "accelerator", "dense_tops": {"8": "1e308"}}, "dense_tops"),
        ({"category": "accelerator", "dense_tops": {"8": "1.25e11"}}, "dense_tops"),
        ({"category": "accelerator", "dense_tops": {"8": "Infinity"}}, "dense_tops"),
        ({"category": "accelerator", "dense_tops": {"8": "NaN"}}, "dense_tops"),
        ({"category": "accelerator", "dense_tops": {"8": True}}, "dense_tops"),
        ({"category": "accelerator", "dense_tops": {"8": "1" * 5000}}, "dense_tops"),
        ({"category": "accelerator", "tpp": "9999999999.99", "die_area_mm2": "0.01"}, "tpp"),
        ({"category": "accelerator", "tpp": "4000", "die_area_mm2": "0.01"}, "die_area_mm2"),
        ({"category": "accelerator", "die_area_mm2": "99999999"}, "die_area_mm2"),
        ({"power_draw_w": 2147483647}, "power_draw_w"),
        ({"port_count": 32767}, "port_count"),
        ({"port_speed_gbps": 2147483647}, "port_speed_gbps"),
        ({"rack_units": 32767}, "rack_units"),
        ({"unit_weight_kg": "0"}, "unit_weight_kg"),
        ({"unit_value": "10000000000000.00"}, "unit_value"),
        ({"unit_weight_kg": "9999999.999"}, "unit_weight_kg"),
        ({"length_cm": "0"}, "length_cm"),
        ({"width_cm": "0.00"}, "width_cm"),
        ({"height_cm": "999999.99"}, "height_cm"),
        ({"memory_bandwidth_density": "999999.9999"}, "memory_bandwidth_density"),
        ({"attributes": ["memory_gb", 80]}, "attributes"),
        ({"attributes": "80 GB"}, "attributes"),
        ({"attributes": {"notes": "x" * 1_000_000}}, "attributes"),
        ({"attributes": {"memory_gb": {"a": {"b": {"c": 1}}}}}, "attributes"),
        ({"currency": "XXX"}, "currency"),
        ({"currency": "XTS"}, "currency"),
        ({"currency": "XAU"}, "currency"),
        ({"description": "x" * (FREE_TEXT_MAX_LENGTH + 1)}, "description"),
        ({"description": "fine \u202e text"}, "description"),
        ({"part_number": "H100\u202eXMS"}, "part_number"),
        ({"part_number": "H100\u200dSXM"}, "part_number"),
        ({"part_number": "H100\nSXM"}, "part_number"),
        ({"name": "Quantum\u2066-2"}, "name"),
        ({"name": "Quantum\x00-2"}, "name"),
    ],
)
def test_out_of_range_part_input_is_a_400_naming_the_field(coordinator, api_as, nvidia, change, field):
    response = api_as(coordinator).post("/api/v1/parts/", PART_PAYLOAD | change, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json(), response.json()
    assert not Part.objects.exists()


def test_largest_accepted_figures_still_fit_what_is_derived(coordinator, api_as, nvidia):
    payload = PART_PAYLOAD | {
        "category": "accelerator",
        "dense_tops": {"4": "25000000", "64": "1562500"},
        "die_area_mm2": "1",
        "unit_value": "9999999999999.99",
    }
    api = api_as(coordinator)
    response = api.post("/api/v1/parts/", payload, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["computed_tpp"] == "100000000.00"
    assert response.json()["performance_density"] == "100000000.00"
    # Read back from the database (SQLite keeps 15 significant digits of a decimal).
    [row] = api.get("/api/v1/parts/").json()["results"]
    assert row["unit_value"] == "9999999999999.99" and row["performance_density"] == "100000000.00"


def test_free_text_keeps_newlines_and_joiners(coordinator, api_as, nvidia):
    # Multi-line descriptions and the joiners Indic and Persian scripts need are ordinary text.
    payload = PART_PAYLOAD | {"description": "Line one\nline two\ttabbed", "name": "क्‍ष switch"}
    response = api_as(coordinator).post("/api/v1/parts/", payload, format="json")
    assert response.status_code == 201, response.json()


# --- one bad stored row never breaks a list ------------------------------------------------------


@pytest.mark.parametrize(
    "stored",
    [
        {"dense_tops": {"8": "1e308"}},
        {"dense_tops": {"8": "1.25e11"}},
        {"tpp": Decimal("9999999999.99"), "die_area_mm2": Decimal("0.01")},
        {"dense_tops": {"8": "not a number"}},
        {"dense_tops": ["8", "1979"]},
        {"dense_tops": {"eight": "1979"}},
        {"dense_tops": {"8": "Infinity"}},
    ],
)
def test_a_part_stored_around_validation_does_not_break_lists(
    coordinator, compliance_officer, api_as, browser_as, stored
):
    good = PartFactory(category="accelerator", dense_tops={"8": "1979"}, die_area_mm2=Decimal("814"))
    bad = PartFactory(category="accelerator")
    Part.objects.filter(pk=bad.pk).update(**stored)  # written around validation, as an old row would be

    response = api_as(coordinator).get("/api/v1/parts/")
    assert response.status_code == 200
    rows = {row["id"]: row for row in response.json()["results"]}
    assert rows[good.pk]["computed_tpp"] == "15832.00"
    assert rows[bad.pk]["performance_density"] is None or "tpp" in stored

    api = _lenient(api_as(coordinator))
    assert api.get(f"/api/v1/parts/{bad.pk}/").status_code == 200
    browser = _lenient(browser_as(coordinator))
    assert browser.get("/parts/").status_code == 200
    assert browser.get(f"/parts/{bad.pk}/").status_code == 200
    classified = _lenient(api_as(compliance_officer)).post(
        "/api/v1/classifications/run/", {"part": bad.pk}, format="json"
    )
    assert classified.status_code == 200


# --- request bodies and searches -----------------------------------------------------------------


def test_deeply_nested_json_is_a_json_400(coordinator, api_as):
    api = _lenient(api_as(coordinator))
    for depth in (100, 100_000):
        body = "[" * depth + "]" * depth
        response = api.post("/api/v1/parts/", body, content_type="application/json")
        assert response.status_code == 400, (depth, response.content[:200])
        assert response["Content-Type"] == "application/json"
        assert "nest" in response.json()["detail"]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"attributes": "[" * 100_000 + "]" * 100_000}, "attributes"),
        ({"dense_tops": "[" * 50 + "]" * 50}, "dense_tops"),
        ({"part_number": "H100\u202eXMS"}, "part_number"),
        ({"unit_weight_kg": "0"}, "unit_weight_kg"),
        ({"description": "x" * (FREE_TEXT_MAX_LENGTH + 1)}, "description"),
    ],
)
def test_the_browser_part_form_refuses_the_same_input(coordinator, browser_as, nvidia, change, field):
    data = PART_PAYLOAD | {"manufacturer": nvidia.pk, "dense_tops": "{}", "attributes": "{}"} | change
    response = _lenient(browser_as(coordinator)).post("/parts/new/", data)
    assert response.status_code == 200, response.status_code
    assert field in response.context["form"].errors, response.context["form"].errors
    assert not Part.objects.exists()


def test_a_body_over_the_upload_limit_is_a_json_413(coordinator, api_as, nvidia, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps(PART_PAYLOAD | {"description": "x" * 20_000})
    response = _lenient(api_as(coordinator)).post("/api/v1/parts/", body, content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert "10,000" in response.json()["detail"]
    assert not Part.objects.exists()


def test_too_many_form_fields_is_a_json_400(coordinator, api_as, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 100
    body = "&".join(f"f{i}=1" for i in range(200))
    response = _lenient(api_as(coordinator)).post(
        "/api/v1/parts/", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "fields" in response.json()["detail"]


@pytest.mark.parametrize(
    "path",
    ["/api/v1/parts/", "/api/v1/shipments/", "/api/v1/sites/", "/api/v1/organisations/"],
)
@pytest.mark.parametrize(
    "param, value",
    [
        ("q", " ".join(f"t{i}" for i in range(3000))),
        ("q", " ".join(f"t{i}" for i in range(11))),
        ("q", "x" * 101),
        ("search", " ".join(f"t{i}" for i in range(3000))),
        ("search", "x" * 101),
    ],
)
def test_searches_are_bounded_with_a_400_naming_the_parameter(coordinator, api_as, path, param, value):
    response = _lenient(api_as(coordinator)).get(path, {param: value})
    assert response.status_code == 400, response.content[:300]
    assert param in response.json()


def test_a_search_of_ten_terms_still_works(coordinator, api_as):
    PartFactory(part_number="SN5600", name="Spectrum-4 switch")
    response = api_as(coordinator).get("/api/v1/parts/", {"q": "sn5600 spectrum switch " + "s " * 7})
    assert response.status_code == 200 and response.json()["count"] == 1


def test_browser_list_with_too_many_terms_shows_the_error(coordinator, browser_as):
    response = _lenient(browser_as(coordinator)).get("/parts/", {"q": " ".join(f"t{i}" for i in range(3000))})
    assert response.status_code == 200
    assert "at most 10" in response.content.decode()


def test_api_errors_outside_views_are_json_too(coordinator, api_as, browser_as):
    response = api_as(coordinator).get("/api/v1/no-such-thing/")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}
    assert "text/html" in browser_as(coordinator).get("/no-such-page/")["Content-Type"]


def test_production_never_shows_debug_error_pages():
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"} | {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_DEBUG": "true",
        "DJANGO_SECRET_KEY": "x" * 30 + "a-long-random-production-secret-key-value",
        "DJANGO_ALLOWED_HOSTS": "rackpass.example.com",
        "DATABASE_URL": "sqlite:////tmp/rackpass-debug-check.sqlite3",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
    }
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.DEBUG, settings.DEBUG_PROPAGATE_EXCEPTIONS)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-2:] == ["False", "False"]


# --- doubtful values: tokens, currencies, dates --------------------------------------------------


def test_a_token_that_is_already_expired_is_refused(coordinator, api_as, browser_as):
    past = timezone.now() - dt.timedelta(minutes=1)
    response = api_as(coordinator).post(
        "/api/v1/tokens/", {"name": "late", "expires_at": past.isoformat()}, format="json"
    )
    assert response.status_code == 400 and "expires_at" in response.json()
    far = timezone.now().replace(year=9999)
    response = api_as(coordinator).post(
        "/api/v1/tokens/", {"name": "forever", "expires_at": far.isoformat()}, format="json"
    )
    assert response.status_code == 400 and "expires_at" in response.json()
    assert not ApiToken.objects.filter(name__in=["late", "forever"]).exists()
    soon = timezone.now() + dt.timedelta(days=30)
    response = api_as(coordinator).post(
        "/api/v1/tokens/", {"name": "ok", "expires_at": soon.isoformat()}, format="json"
    )
    assert response.status_code == 201, response.json()


@pytest.mark.parametrize("code", ["XXX", "XTS", "XAU", "XDR", "BOV", "USN"])
def test_currency_codes_are_real_currencies(code):
    from django.core.exceptions import ValidationError

    from apps.core.countries import CURRENCY_CHOICES, validate_currency

    with pytest.raises(ValidationError):
        validate_currency(code)
    assert code not in dict(CURRENCY_CHOICES())
    for real in ("USD", "EUR", "INR", "XOF", "XAF", "XCD", "XPF"):
        validate_currency(real)


def test_determination_tpp_cannot_be_negative(compliance_officer, api_as):
    response = api_as(compliance_officer).post(
        "/api/v1/determinations/", {"eccn": "3A090.a", "destination": "IN", "tpp": "-1"}, format="json"
    )
    assert response.status_code == 400 and "tpp" in response.json()


# --- the classes stay closed ---------------------------------------------------------------------

_CHECKED_APPS = ("catalog", "shipments")


def _editable_fields(field_class):
    for model in django_apps.get_models():
        if model._meta.app_label not in _CHECKED_APPS:
            continue
        for field in model._meta.get_fields():
            if isinstance(field, field_class) and field.editable and not field.primary_key:
                if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                    continue
                yield model, field


def test_every_editable_integer_has_an_upper_bound():
    unbounded = [
        f"{model.__name__}.{field.name}"
        for model, field in _editable_fields(models.IntegerField)
        if not isinstance(field, models.ForeignKey)
        and not any(isinstance(v, MaxValueValidator) for v in field._validators)
    ]
    assert unbounded == []


def test_every_editable_text_field_has_a_length_limit():
    unbounded = [
        f"{model.__name__}.{field.name}"
        for model, field in _editable_fields(models.TextField)
        if not any(isinstance(v, MaxLengthValidator) for v in field.validators)
    ]
    assert unbounded == []


def test_every_editable_date_is_a_business_date():
    from django.core.exceptions import ValidationError

    unchecked = []
    for model, field in _editable_fields(models.DateField):
        for value in (dt.date(1, 1, 1), dt.date(9999, 12, 31)):
            if isinstance(field, models.DateTimeField):
                value = dt.datetime.combine(value, dt.time(12), tzinfo=dt.UTC)
            try:
                field.run_validators(value)
            except ValidationError:
                continue
            unchecked.append(f"{model.__name__}.{field.name}")
    assert sorted(set(unchecked)) == []
    assert BUSINESS_DATE_MIN.year == 2000 and BUSINESS_DATE_MAX.year == 2100


def test_a_stored_value_is_not_judged_again_when_another_field_changes(coordinator, api_as):
    part = PartFactory()
    Part.objects.filter(pk=part.pk).update(name="Legacy\u202e name")  # stored before the rule
    response = api_as(coordinator).patch(f"/api/v1/parts/{part.pk}/", {"power_draw_w": 1500}, format="json")
    assert response.status_code == 200, response.json()
    response = api_as(coordinator).patch(
        f"/api/v1/parts/{part.pk}/", {"name": "New\u202e name"}, format="json"
    )
    assert response.status_code == 400 and "name" in response.json()


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/v1/organisations/{org}/", {"notes": "x" * 1_000_000}, "notes"),
        ("/api/v1/organisations/{org}/", {"legal_name": "Evil\u202e Corp"}, "legal_name"),
        (
            "/api/v1/registrations/",
            {"scheme": "ein", "number": "12-3456789", "valid_until": "9999-12-31"},
            "valid_until",
        ),
    ],
)
def test_other_apps_models_get_the_same_checks(coordinator, supplier, api_as, path, body, field):
    # Organisations and registrations are business models too: the shared checks apply unchanged.
    api = _lenient(api_as(coordinator))
    if path.endswith("registrations/"):
        body = body | {"organisation": supplier.pk, "country": "US"}
        response = api.post(path, body, format="json")
    else:
        response = api.patch(path.format(org=supplier.pk), body, format="json")
    assert response.status_code == 400, response.content[:300]
    assert field in response.json()


@pytest.mark.parametrize(
    "attributes",
    [
        {"k" * 65: 1},
        {"memory\u200bgb": 80},
        {"note": "a\u202eb"},
        {"x": float("nan")},
        {str(i): i for i in range(101)},
    ],
)
def test_attributes_are_a_flat_bounded_object(attributes):
    from apps.catalog.models import _attributes_problem

    assert _attributes_problem(attributes)
    assert (
        _attributes_problem({"memory_gb": 80, "estimated_fields": ["tpp", "weight"], "managed": True}) is None
    )
