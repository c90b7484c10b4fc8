"""REST framework settings hooks: pagination and JSON errors (kept free of schema imports)."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.db.models import ProtectedError
from rest_framework import exceptions, pagination, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class Pagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500


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
    elif isinstance(exc, ProtectedError):
        return Response(
            {
                "detail": "Other records still refer to this one, so it cannot be deleted.",
                "referenced_by": sorted({str(o) for o in list(exc.protected_objects)[:10]}),
            },
            status=status.HTTP_409_CONFLICT,
        )
    elif isinstance(exc, IntegrityError):
        # A constraint the service layer did not catch first (e.g. a race on a unique key).
        return Response(
            {"non_field_errors": ["The change conflicts with existing data; nothing was saved."]},
            status=status.HTTP_409_CONFLICT,
        )
    return drf_exception_handler(exc, context)
