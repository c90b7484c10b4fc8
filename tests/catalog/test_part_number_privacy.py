"""Issue 9: a part number is unique within one owner's catalogue (and against the master catalogue,
which every organisation reads); another partner's private part never decides the answer."""

import pytest

from apps.accounts.roles import Role
from apps.catalog.models import Part
from tests.factories import ManufacturerFactory, OrganisationFactory, PartFactory, UserFactory

from ..core.test_audit import PART_PAYLOAD


@pytest.fixture
def nvidia(db):
    return ManufacturerFactory(name="NVIDIA")


@pytest.fixture
def rival(db):
    return OrganisationFactory(kind="supplier", legal_name="Rival Systems Inc.")


def test_another_partners_private_part_number_is_not_revealed(supplier_user, rival, nvidia, api_as):
    private = PartFactory(owner=rival, manufacturer=nvidia, part_number="QM9700-PRIVATE")
    response = api_as(supplier_user).post(
        "/api/v1/parts/", PART_PAYLOAD | {"part_number": "qm9700-private"}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert response.json()["owner"] == supplier_user.organisation_id
    assert Part.objects.filter(part_number__iexact="qm9700-private").count() == 2
    private.refresh_from_db()
    assert private.owner == rival


def test_a_duplicate_in_your_own_catalogue_is_refused(supplier_user, nvidia, api_as):
    api = api_as(supplier_user)
    assert api.post("/api/v1/parts/", PART_PAYLOAD, format="json").status_code == 201
    again = api.post("/api/v1/parts/", PART_PAYLOAD | {"part_number": "mqm9700-ns2f"}, format="json")
    assert again.status_code == 400
    assert again.json() == {"part_number": ["NVIDIA already has a part numbered mqm9700-ns2f."]}


def test_a_master_catalogue_part_number_is_refused_to_partners_it_is_public(supplier_user, nvidia, api_as):
    PartFactory(manufacturer=nvidia, part_number="MQM9700-NS2F")  # the operator's: everyone reads it
    response = api_as(supplier_user).post("/api/v1/parts/", PART_PAYLOAD, format="json")
    assert response.status_code == 400
    assert "master catalogue" in response.json()["part_number"][0]


def test_the_operator_may_add_a_master_part_a_partner_keeps_privately(coordinator, rival, nvidia, api_as):
    PartFactory(owner=rival, manufacturer=nvidia, part_number="MQM9700-NS2F")
    assert api_as(coordinator).post("/api/v1/parts/", PART_PAYLOAD, format="json").status_code == 201


def test_the_database_allows_one_number_per_owner(rival, supplier, nvidia):
    from django.db import IntegrityError, transaction

    Part.objects.bulk_create([PartFactory.build(owner=rival, manufacturer=nvidia, part_number="A-1")])
    Part.objects.bulk_create([PartFactory.build(owner=supplier, manufacturer=nvidia, part_number="a-1")])
    with pytest.raises(IntegrityError), transaction.atomic():
        Part.objects.bulk_create([PartFactory.build(owner=supplier, manufacturer=nvidia, part_number="A-1")])


def test_rival_user_still_sees_only_its_part(rival, nvidia, api_as):
    PartFactory(owner=rival, manufacturer=nvidia, part_number="R-1")
    user = UserFactory(organisation=rival, role=Role.PARTNER)
    assert [p["part_number"] for p in api_as(user).get("/api/v1/parts/").json()["results"]] == ["R-1"]
