from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import AuditHistoryMixin, OrgScopedViewSetMixin
from apps.core.scoping import CHANGE

from .. import services
from ..filters import ApiTokenFilter, ConnectionFilter
from ..models import ApiToken, Connection, Contact, Organisation, Registration
from . import schema
from .serializers import (
    ApiTokenCreatedSerializer,
    ApiTokenSerializer,
    ConnectionSerializer,
    ContactSerializer,
    OrganisationSerializer,
    RegistrationSerializer,
    UserSerializer,
)


@schema.organisation_docs
class OrganisationViewSet(
    AuditHistoryMixin,
    OrgScopedViewSetMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.ReadOnlyModelViewSet,
):
    """Organisations: the operator's staff see all; a partner sees its own."""

    queryset = Organisation.objects.prefetch_related(
        "registrations", "contacts", Organisation.active_blocks_prefetch("lift_requested_by")
    )
    serializer_class = OrganisationSerializer
    filterset_fields = ["kind", "country", "is_active"]
    search_fields = ["legal_name", "trading_name", "city"]
    ordering_fields = ["legal_name", "country", "kind", "created_at"]
    capabilities = {"read": "organisations.view", "write": "organisations.edit"}

    def perform_create(self, serializer):
        serializer.instance = services.organisation_create(fields=serializer.validated_data)

    def perform_update(self, serializer):
        serializer.instance = services.organisation_update(
            organisation=serializer.instance, fields=serializer.validated_data, actor=self.request.user
        )


class _OrganisationChildViewSet(
    AuditHistoryMixin, OrgScopedViewSetMixin, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet
):
    capabilities = {"read": "organisations.view", "write": "organisations.edit"}
    create_service = None

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        organisation = data.pop("organisation")
        # The parent must be one the user may change: another organisation's is "not found".
        get_object_or_404(Organisation.objects.visible_to(self.request.user, CHANGE), pk=organisation.pk)
        serializer.instance = type(self).create_service(organisation=organisation, fields=data)


@schema.registration_docs
class RegistrationViewSet(_OrganisationChildViewSet):
    queryset = Registration.objects.all()
    serializer_class = RegistrationSerializer
    filterset_fields = ["organisation", "scheme", "country"]
    ordering_fields = ["scheme", "number", "valid_until"]
    create_service = staticmethod(services.registration_create)


@schema.contact_docs
class ContactViewSet(mixins.UpdateModelMixin, _OrganisationChildViewSet):
    """People of an organisation; `is_signatory` marks those who sign its trade documents."""

    queryset = Contact.objects.all()
    serializer_class = ContactSerializer
    filterset_fields = ["organisation", "is_primary", "is_signatory"]
    search_fields = ["name", "email"]
    ordering_fields = ["name"]
    create_service = staticmethod(services.contact_create)

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        if "organisation" in data and data["organisation"] != serializer.instance.organisation:
            from rest_framework.exceptions import ValidationError

            raise ValidationError({"organisation": "A contact stays with its organisation."})
        serializer.instance = services.contact_update(contact=serializer.instance, fields=data)


@schema.connection_docs
class ConnectionViewSet(
    AuditHistoryMixin,
    OrgScopedViewSetMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.ReadOnlyModelViewSet,
):
    """Who works with whom. A partner may name as parties its own organisation and those it is
    connected with, and reaches another partner's shipment only while connected with its owner.
    Partners read their own connections; the operator's coordinators and administrators keep them."""

    queryset = Connection.objects.select_related(
        "organisation_a", "organisation_b", "created_by__organisation"
    )
    serializer_class = ConnectionSerializer
    filterset_class = ConnectionFilter
    ordering_fields = ["created_at"]
    capabilities = {"read": "connections.view", "write": "connections.manage"}

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.connection_create(
            actor=self.request.user,
            organisation=data["organisation_a"],
            other=data["organisation_b"],
            note=data.get("note", ""),
        )

    def perform_destroy(self, instance):
        services.connection_remove(connection=instance, actor=self.request.user)


@schema.token_docs
class ApiTokenViewSet(
    AuditHistoryMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet
):
    """Your own API tokens. Creating one returns its key once; deleting revokes it (the record stays)."""

    serializer_class = ApiTokenSerializer
    filterset_class = ApiTokenFilter
    ordering_fields = ["created_at", "last_used_at", "name"]
    capabilities = {"read": "tokens.manage", "write": "tokens.manage"}
    queryset = ApiToken.objects.none()

    def get_queryset(self):
        return ApiToken.objects.filter(user=self.request.user)

    @extend_schema(responses={201: ApiTokenCreatedSerializer})
    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, key = services.api_token_create(
            user=request.user,
            name=serializer.validated_data["name"],
            expires_at=serializer.validated_data.get("expires_at"),
        )
        data = ApiTokenCreatedSerializer(token).data | {"key": key}
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        services.api_token_revoke(token=instance)


@schema.me_docs
class MeView(APIView):
    """Who the credentials belong to, and what their role allows."""

    capabilities = {"read": "dashboard.view", "write": "dashboard.view"}

    @extend_schema(responses=UserSerializer)
    def get(self, request):
        return Response(UserSerializer(request.user).data)
