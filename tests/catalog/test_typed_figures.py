"""The figures classification turns on are typed, validated fields, not keys in `attributes`."""

import importlib
from decimal import Decimal

import pytest
from django.apps import apps as live_apps
from django.db import IntegrityError, transaction

from apps.catalog import demo
from apps.catalog.models import RESERVED_ATTRIBUTES, Part
from apps.compliance import services as compliance_services
from tests.factories import ManufacturerFactory, OperatorFactory, PartFactory

from ..core.test_audit import PART_PAYLOAD

FIGURES = ("data_centre", "encryption", "mass_market", "memory_bandwidth_density", "cpu_only")


@pytest.fixture
def nvidia(db):
    return ManufacturerFactory(name="NVIDIA")


def test_figures_are_editable_fields_with_help_text():
    for name in FIGURES:
        assert name in Part.EDITABLE_FIELDS
        assert Part._meta.get_field(name).help_text
    assert set(FIGURES) <= set(RESERVED_ATTRIBUTES)


def test_the_api_takes_and_shows_typed_figures(coordinator, api_as, nvidia):
    payload = PART_PAYLOAD | {"encryption": True, "mass_market": True, "data_centre": "false"}
    response = api_as(coordinator).post("/api/v1/parts/", payload, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["encryption"], body["mass_market"], body["data_centre"], body["cpu_only"]) == (
        True, True, False, None,
    )  # fmt: skip
    assert body["memory_bandwidth_density"] is None
    part = Part.objects.get(pk=body["id"])
    assert compliance_services.part_classify(part=part).eccn == "5A992.c"


@pytest.mark.parametrize(
    "change, field",
    [
        ({"data_centre": "maybe"}, "data_centre"),
        ({"encryption": "sometimes"}, "encryption"),
        ({"memory_bandwidth_density": "-1"}, "memory_bandwidth_density"),
        ({"memory_bandwidth_density": "fast"}, "memory_bandwidth_density"),
        ({"die_area_mm2": "0"}, "die_area_mm2"),
        ({"die_area_mm2": "-814"}, "die_area_mm2"),
        ({"attributes": {"data_centre": "false"}}, "attributes"),
        ({"attributes": {"memory_bandwidth_density": 3}}, "attributes"),
        ({"attributes": ["not", "an", "object"]}, "attributes"),
        ({"cpu_only": True}, "cpu_only"),  # a switch is not a server
    ],
)
def test_bad_figures_are_a_400_naming_the_field(coordinator, api_as, nvidia, change, field):
    response = api_as(coordinator).post("/api/v1/parts/", PART_PAYLOAD | change, format="json")
    assert response.status_code == 400, response.json()
    assert list(response.json()) == [field]
    assert not Part.objects.exists()


@pytest.mark.parametrize(
    "key", ["data_centre", "encryption", "mass_market", "memory_bandwidth_density", "cpu_only"]
)
def test_a_reserved_attribute_names_the_field_to_use(coordinator, api_as, nvidia, key):
    response = api_as(coordinator).post(
        "/api/v1/parts/", PART_PAYLOAD | {"attributes": {key: "true", "memory_gb": 80}}, format="json"
    )
    assert response.status_code == 400
    (message,) = response.json()["attributes"]
    assert f"“{key}”" in message and f"{key} field" in message


def test_cpu_only_contradicting_an_accelerator_is_refused(coordinator, api_as, nvidia):
    gpu = PartFactory(category="accelerator", hs_code="847330", tpp=Decimal(5000))
    payload = PART_PAYLOAD | {"category": "server", "hs_code": "847150", "cpu_only": True}
    api = api_as(coordinator)
    for extra in ({"accelerator": gpu.pk}, {"gpus_per_server": 8}):
        response = api.post("/api/v1/parts/", payload | extra, format="json")
        assert response.status_code == 400 and list(response.json()) == ["cpu_only"], response.json()
    assert api.post("/api/v1/parts/", payload, format="json").status_code == 201


def test_a_die_area_of_zero_is_refused_by_the_database_too(db):
    gpu = PartFactory(category="accelerator", hs_code="847330", die_area_mm2=Decimal(814))
    with pytest.raises(IntegrityError), transaction.atomic():
        Part.objects.filter(pk=gpu.pk).update(die_area_mm2=Decimal(0))
    with pytest.raises(IntegrityError), transaction.atomic():
        Part.objects.filter(pk=gpu.pk).update(memory_bandwidth_density=Decimal(-1))


def test_the_part_form_carries_the_figures_and_refuses_a_zero_die_area(coordinator, browser_as, nvidia):
    client = browser_as(coordinator)
    page = client.get("/parts/new/").content.decode()
    for name in FIGURES:
        assert f'name="{name}"' in page, name
    assert "designed or marketed for data centres" in page.lower()
    data = {
        **PART_PAYLOAD,
        "manufacturer": nvidia.pk,
        "category": "accelerator",
        "hs_code": "847330",
        "die_area_mm2": "0",
        "data_centre": "true",
        "dense_tops": "{}",
        "attributes": '{"encryption": "no"}',
        "is_active": "on",
    }
    response = client.post("/parts/new/", data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert {"die_area_mm2", "attributes"} <= set(errors), errors
    assert not Part.objects.exists()
    response = client.post("/parts/new/", data | {"die_area_mm2": "814", "attributes": "{}"})
    assert response.status_code == 302, response.context["form"].errors
    assert Part.objects.get().data_centre is True


def test_the_detail_page_shows_the_figures(coordinator, browser_as):
    switch = PartFactory(encryption=True, mass_market=False)
    server = PartFactory(category="server", hs_code="847150", cpu_only=True, data_centre=True)
    client = browser_as(coordinator)
    page = client.get(f"/parts/{switch.pk}/").content.decode()
    assert "Encryption" in page and "Mass market" in page
    page = client.get(f"/parts/{server.pk}/").content.decode()
    assert "CPU-only" in page and "Designed or marketed for data centres" in page


# --- the data migration ------------------------------------------------------------------------------

move = importlib.import_module("apps.catalog.migrations.0003_move_classification_figures")


@pytest.mark.parametrize(
    "attributes, typed, left",
    [
        ({"data_centre": "false", "memory_gb": 80}, {"data_centre": False}, {"memory_gb": 80}),
        ({"encryption": "Yes", "mass_market": "no"}, {"encryption": True, "mass_market": False}, {}),
        ({"encryption": 1, "mass_market": 0}, {"encryption": True, "mass_market": False}, {}),
        ({"encryption": "1", "cpu_only": " TRUE "}, {"encryption": True, "cpu_only": True}, {}),
        ({"encryption": True, "mass_market": False}, {"encryption": True, "mass_market": False}, {}),
        ({"data_centre": "probably", "encryption": None}, {}, {}),  # garbage is dropped
        ({"memory_bandwidth_density": "3.3"}, {"memory_bandwidth_density": Decimal("3.3")}, {}),
        ({"memory_bandwidth_density": 2.5}, {"memory_bandwidth_density": Decimal("2.5")}, {}),
        ({"memory_bandwidth_density": "-2"}, {}, {}),
        ({"memory_bandwidth_density": "NaN"}, {}, {}),
        ({"memory_bandwidth_density": "1e30"}, {}, {}),
        ({"memory_bandwidth_density": [3]}, {}, {}),
        ({"encryption": [True]}, {}, {}),
        ({}, {}, {}),
    ],
)
def test_split_attributes(attributes, typed, left):
    assert move.split_attributes(attributes) == (typed, left)


def test_the_migration_moves_figures_out_of_attributes(db):
    part = PartFactory(category="server", hs_code="847150")
    Part.objects.filter(pk=part.pk).update(
        attributes={"data_centre": "true", "encryption": "garbage", "cpu_only": "no", "memory_gb": 2048},
    )
    move.move_figures(live_apps, None)
    part.refresh_from_db()
    assert (part.data_centre, part.encryption, part.cpu_only) == (True, None, False)
    assert part.attributes == {"memory_gb": 2048}
    move.move_figures(live_apps, None)  # running it again changes nothing
    part.refresh_from_db()
    assert part.attributes == {"memory_gb": 2048} and part.data_centre is True


# --- the demo catalogue ------------------------------------------------------------------------------


def test_the_demo_catalogue_uses_the_typed_fields(db):
    OperatorFactory()
    demo.load()
    assert not [p.part_number for p in Part.objects.all() if set(p.attributes) & set(RESERVED_ATTRIBUTES)]
    eccns = {p.name: compliance_services.part_classify(part=p) for p in Part.objects.all()}
    assert eccns["NVIDIA DGX B200"].eccn == "4A090.a"
    assert eccns["NVIDIA Quantum-2 QM9700"].eccn == "5A992.c"
    assert eccns["NVIDIA ConnectX-7 400G single-port OSFP"].eccn == "5A991"
    assert eccns["NVIDIA H100 SXM5 80GB"].figures_used["data_centre"] == "yes"
    assert all(
        c.is_complete for c in eccns.values() if Part.objects.get(name=c.part.name).category != "other"
    )
