"""The API docs: every operation is filed under one of the documented tags, with a summary and an
example that matches its schema, and `/api/schema/` is generated once per process
(apps/core/api_docs.py)."""

import copy
import functools
import gzip
from unittest import mock

import jsonschema
import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator

from apps.core import api_docs

METHODS = ("get", "post", "put", "patch", "delete")
JSON = "application/json"


@functools.cache
def openapi() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations():
    for path, item in openapi()["paths"].items():
        for method in METHODS:
            if method in item:
                yield f"{method.upper()} {path}", item[method]


def _success_answers(operation) -> dict:
    return {code: answer for code, answer in operation["responses"].items() if code.startswith("2")}


def test_every_operation_has_a_documented_tag_and_a_summary():
    tags = [tag["name"] for tag in settings.SPECTACULAR_SETTINGS["TAGS"]]
    assert len(tags) == len(set(tags)) >= 10
    assert all(tag["description"] for tag in settings.SPECTACULAR_SETTINGS["TAGS"])
    wrong, used = [], set()
    for label, operation in operations():
        if len(operation.get("tags", [])) != 1 or operation["tags"][0] not in tags:
            wrong.append(f"{label}: tags {operation.get('tags')}")
        else:
            used.add(operation["tags"][0])
        if not operation.get("summary", "").strip():
            wrong.append(f"{label}: no summary")
    assert not wrong, "\n".join(wrong)
    assert used == set(tags), f"tags no operation uses: {set(tags) - used}"
    summaries = [operation["summary"] for _, operation in operations()]
    assert len(summaries) >= 100


def test_every_operation_with_a_json_body_has_an_example():
    missing = []
    for label, operation in operations():
        request = operation.get("requestBody", {}).get("content", {}).get(JSON)
        answers = [
            a["content"][JSON] for a in _success_answers(operation).values() if JSON in a.get("content", {})
        ]
        if request is None and not answers:
            continue  # e.g. DELETE (204) or a PDF download
        if not (request or {}).get("examples") and not any(a.get("examples") for a in answers):
            missing.append(label)
    assert not missing, "operations without an example:\n" + "\n".join(missing)


def _json_schema(schema):
    """An OpenAPI 3.0 schema as JSON Schema: `nullable` becomes a null alternative, and an object
    with listed properties (and no `additionalProperties`) takes no other key, so an example with
    a field the API does not have fails."""
    if isinstance(schema, list):
        return [_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {k: _json_schema(v) for k, v in schema.items()}
    if schema.get("$ref", "").startswith("#/components/schemas/"):
        schema["$ref"] = "#/definitions/" + schema["$ref"].rsplit("/", 1)[1]
    if schema.get("type") == "object" and "properties" in schema:
        schema.setdefault("additionalProperties", False)
    if schema.pop("nullable", False):
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def _check(value, schema, *, direction: str) -> list[str]:
    definitions = _json_schema(copy.deepcopy(openapi()["components"]["schemas"]))
    # A request example leaves out read-only fields and a response example write-only ones.
    hidden = "readOnly" if direction == "request" else "writeOnly"
    for definition in definitions.values():
        definition = definition.get("anyOf", [definition])[0]
        for name, field in list(definition.get("properties", {}).items()):
            if field.get(hidden):
                del definition["properties"][name]
                if name in definition.get("required", []):
                    definition["required"].remove(name)
    validator = jsonschema.Draft7Validator({**_json_schema(schema), "definitions": definitions})
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(value)]


def test_the_examples_match_their_schemas():
    wrong = []
    for label, operation in operations():
        request = operation.get("requestBody", {}).get("content", {}).get(JSON, {})
        contents = [("request", "request", request)] + [
            ("response", code, answer["content"][JSON])
            for code, answer in operation["responses"].items()
            if JSON in answer.get("content", {})
        ]
        for direction, code, content in contents:
            for name, item in content.get("examples", {}).items():
                for error in _check(item["value"], content["schema"], direction=direction):
                    wrong.append(f"{label} {code} example {name}: {error}")
    assert not wrong, "\n".join(wrong)


@pytest.fixture
def signed_in(client, coordinator):
    client.force_login(coordinator)
    api_docs.clear_schema_cache()
    yield client
    api_docs.clear_schema_cache()


def test_the_schema_is_generated_once_and_then_served_from_memory(signed_in):
    real = SchemaGenerator.get_schema
    with mock.patch.object(SchemaGenerator, "get_schema", autospec=True, side_effect=real) as generate:
        first = signed_in.get("/api/schema/")
        second = signed_in.get("/api/schema/")
        as_json = signed_in.get("/api/schema/?format=json")
        json_again = signed_in.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert first.status_code == second.status_code == as_json.status_code == 200
    assert generate.call_count == 1  # YAML and JSON are two renderings of one generated schema
    assert first.content == second.content and first["ETag"] == second["ETag"]
    assert first["Content-Type"].startswith("application/vnd.oai.openapi")
    assert as_json.json()["info"]["title"] == "Rackpass API"
    assert json_again.content == as_json.content and json_again["Content-Type"].startswith(JSON)
    assert "private" in first["Cache-Control"]


def test_made_up_versions_do_not_fill_the_memory(signed_in, monkeypatch):
    """`?version=` takes any value: past `MAX_KEPT` schemas, another one is made but not kept."""
    monkeypatch.setattr(api_docs, "MAX_KEPT", 1)
    real = SchemaGenerator.get_schema
    with mock.patch.object(SchemaGenerator, "get_schema", autospec=True, side_effect=real) as generate:
        for version in ("a", "b", "b", "a"):
            assert signed_in.get(f"/api/schema/?format=json&version={version}").status_code == 200
    assert generate.call_count == 3  # "a" once, "b" each time
    assert len(api_docs._schemas) == 1 and len(api_docs._rendered) <= 4


def test_the_schema_answers_not_modified_and_gzipped(signed_in):
    first = signed_in.get("/api/schema/?format=json")
    again = signed_in.get("/api/schema/?format=json", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and not again.content
    zipped = signed_in.get("/api/schema/?format=json", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.content) == first.content
    assert len(zipped.content) < len(first.content) / 5
    assert "Accept-Encoding" in first["Vary"]


def test_the_schema_stays_for_signed_in_users_only(client, db):
    api_docs.clear_schema_cache()
    assert client.get("/api/schema/").status_code in (401, 403)
    assert client.get("/api/docs/").status_code in (401, 403)


def test_the_schema_is_the_same_for_every_user(client, coordinator, supplier_user, compliance_officer):
    """What is kept is shared by every user: the schema must not depend on who asks first."""
    api_docs.clear_schema_cache()
    answers = []
    for user in (supplier_user, coordinator, compliance_officer):
        client.force_login(user)
        answers.append(client.get("/api/schema/?format=json").content)
        api_docs.clear_schema_cache()
    assert answers[0] == answers[1] == answers[2]


def test_a_settings_change_empties_the_cache(signed_in, settings):
    before = signed_in.get("/api/schema/?format=json").json()
    settings.SPECTACULAR_SETTINGS = {**settings.SPECTACULAR_SETTINGS, "VERSION": "9.9.9"}
    with mock.patch("drf_spectacular.settings.spectacular_settings.VERSION", "9.9.9"):
        after = signed_in.get("/api/schema/?format=json").json()
    assert before["info"]["version"] != after["info"]["version"] == "9.9.9"


def test_the_docs_open_grouped_and_collapsed(signed_in):
    page = signed_in.get("/api/docs/").content.decode()
    assert '"docExpansion": "none"' in page and '"filter": true' in page
    assert "/static/drf_spectacular_sidecar/" in page
