"""Schemathesis against `/api/schema/`: generated requests to every operation, as a partner, get no
5xx and answers that match the schema (status codes, content types, bodies).

The schema is loaded from the Django WSGI application in process, with organisation A's partner
token (`tests/world.py`: a partner with parts, a site, a shipment with lines, packages, legs,
events, a compliance check, documents, a licence …). Path parameters are A's objects, so the
operations read and change real data; the rest of each request is generated. Each operation gets
`MAX_EXAMPLES` valid and invalid requests, derandomized (the same cases on every run, no example
database), without shrinking; every example runs in a savepoint that is rolled back, so a DELETE
in one example does not starve the next. Every failure found is reported, with how to reproduce
it.

An operation whose request has nothing but its (fixed) path parameters and the credentials gets
no invalid requests: there is nothing to break. Hypothesis would try a few hundred times to make
one before giving up (a third of the test's time went on that).
"""

from __future__ import annotations

import contextlib
import re

import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core import NotSet
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .world import build_world, fill_schema_path

# Examples per operation: valid requests, and requests that break the schema (wrong types,
# out-of-range numbers, missing fields), which must be refused with a documented 4xx, never a 5xx.
# About two minutes in all on two cores.
MAX_EXAMPLES = {GenerationMode.POSITIVE: 10, GenerationMode.NEGATIVE: 3}
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

# Operations left out, each with why. (None today: every operation runs as the partner.)
SKIPPED: dict[str, str] = {}


@contextlib.contextmanager
def _one_connection():
    """Requests through the WSGI handler close "obsolete" database connections when they finish,
    which would end the test's transaction; Django's test client unhooks the same signals."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _path_parameters(world, path: str) -> dict[str, str]:
    filled = fill_schema_path(world, path)
    names = re.findall(r"{(\w+)}", path)
    pattern = "^" + re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(path)) + "$"
    match = re.match(pattern, filled)
    return {name: match.group(name) for name in names}


def _negatable(operation) -> bool:
    """Whether a request to `operation` has a part that negative generation can break: a query
    parameter, a body, or a header or cookie the operation declares. The security scheme's
    Authorization header and session cookie are not broken, and the path parameters are fixed
    (organisation A's objects)."""
    declared = {parameter.get("in") for parameter in operation.definition.raw.get("parameters", [])}
    return bool(len(operation.query) or len(operation.body) or declared & {"header", "cookie"})


def _reproduce(case, response) -> str:
    body = getattr(case, "body", None)
    sent = f" body={body!r}"[:400] if not isinstance(body, NotSet | bytes | None) else ""
    query = f" query={case.query!r}" if case.query else ""
    return f"{case.method} {case.formatted_path}{query}{sent} → {response.status_code}"


def _examples(strategy, max_examples: int, label: str, token: dict, findings: dict):
    """The operation's examples as a Hypothesis test: each call in a rolled-back savepoint; the
    first failure of each kind is recorded (not raised), so one run reports everything."""

    @settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case):
        with transaction.atomic():
            response = case.call(headers=token)
            transaction.set_rollback(True)
        try:
            case.validate_response(response, checks=CHECKS, headers=token)
        except FailureGroup as group:
            for failure in group.exceptions:
                detail = " ".join(str(failure.message or "").split())[:300]
                findings.setdefault(
                    (label, failure.title),
                    f"{label}: {failure.title}: {detail} — {_reproduce(case, response)}",
                )

    return run


def test_every_operation_answers_as_the_schema_says(db):
    world = build_world()
    app = get_wsgi_application()
    token = {"Authorization": f"Token {world.key_a}"}
    findings: dict[tuple[str, str], str] = {}
    with _one_connection():
        schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", app, headers=token)
        operations = 0
        for result in schema.get_all_operations():
            operation = result.ok()
            label = f"{operation.method.upper()} {operation.path}"
            if label in SKIPPED:
                continue
            operations += 1
            path_parameters = _path_parameters(world, operation.path)
            for mode in MAX_EXAMPLES:
                if mode is GenerationMode.NEGATIVE and not _negatable(operation):
                    continue  # Unsatisfiable, after a few hundred tries
                strategy = operation.as_strategy(mode, path_parameters=path_parameters)
                try:
                    _examples(strategy, MAX_EXAMPLES[mode], f"{label} [{mode.value}]", token, findings)()
                except Unsatisfiable:
                    # Nothing of the request can be made invalid (only fixed path parameters).
                    assert mode is GenerationMode.NEGATIVE, label
    assert operations >= 100, f"only {operations} operations in the schema"
    assert not findings, f"{len(findings)} findings:\n" + "\n".join(findings.values())
