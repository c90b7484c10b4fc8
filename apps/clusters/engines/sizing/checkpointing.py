"""Checkpointing figures: a checkpoint's size, the bandwidth it is written at and how long that
takes, the cluster's MTBF, the best interval (Young, Daly), the time lost at it and at the
interval chosen. The interval formulas are `engines/checkpoint.py`.

Checkpoint write bandwidth is the smaller of what the storage appliances write together and what
the compute systems can push into the storage fabric (their storage ports at its port speed): a
sharded checkpoint is written by every node at once, so the narrower of the two sets the pace.
"""

from __future__ import annotations

from typing import Any

from .. import checkpoint as ckpt
from ..types import (
    SizingWarning,
)
from .common import (
    SizerBase,
    num,
)


class CheckpointSizing(SizerBase):
    def checkpoint(self) -> None:
        i, t = self.i, self.i.training
        size_gb = t.params_billion * t.bytes_per_param
        self.fig(
            "checkpoint.size_gb",
            "checkpoint",
            "Checkpoint size",
            size_gb,
            "GB",
            f"size = {num(t.params_billion)} B params × {num(t.bytes_per_param)} bytes = {num(size_gb)} GB",
        )
        sf = i.storage.fabric
        injection = self.n_systems * i.system.storage_ports * sf.switch.port_gbps / 8
        storage_w = self.storage_write_gbs
        if injection and injection < storage_w:
            bw, binds = injection, "the systems' storage ports bind"
        else:
            bw, binds = storage_w, "the storage appliances bind"
        self.fig(
            "checkpoint.write_gbs",
            "checkpoint",
            "Checkpoint write bandwidth",
            bw,
            "GB/s",
            f"write bandwidth = min({num(storage_w)} GB/s storage, {num(self.n_systems)} systems × "
            f"{i.system.storage_ports} ports × {sf.switch.port_gbps} Gb/s ÷ 8 = {num(injection)} GB/s) = "
            f"{num(bw)} GB/s ({binds})",
        )
        delta = size_gb / bw
        self.fig(
            "checkpoint.write_seconds",
            "checkpoint",
            "Checkpoint write time δ",
            delta,
            "s",
            f"δ = {num(size_gb)} GB ÷ {num(bw)} GB/s = {num(delta)} s",
            size_gb=size_gb,
            write_gbs=bw,
        )
        if t.gpu_mtbf_hours is not None:
            mtbf = t.gpu_mtbf_hours * 3600 / i.gpus
            text = f"M = {num(t.gpu_mtbf_hours)} h per-GPU MTBF ÷ {num(i.gpus)} GPUs = {num(mtbf / 3600)} h"
        else:
            mtbf = 86400 / t.cluster_interruptions_per_day
            per_day = t.cluster_interruptions_per_day
            text = f"M = 24 h ÷ {num(per_day)} interruptions a day = {num(mtbf / 3600)} h"
        mtbf_inputs: dict[str, Any] = (
            {"gpu_mtbf_hours": t.gpu_mtbf_hours, "gpus": i.gpus}
            if t.gpu_mtbf_hours is not None
            else {"interruptions_per_day": t.cluster_interruptions_per_day}
        )
        self.fig(
            "checkpoint.mtbf_hours", "checkpoint", "Cluster MTBF M", mtbf / 3600, "h", text, **mtbf_inputs
        )
        young = ckpt.young_interval(delta, mtbf)
        self.fig(
            "checkpoint.young_minutes",
            "checkpoint",
            "Optimal interval (Young)",
            young / 60,
            "min",
            f"τ = √(2 × {num(delta)} s × {num(mtbf)} s) = {num(young)} s = {num(young / 60)} min",
            delta_s=delta,
            mtbf_s=mtbf,
        )
        daly = ckpt.daly_interval(delta, mtbf)
        if delta < 2 * mtbf:
            ratio = delta / (2 * mtbf)
            daly_text = (
                f"τ = {num(young)} s × [1 + ⅓√{num(ratio)} + {num(ratio)}/9] − {num(delta)} s "
                f"= {num(daly)} s = {num(daly / 60)} min"
            )
        else:
            daly_text = f"δ = {num(delta)} s ≥ 2M: τ = M = {num(mtbf)} s = {num(daly / 60)} min"
            self.warnings.append(
                SizingWarning(
                    "checkpoint_slower_than_failures",
                    "training.params_billion",
                    f"writing a checkpoint ({num(delta)} s) takes at least twice the cluster MTBF "
                    f"({num(mtbf)} s)",
                )
            )
        self.fig(
            "checkpoint.daly_minutes",
            "checkpoint",
            "Optimal interval (Daly)",
            daly / 60,
            "min",
            daly_text,
            delta_s=delta,
            mtbf_s=mtbf,
        )
        restart = t.restart_minutes * 60
        lost = ckpt.work_lost_per_failure(daly, restart)
        self.fig(
            "checkpoint.work_lost_minutes",
            "checkpoint",
            "Work lost per failure",
            lost / 60,
            "min",
            f"lost per failure = τ/2 + R = {num(daly / 60)}/2 + {num(t.restart_minutes)} = {num(lost / 60)} "
            "min",
        )
        frac = ckpt.fraction_lost(daly, delta, mtbf, restart)
        self.fig(
            "checkpoint.fraction_lost_pct",
            "checkpoint",
            "Time lost to checkpoints and failures",
            frac * 100,
            "%",
            f"lost = δ/τ + (τ/2 + R)/M = {num(delta)}/{num(daly)} + ({num(daly / 2)} + "
            f"{num(restart)})/{num(mtbf)} = {num(frac * 100)} %",
        )
        if frac >= 1:
            self.warnings.append(
                SizingWarning(
                    "checkpoint_no_progress",
                    "training.gpu_mtbf_hours"
                    if t.gpu_mtbf_hours is not None
                    else "training.cluster_interruptions_per_day",
                    f"checkpoints and failures cost {num(frac * 100)} % of the time even at the optimum "
                    f"interval: the cluster makes no progress (a failure every {num(mtbf / 3600)} h, "
                    f"{num(t.restart_minutes)} min to restart, {num(delta)} s to write a checkpoint)",
                )
            )
        if t.chosen_interval_minutes is not None:
            chosen = t.chosen_interval_minutes * 60
            frac_c = ckpt.fraction_lost(chosen, delta, mtbf, restart)
            self.fig(
                "checkpoint.chosen_fraction_lost_pct",
                "checkpoint",
                "Time lost at the chosen interval",
                frac_c * 100,
                "%",
                f"lost = {num(delta)}/{num(chosen)} + ({num(chosen / 2)} + {num(restart)})/{num(mtbf)} = "
                f"{num(frac_c * 100)} % "
                f"at every {num(t.chosen_interval_minutes)} min",
            )
            extra = frac_c - frac
            self.fig(
                "checkpoint.chosen_extra_pct",
                "checkpoint",
                "Extra time lost against the optimum",
                extra * 100,
                "%",
                f"extra = {num(frac_c * 100)} % − {num(frac * 100)} % = {num(extra * 100)} %",
            )
            if frac_c >= 1:
                self.warnings.append(
                    SizingWarning(
                        "checkpoint_chosen_no_progress",
                        "training.chosen_interval_minutes",
                        f"at a checkpoint every {num(t.chosen_interval_minutes)} min, checkpoints and "
                        f"failures cost {num(frac_c * 100)} % of the time: the cluster makes no progress",
                    )
                )
            gpu_hours = extra * i.gpus * 24
            self.fig(
                "checkpoint.chosen_extra_gpu_hours_per_day",
                "checkpoint",
                "GPU-hours lost a day against the optimum",
                gpu_hours,
                "GPU-h/day",
                f"{num(extra * 100)} % × {num(i.gpus)} GPUs × 24 h = {num(gpu_hours)} GPU-hours a day",
            )
