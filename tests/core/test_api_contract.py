"""The API says what it does: the OpenAPI schema matches the answers (nullable fields, the
shipment PATCH, binary downloads, every error answer), unknown or unusable query parameters are
refused with a 400 naming them, and every audited object has its `…/history/`."""

from __future__ import annotations

import functools
import inspect
import types
import typing

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from apps.core.models import AuditedModel
from tests.world import build_world, fill_schema_path, view_model

API = "/api/v1"


@functools.cache
def openapi() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations():
    for path, item in openapi()["paths"].items():
        for method, operation in item.items():
            yield path, method.upper(), operation


def component(name: str) -> dict:
    return openapi()["components"]["schemas"][name]


def _app_serializers() -> list[type[serializers.Serializer]]:
    import config.api_urls  # noqa: F401  (imports every app's API)

    found, todo = set(), [serializers.Serializer]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted(
        (c for c in found if c.__module__.startswith("apps.")), key=lambda c: (c.__module__, c.__name__)
    )


def _admits_none(method) -> bool:
    hint = typing.get_type_hints(method).get("return")
    return (
        hint is not None
        and type(None) in typing.get_args(hint)
        and (isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union)
    )


def test_the_fields_schemathesis_found_null_are_nullable():
    assert component("Classification")["properties"]["created_by"]["nullable"] is True
    assert component("LineResult")["properties"]["licence"]["nullable"] is True
    assert component("Hit")["properties"]["organisation"]["nullable"] is True


def test_every_field_that_can_be_null_says_so_in_the_schema():
    """A field read through a nullable relation (`default=None`) or a method that may return None
    is `nullable` in its component."""
    schemas = openapi()["components"]["schemas"]
    wrong = []
    for cls in _app_serializers():
        name = cls.__name__.removesuffix("Serializer")
        if name not in schemas or inspect.isabstract(cls):
            continue
        properties = schemas[name].get("properties", {})
        for field_name, field in cls().fields.items():
            if field_name not in properties:
                continue
            if isinstance(field, serializers.SerializerMethodField):
                method = getattr(cls, field.method_name or f"get_{field_name}")
                may_be_null = _admits_none(method)
            else:
                may_be_null = field.default is None or field.allow_null
            if may_be_null and not properties[field_name].get("nullable"):
                wrong.append(f"{cls.__module__}.{cls.__name__}.{field_name}")
    assert not wrong, f"null in answers but not nullable in the schema: {wrong}"


@pytest.fixture
def world(db):
    return build_world()


def test_shipment_patch_answers_with_the_shipment_it_declares(world, api_as):
    path = openapi()["paths"]["/api/v1/shipments/{reference}/"]
    read = path["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    for method in ("put", "patch"):
        assert path[method]["responses"]["200"]["content"]["application/json"]["schema"] == read
    assert path["patch"]["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/PatchedShipmentWriteRequest"
    )
    shipment = world.first(type(world.shipment_b))
    answer = api_as(world.user_a).patch(
        f"{API}/shipments/{shipment.reference}/", {"instructions": "Keep upright"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    assert set(answer.json()) == set(component("Shipment")["properties"])
    assert answer.json()["instructions"] == "Keep upright"


def test_downloads_declare_their_binary_content_types(world, api_as):
    bundle = openapi()["paths"]["/api/v1/shipments/{shipment_reference}/documents/bundle/"]["get"]
    content = bundle["responses"]["200"]["content"]
    assert set(content) == {"application/zip", "application/pdf"}
    assert all(c["schema"] == {"type": "string", "format": "binary"} for c in content.values())
    assert "409" in bundle["responses"]
    download = openapi()["paths"]["/api/v1/documents/{id}/download/"]["get"]
    assert set(download["responses"]["200"]["content"]) == {"application/pdf"}
    assert "409" in download["responses"]
    api = api_as(world.user_a)
    reference = world.first(type(world.shipment_b)).reference
    for kind, content_type in (("zip", "application/zip"), ("pdf", "application/pdf")):
        answer = api.get(f"{API}/shipments/{reference}/documents/bundle/", {"as": kind})
        assert answer.status_code == 200 and answer["Content-Type"] == content_type
    wrong = api.get(f"{API}/shipments/{reference}/documents/bundle/", {"as": "tar"})
    assert wrong.status_code == 400 and "as" in wrong.json()
    unknown = api.get(f"{API}/shipments/{reference}/documents/bundle/", {"kind": "zip"})
    assert unknown.status_code == 400 and "kind" in unknown.json()


def _expected_errors(method: str, operation: dict) -> set[str]:
    parameters = operation.get("parameters", [])
    has_path = any(p["in"] == "path" for p in parameters)
    has_query = any(p["in"] == "query" for p in parameters)
    paginated = any(p["in"] == "query" and p["name"] == "page" for p in parameters)
    codes = {"401", "403", "429"}
    if has_path or paginated:
        codes.add("404")
    if has_query or method in ("POST", "PUT", "PATCH", "DELETE"):
        codes.add("400")
    if method in ("POST", "PUT", "PATCH", "DELETE"):
        codes.add("409")
    return codes


def test_every_operation_documents_the_errors_it_can_answer():
    missing = []
    for path, method, operation in operations():
        responses = operation["responses"]
        for code in sorted(_expected_errors(method, operation)):
            answer = responses.get(code, {})
            schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
            if schema.get("$ref", "").split("/")[-1] not in ("Error", "ValidationError", "Conflict"):
                missing.append(f"{method} {path} {code}")
        for code, answer in responses.items():
            if code >= "400" and "content" not in answer:
                missing.append(f"{method} {path} {code} (no body schema)")
    assert not missing, missing


def _paginated_operations():
    for path, method, operation in operations():
        names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        if method == "GET" and "page" in names:
            yield path, operation, names


def test_history_and_events_document_pagination_but_no_list_filters():
    history = openapi()["paths"]["/api/v1/shipments/{reference}/history/"]["get"]
    assert {p["name"] for p in history["parameters"] if p["in"] == "query"} == {"page", "page_size"}
    events = openapi()["paths"]["/api/v1/shipments/{reference}/events/"]["get"]
    assert {p["name"] for p in events["parameters"] if p["in"] == "query"} == {"page", "page_size"}
    # Search is documented where the list searches, and nowhere else.
    sites = openapi()["paths"]["/api/v1/sites/"]["get"]
    assert "search" not in {p["name"] for p in sites["parameters"]}


def test_every_list_refuses_query_parameters_it_does_not_declare(world, api_as):
    admin, owner = api_as(world.admin), api_as(world.user_a)
    checked = 0
    for path, operation, names in _paginated_operations():
        url = fill_schema_path(world, path)
        # The admin sees everything but other users' API tokens.
        api = admin if admin.get(url).status_code == 200 else owner
        unknown = api.get(url, {"zz_unknown": "1"})
        assert unknown.status_code == 400 and "zz_unknown" in unknown.json(), (path, unknown.content)
        # Every declared parameter is known (a blank value may still be refused, e.g. a status).
        declared = api.get(url, {name: "" for name in names})
        assert declared.status_code in (200, 400), (path, declared.content)
        assert b"Unknown query parameter" not in declared.content, (path, declared.content)
        for name, value in (("page_size", "0"), ("page_size", "501"), ("page_size", "ten"), ("page", "x")):
            wrong = api.get(url, {name: value})
            assert wrong.status_code == 400 and name in wrong.json(), (path, name, value, wrong.content)
        if "ordering" in names:
            wrong = api.get(url, {"ordering": "zz_not_a_field"})
            assert wrong.status_code == 400 and "ordering" in wrong.json(), (path, wrong.content)
            ordering = next(p for p in operation["parameters"] if p["name"] == "ordering")
            for choice in ordering["schema"]["items"]["enum"]:
                assert api.get(url, {"ordering": choice}).status_code == 200, (path, choice)
        checked += 1
    assert checked >= 30


def test_the_readme_promise_of_history_holds_for_every_audited_object():
    """Every API object whose model is audited has `…/{id}/history/`."""
    import config.api_urls as api_urls

    paths = openapi()["paths"]
    missing = []
    detail_views = {
        prefix: viewset for prefix, viewset, _ in api_urls.router.registry if hasattr(viewset, "retrieve")
    }
    for prefix, viewset in detail_views.items():
        model = view_model(viewset)
        if model is not None and issubclass(model, AuditedModel):
            lookup = getattr(viewset, "lookup_field", "pk")
            key = "id" if lookup == "pk" else lookup
            if f"{API}/{prefix}/{{{key}}}/history/" not in paths:
                missing.append(prefix)
    for nested in ("lines", "packages", "legs"):
        if f"{API}/shipments/{{shipment_reference}}/{nested}/{{id}}/history/" not in paths:
            missing.append(f"shipments/…/{nested}")
    assert not missing, f"audited objects without …/history/: {missing}"
