"""Which shipments carry a cluster's goods. Shipments know nothing of clusters (they sit below
them, tests/test_import_graph.py), so the link lives here: the shipment plan's "create draft
shipments" records one per shipment it makes, and the coverage reads them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import AuditedModel, OrgScopedQuerySet, TimeStampedModel

from .designs import ClusterDesign


class ClusterShipment(AuditedModel, TimeStampedModel):
    """A shipment carrying goods of a cluster design. A shipment serves one cluster (so coverage
    never counts the same pieces for two); a cluster has as many shipments as its plan needs."""

    design = models.ForeignKey(
        "clusters.ClusterDesign", on_delete=models.CASCADE, related_name="shipment_links"
    )
    # PROTECT: a shipment is cancelled, not deleted, once it carries a cluster's goods.
    shipment = models.ForeignKey("shipments.Shipment", on_delete=models.PROTECT, related_name="cluster_links")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = OrgScopedQuerySet.as_manager()

    class Meta:
        ordering = ["design", "shipment"]
        constraints = [
            models.UniqueConstraint(fields=["shipment"], name="clusters_shipment_one_cluster"),
        ]

    def __str__(self) -> str:
        return f"{self.shipment} for {self.design}"

    @classmethod
    def org_scope_q(cls, organisation_id: int, action: str) -> Q:
        designs = ClusterDesign.objects.filter(ClusterDesign.org_scope_q(organisation_id, action))
        return Q(design__in=designs.values("pk"))
