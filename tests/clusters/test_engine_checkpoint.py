"""Checkpointing: Young's and Daly's intervals against the formulas with known numbers, and the
engine's checkpoint figures on Meta's Llama 3 run (16,384 H100s, 419 interruptions in 54 days,
"The Llama 3 Herd of Models", 2024, section 3.3.4: about one interruption every 3.1 hours)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from apps.clusters.engines import checkpoint as ckpt
from apps.clusters.engines.examples import STORAGE_NODE, design
from apps.clusters.engines.sizing import size
from apps.clusters.engines.types import StorageInputs, TrainingInputs


def test_young_and_daly_with_known_numbers():
    # δ = 60 s, M = 24 h = 86,400 s.
    # Young: √(2 × 60 × 86,400) = √10,368,000 = 3,219.94 s.
    assert ckpt.young_interval(60, 86_400) == pytest.approx(3219.94, abs=0.01)
    # Daly: δ/(2M) = 60 / 172,800 = 3.4722e-4; √ = 0.018634;
    # 3,219.94 × (1 + 0.018634/3 + 3.4722e-4/9) − 60 = 3,219.94 × 1.0062499 − 60 = 3,180.06 s.
    assert ckpt.daly_interval(60, 86_400) == pytest.approx(3180.06, abs=0.01)
    # Work lost per failure τ/2 + R with R = 600 s: 3,180.06 / 2 + 600 = 2,190.03 s.
    assert ckpt.work_lost_per_failure(3180.06, 600) == pytest.approx(2190.03)
    # Fraction lost δ/τ + (τ/2 + R)/M = 60/3,180.06 + 2,190.03/86,400 = 0.018868 + 0.025348 = 0.044216.
    assert ckpt.fraction_lost(3180.06, 60, 86_400, 600) == pytest.approx(0.044216, abs=1e-6)


def test_daly_when_writing_takes_longer_than_twice_the_mtbf():
    # δ ≥ 2M: τ = M.
    assert ckpt.daly_interval(100, 40) == 40
    assert ckpt.daly_interval(80, 40) == 40


def test_daly_interval_is_the_optimum_of_the_lost_fraction():
    # The first-order fraction lost is smallest near Young/Daly's τ: both neighbours cost more.
    delta, mtbf, restart = 30.0, 20_000.0, 300.0
    best = ckpt.daly_interval(delta, mtbf)
    at_best = ckpt.fraction_lost(best, delta, mtbf, restart)
    assert ckpt.fraction_lost(best * 0.7, delta, mtbf, restart) > at_best
    assert ckpt.fraction_lost(best * 1.4, delta, mtbf, restart) > at_best


def llama3(**training) -> object:
    # One "appliance" standing for the whole file system at 2,000 GB/s writes (Llama 3's Tectonic
    # sustained 2 TB/s); per-node needs small enough that one suffices.
    storage = StorageInputs(
        appliance=replace(STORAGE_NODE, capacity_tb=240_000.0, read_gbs=7_000.0, write_gbs=2_000.0),
        usable_capacity_tb=200_000.0,
        read_gbs_per_node=1.0,
        write_gbs_per_node=0.5,
        fabric=design().storage.fabric,
    )
    values = {
        "params_billion": 405.0,
        "bytes_per_param": 14.0,
        "cluster_interruptions_per_day": 419 / 54,
        "restart_minutes": 10.0,
        "chosen_interval_minutes": 30.0,
    }
    values.update(training)
    return size(design(16_384, storage=storage, training=TrainingInputs(**values)))


def test_llama3_checkpoint_figures():
    result = llama3()
    # size = 405 B × 14 bytes = 5,670 GB
    assert result.value("checkpoint.size_gb") == pytest.approx(5670)
    # write bandwidth = min(1 × 2,000 GB/s, 2,048 DGX × 2 ports × 400 Gb/s ÷ 8 = 204,800) = 2,000
    assert result.value("checkpoint.write_gbs") == 2000
    assert "the storage appliances bind" in result.figure("checkpoint.write_gbs").formula
    # δ = 5,670 ÷ 2,000 = 2.835 s
    assert result.value("checkpoint.write_seconds") == pytest.approx(2.835)
    # M = 24 h ÷ (419 / 54 = 7.759) = 3.093 h = 11,135.1 s: "about one every 3.1 hours"
    assert result.value("checkpoint.mtbf_hours") == pytest.approx(3.0931, abs=1e-4)
    # Young τ = √(2 × 2.835 × 11,135.1) = √63,136 = 251.27 s = 4.188 min
    assert result.value("checkpoint.young_minutes") * 60 == pytest.approx(251.27, abs=0.01)
    # Daly: δ/2M = 1.27299e-4, √ = 0.0112828; 251.27 × (1 + 0.0037609 + 0.0000141) − 2.835 = 249.38 s
    assert result.value("checkpoint.daly_minutes") * 60 == pytest.approx(249.38, abs=0.01)
    # Lost per failure = 249.38 / 2 + 600 = 724.69 s = 12.078 min
    assert result.value("checkpoint.work_lost_minutes") == pytest.approx(724.69 / 60, abs=1e-3)
    # Fraction lost = 2.835/249.38 + 724.69/11,135.1 = 0.011368 + 0.065082 = 7.645 %
    assert result.value("checkpoint.fraction_lost_pct") == pytest.approx(7.645, abs=0.001)
    # Every 30 min (1,800 s): 2.835/1,800 + (900 + 600)/11,135.1 = 0.001575 + 0.134709 = 13.628 %
    assert result.value("checkpoint.chosen_fraction_lost_pct") == pytest.approx(13.628, abs=0.001)
    # against the optimum: 13.628 − 7.645 = 5.983 points; × 16,384 GPUs × 24 h = 23,527 GPU-h a day
    assert result.value("checkpoint.chosen_extra_pct") == pytest.approx(5.983, abs=0.001)
    assert result.value("checkpoint.chosen_extra_gpu_hours_per_day") == pytest.approx(23_527, rel=1e-3)


def test_per_gpu_mtbf_gives_the_cluster_mtbf():
    # M = 50,000 h ÷ 1,024 GPUs = 48.828 h
    result = size(design(1024))
    assert result.value("checkpoint.mtbf_hours") == pytest.approx(48.828125)
    # δ = 980 GB ÷ 520 GB/s (26 appliances × 20) = 1.8846 s; Young √(2 × 1.8846 × 175,781.25) = 813.98 s
    assert result.value("checkpoint.write_seconds") == pytest.approx(1.884615, abs=1e-6)
    assert result.value("checkpoint.young_minutes") * 60 == pytest.approx(813.98, abs=0.01)
    assert math.isclose(
        result.value("checkpoint.young_minutes"),
        math.sqrt(2 * (980 / 520) * 50_000 * 3600 / 1024) / 60,
    )
    # No chosen interval: no comparison figures.
    with pytest.raises(KeyError):
        result.figure("checkpoint.chosen_extra_pct")


def test_the_systems_storage_ports_can_bind_the_write_bandwidth():
    # 8 GPUs: 1 DGX × 2 ports × 400 Gb/s ÷ 8 = 100 GB/s < 2 appliances... here 1 appliance × 20 GB/s
    # binds; with a 2,000 GB/s appliance the node's 100 GB/s binds instead.
    storage = replace(design().storage, appliance=replace(STORAGE_NODE, write_gbs=2_000.0))
    result = size(design(8, storage=storage))
    assert result.value("checkpoint.write_gbs") == 100
    assert "the systems' storage ports bind" in result.figure("checkpoint.write_gbs").formula


def test_a_checkpoint_slower_than_failures_is_warned():
    # 10,000 B params × 16 bytes = 160,000 GB at 520 GB/s = 307.7 s; M = 100 h ÷ 1,024 GPUs
    # = 351.6 s; δ = 307.7 < 2M = 703 s … so make the MTBF 10 h: M = 35.2 s, δ ≥ 2M: τ = M.
    training = TrainingInputs(params_billion=10_000, bytes_per_param=16, gpu_mtbf_hours=10)
    result = size(design(1024, training=training))
    assert result.value("checkpoint.daly_minutes") == pytest.approx(
        result.value("checkpoint.mtbf_hours") * 60
    )
    assert "checkpoint_slower_than_failures" in {w.code for w in result.warnings}
