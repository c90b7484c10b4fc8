"""Checkpoint interval formulas (../shared/reference/sizing.md, "Checkpointing"). Seconds throughout.

- Young (1974): τ ≈ √(2δM), δ the time to write a checkpoint, M the cluster's MTBF.
- Daly (2006), higher-order: for δ < 2M, τ = √(2δM)·[1 + ⅓·√(δ/(2M)) + (1/9)·(δ/(2M))] − δ;
  for δ ≥ 2M, τ = M (checkpointing can no longer keep up with failures).
- Expected work lost per failure ≈ τ/2 + R (half an interval, plus the restart time R).
- Fraction of time lost ≈ δ/τ (writing) + (τ/2 + R)/M (rework and restarts), first order.
"""

from __future__ import annotations

import math


def young_interval(delta: float, mtbf: float) -> float:
    return math.sqrt(2 * delta * mtbf)


def daly_interval(delta: float, mtbf: float) -> float:
    if delta >= 2 * mtbf:
        return mtbf
    ratio = delta / (2 * mtbf)
    return math.sqrt(2 * delta * mtbf) * (1 + math.sqrt(ratio) / 3 + ratio / 9) - delta


def work_lost_per_failure(tau: float, restart: float) -> float:
    return tau / 2 + restart


def fraction_lost(tau: float, delta: float, mtbf: float, restart: float) -> float:
    return delta / tau + (tau / 2 + restart) / mtbf
