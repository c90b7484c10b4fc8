"""`/api/v1/parts/`: listing, filtering, ordering, validation, roles and organisation scoping."""

import pytest

from apps.catalog.models import Part
from tests.factories import ManufacturerFactory, PartFactory

from ..core.test_audit import PART_PAYLOAD


@pytest.fixture
def nvidia(db):
    return ManufacturerFactory(name="NVIDIA")


def test_list_is_paginated_with_constant_queries(coordinator, api_as, django_assert_num_queries):
    api = api_as(coordinator)
    PartFactory.create_batch(3)
    # token lookup + last-used touch, count, page, the page's tariff codes
    with django_assert_num_queries(5):
        small = api.get("/api/v1/parts/").json()
    PartFactory.create_batch(40)
    with django_assert_num_queries(4):  # the token was touched less than a minute ago
        large = api.get("/api/v1/parts/?page_size=100").json()
    assert small["count"] == 3 and large["count"] == 43 and len(large["results"]) == 43
    assert large["results"][0]["manufacturer"] == "NVIDIA"


def test_filters_search_and_ordering(coordinator, api_as):
    PartFactory(
        part_number="MCX75310AAS-NEAT",
        name="ConnectX-7",
        category="nic_dpu",
        hs_code="847180",
        power_draw_w=25,
    )
    PartFactory(
        part_number="MMA4Z00-NS",
        name="800G OSFP SR8",
        category="optical_transceiver",
        country_of_origin="TH",
        power_draw_w=15,
    )
    PartFactory(part_number="SN5600", name="Spectrum-4", category="network_switch", power_draw_w=2200)
    api = api_as(coordinator)

    def numbers(query):
        return [p["part_number"] for p in api.get(f"/api/v1/parts/{query}").json()["results"]]

    assert numbers("?category=nic_dpu") == ["MCX75310AAS-NEAT"]
    assert numbers("?q=osfp") == ["MMA4Z00-NS"]
    assert numbers("?q=nvidia spectrum") == ["SN5600"]
    assert numbers("?country_of_origin=TH") == ["MMA4Z00-NS"]
    assert numbers("?hs_code=8471") == ["MCX75310AAS-NEAT"]
    assert numbers("?min_power_w=100") == ["SN5600"]
    assert numbers("?ordering=-power_draw_w") == ["SN5600", "MCX75310AAS-NEAT", "MMA4Z00-NS"]
    response = api.get("/api/v1/parts/?category=spaceship")
    assert response.status_code == 400 and "category" in response.json()


def test_create_normalises_and_computes(coordinator, api_as, nvidia):
    payload = PART_PAYLOAD | {
        "part_number": "H100-SXM5",
        "category": "accelerator",
        "hs_code": "8473.30",
        "dense_tops": {"8": "1979", "16": "989.5"},
        "die_area_mm2": "814",
    }
    response = api_as(coordinator).post("/api/v1/parts/", payload, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["hs_code"] == "847330"
    assert body["computed_tpp"] == "15832.00"
    assert body["performance_density"] == "19.45"
    assert Part.objects.get(pk=body["id"]).owner.kind == "operator"


@pytest.mark.parametrize(
    "change, field",
    [
        ({"country_of_origin": "XX"}, "country_of_origin"),
        ({"hs_code": "84715"}, "hs_code"),
        ({"hs_code": "7700.00"}, "hs_code"),
        ({"currency": "ABC"}, "currency"),
        ({"unit_weight_kg": "-1"}, "unit_weight_kg"),
        ({"unit_value": "-0.01"}, "unit_value"),
        ({"manufacturer": "Nobody Inc"}, "manufacturer"),
        ({"category": "toaster"}, "category"),
        ({"dense_tops": {"7": "10"}}, "dense_tops"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_saves_nothing(coordinator, api_as, nvidia, change, field):
    response = api_as(coordinator).post("/api/v1/parts/", PART_PAYLOAD | change, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert not Part.objects.exists()


def test_duplicate_part_number_is_refused_case_insensitively(coordinator, api_as, nvidia):
    api = api_as(coordinator)
    assert api.post("/api/v1/parts/", PART_PAYLOAD, format="json").status_code == 201
    response = api.post("/api/v1/parts/", PART_PAYLOAD | {"part_number": "mqm9700-ns2f"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"part_number": ["NVIDIA already has a part numbered mqm9700-ns2f."]}
    assert Part.objects.count() == 1
    # The same number from another manufacturer is a different part.
    ManufacturerFactory(name="Mellanox")
    assert (
        api.post("/api/v1/parts/", PART_PAYLOAD | {"manufacturer": "mellanox"}, format="json").status_code
        == 201
    )


def test_partner_sees_master_catalogue_and_own_parts_only(supplier_user, forwarder, api_as, nvidia):
    master = PartFactory()
    own = PartFactory(owner=supplier_user.organisation)
    foreign = PartFactory(owner=forwarder)
    api = api_as(supplier_user)
    ids = {p["id"] for p in api.get("/api/v1/parts/").json()["results"]}
    assert ids == {master.pk, own.pk}
    assert api.get(f"/api/v1/parts/{foreign.pk}/").status_code == 404
    assert api.patch(f"/api/v1/parts/{foreign.pk}/", {"name": "x"}, format="json").status_code == 404
    # The master catalogue is read-only for partners: not found for a change.
    assert api.patch(f"/api/v1/parts/{master.pk}/", {"name": "x"}, format="json").status_code == 404
    assert api.patch(f"/api/v1/parts/{own.pk}/", {"name": "Ours"}, format="json").status_code == 200


def test_partner_creates_parts_owned_by_its_organisation(supplier_user, api_as, nvidia):
    response = api_as(supplier_user).post("/api/v1/parts/", PART_PAYLOAD, format="json")
    assert response.status_code == 201
    assert response.json()["owner"] == supplier_user.organisation_id


@pytest.mark.parametrize("role_fixture", ["compliance_officer", "warehouse_operator"])
def test_roles_without_catalogue_edit_may_read_but_not_write(request, role_fixture, api_as, nvidia):
    api = api_as(request.getfixturevalue(role_fixture))
    part = PartFactory()
    assert api.get(f"/api/v1/parts/{part.pk}/").status_code == 200
    assert api.post("/api/v1/parts/", PART_PAYLOAD, format="json").status_code == 403
    assert api.delete(f"/api/v1/parts/{part.pk}/").status_code == 403


def test_delete_by_coordinator(coordinator, api_as):
    part = PartFactory()
    assert api_as(coordinator).delete(f"/api/v1/parts/{part.pk}/").status_code == 204
    assert not Part.objects.filter(pk=part.pk).exists()


def test_deleting_a_part_that_a_system_contains_is_a_conflict(coordinator, api_as):
    gpu = PartFactory(category="accelerator")
    PartFactory(category="server", accelerator=gpu, gpus_per_server=8)
    response = api_as(coordinator).delete(f"/api/v1/parts/{gpu.pk}/")
    assert response.status_code == 409
    assert Part.objects.filter(pk=gpu.pk).exists()


def test_anonymous_is_refused(client, db):
    assert client.get("/api/v1/parts/").status_code in (401, 403)


def test_manufacturers_list(coordinator, api_as, nvidia):
    body = api_as(coordinator).get("/api/v1/manufacturers/?search=nvi").json()
    assert [m["name"] for m in body["results"]] == ["NVIDIA"]
