"""API building blocks every app reuses: organisation-scoped viewsets and the audit history action."""

from __future__ import annotations

import logging
from decimal import Decimal

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from .disclosure import history_queryset, mask_events
from .scoping import CHANGE, VIEW

logger = logging.getLogger(__name__)


class OrgScopedViewSetMixin:
    """Reads go through `Model.objects.visible_to(user)`; writes through `visible_to(user, CHANGE)`.

    Another organisation's object is therefore simply not found (404): its existence is not
    revealed.
    """

    def get_base_queryset(self):
        # `.all()`: a copy per request, so nothing evaluated here is cached on the class.
        return self.queryset.all()

    def get_queryset(self):
        action = VIEW if self.request.method in ("GET", "HEAD", "OPTIONS") else CHANGE
        return self.get_base_queryset().visible_to(self.request.user, action)


class ScopedPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """A related object by id, chosen among the objects the requesting user may see
    (`visible_to(user, action)`), or among those `chooser(queryset, user)` returns.

    Every writable id field of every serializer uses it: an object outside the user's scope is
    "Invalid pk … does not exist", the same answer as an id that does not exist. Without a request
    in the serializer's context nothing is accepted."""

    def __init__(self, *, action: str = VIEW, chooser=None, **kwargs):
        self.scope_action = action
        self.chooser = chooser
        super().__init__(**kwargs)

    def get_queryset(self):
        queryset = super().get_queryset()
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if user is None:
            return queryset.none()
        if self.chooser is not None:
            return self.chooser(queryset, user)
        return queryset.visible_to(user, self.scope_action)


class AuditEventSerializer(serializers.Serializer):
    timestamp = serializers.DateTimeField()
    actor = serializers.CharField(source="actor_label")
    channel = serializers.CharField()
    action = serializers.CharField()
    changes = serializers.JSONField()
    message = serializers.CharField()


class AuditHistoryMixin:
    """Adds `GET <object>/history/`: the object's audit trail, newest first."""

    @extend_schema(responses=AuditEventSerializer(many=True))
    @action(detail=True, methods=["get"])
    def history(self, request, *args, **kwargs):
        from .models import AuditEvent

        obj = self.get_object()
        # A partner reads the trail without the operator's internal notes and staff names.
        events = history_queryset(request.user, AuditEvent.objects.for_object(obj))
        page = self.paginate_queryset(events)
        shown = mask_events(request.user, events if page is None else page)
        rows = AuditEventSerializer(shown, many=True).data
        return Response(rows) if page is None else self.get_paginated_response(rows)


class FittingDecimalField(serializers.DecimalField):
    """A read-only computed figure (TPP, performance density, a line's value …) that shows null
    when it is not a finite number or does not fit its `max_digits`, instead of failing the whole
    response: one row stored around validation must never break a list for everyone."""

    def __init__(self, **kwargs):
        kwargs.setdefault("read_only", True)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_representation(self, value):
        try:
            if value is not None and not Decimal(str(value)).is_finite():
                return None
            return super().to_representation(value)
        except (ArithmeticError, ValueError, TypeError):
            logger.warning(
                "%s: %r does not fit %s digits; shown as null", self.field_name, value, self.max_digits
            )
            return None
