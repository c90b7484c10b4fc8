"""Cluster designs and their sizing runs: every write goes through here, and so does comparing
two runs. The bills of materials made from a run are in `boms.py`.

`design_inputs` adapts a design and its catalogue parts to the pure engine's `DesignInputs`
(`engines/types.py`). The part figures it reads are the typed fields of `catalog.Part` —
`power_draw_w`, `rack_units`, `port_count`, `port_speed_gbps`, `gpus_per_server`,
`unit_weight_kg`, `ports_per_cage` (the system's compute NIC cages; a switch's, absent: one port per
cage), `static_load_kg` (the rack's) — and these keys of `Part.attributes`:

- system: `rack_scale` (bool: one system is a whole rack, as a GB200 NVL72; absent: rack units
  ≥ 42), `liquid_fraction` (0–1, the share of its heat removed by liquid; absent: 0.85 [E] when
  its `cooling` starts with "liquid", else 0), `storage_ports`, `inband_ports`, `oob_ports`
  (absent: 2, 1, 1). Its own compute ports (`port_count` × `port_speed_gbps`) count only when
  they are not one per GPU (a CS-3's 12 × 100 GbE); one per GPU follows the design's bandwidth.
- CDU: its `rack_units` make it an in-rack CDU (it takes units in the rack it cools); none, an
  in-row CDU standing in the row.
- transceiver: `port_count` is its links per module (2 for twin-port; absent: 1).
- cable: `optical` (bool: a passive fibre that needs a transceiver at each end; absent: true when
  it has a `fibre` attribute and draws no power — an AOC or a DAC needs none).
- storage appliance: `capacity_tb`, `read_gbps` and `write_gbps` (GB/s, as the demo catalogue
  names them; `read_gbs` / `write_gbs` are read first), `storage_ports` (absent: `port_count`).
- PDU and CDU: `capacity_kw`.

A part missing a figure the engine needs is refused with a message naming the design field that
chose it, never given a silent default.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import OperationalError, transaction
from django.db.models import Max
from django.utils import timezone

from apps.catalog.models import Part
from apps.core.audit import record_transition
from apps.core.scoping import VIEW
from apps.core.tasks_outbox import enqueue_on_commit

from ..engines import design_templates
from ..engines import types as engine
from ..models import PART_FIELDS, BomStatus, ClusterDesign, RunStatus, SizingRun

logger = logging.getLogger(__name__)

Progress = Callable[[int, str], None]

# The Celery task that sizes a run (`tasks.run_sizing`), by its registered name.
SIZING_TASK = "clusters.run_sizing"

# --- designs -------------------------------------------------------------------------------------


@transaction.atomic
def design_create(*, owner, fields: dict[str, Any], actor=None) -> ClusterDesign:
    """A new design kept by `owner` (the planner's organisation). Refused, naming each field, when
    an input fails the checks that can be made before sizing (`ClusterDesign.clean`)."""
    design = ClusterDesign(owner=owner, created_by=actor if getattr(actor, "pk", None) else None)
    return _design_save(design, fields)


@transaction.atomic
def design_update(*, design: ClusterDesign, fields: dict[str, Any], actor=None) -> ClusterDesign:
    """Change a design's inputs (its runs and bills of materials keep what they were made from)."""
    design = ClusterDesign.objects.select_for_update().get(pk=design.pk)
    return _design_save(design, fields)


def _design_save(design: ClusterDesign, fields: dict[str, Any]) -> ClusterDesign:
    unknown = set(fields) - set(ClusterDesign.INPUT_FIELDS)
    if unknown:
        raise ValidationError({name: "Not an input of a cluster design." for name in sorted(unknown)})
    for name, value in fields.items():
        setattr(design, name, value)
    design.full_clean()
    design_refusals(design)
    design.save()
    return design


def design_copy_values(design: ClusterDesign) -> dict[str, Any]:
    """Every input of `design` as a form or the API takes them (related objects by id), its name
    marked as a copy: what a copy starts from."""
    values: dict[str, Any] = {}
    for name in ClusterDesign.INPUT_FIELDS:
        field = ClusterDesign._meta.get_field(name)
        values[name] = getattr(design, field.attname)
    values["name"] = f"Copy of {design.name}"[:200]
    return values


def design_template_values(key: str, user) -> tuple[dict[str, Any], list[str]]:
    """A design template's inputs (`engines.design_templates`) with each part it names found, by
    part number, among the active parts of that field's categories the user sees (one query); and
    the part numbers the catalogue has none of (those fields stay empty). Never a customer or a
    site: those are chosen."""
    template = design_templates.BY_KEY[key]
    values: dict[str, Any] = dict(template.values)
    found = list(
        Part.objects.visible_to(user, VIEW)
        .filter(is_active=True, part_number__in=set(template.parts.values()))
        .order_by("pk")
        .values_list("pk", "part_number", "category")
    )
    missing = []
    for name, number in template.parts.items():
        pks = [
            pk
            for pk, part_number, category in found
            if part_number == number and category in PART_FIELDS[name]
        ]
        if pks:
            values[name] = pks[0]
        else:
            missing.append(number)
    return values, sorted(set(missing))


def design_refusals(design: ClusterDesign) -> None:
    """Refuse, naming the design fields, a design the sizing engine would refuse: one no fabric
    tree or rack can hold, a node transceiver its system's cages cannot take. The engine's own
    rule, run as it would run (closed form: milliseconds), so a saved design is one a run sizes.
    A part missing a figure is left to the run, which names it: the catalogue can be completed
    without changing the design."""
    try:
        inputs = design_inputs(design)
    except ValidationError:
        return
    from ..engines import sizing

    try:
        sizing.size(inputs)
    except engine.SizingInputError as exc:
        raise ValidationError(errors_by_field(exc.errors)) from exc


@transaction.atomic
def design_delete(*, design: ClusterDesign, actor=None) -> None:
    """Delete a design with its runs and draft bills of materials; one with an issued bill of
    materials stays (it is what was ordered against)."""
    design = ClusterDesign.objects.select_for_update().get(pk=design.pk)
    issued = design.boms.filter(status=BomStatus.ISSUED).order_by("version").first()
    if issued is not None:
        raise ValidationError(
            {"non_field_errors": f"{design} has an issued bill of materials (v{issued.version}): keep it."}
        )
    design.delete()


# --- parts → engine specs ------------------------------------------------------------------------


def _float(value) -> float | None:
    return float(value) if value is not None else None


def _attr_number(part: Part, *keys: str) -> float | None:
    attributes = part.attributes if isinstance(part.attributes, dict) else {}
    for key in keys:
        value = attributes.get(key)
        if isinstance(value, bool):
            continue
        try:
            number = float(value) if value is not None and value != "" else None
        except (TypeError, ValueError):
            number = None
        if number is not None:
            return number
    return None


class _Missing:
    """Collects every figure missing from the design's parts, by design field."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def need(self, field: str, part: Part, value, what: str):
        if value is None or value == 0:
            self.errors.setdefault(field, []).append(
                f"{part} has no {what} in the catalogue: add it to the part."
            )
        return value


def _system(part: Part, missing: _Missing) -> engine.SystemSpec | None:
    gpus = missing.need("system", part, part.gpus_per_server, "GPUs per server")
    power = missing.need("system", part, part.power_draw_w, "power draw (W)")
    units = missing.need("system", part, part.rack_units, "rack units")
    if not (gpus and power and units):
        return None
    attributes = part.attributes if isinstance(part.attributes, dict) else {}
    rack_scale = attributes.get("rack_scale")
    if not isinstance(rack_scale, bool):
        rack_scale = units >= 42
    liquid = _attr_number(part, "liquid_fraction")
    if liquid is None:
        liquid = 0.85 if str(attributes.get("cooling", "")).lower().startswith("liquid") else 0.0
    # One NIC per GPU (a DGX H100's 8 × 400 Gb/s): the design's bandwidth per GPU decides. Other
    # systems carry their own endpoints (a CS-3: 12 × 100 GbE).
    own_ports = part.port_count and part.port_count != gpus and part.port_speed_gbps
    return engine.SystemSpec(
        key=str(part.pk),
        name=part.name,
        gpus=gpus,
        power_w=power,
        rack_units=units,
        rack_scale=rack_scale,
        compute_ports=part.port_count if own_ports else None,
        compute_port_gbps=part.port_speed_gbps if own_ports else None,
        storage_ports=int(_attr_number(part, "storage_ports") or 2),
        inband_ports=int(_attr_number(part, "inband_ports") or 1),
        oob_ports=int(_attr_number(part, "oob_ports") or 1),
        liquid_fraction=max(0.0, min(1.0, liquid)),
        weight_kg=float(part.unit_weight_kg or 0),
        ports_per_cage=part.ports_per_cage,
    )


def _switch(field: str, part: Part, missing: _Missing) -> engine.SwitchSpec | None:
    ports = missing.need(field, part, part.port_count, "radix (port count)")
    speed = missing.need(field, part, part.port_speed_gbps, "port speed (Gb/s)")
    power = missing.need(field, part, part.power_draw_w, "power draw (W)")
    if not (ports and speed and power):
        return None
    return engine.SwitchSpec(
        key=str(part.pk),
        name=part.name,
        ports=ports,
        port_gbps=speed,
        power_w=power,
        rack_units=part.rack_units or 1,
        ports_per_cage=part.ports_per_cage or 1,
        weight_kg=float(part.unit_weight_kg or 0),
    )


def _optic(part: Part | None) -> engine.OpticSpec | None:
    if part is None:
        return None
    return engine.OpticSpec(
        key=str(part.pk), name=part.name, links=part.port_count or 1, power_w=float(part.power_draw_w or 0)
    )


def _cable(part: Part | None) -> engine.CableSpec | None:
    if part is None:
        return None
    attributes = part.attributes if isinstance(part.attributes, dict) else {}
    optical = attributes.get("optical")
    if not isinstance(optical, bool):
        optical = "fibre" in attributes and not part.power_draw_w
    return engine.CableSpec(
        key=str(part.pk), name=part.name, optical=optical, power_w_per_end=float(part.power_draw_w or 0)
    )


def _storage(part: Part, missing: _Missing) -> engine.StorageSpec | None:
    capacity = missing.need("storage_appliance", part, _attr_number(part, "capacity_tb"), "capacity_tb")
    read = missing.need(
        "storage_appliance",
        part,
        _attr_number(part, "read_gbs", "read_gbps"),
        "read bandwidth (read_gbps, GB/s)",
    )
    write = missing.need(
        "storage_appliance",
        part,
        _attr_number(part, "write_gbs", "write_gbps"),
        "write bandwidth (write_gbps, GB/s)",
    )
    power = missing.need("storage_appliance", part, part.power_draw_w, "power draw (W)")
    units = missing.need("storage_appliance", part, part.rack_units, "rack units")
    if not (capacity and read and write and power and units):
        return None
    return engine.StorageSpec(
        key=str(part.pk),
        name=part.name,
        capacity_tb=capacity,
        read_gbs=read,
        write_gbs=write,
        power_w=power,
        rack_units=units,
        ports=int(_attr_number(part, "storage_ports") or part.port_count or 2),
        weight_kg=float(part.unit_weight_kg or 0),
    )


def design_inputs(design: ClusterDesign) -> engine.DesignInputs:
    """The engine's inputs for `design`, its parts read from the catalogue. Raises ValidationError
    naming every design field whose part lacks a figure (all at once)."""
    missing = _Missing()
    system = _system(design.system, missing)
    compute_switch = _switch("compute_switch", design.compute_switch, missing)
    storage_switch = _switch("storage_switch", design.storage_switch, missing)
    inband = _switch("inband_switch", design.inband_switch, missing)
    oob = _switch("oob_switch", design.oob_switch, missing)
    appliance = _storage(design.storage_appliance, missing)
    rack_units = missing.need("rack", design.rack, design.rack_units or design.rack.rack_units, "rack units")
    pdu_kw = missing.need("pdu", design.pdu, _attr_number(design.pdu, "capacity_kw"), "capacity_kw")
    cdu = None
    if design.cdu_id:
        cdu_kw = missing.need("cdu", design.cdu, _attr_number(design.cdu, "capacity_kw"), "capacity_kw")
        if cdu_kw:
            cdu = engine.CduSpec(
                key=str(design.cdu_id),
                name=design.cdu.name,
                kw=cdu_kw,
                rack_units=design.cdu.rack_units or 0,
                weight_kg=float(design.cdu.unit_weight_kg or 0),
            )
    if missing.errors:
        raise ValidationError({field: " ".join(messages) for field, messages in missing.errors.items()})
    site_power = design.site.power_mw
    return engine.DesignInputs(
        system=system,
        gpus=design.gpus,
        compute=engine.FabricInputs(
            kind=engine.FabricKind(design.compute_fabric),
            switch=compute_switch,
            bandwidth_per_gpu_gbps=design.compute_bandwidth_gbps,
            topology=engine.Topology(design.compute_topology),
            oversubscription=float(design.compute_oversubscription),
            su_systems=design.su_systems,
            node_optic=_optic(design.compute_node_optic),
            switch_optic=_optic(design.compute_switch_optic),
            cable=_cable(design.compute_cable),
        ),
        storage=engine.StorageInputs(
            appliance=appliance,
            usable_capacity_tb=float(design.storage_capacity_tb),
            read_gbs_per_node=float(design.storage_read_gbs_per_node),
            write_gbs_per_node=float(design.storage_write_gbs_per_node),
            fabric=engine.FabricInputs(
                kind=engine.FabricKind(design.storage_fabric),
                switch=storage_switch,
                oversubscription=float(design.storage_oversubscription),
                node_optic=_optic(design.storage_node_optic),
                switch_optic=_optic(design.storage_switch_optic),
                cable=_cable(design.storage_cable),
            ),
        ),
        management=engine.ManagementInputs(
            inband_switch=inband,
            oob_switch=oob,
            inband_cable=_cable(design.inband_cable),
            oob_cable=_cable(design.oob_cable),
        ),
        racks=engine.RackInputs(
            rack=engine.RackSpec(
                key=str(design.rack_id),
                name=design.rack.name,
                rack_units=rack_units,
                static_load_kg=_float(design.rack.static_load_kg),
            ),
            power_limit_kw=float(design.rack_power_limit_kw),
            pdu=engine.PduSpec(
                key=str(design.pdu_id),
                name=design.pdu.name,
                kw=pdu_kw,
                weight_kg=float(design.pdu.unit_weight_kg or 0),
            ),
            pdus_per_rack=design.pdus_per_rack,
            pdu_redundancy=design.pdu_redundancy,
        ),
        facility=engine.FacilityInputs(
            cooling=engine.Cooling(design.cooling),
            pue=float(design.pue),
            cdu=cdu,
            cdu_redundancy=design.cdu_redundancy,
            site_power_mw=_float(site_power),
        ),
        training=engine.TrainingInputs(
            params_billion=float(design.params_billion),
            bytes_per_param=float(design.bytes_per_param),
            gpu_mtbf_hours=_float(design.gpu_mtbf_hours),
            cluster_interruptions_per_day=_float(design.cluster_interruptions_per_day),
            restart_minutes=float(design.restart_minutes),
            chosen_interval_minutes=_float(design.checkpoint_interval_minutes),
        ),
    )


def inputs_snapshot(inputs: engine.DesignInputs) -> dict[str, Any]:
    """The engine's inputs as JSON (enums as their values), stored with the run."""
    return json.loads(json.dumps(dataclasses.asdict(inputs), default=str))


# The engine names a bad input by its dotted path; the design names it by field. Longest prefix
# first; the site's power is the site's.
_INPUT_FIELDS: tuple[tuple[str, str], ...] = (
    ("system", "system"),
    ("gpus", "gpus"),
    ("compute.switch_optic", "compute_switch_optic"),
    ("compute.switch", "compute_switch"),
    ("compute.node_optic", "compute_node_optic"),
    ("compute.cable", "compute_cable"),
    ("compute.kind", "compute_fabric"),
    ("compute.bandwidth_per_gpu_gbps", "compute_bandwidth_gbps"),
    ("compute.topology", "compute_topology"),
    ("compute.oversubscription", "compute_oversubscription"),
    ("compute.su_systems", "su_systems"),
    ("compute", "compute_switch"),
    ("storage.appliance", "storage_appliance"),
    ("storage.usable_capacity_tb", "storage_capacity_tb"),
    ("storage.read_gbs_per_node", "storage_read_gbs_per_node"),
    ("storage.write_gbs_per_node", "storage_write_gbs_per_node"),
    ("storage.fabric.switch", "storage_switch"),
    ("storage.fabric.oversubscription", "storage_oversubscription"),
    ("storage.fabric.node_optic", "storage_node_optic"),
    ("storage.fabric.switch_optic", "storage_switch_optic"),
    ("storage.fabric.cable", "storage_cable"),
    ("storage.fabric.kind", "storage_fabric"),
    ("storage.fabric", "storage_switch"),
    ("storage", "storage_appliance"),
    ("management.inband_cable", "inband_cable"),
    ("management.oob_cable", "oob_cable"),
    ("management.inband", "inband_switch"),
    ("management.oob", "oob_switch"),
    ("racks.rack", "rack"),
    ("racks.power_limit_kw", "rack_power_limit_kw"),
    ("racks.pdus_per_rack", "pdus_per_rack"),
    ("racks.pdu_redundancy", "pdu_redundancy"),
    ("racks.pdu", "pdu"),
    ("facility.cooling", "cooling"),
    ("facility.pue", "pue"),
    ("facility.cdu_redundancy", "cdu_redundancy"),
    ("facility.cdu", "cdu"),
    ("facility.site_power_mw", "site"),
    ("training.params_billion", "params_billion"),
    ("training.bytes_per_param", "bytes_per_param"),
    ("training.gpu_mtbf_hours", "gpu_mtbf_hours"),
    ("training.cluster_interruptions_per_day", "cluster_interruptions_per_day"),
    ("training.restart_minutes", "restart_minutes"),
    ("training.chosen_interval_minutes", "checkpoint_interval_minutes"),
)


def design_field_for(path: str) -> str:
    """The design field an engine input path (`compute.switch.ports`) comes from."""
    for prefix, field in _INPUT_FIELDS:
        if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "_"):
            return field
    return "non_field_errors"


def errors_by_field(errors: dict[str, str]) -> dict[str, str]:
    """The engine's {input path: message} as {design field: message}, several joined."""
    found: dict[str, list[str]] = {}
    for path, message in errors.items():
        found.setdefault(design_field_for(path), []).append(f"{message} ({path})")
    return {field: " ".join(messages) for field, messages in found.items()}


# --- sizing runs ---------------------------------------------------------------------------------


def next_number(model, design: ClusterDesign, field: str) -> int:
    """The next run number (or bill-of-materials version) of `design`: 1, 2, 3 …"""
    # Called under the design's row lock, so two runs (or versions) never take the same number.
    return (model.objects.filter(design=design).aggregate(top=Max(field))["top"] or 0) + 1


@transaction.atomic
def sizing_run_create(*, design: ClusterDesign, actor=None) -> SizingRun:
    """Record a new queued run of the design (numbered under the design's lock)."""
    design = ClusterDesign.objects.select_for_update().get(pk=design.pk)
    run = SizingRun(
        design=design,
        number=next_number(SizingRun, design, "number"),
        status=RunStatus.QUEUED,
        started_by=actor if getattr(actor, "pk", None) else None,
    )
    run.full_clean()
    run.save()
    return run


@transaction.atomic
def sizing_run_start(*, design: ClusterDesign, actor=None) -> SizingRun:
    """Queue a sizing of the design as a background task (sent once this transaction commits);
    the run's `task_id` is what `/api/v1/tasks/{id}/` reports the progress of. The task
    (`tasks.run_sizing`) is named, not imported: it calls back into this module."""
    run = sizing_run_create(design=design, actor=actor)
    task = enqueue_on_commit(
        SIZING_TASK,
        kwargs={"run_id": run.pk},
        kind="cluster sizing",
        actor=actor if getattr(actor, "pk", None) else None,
        object_repr=f"{design} run {run.number}",
    )
    SizingRun.objects.filter(pk=run.pk).update(task_id=task.task_id)
    run.task_id = task.task_id
    return run


def sizing_run_execute(*, run: SizingRun, progress: Progress | None = None) -> SizingRun:
    """Size the run's design as it is now, storing the engine version, the inputs and the result —
    or the inputs refused, by design field. Idempotent: a finished run is returned as it is."""
    progress = progress or (lambda percent, step: None)
    with transaction.atomic():
        run = SizingRun.objects.select_for_update().select_related("design").get(pk=run.pk)
        if run.status in (RunStatus.SUCCEEDED, RunStatus.FAILED):
            return run
        before = run.status
        run.status = RunStatus.RUNNING
        run.started_at = timezone.now()
        run.save(update_fields=["status", "started_at", "updated_at"])
        record_transition(run, field="status", before=before, after=run.status)
    progress(10, "Reading the design's parts")
    design = _design_for_sizing(run.design_id)
    result, errors, inputs = None, {}, {}
    try:
        inputs_obj = design_inputs(design)
        inputs = inputs_snapshot(inputs_obj)
        progress(40, "Sizing compute, network, storage, power, cooling and checkpoints")
        from ..engines import sizing

        result = sizing.size(inputs_obj).as_dict()
    except ValidationError as exc:
        errors = {field: " ".join(messages) for field, messages in exc.message_dict.items()}
    except engine.SizingInputError as exc:
        errors = errors_by_field(exc.errors)
    except OperationalError:
        raise  # the database: the task retries
    except Exception as exc:  # noqa: BLE001 — a run ends refused or sized, never stuck running
        logger.exception("Sizing run %s failed", run.pk)
        errors = {"non_field_errors": f"The sizing engine failed: {type(exc).__name__}: {exc}"[:500]}
    progress(90, "Saving the result")
    with transaction.atomic():
        run = SizingRun.objects.select_for_update().get(pk=run.pk)
        before = run.status
        run.engine_version = (result or {}).get("engine_version") or engine.ENGINE_VERSION
        run.inputs = inputs
        run.result = result
        run.errors = errors
        run.status = RunStatus.FAILED if errors else RunStatus.SUCCEEDED
        run.finished_at = timezone.now()
        run.save()
        record_transition(
            run,
            field="status",
            before=before,
            after=run.status,
            reason="; ".join(f"{k}: {v}" for k, v in errors.items())[:500],
        )
    progress(100, "Sized" if not errors else "Refused: " + ", ".join(errors))
    return run


def sizing_run_now(*, design: ClusterDesign, actor=None) -> SizingRun:
    """A run made and executed in this process (the demo, tests, a command): no worker needed."""
    run = sizing_run_create(design=design, actor=actor)
    return sizing_run_execute(run=run)


def _design_for_sizing(design_id: int) -> ClusterDesign:
    return ClusterDesign.objects.select_related(
        "site", "system", "compute_switch", "compute_node_optic", "compute_switch_optic", "compute_cable",
        "storage_appliance", "storage_switch", "storage_node_optic", "storage_switch_optic", "storage_cable",
        "inband_switch", "inband_cable", "oob_switch", "oob_cable", "rack",
        "pdu", "cdu",
    ).get(pk=design_id)  # fmt: skip


def run_result(run: SizingRun) -> engine.SizingResult:
    """The stored result as the engine's object; refused (naming the run) when there is none."""
    if run.status != RunStatus.SUCCEEDED or not run.result:
        raise ValidationError({"run": f"Run {run.number} of {run.design} has no result ({run.status})."})
    return engine.SizingResult.from_dict(run.result)


def runs_compare(a: SizingRun, b: SizingRun) -> dict[str, Any]:
    """What changed from run `a` to run `b` of one design: switches per tier, IT kW, racks and the
    bill of materials' cost at the catalogue's unit values (per currency)."""
    if a.design_id != b.design_id:
        raise ValidationError({"b": "Both runs must be of the same design."})
    first, second = run_result(a), run_result(b)
    tiers = sorted(set(first.switches_by_tier) | set(second.switches_by_tier))
    switches = {
        tier: _delta(first.switches_by_tier.get(tier, 0), second.switches_by_tier.get(tier, 0))
        for tier in tiers
    }
    components = sorted(set(first.power_by_component_kw) | set(second.power_by_component_kw))
    power = {
        name: _delta(
            round(first.power_by_component_kw.get(name, 0.0), 3),
            round(second.power_by_component_kw.get(name, 0.0), 3),
        )
        for name in components
    }
    it_kw = _delta(
        round(sum(first.power_by_component_kw.values()), 3),
        round(sum(second.power_by_component_kw.values()), 3),
    )
    racks = _delta(sum(r.count for r in first.racks), sum(r.count for r in second.racks))
    cost_a, cost_b = bom_cost(first.bom), bom_cost(second.bom)
    currencies = sorted(set(cost_a) | set(cost_b))
    cost = {
        currency: {
            "a": str(cost_a.get(currency, Decimal("0"))),
            "b": str(cost_b.get(currency, Decimal("0"))),
            "change": str(cost_b.get(currency, Decimal("0")) - cost_a.get(currency, Decimal("0"))),
        }
        for currency in currencies
    }
    return {
        "a": a.number,
        "b": b.number,
        "engine_versions": {"a": a.engine_version, "b": b.engine_version},
        "switches_by_tier": switches,
        "power_by_component_kw": power,
        "it_kw": it_kw,
        "racks": racks,
        "bom_cost": cost,
    }


def _delta(a, b) -> dict[str, Any]:
    return {"a": a, "b": b, "change": round(b - a, 3) if isinstance(b - a, float) else b - a}


def bom_cost(items) -> dict[str, Decimal]:
    """Cost of engine BOM items at their parts' unit values, per currency (one query)."""
    quantities: dict[int, int] = {}
    for item in items:
        if str(item.part_key).isdigit():
            quantities[int(item.part_key)] = quantities.get(int(item.part_key), 0) + int(item.quantity)
    totals: dict[str, Decimal] = {}
    for pk, value, currency in Part.objects.filter(pk__in=quantities).values_list(
        "pk", "unit_value", "currency"
    ):
        totals[currency] = totals.get(currency, Decimal("0")) + value * quantities[pk]
    return totals
