"""Fat-tree arithmetic for the sizing engine: leaves, spines and cores in closed form.

A tree is described by its leaves (worked out by the caller: rail-optimised per scalable unit for
the compute fabric, simply ceil(endpoints / down-ports) for the others), the up-ports of a leaf
and the switch radix k, all counted in links at the endpoint speed.

- One tier: a single switch, no spines (only when one leaf holds every endpoint).
- Two tiers: every leaf links to every spine, the same number of links to each (balanced): with p
  links per leaf–spine pair, p must divide the leaf's up-ports u and the L leaves must fit on a
  spine (L·p ≤ k); the fewest spines is u / p for the largest such p. A spine needs at least one
  link to each leaf, so two tiers reach at most k leaves — k·d endpoints, k²/2 when d = k/2.
- Three tiers: the leaves form pods of P leaves (whole scalable units where they fit), each with
  its own spine group; a spine has k/2 ports down and k/2 up (non-blocking above the leaf), so a
  pod's spines are u / p with the largest p dividing u for which P·p ≤ k/2. Every spine–core link
  carries a leaf–spine link's traffic: spine–core links = leaf–spine links, cores = ⌈links / k⌉.
  A core reaches each pod, so at most k pods: k·(k/2) leaves — k³/4 endpoints when d = k/2.
"""

from __future__ import annotations

from dataclasses import dataclass

from .types import Topology


@dataclass(frozen=True)
class Tree:
    tiers: int
    leaves: int
    spines: int
    cores: int
    leaf_spine_links: int
    spine_core_links: int
    pods: int = 0
    pod_leaves: int = 0
    spines_formula: str = ""
    cores_formula: str = ""


class TreeError(Exception):
    """The tree cannot be built: `reason` says why, `beyond` whether even three tiers fall short
    (as opposed to a fixed topology that does)."""

    def __init__(self, reason: str, *, beyond: bool) -> None:
        self.reason = reason
        self.beyond = beyond
        super().__init__(reason)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def links_per_pair(uplinks: int, leaves: int, capacity: int) -> int:
    """Largest p dividing `uplinks` with leaves·p ≤ capacity (0 when not even p = 1 fits).

    Divisors of u are found up to √u, so this is O(√k), independent of the cluster's size."""
    best = 0
    i = 1
    while i * i <= uplinks:
        if uplinks % i == 0:
            for p in (i, uplinks // i):
                if leaves * p <= capacity and p > best:
                    best = p
        i += 1
    return best


def build_tree(*, leaves: int, uplinks: int, k: int, pod_leaves: int, topology: Topology) -> Tree:
    """Spines and cores for `leaves` leaves of `uplinks` up-ports each, radix `k`.

    AUTO: one tier for a single leaf, two while they reach every leaf (L ≤ k), else three."""
    if leaves <= 0:
        return Tree(tiers=0, leaves=0, spines=0, cores=0, leaf_spine_links=0, spine_core_links=0)
    two_tier_ok = leaves <= k
    pod_leaves = max(1, min(pod_leaves, k // 2))
    pods = ceil_div(leaves, pod_leaves)
    three_tier_ok = k >= 2 and pods <= k
    if topology == Topology.AUTO:
        if leaves == 1:
            return Tree(tiers=1, leaves=1, spines=0, cores=0, leaf_spine_links=0, spine_core_links=0)
        if two_tier_ok:
            tiers = 2
        elif three_tier_ok:
            tiers = 3
        else:
            raise TreeError(
                f"{leaves:,} leaves need {pods:,} pods of {pod_leaves:,}; a three-tier tree of "
                f"{k}-port switches reaches at most {k} pods ({k * pod_leaves:,} leaves)",
                beyond=True,
            )
    elif topology == Topology.TWO_TIER:
        if not two_tier_ok:
            raise TreeError(
                f"two tiers of {k}-port switches reach at most {k} leaves; this design needs {leaves:,}",
                beyond=False,
            )
        tiers = 2
    else:
        if not three_tier_ok:
            raise TreeError(
                f"three tiers of {k}-port switches reach at most {k} pods of {pod_leaves:,} leaves; "
                f"this design needs {pods:,} pods",
                beyond=True,
            )
        tiers = 3

    leaf_spine = leaves * uplinks
    if tiers == 2:
        p = links_per_pair(uplinks, leaves, k)
        spines = uplinks // p
        formula = (
            f"spines = {uplinks} up-ports per leaf ÷ {p} links to each spine = {spines:,} "
            f"({leaves:,} leaves × {p} = {leaves * p:,} of {k} ports used on each spine)"
        )
        return Tree(
            tiers=2,
            leaves=leaves,
            spines=spines,
            cores=0,
            leaf_spine_links=leaf_spine,
            spine_core_links=0,
            spines_formula=formula,
            cores_formula="cores = 0 (two tiers)",
        )

    half = k // 2
    full_pods, last = divmod(leaves, pod_leaves)
    p_full = links_per_pair(uplinks, pod_leaves, half)
    spines = full_pods * (uplinks // p_full)
    formula = (
        f"spines = {full_pods:,} pods × ({uplinks} up-ports ÷ {p_full} links per leaf–spine pair) "
        f"= {spines:,}"
    )
    if last:
        p_last = links_per_pair(uplinks, last, half)
        spines += uplinks // p_last
        formula = (
            f"spines = {full_pods:,} pods × ({uplinks} ÷ {p_full}) + 1 pod of {last} leaves × "
            f"({uplinks} ÷ {p_last}) = {spines:,}"
        )
    cores = ceil_div(leaf_spine, k)
    return Tree(
        tiers=3,
        leaves=leaves,
        spines=spines,
        cores=cores,
        leaf_spine_links=leaf_spine,
        spine_core_links=leaf_spine,
        pods=pods,
        pod_leaves=pod_leaves,
        spines_formula=formula,
        cores_formula=f"cores = ⌈{leaf_spine:,} spine–core links ÷ {k} ports⌉ = {cores:,}",
    )
