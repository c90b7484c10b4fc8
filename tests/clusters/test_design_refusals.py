"""A design no fabric or rack can hold is refused when it is saved (the form's and the API's 400,
naming the fields), by the same engine rule that sizes it; the parts' typed cage layout, weights
and static load reach the engine; the GPU count's suggestion never reads "use 8 or 8"."""

from __future__ import annotations

import importlib
import re
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from apps.clusters import services
from apps.clusters.models import ClusterDesign
from apps.core.models import AuditEvent

from .test_api import API, _ids
from .test_pages import form_data

pytestmark = pytest.mark.django_db


def refused_fields(operator, fields) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as refused:
        services.design_create(owner=operator, fields=fields)
    assert not ClusterDesign.objects.exists()
    return refused.value.message_dict


def test_fewer_gpus_than_one_system_suggests_one_count(operator, fields):
    errors = refused_fields(operator, fields | {"gpus": 4})
    assert errors["gpus"] == ["4 is not a multiple of 8, the GPUs of one T DGX-H100: use 8."]
    # Between two multiples both are offered.
    errors = refused_fields(operator, fields | {"gpus": 500})
    assert errors["gpus"][0].endswith("use 496 or 504.")


def test_a_design_beyond_three_tiers_is_refused_at_input(operator, fields):
    # 999,992 GPUs on 64-port switches: beyond three tiers. Refused when saved, naming the field,
    # with the engine's own words; nothing is written.
    # The storage and management networks cannot reach either: each is named on its switch.
    errors = refused_fields(operator, fields | {"gpus": 999_992})
    assert set(errors) == {"gpus", "storage_switch", "inband_switch", "oob_switch"}, errors
    assert "at most 64 pods" in errors["gpus"][0]


def test_a_change_no_tree_can_hold_is_refused_and_the_design_kept(design):
    with pytest.raises(ValidationError) as refused:
        services.design_update(design=design, fields={"gpus": 999_992})
    assert "gpus" in refused.value.message_dict
    design.refresh_from_db()
    assert design.gpus == 512
    assert AuditEvent.objects.for_object(design).count() == 1  # the create only


def test_a_twin_port_node_optic_on_single_port_cages_is_refused_naming_the_field(operator, fields, parts):
    parts["system"].ports_per_cage = 1
    parts["system"].save()
    errors = refused_fields(operator, fields)
    assert set(errors) == {"compute_node_optic"}, errors
    assert "twin-port" in errors["compute_node_optic"][0]
    assert "system.ports_per_cage" in errors["compute_node_optic"][0]


def test_a_system_that_does_not_fit_the_rack_with_its_cdus_is_refused(operator, fields, parts):
    # 8U DGX H100 with liquid heat (0.85 of it) and 4U in-rack CDUs in a 10U rack: one system and its
    # 2 CDUs need 16 U.
    parts["system"].attributes = {"cooling": "liquid"}
    parts["system"].save()
    errors = refused_fields(operator, fields | {"rack_units": 10})
    assert set(errors) == {"rack"}, errors
    assert "16 U, more than the 10 U rack" in errors["rack"][0]


def test_the_form_shows_the_engine_refusal_on_its_field(browser_as, coordinator, fields):
    response = browser_as(coordinator).post(
        reverse("clusters:design-create"), form_data(fields) | {"gpus": "999992"}
    )
    page = response.content.decode()
    assert response.status_code == 200 and not ClusterDesign.objects.exists()
    errors = dict(re.findall(r'<p class="error" id="id_(\w+)-error">([^<]+)</p>', page))
    assert "at most 64 pods" in errors["gpus"]


def test_the_api_answers_400_naming_the_field(api_as, coordinator, fields):
    answer = api_as(coordinator).post(API, _ids(fields | {"gpus": 999_992}), format="json")
    assert answer.status_code == 400
    assert "at most 64 pods" in answer.json()["gpus"][0]
    assert not ClusterDesign.objects.exists()


def test_parts_typed_figures_reach_the_engine(design, parts):
    parts["rack"].static_load_kg = Decimal("1361")
    parts["rack"].save()
    inputs = services.design_inputs(ClusterDesign.objects.get(pk=design.pk))
    assert inputs.system.ports_per_cage == 2
    assert inputs.compute.switch.ports_per_cage == 2
    assert inputs.racks.rack.static_load_kg == 1361.0
    assert inputs.facility.cdu.rack_units == 4 and inputs.facility.cdu.in_rack
    assert inputs.facility.cdu.weight_kg == float(parts["cdu"].unit_weight_kg)
    assert inputs.racks.pdu.weight_kg == float(parts["pdu"].unit_weight_kg)


def test_a_cage_layout_is_only_for_parts_with_cages(operator):
    from tests.factories import PartFactory

    optic = PartFactory.build(owner=operator, category="optical_transceiver", ports_per_cage=2)
    rack = PartFactory.build(owner=operator, category="server", static_load_kg=Decimal("1000"))
    with pytest.raises(ValidationError) as refused:
        optic.full_clean()
    assert "ports_per_cage" in refused.value.message_dict
    with pytest.raises(ValidationError) as refused:
        rack.full_clean()
    assert "static_load_kg" in refused.value.message_dict


def test_the_migration_moves_cages_and_static_load_out_of_attributes():
    migration = importlib.import_module("apps.catalog.migrations.0013_part_cage_layout_static_load")
    typed, left = migration.typed_from_attributes("server", 8, {"osfp_cages": 4, "cooling": "air"})
    assert (typed, left) == ({"ports_per_cage": 2}, {"cooling": "air"})
    typed, left = migration.typed_from_attributes("rack", None, {"static_load_kg": 1361, "brand": "APC"})
    assert (typed, left) == ({"static_load_kg": Decimal("1361.000")}, {"brand": "APC"})
    # Unreadable or uneven figures are dropped, not guessed.
    assert migration.typed_from_attributes("server", 8, {"osfp_cages": 3}) == ({}, {})
    assert migration.typed_from_attributes("rack", None, {"static_load_kg": "heavy"}) == ({}, {})
