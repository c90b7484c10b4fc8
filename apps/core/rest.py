"""REST framework settings hooks: pagination and JSON errors (kept free of schema imports)."""

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.db.models import ProtectedError
from rest_framework import exceptions, filters, pagination, status
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler


class Pagination(pagination.PageNumberPagination):
    """Every list is paginated; `page` and `page_size` (1–500) are checked, and so is every other
    query parameter of the request (see `refuse_unknown_query_params`)."""

    page_size_query_param = "page_size"
    max_page_size = 500

    def paginate_queryset(self, queryset, request, view=None):
        refuse_unknown_query_params(request, allowed_query_params(request, view, queryset, self))
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["maximum"] = self.max_page_size
        return parameters


def ordering_choices(view, queryset=None) -> list[str]:
    """The values `?ordering=` accepts on `view`: each orderable field, ascending or descending."""
    if queryset is None:
        queryset = getattr(view, "queryset", None)
    fields = [name for name, _ in filters.OrderingFilter().get_valid_fields(queryset, view, {})]
    return [value for name in fields for value in (name, f"-{name}")]


def allowed_query_params(request, view, queryset=None, paginator=None) -> dict[str, object]:
    """The query parameters `view` declares for this request, each with a check of its value
    (None: any value). Pagination and `format` everywhere; filters, search and ordering on `list`
    actions only — the same set the OpenAPI schema documents (`apps.core.schema`)."""
    allowed: dict[str, object] = {}
    if api_settings.URL_FORMAT_OVERRIDE:
        allowed[api_settings.URL_FORMAT_OVERRIDE] = None
    if paginator is not None:
        allowed[paginator.page_query_param] = _positive_integer(allow=("last",))
        allowed[paginator.page_size_query_param] = _positive_integer(maximum=paginator.max_page_size)
    if view is None or getattr(view, "action", "list") != "list":
        return allowed
    for backend_class in getattr(view, "filter_backends", []):
        backend = backend_class()
        if isinstance(backend, filters.SearchFilter):
            if getattr(view, "search_fields", None):
                allowed[backend.search_param] = None
        elif isinstance(backend, filters.OrderingFilter):
            allowed[backend.ordering_param] = _ordering_check(ordering_choices(view, queryset))
        elif hasattr(backend, "get_filterset_class"):
            filterset_class = backend.get_filterset_class(view, queryset)
            for name in getattr(filterset_class, "base_filters", {}):
                allowed[name] = None
        else:
            for parameter in backend.get_schema_operation_parameters(view):
                allowed[parameter["name"]] = None
    return allowed


def refuse_unknown_query_params(request, allowed: dict[str, object]) -> None:
    """A 400 naming each query parameter the operation does not declare, or whose value it cannot
    use, instead of silently ignoring it."""
    errors = {}
    for name in request.query_params:
        if name not in allowed:
            accepted = ", ".join(sorted(allowed)) or "none"
            errors[name] = [f"Unknown query parameter {name!r}; this operation accepts: {accepted}."]
            continue
        check = allowed[name]
        if check is not None:
            problems = [p for value in request.query_params.getlist(name) if (p := check(value))]
            if problems:
                errors[name] = problems
    if errors:
        raise exceptions.ValidationError(errors)


def _positive_integer(maximum: int | None = None, allow: tuple[str, ...] = ()):
    def check(value: str) -> str | None:
        if value == "" or value in allow:
            return None
        if not value.isdigit() or int(value) < 1 or (maximum is not None and int(value) > maximum):
            upper = f" up to {maximum}" if maximum else ""
            return f"{value!r} is not a whole number from 1{upper}."
        return None

    return check


def _ordering_check(choices: list[str]):
    def check(value: str) -> str | None:
        wrong = [term for term in (t.strip() for t in value.split(",")) if term and term not in choices]
        if wrong:
            return f"Cannot order by {', '.join(wrong)}; use {', '.join(choices)}."
        return None

    return check


def exception_handler(exc, context):
    """DRF's handler, plus: model/service validation errors become 400s naming each field."""
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            detail = {
                ("non_field_errors" if field == "__all__" else field): messages
                for field, messages in exc.message_dict.items()
            }
        else:
            detail = {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail)
    elif isinstance(exc, DjangoPermissionDenied) and str(exc):
        # A service's refusal says why (e.g. "you requested it": four eyes); keep its words.
        exc = exceptions.PermissionDenied(str(exc))
    elif isinstance(exc, ProtectedError):
        request = context.get("request")
        shown, not_shown = visible_referrers(exc.protected_objects, getattr(request, "user", None))
        return Response(
            {
                "detail": "Other records still refer to this one, so it cannot be deleted.",
                "referenced_by": sorted({str(o) for o in shown})[:10],
                "not_shown": not_shown,
            },
            status=status.HTTP_409_CONFLICT,
        )
    elif isinstance(exc, IntegrityError):
        # A constraint the service layer did not catch first (e.g. a race on a unique key).
        return Response(
            {"non_field_errors": ["The change conflicts with existing data; nothing was saved."]},
            status=status.HTTP_409_CONFLICT,
        )
    elif isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(
            {"detail": f"The request body is larger than {limit:,} bytes; send less at once."},
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    elif isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        what = "fields" if isinstance(exc, TooManyFieldsSent) else "files"
        limit = getattr(settings, f"DATA_UPLOAD_MAX_NUMBER_{what.upper()}")
        return Response(
            {"detail": f"The request has more than {limit:,} {what}; send fewer at once."},
            status=status.HTTP_400_BAD_REQUEST,
        )
    return drf_exception_handler(exc, context)


def visible_referrers(objects, user) -> tuple[list, int]:
    """The records among `objects` that `user` may see, and how many others there are: a refused
    delete names only what the user could open itself (operator staff see everything)."""
    objects = list(objects)
    if getattr(user, "is_operator_staff", False):
        return objects, 0
    by_model: dict[type, list] = {}
    for obj in objects:
        by_model.setdefault(type(obj), []).append(obj)
    shown = []
    for model, rows in by_model.items():
        queryset = model._default_manager.all()
        if user is None or not hasattr(queryset, "visible_to"):
            continue  # a record without an owner of its own (a shipment line …) is not named
        visible = set(
            queryset.visible_to(user).filter(pk__in=[o.pk for o in rows]).values_list("pk", flat=True)
        )
        shown.extend(o for o in rows if o.pk in visible)
    return shown, len(objects) - len(shown)
