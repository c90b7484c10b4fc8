"""A whole sizing run (design read, engine, result stored) and its BOM saved, for 8 to 131,072 GPUs.

The demo's 512-GPU speech-AI design (64 liquid-cooled HGX H100 servers, `apps/clusters/demo.py`),
re-sized at 8, 1,024, 16,384 and 131,072 GPUs on a 144-port 800 Gb/s Quantum-X800 compute fabric
(the radix three tiers need to reach 131,072 GPUs; 64-port switches stop at 65,536). Each sample
is `services.sizing_run_now` (what the Celery task runs: the design and its parts read, the
engine, the inputs snapshot and the result stored, audited) followed by `services.bom_from_run`
(a new BOM version with its lines). Beside it, the engine alone on the same inputs.

Correctness (fails the run): every run succeeds with no refused input; the BOM has as many
lines at 131,072 GPUs as at 8 give or take the tiers that appear (lines are per role, so its size
does not grow with the GPUs); a run's SQL queries are the same at every size, a BOM's a fixed
number plus the same few per line.

Timing (printed only): median and min milliseconds per run + BOM, and per engine sizing.
"""

from __future__ import annotations

from decimal import Decimal

from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Organisation, OrganisationKind, User
from apps.accounts.roles import Role
from apps.catalog.models import Part
from apps.clusters import services
from apps.clusters.demo import SPEECH
from apps.clusters.engines.sizing import size
from apps.clusters.models import ClusterDesign, RunStatus
from bench.harness import Report, measure

GPU_COUNTS = (8, 1_024, 16_384, 131_072)
REPEAT = 15


def run(report: Report) -> None:
    call_command("load_demo", verbosity=0)
    operator = Organisation.objects.get(kind=OrganisationKind.OPERATOR)
    planner = User.objects.filter(organisation=operator, role=Role.COORDINATOR).order_by("pk").first()
    design = ClusterDesign.objects.get(owner=operator, name=SPEECH)
    switch = Part.objects.get(owner=operator, part_number="Q3400-RA")
    services.design_update(
        design=design,
        fields={"compute_switch": switch, "storage_switch": switch, "compute_bandwidth_gbps": 800},
        actor=planner,
    )
    design.site.power_mw = Decimal("500")  # room for 131,072 GPUs: the warning is not what is timed
    design.site.save(update_fields=["power_mw"])

    lines: dict[int, int] = {}
    queries: dict[int, tuple[int, int]] = {}
    for gpus in GPU_COUNTS:
        services.design_update(design=design, fields={"gpus": gpus}, actor=planner)
        design.refresh_from_db()

        def whole(design=design):
            run = services.sizing_run_now(design=design, actor=planner)
            return run, services.bom_from_run(run=run, actor=planner)

        with CaptureQueriesContext(connection) as run_queries:
            sized = services.sizing_run_now(design=design, actor=planner)
        ok = report.check(
            sized.status == RunStatus.SUCCEEDED, f"{gpus:,} GPUs: the run was refused: {sized.errors}"
        )
        if not ok:
            continue
        with CaptureQueriesContext(connection) as bom_queries:
            bom = services.bom_from_run(run=sized, actor=planner)
        lines[gpus] = bom.lines.count()
        queries[gpus] = (len(run_queries.captured_queries), len(bom_queries.captured_queries))

        timing = measure(whole, repeat=REPEAT)
        inputs = services.design_inputs(design)
        engine = measure(lambda inputs=inputs: size(inputs), repeat=REPEAT * 10)
        report.row(
            gpus=f"{gpus:,}",
            **{
                "run + BOM ms (median, min)": str(timing),
                "engine alone ms (median, min)": str(engine),
                "BOM lines": lines[gpus],
                "queries run / BOM": f"{queries[gpus][0]} / {queries[gpus][1]}",
            },
        )
    if len(lines) == len(GPU_COUNTS):
        # Lines are per role, not per unit: spines appear past one leaf group, cores (compute and
        # storage) with a third tier; nothing else may grow.
        report.check(
            max(lines.values()) - min(lines.values()) <= 3, f"the BOM's size grows with the GPUs: {lines}"
        )
        runs = {q[0] for q in queries.values()}
        report.check(len(runs) == 1, f"a run's queries differ between sizes: {queries}")
        # Each line is written and audited on its own (a few queries a line), the rest is fixed.
        per_line = {
            (q[1] - queries[GPU_COUNTS[0]][1]) / max(1, lines[g] - lines[GPU_COUNTS[0]])
            for g, q in queries.items()
            if g != GPU_COUNTS[0]
        }
        report.check(
            len(per_line) == 1, f"a BOM's queries are not fixed + a constant per line: {queries} for {lines}"
        )
    report.note(
        f"Each run + BOM figure is the median of {REPEAT} samples (a new run and a new BOM version each); "
        "the engine alone of ten times as many."
    )
