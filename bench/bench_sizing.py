"""Cluster sizing engine alone: one sizing of 8, 1,024, 16,384 and 131,072 GPUs (closed form, no database).

The design is `apps.clusters.engines.examples.large_design`: DGX H100-class systems on a
144-port 800 Gb/s compute fabric (Quantum-X800-like, the radix that three tiers need to reach
131,072 GPUs), a storage fabric of the same switch, in-band and out-of-band management, 130 kW
liquid-cooled racks with CDUs, a 70 B-parameter checkpoint. Each size is timed round-robin with
the others (`round_robin`, 200 sizings each), so noise on the shared machine hits every size
alike. Beside the sizing: the result's `as_dict()` → JSON → `from_dict()` round trip, and a
what-if table over the four counts (four sizings).

Correctness (fails the run): every size gives the same list of figures (no per-GPU or per-rack
objects: the result's shape does not grow), at most two rack types per kind of equipment, the
expected systems and fabric tiers (2 up to 1,024 GPUs, 3 from 16,384: two tiers of 144-port
switches reach 9,216 GPUs), the JSON round trip gives back an equal result, and the what-if
table has no error row.

Timing (printed only): median and min milliseconds per sizing; the ratio of the largest to the
smallest shows that the time does not grow with the GPU count.
"""

from __future__ import annotations

import json

from apps.clusters.engines.examples import large_design
from apps.clusters.engines.sizing import size, what_if
from apps.clusters.engines.types import SizingResult
from bench.harness import Report, measure, round_robin

GPU_COUNTS = (8, 1_024, 16_384, 131_072)
REPEAT = 200


def run(report: Report) -> None:
    designs = {gpus: large_design(gpus) for gpus in GPU_COUNTS}
    results = {gpus: size(inputs) for gpus, inputs in designs.items()}

    keys = {gpus: [f.key for f in result.figures] for gpus, result in results.items()}
    report.check(
        all(k == keys[GPU_COUNTS[0]] for k in keys.values()), "the figures differ between sizes (shape grows)"
    )
    for gpus, result in results.items():
        report.check(result.value("systems.systems") == gpus // 8, f"{gpus:,} GPUs: wrong number of systems")
        # 14 kinds of equipment (systems, storage, 6 fabric and 6 management switch tiers), each
        # in full racks plus at most one partly filled rack.
        report.check(len(result.racks) <= 28, f"{gpus:,} GPUs: {len(result.racks)} rack types")
        data = json.loads(json.dumps(result.as_dict()))
        report.check(
            SizingResult.from_dict(data) == result, f"{gpus:,} GPUs: as_dict/from_dict round trip differs"
        )
    # k = 144 at 800 Gb/s, d = 72: a leaf takes ⌊72 ÷ 32⌋ = 2 rails, 4 leaves per SU; two tiers
    # reach 144 leaves = 36 SU = 9,216 GPUs.
    tiers = {gpus: result.value("fabric.compute.tiers") for gpus, result in results.items()}
    report.check(tiers == {8: 2, 1_024: 2, 16_384: 3, 131_072: 3}, f"unexpected fabric tiers {tiers}")

    timed = round_robin({gpus: (lambda i=inputs: size(i)) for gpus, inputs in designs.items()}, repeat=REPEAT)
    smallest = timed[GPU_COUNTS[0]].median_ms
    for gpus in GPU_COUNTS:
        result = results[gpus]
        timing = timed[gpus]
        report.row(
            gpus=gpus,
            systems=result.value("systems.systems"),
            tiers=result.value("fabric.compute.tiers"),
            switches=sum(result.switches_by_tier.values()),
            transceivers=result.value("fabric.compute.optics.node")
            + result.value("fabric.compute.optics.switch"),
            racks=result.value("racks.total"),
            MW=result.value("power.facility_mw"),
            **{
                "ms per sizing (median, min)": str(timing),
                "× the 8-GPU time": f"{timing.median_ms / smallest:.2f}",
            },
        )

    largest = results[131_072]
    codec = measure(lambda: SizingResult.from_dict(json.loads(json.dumps(largest.as_dict()))), repeat=REPEAT)
    rows = what_if(designs[8], list(GPU_COUNTS))
    report.check(not [row for row in rows if "error" in row], "what-if has an error row")
    table = measure(lambda: what_if(designs[8], list(GPU_COUNTS)), repeat=50)
    report.row(
        "around the sizing",
        step="as_dict → JSON → from_dict (131,072 GPUs)",
        **{"ms (median, min)": str(codec)},
    )
    report.row("around the sizing", step="what_if over the 4 counts", **{"ms (median, min)": str(table)})
    shape = f"{len(largest.figures)} figures, {len(largest.bom)} BOM lines, {len(largest.racks)} rack types"
    report.note(f"{shape} per result, at every size")
