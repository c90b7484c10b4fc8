"""Roles: one capability table; views that forget to declare capabilities are closed."""

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIRequestFactory, force_authenticate
from rest_framework.views import APIView

from apps.accounts.roles import CAPABILITIES, Role, has_capability
from tests.factories import UserFactory


def test_every_role_is_named_in_the_table():
    assert all(caps <= set(Role) for caps in CAPABILITIES.values())
    assert has_capability(Role.COORDINATOR, "catalog.edit")
    assert not has_capability(Role.COMPLIANCE_OFFICER, "catalog.edit")
    assert has_capability(None, "users.manage", is_superuser=True)
    with pytest.raises(KeyError):
        has_capability(Role.ADMIN, "no.such.capability")


def test_a_view_without_declared_capabilities_is_refused(coordinator):
    class Forgotten(APIView):
        def get(self, request):
            from rest_framework.response import Response

            return Response({"ok": True})

    request = APIRequestFactory().get("/x/")
    force_authenticate(request, user=coordinator)
    assert Forgotten.as_view()(request).status_code == 403


def test_staff_roles_belong_to_the_operator(supplier):
    user = UserFactory.build(organisation=supplier, role=Role.COORDINATOR, username="x")
    with pytest.raises(ValidationError) as excinfo:
        user.full_clean()
    assert "role" in excinfo.value.message_dict


def test_partner_of_the_operator_is_not_operator_staff(operator):
    assert UserFactory(organisation=operator, role=Role.COORDINATOR).is_operator_staff
    assert not UserFactory(organisation=operator, role=Role.PARTNER).is_operator_staff


def test_me_endpoint_describes_the_user(supplier_user, api_as):
    body = api_as(supplier_user).get("/api/v1/me/").json()
    assert body["role"] == "partner" and body["organisation"] == supplier_user.organisation.legal_name
