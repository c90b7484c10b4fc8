"""Defaults a form or page may offer, with where each figure comes from.

[V] the vendor's own document, [P] a paper, [E] an estimate from secondary sources: an [E] figure
is a starting value for the planner to change, never a constant the engine relies on. The engine
itself takes every figure from `DesignInputs`; nothing here is read by `size()`.
Sources: ../shared/reference/sizing.md and parts.md.
"""

from __future__ import annotations

from typing import Any

from .types import Cooling

# PUE = facility power / IT power, by the cooling the site offers [E].
PUE_BY_COOLING: dict[Cooling, float] = {
    Cooling.AIR: 1.45,  # air ~1.4–1.5 [E]
    Cooling.LIQUID: 1.2,  # direct-to-chip liquid ~1.15–1.25 [E]
    Cooling.IMMERSION: 1.1,  # at or below direct liquid [E]
}
AIR_MAX_KW_PER_RACK = 40.0  # air cooling tops out around 25–40 kW per rack [V/E]
LIQUID_MAX_KW_PER_RACK = 140.0  # direct-to-chip 50–140 kW per rack [E]
BYTES_PER_PARAM = 14.0  # mixed-precision Adam with bf16 weights [P]; 12 without, 16 with gradients
SU_SYSTEMS = 32  # DGX H100/B200 SuperPOD scalable unit [V]
STORAGE_OVERSUBSCRIPTION = 4 / 3  # NVIDIA H100 design, node side [V]
RACKS_PER_ROW = 10  # [E]: a SuperPOD SU is 8 compute racks + network racks
CDU_MARGIN = 0.1  # head-room on the liquid heat load before N+1 [E]
RESTART_MINUTES = 10.0  # [E]
# Meta's Llama 3 405B run: 419 unexpected interruptions in 54 days on 16,384 H100s [P].
LLAMA3_INTERRUPTIONS_PER_DAY = 419 / 54
LLAMA3_GPUS = 16_384
# Per-GPU MTBF implied by Llama 3: 16,384 GPUs × 24 h ÷ 7.76 interruptions a day ≈ 50,700 h [P, derived].
GPU_MTBF_HOURS = LLAMA3_GPUS * 24 / LLAMA3_INTERRUPTIONS_PER_DAY
# NVIDIA H100 SuperPOD storage guidance per node, GB/s [V].
STORAGE_PER_NODE_GBS: dict[str, dict[str, float]] = {
    "good": {"read": 4.0, "write": 2.0},
    "better": {"read": 8.0, "write": 4.0},
    "best": {"read": 40.0, "write": 20.0},
}


def defaults() -> dict[str, dict[str, Any]]:
    """Every default as {name: {"value", "unit", "source", "note"}}, JSON-safe, for a form or page."""
    return {
        "pue_air": {
            "value": PUE_BY_COOLING[Cooling.AIR],
            "unit": "",
            "source": "[E]",
            "note": "air ~1.4–1.5",
        },
        "pue_liquid": {
            "value": PUE_BY_COOLING[Cooling.LIQUID],
            "unit": "",
            "source": "[E]",
            "note": "direct liquid ~1.15–1.25",
        },
        "pue_immersion": {
            "value": PUE_BY_COOLING[Cooling.IMMERSION],
            "unit": "",
            "source": "[E]",
            "note": "immersion, at or below direct liquid",
        },
        "air_max_kw_per_rack": {
            "value": AIR_MAX_KW_PER_RACK,
            "unit": "kW",
            "source": "[V/E]",
            "note": "air cooling tops out around 25–40 kW per rack",
        },
        "liquid_max_kw_per_rack": {
            "value": LIQUID_MAX_KW_PER_RACK,
            "unit": "kW",
            "source": "[E]",
            "note": "direct-to-chip liquid 50–140 kW per rack",
        },
        "bytes_per_param": {
            "value": BYTES_PER_PARAM,
            "unit": "B",
            "source": "[P]",
            "note": "mixed-precision Adam: 12 (fp32 master, momentum, variance), 14 with bf16 weights, 16 "
            "with gradients",
        },
        "su_systems": {
            "value": SU_SYSTEMS,
            "unit": "systems",
            "source": "[V]",
            "note": "DGX H100/B200 SuperPOD scalable unit",
        },
        "storage_oversubscription": {
            "value": STORAGE_OVERSUBSCRIPTION,
            "unit": ":1",
            "source": "[V]",
            "note": "NVIDIA H100 storage fabric, node side (4:3)",
        },
        "racks_per_row": {"value": RACKS_PER_ROW, "unit": "racks", "source": "[E]", "note": ""},
        "cdu_margin": {"value": CDU_MARGIN, "unit": "", "source": "[E]", "note": "head-room before N+1"},
        "restart_minutes": {"value": RESTART_MINUTES, "unit": "min", "source": "[E]", "note": ""},
        "gpu_mtbf_hours": {
            "value": round(GPU_MTBF_HOURS),
            "unit": "h",
            "source": "[P]",
            "note": "implied by Llama 3: 419 interruptions in 54 days on 16,384 H100s",
        },
        "cluster_interruptions_per_day_llama3": {
            "value": round(LLAMA3_INTERRUPTIONS_PER_DAY, 2),
            "unit": "/day",
            "source": "[P]",
            "note": "Llama 3 on 16,384 GPUs: about one every 3.1 h",
        },
        **{
            f"storage_{tier}_{way}_gbs": {
                "value": value,
                "unit": "GB/s",
                "source": "[V]",
                "note": f"NVIDIA H100 SuperPOD guidance, {tier}, single node {way}",
            }
            for tier, figures in STORAGE_PER_NODE_GBS.items()
            for way, value in figures.items()
        },
    }
