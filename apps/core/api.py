"""API building blocks every app reuses: organisation-scoped viewsets and the audit history action."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import action

from .scoping import CHANGE, VIEW


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
        events = AuditEvent.objects.for_object(obj)
        page = self.paginate_queryset(events)
        return self.get_paginated_response(AuditEventSerializer(page, many=True).data)
