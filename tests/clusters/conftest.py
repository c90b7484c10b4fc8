"""Clusters fixtures: a customer and its data centre, the catalogue parts a design names (the
operator's master catalogue), a design, and a stand-in sizing engine for tests of the run's
bookkeeping (the engine has tests of its own)."""

from __future__ import annotations

import sys
import types

import pytest

from apps.accounts.models import OrganisationKind
from apps.clusters import services
from apps.clusters.engines import types as engine
from apps.shipments.models import Site
from tests.factories import OrganisationFactory

from .builders import cluster_parts, design_fields


@pytest.fixture
def customer(db):
    return OrganisationFactory(
        kind=OrganisationKind.CUSTOMER, legal_name="Chennai Speech AI Pvt. Ltd.", city="Chennai", country="IN"
    )


@pytest.fixture
def dc(operator, customer):
    return Site.objects.create(
        owner=operator, customer=customer, name="Siruseri DC1", kind="data_centre", city="Chennai",
        country="IN", power_mw="12", cooling_air=True, cooling_liquid=True,
    )  # fmt: skip


@pytest.fixture
def parts(operator):
    return cluster_parts(operator)


@pytest.fixture
def fields(parts, customer, dc):
    return design_fields(parts, customer=customer, site=dc)


@pytest.fixture
def design(operator, coordinator, fields):
    return services.design_create(owner=operator, fields=fields, actor=coordinator)


def result_for(design, *, leaves: int = 16, racks: int = 11) -> engine.SizingResult:
    """A sizing result of `design` as the engine gives one: figures, BOM items keyed by part id."""
    figures = (
        engine.Figure("fabric.compute.leaves", "compute_fabric", "Compute leaves", leaves, "switches",
                      f"leaves = 8 rails × 1 per SU × 2 SU = {leaves}"),
        engine.Figure("systems.count", "systems", "Systems", design.gpus // 8, "systems", "512 / 8 = 64"),
    )  # fmt: skip
    switch = str(design.compute_switch_id)
    bom = (
        engine.BomItem(engine.BomRole.SYSTEM, str(design.system_id), design.gpus // 8, "systems.count"),
        engine.BomItem(engine.BomRole.COMPUTE_LEAF, switch, leaves, "fabric.compute.leaves"),
        engine.BomItem(engine.BomRole.STORAGE_LEAF, switch, 2, "fabric.storage.leaves"),
        engine.BomItem(engine.BomRole.CDU, str(design.cdu_id), 0, "cooling.cdus"),
    )
    return engine.SizingResult(
        engine_version="1.0.0",
        figures=figures,
        bom=bom,
        warnings=(),
        racks=(engine.RackType("compute", racks, (engine.RackSlot("DGX H100", 8, 6),), 61.2),),
        power_by_component_kw={"systems": 652.8, "compute switches": leaves * 1.72},
        switches_by_tier={"compute leaf": leaves, "compute spine": leaves // 2},
    )


@pytest.fixture
def fake_engine(monkeypatch):
    """`fake_engine(fn)`: `sizing.size` answers with `fn(inputs)` (a result, or raising)."""
    import apps.clusters.engines as package

    def install(fn):
        module = types.ModuleType("apps.clusters.engines.sizing")
        module.size = fn
        monkeypatch.setitem(sys.modules, "apps.clusters.engines.sizing", module)
        monkeypatch.setattr(package, "sizing", module, raising=False)
        return module

    return install
