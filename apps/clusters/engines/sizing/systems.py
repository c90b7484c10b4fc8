"""What is bought first: the systems and scalable units a GPU count needs, and the storage
appliances that meet the capacity and the read and write bandwidth asked of them (the most of the
three binds).
"""

from __future__ import annotations

from ..fabric import ceil_div
from ..types import (
    BomRole,
)
from .common import (
    SizerBase,
    _ceil,
    num,
)


class SystemsSizing(SizerBase):
    # --- systems -------------------------------------------------------------------------------
    def systems(self) -> None:
        i, s = self.i, self.i.system
        self.n_systems = i.gpus // s.gpus
        self.fig(
            "systems.systems",
            "systems",
            f"{s.name} systems",
            self.n_systems,
            "systems",
            f"systems = {num(i.gpus)} GPUs ÷ {s.gpus} per {s.name} = {num(self.n_systems)}",
            gpus=i.gpus,
            gpus_per_system=s.gpus,
        )
        self.fig("systems.gpus", "systems", "GPUs", i.gpus, "GPUs", f"GPUs = {num(i.gpus)}", gpus=i.gpus)
        su = i.compute.su_systems
        self.n_su = ceil_div(self.n_systems, su)
        self.fig(
            "systems.scalable_units",
            "systems",
            "Scalable units",
            self.n_su,
            "SU",
            f"scalable units = ⌈{num(self.n_systems)} systems ÷ {su} per SU⌉ = {num(self.n_su)}",
            systems=self.n_systems,
            su_systems=su,
        )
        self.add_bom(BomRole.SYSTEM, s.key, self.n_systems, "systems.systems")

    # --- storage -------------------------------------------------------------------------------
    def storage(self) -> None:
        st, a = self.i.storage, self.i.storage.appliance
        n = self.n_systems
        by_capacity = _ceil(st.usable_capacity_tb / a.capacity_tb)
        read_total = st.read_gbs_per_node * n
        write_total = st.write_gbs_per_node * n
        by_read = _ceil(read_total / a.read_gbs)
        by_write = _ceil(write_total / a.write_gbs)
        self.n_appliances = max(by_capacity, by_read, by_write)
        binding = [
            name
            for name, v in (("capacity", by_capacity), ("read", by_read), ("write", by_write))
            if v == self.n_appliances
        ]
        self.fig(
            "storage.appliances",
            "storage",
            f"{a.name} appliances",
            self.n_appliances,
            "appliances",
            f"storage appliances = max(capacity ⌈{num(st.usable_capacity_tb)} TB ÷ {num(a.capacity_tb)} TB⌉ "
            f"= {num(by_capacity)}, "
            f"read ⌈{num(n)} systems × {num(st.read_gbs_per_node)} GB/s ÷ {num(a.read_gbs)} GB/s⌉ = "
            f"{num(by_read)}, "
            f"write ⌈{num(n)} × {num(st.write_gbs_per_node)} GB/s ÷ {num(a.write_gbs)} GB/s⌉ = "
            f"{num(by_write)}) "
            f"= {num(self.n_appliances)} ({' and '.join(binding)} "
            f"{'binds' if len(binding) == 1 else 'bind'})",
            by_capacity=by_capacity,
            by_read=by_read,
            by_write=by_write,
            binding=", ".join(binding),
        )
        self.storage_write_gbs = self.n_appliances * a.write_gbs
        for key, label, value, unit, per in (
            (
                "storage.capacity_tb",
                "Usable capacity delivered",
                self.n_appliances * a.capacity_tb,
                "TB",
                a.capacity_tb,
            ),
            (
                "storage.read_gbs",
                "Aggregate read bandwidth",
                self.n_appliances * a.read_gbs,
                "GB/s",
                a.read_gbs,
            ),
            ("storage.write_gbs", "Aggregate write bandwidth", self.storage_write_gbs, "GB/s", a.write_gbs),
        ):
            self.fig(
                key,
                "storage",
                label,
                value,
                unit,
                f"{label.lower()} = {num(self.n_appliances)} × {num(per)} {unit} = {num(value)} {unit}",
            )
        self.fig(
            "storage.required_read_gbs",
            "storage",
            "Read bandwidth required",
            read_total,
            "GB/s",
            f"read required = {num(n)} systems × {num(st.read_gbs_per_node)} GB/s = {num(read_total)} GB/s",
        )
        self.fig(
            "storage.required_write_gbs",
            "storage",
            "Write bandwidth required",
            write_total,
            "GB/s",
            f"write required = {num(n)} systems × {num(st.write_gbs_per_node)} GB/s = {num(write_total)} "
            "GB/s",
        )
        self.add_bom(BomRole.STORAGE_APPLIANCE, a.key, self.n_appliances, "storage.appliances")
