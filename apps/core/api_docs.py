"""`/api/schema/` generated once per process, and what the operations of the docs share.

Generating the OpenAPI document walks every view and serializer (about a second); it changes only
with the code and the settings, i.e. with a deploy. `CachedSchemaView` keeps the generated schema
and its rendered bytes (YAML, JSON; gzipped too) in the process's memory, keyed on the API version
and language, so every request after the first one of a process is a lookup. The schema is the same
for every user (`SERVE_PUBLIC`; a test checks it), so nothing is kept per user, and the view keeps
drf-spectacular's permissions (signed-in users only). A change of the settings that shape the
schema (in tests) empties the cache.

`documented()` gives the summaries and examples of a viewset's usual actions in one call; the
per-app `examples` / `schema` modules hold the values.
"""

from __future__ import annotations

import gzip
import hashlib
import threading

from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.cache import patch_vary_headers
from drf_spectacular.drainage import get_view_method_names
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from drf_spectacular.views import SpectacularAPIView

_lock = threading.Lock()
_schemas: dict[tuple, dict] = {}
_rendered: dict[tuple, tuple[bytes, bytes, str]] = {}

# Schemas kept (per version and language). `?version=` takes any value when the API does not
# version (drf-spectacular's view): past this many, a variant is generated but not kept, so that
# made-up versions cannot fill the memory.
MAX_KEPT = 16

# Settings whose change (in tests) changes the schema.
_SCHEMA_SETTINGS = {"SPECTACULAR_SETTINGS", "REST_FRAMEWORK", "ROOT_URLCONF", "INSTALLED_APPS"}


def clear_schema_cache() -> None:
    with _lock:
        _schemas.clear()
        _rendered.clear()


@receiver(setting_changed)
def _settings_changed(*, setting, **kwargs):
    if setting in _SCHEMA_SETTINGS:
        clear_schema_cache()


class CachedSchemaView(SpectacularAPIView):
    """drf-spectacular's schema view, generating the schema once per process and version."""

    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        body, zipped, etag = self._rendered(request, version)

        if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
            response = HttpResponseNotModified()
        else:
            wants_gzip = "gzip" in request.headers.get("Accept-Encoding", "")
            renderer = request.accepted_renderer
            media_type = renderer.media_type
            response = HttpResponse(
                zipped if wants_gzip else body,
                content_type=f"{media_type}; charset={renderer.charset}" if renderer.charset else media_type,
            )
            if wants_gzip:
                response["Content-Encoding"] = "gzip"
            response["Content-Disposition"] = f'inline; filename="{self._get_filename(request, version)}"'
        response["ETag"] = etag
        # Signed-in users only: browsers may keep it, shared caches may not; revalidated each time.
        response["Cache-Control"] = "private, no-cache"
        patch_vary_headers(response, ("Accept", "Accept-Encoding"))
        return response

    def _rendered(self, request, version) -> tuple[bytes, bytes, str]:
        """The schema rendered by the negotiated renderer, gzipped, and its ETag: made once."""
        key = (version, translation.get_language(), str(self.urlconf), self.serve_public)
        renderer = request.accepted_renderer
        render_key = (*key, type(renderer).__name__)
        if (rendered := _rendered.get(render_key)) is not None:
            return rendered
        with _lock:
            if (rendered := _rendered.get(render_key)) is not None:
                return rendered
            if (schema := _schemas.get(key)) is None:
                generator = self.generator_class(
                    urlconf=self.urlconf, api_version=version, patterns=self.patterns
                )
                schema = generator.get_schema(request=request, public=self.serve_public)
                if len(_schemas) < MAX_KEPT:
                    _schemas[key] = schema
            # The renderer's own media type: parameters of the Accept header (`indent=`) would
            # otherwise make one entry per variant a client cares to ask for.
            body = renderer.render(schema, renderer.media_type, self.get_renderer_context())
            etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
            rendered = (body, gzip.compress(body, mtime=0), etag)
            if key in _schemas:  # at most four renderings (YAML, JSON; two media types each) of each
                _rendered[render_key] = rendered
            return rendered


# Summaries of a viewset's usual actions, from its noun ("part", "parts").
_CRUD_SUMMARIES = {
    "list": "List {plural}",
    "create": "Create a {noun}",
    "retrieve": "Read a {noun}",
    "update": "Replace a {noun}",
    "partial_update": "Update a {noun}",
    "destroy": "Delete a {noun}",
    "history": "Audit history of a {noun}",
}


def example(name: str, value, *, request: bool = False, summary: str = "", status: int | None = None):
    """One example of a request (`request=True`) or a response body."""
    return OpenApiExample(
        name,
        value=value,
        summary=summary or name,
        request_only=request,
        response_only=not request,
        status_codes=[str(status)] if status else None,
    )


HISTORY_EXAMPLE = {
    "timestamp": "2026-11-20T09:14:03Z",
    "actor": "Priya Raman (Rackpass Technologies Inc.)",
    "channel": "api",
    "action": "update",
    "changes": {"status": ["draft", "compliance_review"]},
    "message": "",
}


def documented(tag: str, noun: str = "", plural: str = "", *, read=None, write=None, patch=None, **actions):
    """A class decorator giving every operation of a view its tag, a summary and examples.

    For a viewset's usual actions (those it has) the summaries come from `noun` / `plural`, the
    `read` example is their answer and `write` (`patch` for PATCH) their request body. `actions`
    names any other method or action (`get`, `post`, `transition` …) with its `extend_schema`
    arguments, or a list of them (one per HTTP method); the tag is added to each."""
    article = "an" if noun[:1].lower() in "aeiou" else "a"

    def summary(action):
        return _CRUD_SUMMARIES[action].format(noun=noun, plural=plural).replace(" a ", f" {article} ", 1)

    views: dict = {}
    if noun:
        answer = [example(f"{article.capitalize()} {noun}", read)] if read is not None else []
        views = {
            "list": {"summary": summary("list"), "examples": answer},
            "retrieve": {"summary": summary("retrieve"), "examples": answer},
            "destroy": {"summary": summary("destroy")},
            "history": {
                "summary": summary("history"),
                "examples": [example("An audit event", HISTORY_EXAMPLE)],
            },
        }
        if write is not None:
            views["create"] = {
                "summary": summary("create"),
                "examples": [example(f"New {noun}", write, request=True), *answer],
            }
            views["update"] = {
                "summary": summary("update"),
                "examples": [example(f"The whole {noun}", write, request=True), *answer],
            }
            views["partial_update"] = {
                "summary": summary("partial_update"),
                "examples": [example("Fields to change", patch or write, request=True), *answer],
            }
    views.update(actions)

    def decorate(view):
        available = set(get_view_method_names(view))
        chosen = {}
        for name, spec in views.items():
            if name not in available:
                if name in actions:
                    raise ImproperlyConfigured(f"{view.__name__} has no method or action {name!r}.")
                continue
            specs = spec if isinstance(spec, list) else [spec]
            chosen[name] = [extend_schema(tags=[tag], **kwargs) for kwargs in specs]
        return extend_schema_view(**chosen)(view)

    return decorate
