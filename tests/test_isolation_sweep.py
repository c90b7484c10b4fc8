"""Isolation sweep: every route of the URL configuration, visited by a user of organisation B
against organisation A's objects, refuses or shows nothing of A.

The routes are read from `get_resolver()`, so a new endpoint is swept the day it is added:

- a route naming an object (`pk`, `reference`, `shipment_reference`, `task_id` …) is called
  with A's object of the route's model, with every method it answers (reads, updates, deletes,
  downloads, every `@action`), as B's partner token (API) or B's session (pages). The answer
  must be a refusal — 403, 404, 405, or 400 for a body refused before anything is read — and
  must show nothing of A. Nested routes are also called with B's own shipment and A's child object;
- a list (API `list` actions and pages with a FilterSet) is read with no filter, with `search=`
  / `q=` set to A's names, and with each filter set to A's values (its ids for related-object
  filters): no row of A may come back;
- every related-object choice — each serializer field that takes an id (`PrimaryKeyRelatedField`
  and the like, from every serializer the viewsets use and every serializer class in the apps),
  each `ModelChoiceField` of every form in `apps/*/forms.py` and each `ModelChoiceFilter` of every
  FilterSet — evaluated for B must offer none of A's objects.

A route whose object the sweep cannot tell fails with a message saying where to add a mapping, so
a new endpoint cannot slip through. The warehouse and cluster apps inherit all of this: add their
objects to `tests/world.py` (World.private) and, for pages whose view names no model, a line in
`ROUTE_MODELS`.
"""

from __future__ import annotations

import html
import importlib
import inspect
import json
import re
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

import django_filters
import pytest
from django import forms
from django.apps import apps as django_apps
from django.db import transaction
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIClient

from apps.accounts.models import ApiToken, Connection, Organisation
from apps.catalog.models import Manufacturer, Part, Unit
from apps.compliance.models import (
    ComplianceAlert,
    ComplianceApproval,
    HoldReason,
    Licence,
    PartyBlock,
    ScreeningHit,
    ScreeningList,
)
from apps.documents.models import Document
from apps.shipments.models import ExchangeRate, FreightRate, Leg, Package, Shipment, ShipmentLine, Site
from apps.warehouse.models import Discrepancy, Location, Lot

from .world import MARK, PUBLIC_KWARGS, World, build_world, kwarg_value, view_model

# Routes whose view names no model: which of A's objects their `pk` is (or, for routes naming
# more than one object, a model per URL keyword argument).
ROUTE_MODELS: dict[str, type | dict[str, type]] = {
    "accounts:connection-create": Organisation,
    "accounts:connection-remove": {"pk": Organisation, "connection_pk": Connection},
    "accounts:registration-create": Organisation,
    "accounts:contact-create": Organisation,
    "accounts:token-revoke": ApiToken,
    "compliance:hit-decide": ScreeningHit,
    "compliance:block-lift": PartyBlock,
    "compliance:approval-decide": ComplianceApproval,
    "compliance:alert-acknowledge": ComplianceAlert,
    "compliance:hold-resolve": HoldReason,
    "compliance:part": Part,
    "compliance:licence": Licence,
    "documents:download": Document,
    "documents:preview": Document,
    "documents:issue": Document,
    "documents:void": Document,
    "shipments:line-remove": ShipmentLine,
    "shipments:package-remove": Package,
    "shipments:leg-edit": Leg,
    "shipments:leg-remove": Leg,
    "compliance:licence-edit": Licence,
    "compliance:licence-expire": Licence,
    "warehouse:unit-detail": Unit,
    "warehouse:location-detail": Location,
    "warehouse:location-count": Location,
    "warehouse:discrepancy-resolve": {"pk": Discrepancy},
    "warehouse:lot-adjust": Lot,
    "warehouse:unit-status": Unit,
}

# Objects no organisation owns: every user reads the same ones, so there is nothing to isolate.
PUBLIC_MODELS = {
    Manufacturer: "the manufacturers of the shared catalogue",
    FreightRate: "the operator's rate table, readable by the operator's staff",
    ExchangeRate: "dated exchange rates the operator keeps, readable by every user",
    ScreeningList: "editions of public restricted-party lists",
}

# Routes left out, and why.
EXCLUDED_NAMESPACES = {
    "admin": "the Django admin admits staff users of the operator only (checked once below)",
}

REFUSED = {403, 404, 405}
REFUSED_BODY = REFUSED | {400}  # a body may be refused before anything is read
METHODS = ("get", "post", "put", "patch", "delete")


@dataclass
class Route:
    name: str  # namespaced URL name
    pattern: str  # for messages
    kwargs: tuple[str, ...]
    callback: object

    @property
    def view_class(self):
        return getattr(self.callback, "cls", None) or getattr(self.callback, "view_class", None)

    @property
    def is_api(self) -> bool:
        return hasattr(self.callback, "cls")

    @property
    def actions(self) -> dict[str, str]:
        return dict(getattr(self.callback, "actions", None) or {})

    def methods(self) -> list[str]:
        if self.actions:
            return [m for m in METHODS if m in self.actions]
        view_class = self.view_class
        if view_class is None:  # a function view
            return ["get"]
        return [m for m in METHODS if hasattr(view_class, m)]


def _routes(resolver=None, prefix="", namespace="") -> list[Route]:
    resolver = resolver or get_resolver()
    found = []
    for entry in resolver.url_patterns:
        pattern = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            found += _routes(entry, pattern, inner)
        elif isinstance(entry, URLPattern) and entry.name:
            found.append(Route(f"{namespace}{entry.name}", pattern, _kwarg_names(pattern), entry.callback))
    # One route per name and set of keyword arguments (format-suffix variants included).
    unique = {}
    for route in found:
        unique.setdefault((route.name, route.kwargs), route)
    return list(unique.values())


def _kwarg_names(pattern: str) -> tuple[str, ...]:
    return tuple(re.findall(r"(?<!\?P)<(?:\w+:)?(\w+)>", pattern) + re.findall(r"\(\?P<(\w+)>", pattern))


def _excluded(route: Route) -> bool:
    return route.name.split(":")[0] in EXCLUDED_NAMESPACES


def _model_for(route: Route, kwarg: str = "pk"):
    if route.name in ROUTE_MODELS:
        models = ROUTE_MODELS[route.name]
        return models.get(kwarg) if isinstance(models, dict) else models
    return view_model(route.view_class) if route.view_class else None


def _is_public(route: Route) -> bool:
    return _model_for(route) in PUBLIC_MODELS and not {"reference", "shipment_reference"} & set(route.kwargs)


def _kwargs_for(world: World, route: Route) -> tuple[dict, list[str]]:
    values, unmapped = {}, []
    for name in route.kwargs:
        value = kwarg_value(world, route.view_class, name, model=_model_for(route, name))
        if value is None:
            unmapped.append(name)
        values[name] = value
    return values, unmapped


# --- clients and calls ---------------------------------------------------------------------------


@pytest.fixture
def world(db):
    return build_world()


@pytest.fixture
def clients(world):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {world.key_b}")
    page = Client()
    page.force_login(world.user_b)
    return {"api": api, "page": page}


def _call(client, method: str, url: str, data=None, api: bool = True):
    """One request, its writes rolled back: a leak found by one request cannot hide another."""
    kwargs = {}
    if data is not None:
        if api and method != "get":
            kwargs = {"data": json.dumps(data), "content_type": "application/json"}
        else:
            kwargs = {"data": data}
    with transaction.atomic():
        response = getattr(client, method)(url, **kwargs)
        transaction.set_rollback(True)
    return response


def _body(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode("utf-8", "replace")
    return response.content.decode("utf-8", "replace")


def _without_echo(text: str, sent: list[str]) -> str:
    """The page or answer minus what B itself sent (a form echoing the search, a link to the
    next page, a sort or export link keeping the filter, a 404 page naming the path): that is not
    A's data."""
    for value in sorted(set(sent), key=len, reverse=True):
        echoes = (f'value="{html.escape(value)}"', f"={quote_plus(value)}", quote_plus(value), quote(value))
        for form in (*echoes, value):
            if form == value and not value.startswith("/"):
                continue  # a bare search term may be A's data itself: only drop it as a path
            text = text.replace(form, "")
    return text


def _leaks(world: World, response, sent: list[str]) -> list[str]:
    body = _body(response)
    if response.get("Content-Type", "").startswith("application/json"):
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k not in ("next", "previous")}
            body = json.dumps(data, ensure_ascii=False)
    return world.leaks(_without_echo(body, sent))


def _representation(world: World, route: Route, url: str):
    """The object as its owner reads it: a full, valid body for PUT."""
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=f"Token {world.key_a}")
    response = owner.get(url)
    return response.json() if response.status_code == 200 else {}


# --- object routes -------------------------------------------------------------------------------


def test_every_route_naming_an_object_is_mapped_to_one_of_organisation_a(world):
    unmapped = []
    for route in _routes():
        if _excluded(route) or not route.kwargs or _is_public(route):
            continue
        _, missing = _kwargs_for(world, route)
        if missing:
            unmapped.append(
                f"{route.name} ({route.pattern}): no object of organisation A for {', '.join(missing)}. "
                "Add the model's object to tests/world.py (World.private) or, for a page whose view "
                "names no model, the URL name to ROUTE_MODELS in tests/test_isolation_sweep.py."
            )
    assert not unmapped, "\n".join(unmapped)


def test_organisation_b_is_refused_every_object_of_organisation_a(world, clients):
    findings = []
    checked = 0
    for route in _routes():
        if _excluded(route) or _is_public(route) or not [k for k in route.kwargs if k not in PUBLIC_KWARGS]:
            continue
        values, missing = _kwargs_for(world, route)
        if missing:
            continue  # reported by the mapping test
        variants = [values]
        if "pk" in values and ({"reference", "shipment_reference"} & set(values)):
            # A's child object under B's own shipment.
            key = "reference" if "reference" in values else "shipment_reference"
            variants.append({**values, key: world.shipment_b.reference})
        for kwargs in variants:
            url = reverse(route.name, kwargs=kwargs)
            client = clients["api" if route.is_api else "page"]
            for method in route.methods():
                data = None
                if method == "put" and route.is_api:
                    data = _representation(world, route, url)
                elif method in ("post", "patch"):
                    data = {}
                response = _call(client, method, url, data, api=route.is_api)
                allowed = REFUSED if method == "get" else REFUSED_BODY
                label = f"{method.upper()} {url} ({route.name})"
                if response.status_code not in allowed:
                    findings.append(
                        f"{label}: answered {response.status_code}, expected one of {sorted(allowed)}"
                    )
                if leaks := _leaks(world, response, [url]):
                    findings.append(f"{label}: shows organisation A's data ({', '.join(leaks)})")
                checked += 1
    assert checked > 100
    assert not findings, "\n".join(findings)


def test_the_admin_refuses_partners(world, clients):
    response = clients["page"].get(reverse("admin:index"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


# --- lists ---------------------------------------------------------------------------------------


def _search_terms(world: World) -> list[str]:
    part = world.first(Part)
    return [MARK, world.org_a.legal_name, part.part_number, world.first(Shipment).reference, "ZQXA-LIC-0001"]


def _value_along(obj, field_name: str):
    for attr in field_name.split("__"):
        if obj is None:
            return None
        obj = getattr(obj, attr, None)
    if isinstance(obj, list | dict):
        return None
    return getattr(obj, "pk", obj)


def _filter_probes(world: World, filterset_class, model, request, search_param: str | None):
    """(parameter, value) pairs: A's names for searches, A's values and ids for each filter."""
    probes = [(search_param, term) for term in _search_terms(world)] if search_param else []
    if filterset_class is None:
        return probes
    filterset = filterset_class(data=None, queryset=model.objects.none(), request=request)
    own = world.first(model)
    for name, flt in filterset.filters.items():
        if isinstance(flt, django_filters.ModelChoiceFilter | django_filters.ModelMultipleChoiceFilter):
            target = filterset.form.fields[name].queryset.model
            probes += [(name, str(obj.pk)) for obj in world.private.get(target, [])]
        elif flt.method is not None:
            if isinstance(flt, django_filters.CharFilter):
                probes += [(name, term) for term in _search_terms(world)]
            elif isinstance(flt, django_filters.BooleanFilter):
                probes += [(name, "true"), (name, "false")]
        elif own is not None and (value := _value_along(own, flt.field_name)) not in (None, ""):
            probes.append((name, str(value).lower() if isinstance(value, bool) else str(value)))
    return probes


def _filter_backend(view) -> DjangoFilterBackend | None:
    backends = [b for b in getattr(view, "filter_backends", []) if issubclass(b, DjangoFilterBackend)]
    return backends[0]() if backends else None


def _as_b(request) -> Request:
    """A DRF request of B (DRF would otherwise authenticate it again, as nobody)."""
    drf_request = Request(request)
    drf_request.user = request.user
    return drf_request


def _b_request(world: World):
    request = RequestFactory().get("/")
    request.user = world.user_b
    return request


def _list_routes():
    for route in _routes():
        if _excluded(route):
            continue
        is_list = route.actions.get("get") == "list" if route.is_api else None
        if is_list or (not route.is_api and getattr(route.view_class, "filterset_class", None)):
            yield route


def test_lists_show_organisation_b_nothing_of_organisation_a(world, clients):
    findings = []
    request = _b_request(world)
    checked = 0
    for route in _list_routes():
        kwargs = {k: world.shipment_b.reference for k in route.kwargs if "reference" in k}
        kwargs |= {k: v for k, v in PUBLIC_KWARGS.items() if k in route.kwargs}
        url = reverse(route.name, kwargs=kwargs)
        view_class = route.view_class
        model = view_model(view_class) or view_class.filterset_class._meta.model
        if route.is_api:
            view = view_class(**getattr(route.callback, "initkwargs", {}))
            view.request, view.kwargs, view.action, view.format_kwarg = _as_b(request), kwargs, "list", None
            backend = _filter_backend(view)
            filterset_class = backend.get_filterset_class(view, model.objects.none()) if backend else None
            search_param = "search" if getattr(view_class, "search_fields", None) else None
            client = clients["api"]
        else:
            filterset_class, search_param, client = view_class.filterset_class, None, clients["page"]
        probes = [(None, None), *_filter_probes(world, filterset_class, model, request, search_param)]
        private_ids = {obj.pk for obj in world.private.get(model, [])}
        for name, value in probes:
            params = {name: value} if name else {}
            response = _call(client, "get", url, params or None, api=route.is_api)
            label = f"GET {url}?{name}={value} ({route.name})" if name else f"GET {url} ({route.name})"
            checked += 1
            if response.status_code not in (200, 400, 403):
                findings.append(f"{label}: answered {response.status_code}, expected 200, 400 or 403")
            if leaks := _leaks(world, response, [url, *(v for v in params.values())]):
                findings.append(f"{label}: shows organisation A's data ({', '.join(leaks)})")
            if route.is_api and response.status_code == 200 and private_ids:
                rows = response.json()
                rows = rows.get("results", []) if isinstance(rows, dict) else rows
                if shown := sorted({r.get("id") for r in rows if isinstance(r, dict)} & private_ids):
                    findings.append(f"{label}: lists organisation A's {model.__name__} {shown}")
    assert checked > 50
    assert not findings, "\n".join(findings)


def test_pickers_offer_organisation_b_nothing_of_organisation_a(world, clients):
    """Every search-as-you-type picker (apps/core/pickers.py), asked with no words and with A's
    marker, answers B with none of A's objects."""
    from apps.core import pickers

    pickers.kind_for(Shipment)  # every app's pickers.py imported
    findings = []
    for kind, entry in sorted(pickers._pickers.items()):
        model = entry.queryset(world.user_b).model
        private = {str(obj.pk) for obj in world.private.get(model, [])}
        for q in ("", MARK):
            response = clients["page"].get(reverse("pick", args=[kind]), {"q": q})
            label = f"GET /pick/{kind}/?q={q}"
            if response.status_code != 200:
                findings.append(f"{label}: answered {response.status_code}")
                continue
            if shown := sorted({row["value"] for row in response.json()["results"]} & private):
                findings.append(f"{label}: offers organisation A's {model.__name__} {shown}")
            if leaks := _leaks(world, response, [q]):
                findings.append(f"{label}: shows organisation A's data ({', '.join(leaks)})")
    assert len(pickers._pickers) >= 5
    assert not findings, "\n".join(findings)


# --- related-object choices ----------------------------------------------------------------------


def _related_querysets(serializer, prefix=""):
    """(field path, queryset) for every writable field of `serializer` that takes an id."""
    for name, field in serializer.fields.items():
        path = f"{prefix}{name}"
        if getattr(field, "read_only", False):
            continue
        if isinstance(field, serializers.ManyRelatedField):
            field = field.child_relation
        if isinstance(field, serializers.ListField | serializers.DictField):
            field = field.child
            path += "[]"
        if isinstance(field, serializers.ListSerializer):
            field = field.child
        if isinstance(field, serializers.RelatedField):
            queryset = field.get_queryset()
            if queryset is not None:
                yield path, queryset
        elif isinstance(field, serializers.Serializer):
            yield from _related_querysets(field, f"{path}.")


def _offered(world: World, queryset, seen: list | None = None) -> list[str]:
    if seen is not None and queryset.exists():
        seen.append(queryset.model)  # B has something to choose: the check is not vacuous
    private = [obj.pk for obj in world.private.get(queryset.model, [])]
    if not private:
        return []
    return [str(obj) for obj in queryset.filter(pk__in=private)]


def _app_modules(name: str):
    for config in django_apps.get_app_configs():
        if config.name.startswith("apps."):
            try:
                yield importlib.import_module(f"{config.name}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.{name}":
                    raise


def _input_serializers(world: World, request):
    """(label, serializer) for the body of every operation that takes one, as the view builds it
    for B: the request serializer its schema declares (`extend_schema(request=…)`), else the
    view's own `get_serializer()`."""
    for route in _routes():
        if not route.is_api or _excluded(route):
            continue
        kwargs = {k: world.shipment_b.reference for k in route.kwargs if "reference" in k}
        for method in route.methods():
            if method in ("get", "delete"):
                continue  # no body
            action = route.actions.get(method)
            view = route.view_class(**getattr(route.callback, "initkwargs", {}))
            drf_request = _as_b(request)
            drf_request.method = method.upper()
            view.request, view.kwargs, view.action, view.format_kwarg = drf_request, kwargs, action, None
            handler = getattr(route.view_class, action or method)
            schema_class = getattr(handler, "kwargs", {}).get("schema") or type(view.schema)
            schema = schema_class()
            schema.view, schema.method, schema.path = view, method.upper(), route.pattern
            try:
                serializer = schema.get_request_serializer()
            except Exception:  # noqa: BLE001  (a view whose serializer needs more than a request)
                serializer = None
            if inspect.isclass(serializer):
                serializer = serializer(
                    context=view.get_serializer_context()
                    if hasattr(view, "get_serializer_context")
                    else {"request": drf_request}
                )
            if isinstance(serializer, serializers.BaseSerializer):
                yield f"{method.upper()} {route.pattern} ({type(serializer).__name__})", serializer


def test_related_object_choices_offer_organisation_b_nothing_of_organisation_a(world):
    findings = []
    request = _b_request(world)
    choosable: list = []
    for label, serializer in _input_serializers(world, request):
        for path, queryset in _related_querysets(serializer):
            if (offered := _offered(world, queryset, choosable)) and (
                finding := f"{label} field {path!r} offers A's {offered}"
            ) not in findings:
                findings.append(finding)

    for module in _app_modules("forms"):
        for form_class in vars(module).values():
            if not (
                inspect.isclass(form_class)
                and issubclass(form_class, forms.BaseForm)
                and form_class.__module__ == module.__name__
            ):
                continue
            parameters = inspect.signature(form_class.__init__).parameters
            kwargs = {}
            if "user" in parameters:
                kwargs["user"] = world.user_b
            if "owner" in parameters:
                kwargs["owner"] = world.org_b
            if "organisation" in parameters:
                kwargs["organisation"] = world.org_b
            form = form_class(**kwargs)
            for name, field in form.fields.items():
                if isinstance(field, forms.ModelChoiceField) and (
                    offered := _offered(world, field.queryset, choosable)
                ):
                    findings.append(
                        f"form {module.__name__}.{form_class.__name__} field {name!r} offers A's {offered}"
                    )

    # Filters, as each list builds its FilterSet for B (API backend or page view); then any
    # FilterSet class of apps/*/filters.py no list uses, as it is.
    built, used = [], set()
    for route in _list_routes():
        model = view_model(route.view_class) or route.view_class.filterset_class._meta.model
        if route.is_api:
            view = route.view_class(**getattr(route.callback, "initkwargs", {}))
            kwargs = {k: world.shipment_b.reference for k in route.kwargs if "reference" in k}
            view.request, view.action, view.kwargs, view.format_kwarg = _as_b(request), "list", kwargs, None
            backend = _filter_backend(view)
            filterset = backend.get_filterset(view.request, model.objects.none(), view) if backend else None
        else:
            view = route.view_class()
            view.setup(request)
            filterset = view.get_filterset()
        if filterset is not None:
            used.add(type(filterset))
            built.append((route.name, filterset))
    for module in _app_modules("filters"):
        for c in vars(module).values():
            is_filterset = inspect.isclass(c) and issubclass(c, django_filters.FilterSet)
            if not is_filterset or c.__module__ != module.__name__ or any(issubclass(u, c) for u in used):
                continue
            filterset = c(data=None, queryset=c._meta.model.objects.none(), request=request)
            built.append((f"{c.__module__}.{c.__qualname__}", filterset))
    for label, filterset in built:
        for name, field in filterset.form.fields.items():
            is_choice = isinstance(field, forms.ModelChoiceField)
            offered = _offered(world, field.queryset, choosable) if is_choice else []
            if (
                offered
                and (finding := f"filter of {label} field {name!r} offers A's {offered}") not in findings
            ):
                findings.append(finding)
    # B chooses among its own and the shared objects: were none offered, B would be nobody.
    assert {Organisation, Part, Site} <= set(choosable), f"nothing to choose for B: {set(choosable)}"
    assert not findings, "\n".join(findings)
