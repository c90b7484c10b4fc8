"""Cluster designs, sizing runs and bills of materials: the models' checks and the services.

The run's bookkeeping is tested with a stand-in engine (`fake_engine`); the last tests run the
real engine on the 512-GPU seed once it is in `apps/clusters/engines/sizing/`."""

from __future__ import annotations

import importlib.util
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from apps.clusters import services
from apps.clusters.engines import types as engine
from apps.clusters.models import BillOfMaterials, BomLine, BomStatus, ClusterDesign, RunStatus, SizingRun
from apps.core.models import AuditEvent, TaskRecord
from apps.core.scoping import CHANGE
from apps.shipments.models import Site
from tests.factories import OrganisationFactory, PartFactory, UserFactory

from .conftest import result_for

HAS_ENGINE = importlib.util.find_spec("apps.clusters.engines.sizing") is not None


# --- the site's figures ----------------------------------------------------------------------------


def test_only_a_data_centre_has_power_and_cooling_for_clusters(operator):
    site = Site(owner=operator, name="Taoyuan factory", kind="factory", city="Taoyuan", country="TW")
    site.power_mw, site.cooling_liquid = Decimal("5"), True
    with pytest.raises(ValidationError) as refused:
        site.full_clean()
    assert set(refused.value.message_dict) == {"power_mw", "cooling_liquid"}
    dc = Site(
        owner=operator, name="DC", kind="data_centre", city="Chennai", country="IN", power_mw=Decimal("0")
    )
    with pytest.raises(ValidationError) as refused:
        dc.full_clean()
    assert "power_mw" in refused.value.message_dict
    dc.power_mw, dc.cooling_air, dc.cooling_immersion = Decimal("12.5"), True, True
    dc.full_clean()
    assert dc.cooling_offered == ["air", "immersion"]


# --- designs -------------------------------------------------------------------------------------


def test_a_design_is_created_with_its_defaults_and_audited(design, coordinator, operator):
    assert design.owner == operator and design.created_by == coordinator
    assert design.gpus_per_server == 8
    assert design.su_systems == 32 and design.bytes_per_param == Decimal("14")
    event = AuditEvent.objects.for_object(design).get()
    assert event.action == "create" and event.changes["gpus"] == [None, 512]


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"gpus": 500}, "gpus", "not a multiple of 8"),
        ({"gpus": 0}, "gpus", "greater than or equal to 1"),
        ({"cooling": "immersion"}, "cooling", "offers air, direct-to-chip liquid cooling"),
        ({"cdu": None}, "cdu", "needs a CDU"),
        ({"gpu_mtbf_hours": None}, "gpu_mtbf_hours", "per-GPU MTBF or"),
        ({"cluster_interruptions_per_day": Decimal("7.8")}, "cluster_interruptions_per_day", "not both"),
        ({"compute_oversubscription": Decimal("0.5")}, "compute_oversubscription", "greater than or equal"),
        ({"storage_write_gbs_per_node": Decimal("0")}, "storage_write_gbs_per_node", "greater than or equal"),
        ({"pdus_per_rack": 0}, "pdus_per_rack", "greater than or equal"),
        ({"name": "  "}, "name", "cannot be blank"),
    ],
)
def test_a_bad_input_is_refused_naming_its_field(operator, fields, change, field, words):
    with pytest.raises(ValidationError) as refused:
        services.design_create(owner=operator, fields=fields | change)
    assert field in refused.value.message_dict, refused.value.message_dict
    assert words in " ".join(refused.value.message_dict[field])
    assert not ClusterDesign.objects.exists()


def test_parts_must_be_of_their_kind_and_switches_need_a_radix(operator, fields, parts):
    no_radix = PartFactory(owner=operator, category="network_switch", port_count=None, port_speed_gbps=400)
    no_gpus = PartFactory(owner=operator, category="server", hs_code="847150", gpus_per_server=None)
    with pytest.raises(ValidationError) as refused:
        services.design_create(
            owner=operator,
            fields=fields
            | {
                "compute_switch": no_radix,
                "system": no_gpus,
                "storage_switch": parts["fibre"],
                "rack": parts["pdu"],
            },
        )
    errors = refused.value.message_dict
    assert "has no radix" in errors["compute_switch"][0]
    assert "no GPUs per server" in errors["system"][0]
    assert "not a Network switch" in errors["storage_switch"][0]
    assert "not a Rack" in errors["rack"][0]


def test_a_design_stands_in_a_data_centre(operator, fields):
    factory = Site.objects.create(
        owner=operator, name="Factory", kind="factory", city="Taoyuan", country="TW"
    )
    with pytest.raises(ValidationError) as refused:
        services.design_create(owner=operator, fields=fields | {"site": factory})
    assert "not a data centre" in refused.value.message_dict["site"][0]


def test_update_changes_inputs_only(design):
    services.design_update(design=design, fields={"gpus": 1024})
    design.refresh_from_db()
    assert design.gpus == 1024
    with pytest.raises(ValidationError) as refused:
        services.design_update(design=design, fields={"owner": None})
    assert "owner" in refused.value.message_dict


def test_scoping_owner_changes_customer_reads_others_see_nothing(design, customer):
    customer_user = UserFactory(organisation=customer, role="partner", username="cust")
    stranger = UserFactory(organisation=OrganisationFactory(), role="partner", username="stranger")
    assert list(ClusterDesign.objects.visible_to(customer_user)) == [design]
    assert not ClusterDesign.objects.visible_to(customer_user, CHANGE).exists()
    assert not ClusterDesign.objects.visible_to(stranger).exists()


# --- engine inputs -------------------------------------------------------------------------------


def test_design_inputs_read_the_parts_figures(design, parts):
    inputs = services.design_inputs(design)
    assert inputs.gpus == 512
    system = inputs.system
    assert (system.gpus, system.power_w, system.rack_units, system.rack_scale) == (8, 10200, 8, False)
    assert system.compute_ports is None  # one NIC per GPU: the design's 400 Gb/s decides
    assert system.liquid_fraction == 0.0  # an air-cooled server
    switch = inputs.compute.switch
    assert (switch.ports, switch.port_gbps, switch.power_w, switch.ports_per_cage) == (64, 400, 1720, 2)
    assert inputs.compute.node_optic.links == 2 and inputs.compute.node_optic.power_w == 15
    assert inputs.compute.cable.optical is True
    assert inputs.compute.kind is engine.FabricKind.INFINIBAND
    appliance = inputs.storage.appliance
    assert (appliance.capacity_tb, appliance.read_gbs, appliance.write_gbs) == (500, 90, 65)
    assert inputs.storage.fabric.oversubscription == 1.33
    assert inputs.racks.rack.rack_units == 48 and inputs.racks.pdu.kw == 34.6
    assert inputs.facility.cdu.kw == 100 and inputs.facility.site_power_mw == 12.0
    assert inputs.facility.cooling is engine.Cooling.LIQUID
    assert inputs.training.chosen_interval_minutes == 30.0 and inputs.training.gpu_mtbf_hours == 50000.0
    assert system.key == str(parts["system"].pk)
    snapshot = services.inputs_snapshot(inputs)
    assert snapshot["compute"]["kind"] == "infiniband" and snapshot["system"]["power_w"] == 10200


def test_a_system_with_its_own_ports_keeps_them(operator, fields, parts):
    # Copper to its 12 single-port cages (the seed's twin-port module would not fit them).
    copper = {"compute_node_optic": None, "compute_switch_optic": None, "compute_cable": None}
    cs3 = services.design_create(
        owner=operator, fields=fields | copper | {"system": parts["cs3"], "gpus": 64, "name": "CS-3"}
    )
    system = services.design_inputs(cs3).system
    assert (system.gpus, system.compute_ports, system.compute_port_gbps) == (1, 12, 100)


def test_a_part_missing_a_figure_is_refused_naming_the_design_field(design, parts):
    parts["storage"].attributes = {"capacity_tb": 500}
    parts["storage"].save()
    parts["pdu"].attributes = {}
    parts["pdu"].save()
    with pytest.raises(ValidationError) as refused:
        services.design_inputs(ClusterDesign.objects.get(pk=design.pk))
    errors = refused.value.message_dict
    assert set(errors) == {"storage_appliance", "pdu"}
    assert (
        "read bandwidth" in errors["storage_appliance"][0]
        and "write bandwidth" in errors["storage_appliance"][0]
    )
    assert "capacity_kw" in errors["pdu"][0]


def test_engine_input_paths_map_to_design_fields():
    mapped = services.errors_by_field(
        {
            "compute.switch.ports": "no radix",
            "compute.switch_optic.links": "no links",
            "storage.fabric.switch.ports": "no radix",
            "training.chosen_interval_minutes": "must be positive",
            "facility.site_power_mw": "exceeded",
            "storage.write_gbs_per_node": "zero",
            "gpus": "too many for a 3-tier fabric",
            "something.new": "?",
        }
    )
    assert mapped["compute_switch"] == "no radix (compute.switch.ports)"
    assert mapped["compute_switch_optic"].startswith("no links")
    assert mapped["storage_switch"].startswith("no radix")
    assert mapped["checkpoint_interval_minutes"].startswith("must be positive")
    assert mapped["site"].startswith("exceeded")
    assert mapped["storage_write_gbs_per_node"].startswith("zero")
    assert mapped["gpus"].startswith("too many")
    assert mapped["non_field_errors"] == "? (something.new)"


# --- sizing runs ---------------------------------------------------------------------------------


def test_starting_a_run_queues_a_task_with_progress(design, coordinator, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = services.sizing_run_start(design=design, actor=coordinator)
    assert run.number == 1 and run.status == RunStatus.QUEUED
    record = TaskRecord.objects.get(task_id=run.task_id)
    assert record.task_name == "clusters.run_sizing" and record.kwargs == {"run_id": run.pk}
    assert len(callbacks) == 1
    assert services.sizing_run_start(design=design, actor=coordinator).number == 2


def test_a_run_stores_the_engine_version_inputs_and_result(design, coordinator, fake_engine):
    fake_engine(lambda inputs: result_for(design))
    steps = []
    run = services.sizing_run_create(design=design, actor=coordinator)
    run = services.sizing_run_execute(run=run, progress=lambda percent, step: steps.append(percent))
    assert run.status == RunStatus.SUCCEEDED and run.errors == {}
    assert run.engine_version == "1.0.0"
    assert run.inputs["gpus"] == 512 and run.inputs["compute"]["switch"]["ports"] == 64
    assert engine.SizingResult.from_dict(run.result).switches_by_tier["compute leaf"] == 16
    assert steps[0] < steps[-1] == 100
    moves = [e.changes["status"] for e in AuditEvent.objects.for_object(run).filter(action="transition")]
    assert moves == [["running", "succeeded"], ["queued", "running"]]  # newest first
    # Idempotent: a finished run is left as it is.
    fake_engine(lambda inputs: pytest.fail("sized twice"))
    assert services.sizing_run_execute(run=run).status == RunStatus.SUCCEEDED


def test_a_refused_input_fails_the_run_naming_design_fields(design, fake_engine):
    def refuse(inputs):
        raise engine.SizingInputError({"compute.switch.ports": "A 64-port switch cannot reach 200,000 GPUs"})

    fake_engine(refuse)
    run = services.sizing_run_now(design=design)
    assert run.status == RunStatus.FAILED
    assert run.errors == {
        "compute_switch": "A 64-port switch cannot reach 200,000 GPUs (compute.switch.ports)"
    }
    assert run.inputs["gpus"] == 512 and run.result is None and run.engine_version == engine.ENGINE_VERSION


def test_a_part_missing_a_figure_fails_the_run_before_the_engine(design, parts, fake_engine):
    fake_engine(lambda inputs: pytest.fail("the engine was called"))
    parts["cdu"].attributes = {}
    parts["cdu"].save()
    run = services.sizing_run_now(design=design)
    assert run.status == RunStatus.FAILED and set(run.errors) == {"cdu"}


def test_an_engine_crash_fails_the_run_instead_of_leaving_it_running(design, fake_engine):
    fake_engine(lambda inputs: 1 / 0)
    run = services.sizing_run_now(design=design)
    assert run.status == RunStatus.FAILED and "ZeroDivisionError" in run.errors["non_field_errors"]


def test_two_runs_compare(design, fake_engine, parts):
    fake_engine(lambda inputs: result_for(design, leaves=8, racks=6))
    first = services.sizing_run_now(design=design)
    fake_engine(lambda inputs: result_for(design, leaves=16, racks=11))
    second = services.sizing_run_now(design=design)
    answer = services.runs_compare(first, second)
    assert answer["switches_by_tier"]["compute leaf"] == {"a": 8, "b": 16, "change": 8}
    assert answer["racks"] == {"a": 6, "b": 11, "change": 5}
    assert answer["it_kw"]["change"] == pytest.approx(8 * 1.72)
    # 8 more leaves at 25,000 USD (the factory's unit value) each.
    assert Decimal(answer["bom_cost"]["USD"]["change"]) == 8 * parts["switch"].unit_value
    refused = services.sizing_run_create(design=design)
    with pytest.raises(ValidationError) as no_result:
        services.runs_compare(first, refused)
    assert "run" in no_result.value.message_dict


# --- bills of materials --------------------------------------------------------------------------


@pytest.fixture
def sized(design, fake_engine):
    fake_engine(lambda inputs: result_for(design))
    return services.sizing_run_now(design=design)


def test_a_bom_is_made_from_a_run(sized, design, parts, coordinator):
    bom = services.bom_from_run(run=sized, actor=coordinator)
    assert (bom.version, bom.status, bom.run) == (1, BomStatus.DRAFT, sized)
    lines = {(line.role, line.part_id): line for line in bom.lines.all()}
    # One line per role and part; the CDU the engine needed none of is left out.
    assert set(lines) == {
        ("system", parts["system"].pk),
        ("compute_leaf", parts["switch"].pk),
        ("storage_leaf", parts["switch"].pk),
    }
    leaf = lines[("compute_leaf", parts["switch"].pk)]
    assert (leaf.quantity, leaf.engine_quantity, leaf.figure) == (16, 16, "fabric.compute.leaves")
    assert services.bom_from_run(run=sized, actor=coordinator).version == 2


def test_a_failed_run_makes_no_bom(design, fake_engine):
    fake_engine(lambda inputs: (_ for _ in ()).throw(engine.SizingInputError({"gpus": "too many"})))
    run = services.sizing_run_now(design=design)
    with pytest.raises(ValidationError) as refused:
        services.bom_from_run(run=run)
    assert "run" in refused.value.message_dict
    assert not BillOfMaterials.objects.exists()


def test_a_bom_naming_a_part_that_is_gone_is_refused_whole(sized):
    result = dict(sized.result)
    result["bom"] = [*result["bom"], {"role": "rack", "part_key": "999999", "quantity": 3, "figure": "racks"}]
    SizingRun.objects.filter(pk=sized.pk).update(result=result)
    with pytest.raises(ValidationError) as refused:
        services.bom_from_run(run=SizingRun.objects.get(pk=sized.pk))
    assert "999999" in refused.value.message_dict["run"][0]
    assert not BillOfMaterials.objects.exists() and not BomLine.objects.exists()


def test_line_quantities_are_edited_with_a_note_and_audited_until_issued(sized, coordinator):
    bom = services.bom_from_run(run=sized, actor=coordinator)
    line = bom.lines.get(role="compute_leaf")
    with pytest.raises(ValidationError) as refused:
        services.bom_line_update(line=line, quantity=18, actor=coordinator)
    assert "note" in refused.value.message_dict
    line = services.bom_line_update(line=line, quantity=18, actor=coordinator, note="Two spares")
    assert (line.quantity, line.engine_quantity, line.note) == (18, 16, "Two spares")
    event = AuditEvent.objects.for_object(line).filter(action="update").get()
    assert event.changes["quantity"] == [16, 18]
    with pytest.raises(ValidationError):
        services.bom_line_update(line=line, quantity=-1, actor=coordinator)
    issued = services.bom_issue(bom=bom, actor=coordinator)
    assert issued.status == BomStatus.ISSUED and issued.issued_at is not None
    with pytest.raises(ValidationError) as fixed:
        services.bom_line_update(line=line, quantity=20, actor=coordinator, note="more")
    assert "issued" in fixed.value.message_dict["quantity"][0]
    assert BomLine.objects.get(pk=line.pk).quantity == 18
    with pytest.raises(ValidationError):
        services.bom_issue(bom=bom, actor=coordinator)


def test_a_design_with_an_issued_bom_is_not_deleted(sized, design, coordinator):
    bom = services.bom_from_run(run=sized, actor=coordinator)
    services.bom_issue(bom=bom, actor=coordinator)
    with pytest.raises(ValidationError):
        services.design_delete(design=design)
    BillOfMaterials.objects.filter(pk=bom.pk).update(status="draft")
    services.design_delete(design=design)
    assert not ClusterDesign.objects.exists() and not SizingRun.objects.exists()


def test_csv_rows(sized, coordinator, parts):
    bom = services.bom_from_run(run=sized, actor=coordinator)
    rows = services.bom_csv_rows(bom)
    assert rows[0][:5] == ["role", "manufacturer", "part_number", "name", "quantity"]
    system = next(row for row in rows if row[0] == "system")
    assert system[2] == parts["system"].part_number and system[4] == 64
    assert system[8] == 64 * parts["system"].unit_value


# --- the real engine -----------------------------------------------------------------------------


@pytest.mark.skipif(not HAS_ENGINE, reason="the sizing engine (engines/sizing/) is not in yet")
def test_the_seed_cluster_is_sized_by_the_engine_into_a_bom(design, coordinator):
    run = services.sizing_run_now(design=design, actor=coordinator)
    assert run.status == RunStatus.SUCCEEDED, run.errors
    result = engine.SizingResult.from_dict(run.result)
    assert result.engine_version == run.engine_version
    bom = services.bom_from_run(run=run, actor=coordinator)
    systems = bom.lines.get(role="system")
    assert systems.quantity == 64 and systems.part_id == design.system_id
    assert bom.lines.filter(role="compute_leaf").exists()


@pytest.mark.skipif(not HAS_ENGINE, reason="the sizing engine (engines/sizing/) is not in yet")
def test_the_engine_refuses_a_design_its_changed_parts_no_longer_reach(design, parts):
    # Saved when it could be sized (a design too large for three tiers is refused when saved:
    # test_design_refusals.py); its switch part then loses ports: the run refuses, naming fields.
    parts["switch"].port_count = 8
    parts["switch"].save()
    run = services.sizing_run_now(design=design)
    assert run.status == RunStatus.FAILED
    assert set(run.errors) & {"gpus", "compute_switch", "compute_topology"}, run.errors


def test_the_site_form_takes_a_data_centres_power_and_cooling(coordinator):
    from apps.shipments.forms import SiteForm

    data = {"name": "Hall B", "kind": "data_centre", "city": "Chennai", "country": "IN", "power_mw": "8.5"}
    form = SiteForm(data=data | {"cooling_liquid": "on"}, user=coordinator)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["power_mw"] == Decimal("8.5") and form.cleaned_data["cooling_liquid"] is True
    factory = SiteForm(data=data | {"kind": "factory"}, user=coordinator)
    assert not factory.is_valid() and "power_mw" in factory.errors
