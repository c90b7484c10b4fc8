"""The OpenAPI schema says what the API does: every error answer an operation can give, and only
the query parameters it accepts.

`AutoSchema` (the `DEFAULT_SCHEMA_CLASS`) adds, to every operation, the error answers it can
give, each with a JSON body schema:

- 401 and 403: every operation needs credentials and a role that allows it;
- 429: every request is throttled per token;
- 404: operations with an object in their path (another organisation's object is not found)
  and paginated lists (a page past the end);
- 400: operations that read a body or query parameters;
- 409: operations that change something (refused state changes, conflicting or protected data).

A view declares any other error it gives (e.g. `409` on a download, `422` for an
`Idempotency-Key` reused with another body) as `code: None` in `extend_schema(responses=…)`; the
JSON error body is filled in here.

Filter, search and ordering parameters are documented on `list` actions only, search only where
the view has `search_fields`, and ordering as the list of fields it accepts — exactly what
`apps.core.rest.allowed_query_params` accepts at run time.
"""

from __future__ import annotations

from drf_spectacular import openapi
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import filters

from .rest import ordering_choices

ERROR_SCHEMAS = {
    "Error": {
        "type": "object",
        "description": "Why the request was refused.",
        "properties": {"detail": {"type": "string"}},
        "required": ["detail"],
    },
    "ValidationError": {
        "type": "object",
        "description": (
            "Each field (or query parameter) in error with its messages; `non_field_errors` for the "
            "request as a whole, `detail` when the body could not be read."
        ),
        "additionalProperties": {},
    },
    "Conflict": {
        "type": "object",
        "description": (
            "The change was refused: `detail` and the `reasons` of a refused state change, the "
            "records that still refer to an object (`referenced_by`), or a conflict with existing data."
        ),
        "properties": {
            "detail": {"type": "string"},
            "reasons": {"type": "array", "items": {}},
            "record_parties": {
                "type": "string",
                "format": "uri",
                "description": "When a shipment's change is refused for a missing importer or "
                "exporter of record: where to read what is needed and who could be named.",
            },
            "referenced_by": {"type": "array", "items": {"type": "string"}},
            "non_field_errors": {"type": "array", "items": {"type": "string"}},
        },
        "additionalProperties": {},
    },
}

ERROR_ANSWERS = {
    "400": ("ValidationError", "The request is invalid: each field or parameter in error is named."),
    "401": ("Error", "No valid credentials (an API token or a session)."),
    "403": ("Error", "Your role (or your organisation's part in the object) does not allow this."),
    "404": ("Error", "Not found, or not visible to your organisation."),
    "409": ("Conflict", "Refused: the object's state or other data does not allow this change."),
    "422": ("Error", "The Idempotency-Key was used before with another request."),
    "429": ("Error", "Too many requests for this token; retry later."),
}

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


class AutoSchema(openapi.AutoSchema):
    def get_filter_backends(self):
        # Filters apply to `list` actions only: a detail action that answers a list (history,
        # events) is paginated but not filtered.
        if getattr(self.view, "action", "list") != "list":
            return []
        return [
            backend
            for backend in super().get_filter_backends()
            if not (
                issubclass(backend, filters.SearchFilter) and not getattr(self.view, "search_fields", None)
            )
        ]

    def _get_filter_parameters(self):
        parameters = super()._get_filter_parameters()
        for parameter in parameters:
            if parameter["name"] == filters.OrderingFilter.ordering_param:
                choices = ordering_choices(self.view)
                parameter["schema"] = {"type": "array", "items": {"type": "string", "enum": choices}}
                parameter["style"] = "form"
                parameter["explode"] = False
                parameter["description"] = (
                    "Fields to sort by, comma-separated; `-` before a field reverses it."
                )
        return parameters

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes(responses):
            if code not in responses or "content" not in responses[code]:
                responses[code] = self._error_answer(code, responses.get(code, {}).get("description"))
        return responses

    def _error_codes(self, responses) -> list[str]:
        codes = ["401", "403", "429"]
        parameters = self._get_parameters()
        has_path = any(p["in"] == "path" for p in parameters)
        has_query = any(p["in"] == "query" for p in parameters)
        paginated = any(p["in"] == "query" and p["name"] == "page" for p in parameters)
        if has_path or paginated:
            codes.append("404")
        if has_query or self.method in UNSAFE_METHODS:
            codes.append("400")
        if self.method in UNSAFE_METHODS:
            codes.append("409")
        declared = [code for code, answer in responses.items() if code in ERROR_ANSWERS]
        return sorted(set(codes) | set(declared))

    def _error_answer(self, code: str, description: str | None) -> dict:
        name, default_description = ERROR_ANSWERS[code]
        component = ResolvedComponent(
            name=name, type=ResolvedComponent.SCHEMA, schema=ERROR_SCHEMAS[name], object=name
        )
        self.registry.register_on_missing(component)
        if not description or description == "No response body":
            description = default_description
        return {"description": description, "content": {"application/json": {"schema": component.ref}}}
