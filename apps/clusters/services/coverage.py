"""Coverage of a cluster's bill of materials: per line, how many are on order, in stock, shipped
and delivered, so a coordinator sees what the cluster still waits for.

Which shipments are the cluster's is recorded, not guessed: a `ClusterShipment` link (made by the
shipment plan's "create draft shipments", or by `cluster_shipment_link`). Of those, the ones whose
destination is the design's site count, by status:

- on order: on a shipment that has not left (draft, compliance review, approved, booked, or on
  hold from one of those), less what of it is already in a warehouse;
- in stock: in a warehouse for the cluster — units and lot pieces allocated to those lines, and
  the customer's own stock of the part that no shipment line has taken;
- shipped: on a shipment that has left and not arrived (in transit, at customs, cleared, or on
  hold from one of those);
- delivered: on a delivered shipment. Cancelled shipments count nowhere.

Installed is not a column: Rackpass does not record installation yet.

Counts are per part (a shipment line names a part, not a bill-of-materials line), then shared out
over the lines of that part in line order, each up to its quantity; the last such line keeps what
is left over, so a surplus shows instead of vanishing.

A linked shipment to another destination (a feeder to a consolidation warehouse) is listed but not
counted: its goods count once they are in stock or on the shipment to the site.

Every figure is of what the reader may see (`visible_to(reader)`): the shipments it is a party to
(one it is no party to is neither listed nor counted, only said to exist) and the stock its own
on-hand shows. A design's customer is whoever its owner names, so its stock is not the reader's to
count: a forwarder naming a supplier as customer reads none of the supplier's stock here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import BooleanField, Count, ExpressionWrapper, F, Q, Sum

from apps.shipments.models import Shipment, ShipmentLine, ShipmentStatus
from apps.warehouse.models import AllocationStatus, Lot, LotAllocation, UnitPlacement

from ..models import BillOfMaterials, BomLine, BomRole, ClusterDesign, ClusterShipment

NOT_DEPARTED = (
    ShipmentStatus.DRAFT,
    ShipmentStatus.COMPLIANCE_REVIEW,
    ShipmentStatus.APPROVED,
    ShipmentStatus.BOOKED,
)
DEPARTED = (ShipmentStatus.IN_TRANSIT, ShipmentStatus.AT_CUSTOMS, ShipmentStatus.CLEARED)
# Allocated stock still in the warehouse (a shipped allocation has left it; a released one is free).
IN_WAREHOUSE = (AllocationStatus.ALLOCATED, AllocationStatus.PICKED)
INSTALLED_NOTE = "Installation is not recorded in Rackpass yet, so there is no installed column."
BUCKETS = ("delivered", "shipped", "in_stock", "on_order")


def _stage_q(statuses: tuple[str, ...], prefix: str = "") -> Q:
    return Q(**{f"{prefix}status__in": statuses}) | Q(
        **{f"{prefix}status": ShipmentStatus.ON_HOLD, f"{prefix}held_from__in": statuses}
    )


def stage_of(status: str, held_from: str = "") -> str:
    """ "on_order", "shipped", "delivered" or "cancelled" for a shipment's status."""
    if status == ShipmentStatus.ON_HOLD:
        status = held_from
    if status in NOT_DEPARTED:
        return "on_order"
    if status in DEPARTED:
        return "shipped"
    if status == ShipmentStatus.DELIVERED:
        return "delivered"
    return "cancelled"


# --- linking shipments ---------------------------------------------------------------------------


@transaction.atomic
def cluster_shipment_link(*, design: ClusterDesign, shipment: Shipment, actor=None) -> ClusterShipment:
    """Record that `shipment` carries goods of `design` (again: the same link, unchanged). A
    shipment serves one cluster, so its pieces are never counted for two."""
    existing = ClusterShipment.objects.select_for_update().filter(shipment=shipment).first()
    if existing is not None:
        if existing.design_id == design.pk:
            return existing
        raise ValidationError(
            {"shipment": f"{shipment} already carries goods of another cluster design ({existing.design})."}
        )
    link = ClusterShipment(
        design=design, shipment=shipment, created_by=actor if getattr(actor, "pk", None) else None
    )
    link.full_clean()
    link.save()
    return link


@transaction.atomic
def cluster_shipment_unlink(*, design: ClusterDesign, shipment: Shipment) -> None:
    """Forget the link (the shipment itself stays)."""
    deleted, _ = ClusterShipment.objects.filter(design=design, shipment=shipment).delete()
    if not deleted:
        raise ValidationError({"shipment": f"{shipment} is not a shipment of {design}."})


# --- the selector --------------------------------------------------------------------------------


@dataclass
class LineCoverage:
    line: int
    role: str
    role_label: str
    part: int
    part_number: str
    part_name: str
    quantity: int
    on_order: int = 0
    in_stock: int = 0
    shipped: int = 0
    delivered: int = 0
    shares_part: bool = False

    @property
    def covered(self) -> int:
        return self.on_order + self.in_stock + self.shipped + self.delivered

    @property
    def outstanding(self) -> int:
        """Still to be ordered: on no shipment of the cluster and in no warehouse for it."""
        return max(self.quantity - self.covered, 0)

    @property
    def surplus(self) -> int:
        return max(self.covered - self.quantity, 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "role": self.role,
            "role_label": self.role_label,
            "part": self.part,
            "part_number": self.part_number,
            "part_name": self.part_name,
            "quantity": self.quantity,
            "on_order": self.on_order,
            "in_stock": self.in_stock,
            "shipped": self.shipped,
            "delivered": self.delivered,
            "outstanding": self.outstanding,
            "surplus": self.surplus,
            "shares_part": self.shares_part,
        }


@dataclass
class LinkedShipment:
    shipment: int
    reference: str
    status: str
    status_label: str
    stage: str
    counted: bool
    destination: str


@dataclass
class Coverage:
    design: ClusterDesign
    bom: BillOfMaterials | None
    lines: list[LineCoverage] = field(default_factory=list)
    shipments: list[LinkedShipment] = field(default_factory=list)
    # Linked shipments the reader is no party to: neither listed nor counted.
    hidden_shipments: int = 0
    installed_note: str = INSTALLED_NOTE

    @property
    def totals(self) -> dict[str, int]:
        keys = ("quantity", "on_order", "in_stock", "shipped", "delivered")
        totals = {key: sum(getattr(line, key) for line in self.lines) for key in keys}
        totals["outstanding"] = sum(line.outstanding for line in self.lines)
        totals["lines_waiting"] = sum(1 for line in self.lines if line.delivered < line.quantity)
        totals["lines_uncovered"] = sum(1 for line in self.lines if line.outstanding)
        return totals

    def as_dict(self) -> dict[str, Any]:
        return {
            "design": self.design.pk,
            "bom": self.bom.pk if self.bom else None,
            "bom_version": self.bom.version if self.bom else None,
            "site": self.design.site_id,
            "customer": self.design.customer_id,
            "lines": [line.as_dict() for line in self.lines],
            "totals": self.totals,
            "shipments": [vars(s) for s in self.shipments],
            "hidden_shipments": self.hidden_shipments,
            "installed_note": self.installed_note,
        }


def _by_part(rows) -> dict[int, int]:
    return {part: int(n or 0) for part, n in rows}


def cluster_coverage(design: ClusterDesign, bom: BillOfMaterials | None = None, *, reader) -> Coverage:
    """Coverage of `bom` (default: the design's newest version) as `reader` may see it. Eight
    queries (seven given the version) whatever the size of the bill of materials and however many
    shipments and warehouse rows there are (asserted in tests/clusters/test_coverage.py): every
    count is one grouped query, the parts, shipments and the reader's scope are subqueries."""
    if bom is None:
        bom = BillOfMaterials.objects.filter(design=design).order_by("-version").first()
    coverage = Coverage(design=design, bom=bom)
    if bom is None:
        return coverage
    lines = list(BomLine.objects.filter(bom=bom, quantity__gt=0).select_related("part").order_by("id"))
    parts = BomLine.objects.filter(bom=bom).values("part_id")
    visible = Shipment.objects.visible_to(reader).values("pk")
    links = list(
        ClusterShipment.objects.filter(design=design)
        .annotate(shown=ExpressionWrapper(Q(shipment_id__in=visible), output_field=BooleanField()))
        .order_by("shipment__reference")
        .values_list(
            "shown", "shipment_id", "shipment__reference", "shipment__status", "shipment__held_from",
            "shipment__destination_id", "shipment__destination__name",
        )
    )  # fmt: skip
    for shown, pk, reference, status, held_from, destination_id, destination in links:
        if not shown:
            coverage.hidden_shipments += 1
            continue
        coverage.shipments.append(
            LinkedShipment(
                shipment=pk,
                reference=reference,
                status=status,
                status_label=str(ShipmentStatus(status).label),
                stage=stage_of(status, held_from),
                counted=destination_id == design.site_id,
                destination=destination,
            )
        )
    to_site = ClusterShipment.objects.filter(
        design=design, shipment__destination_id=design.site_id, shipment__in=visible
    ).values("shipment_id")
    site_lines = ShipmentLine.objects.filter(shipment__in=to_site, part__in=parts)

    # One grouped query for every stage: (part, status, held from) → pieces.
    by_stage: dict[str, dict[int, int]] = {"on_order": {}, "shipped": {}, "delivered": {}}
    for row in (
        site_lines.order_by()
        .values("part_id", "shipment__status", "shipment__held_from")
        .annotate(n=Sum("quantity"))
    ):
        stage = stage_of(row["shipment__status"], row["shipment__held_from"])
        if stage in by_stage:
            by_stage[stage][row["part_id"]] = by_stage[stage].get(row["part_id"], 0) + int(row["n"])

    # In a warehouse for the cluster's shipments that have not left yet (those pieces are on the
    # order too: counted in stock, not twice).
    pending = site_lines.filter(_stage_q(NOT_DEPARTED, "shipment__"))
    allocated_lots = _by_part(
        LotAllocation.objects.visible_to(reader)
        .filter(line__in=pending.values("pk"), status__in=IN_WAREHOUSE)
        .order_by()
        .values_list("line__part_id")
        .annotate(n=Sum("quantity"))
    )
    allocated_units = _by_part(
        UnitPlacement.objects.visible_to(reader)
        .filter(line__in=pending.values("pk"))
        .order_by()
        .values_list("line__part_id")
        .annotate(n=Count("pk"))
    )
    # The customer's own stock of the parts that no shipment line has taken, of what the reader's
    # own on-hand shows.
    customer = design.customer_id
    free_lots = _by_part(
        Lot.objects.visible_to(reader)
        .filter(owner_id=customer, part__in=parts, quantity__gt=F("allocated"))
        .order_by()
        .values_list("part_id")
        .annotate(n=Sum(F("quantity") - F("allocated")))
    )
    free_units = _by_part(
        UnitPlacement.objects.visible_to(reader)
        .filter(unit__owner_id=customer, unit__part__in=parts, line__isnull=True)
        .order_by()
        .values_list("unit__part_id")
        .annotate(n=Count("pk"))
    )

    totals: dict[int, dict[str, int]] = {}
    for part in {line.part_id for line in lines}:
        in_stock_for_orders = allocated_lots.get(part, 0) + allocated_units.get(part, 0)
        ordered = by_stage["on_order"].get(part, 0)
        totals[part] = {
            "delivered": by_stage["delivered"].get(part, 0),
            "shipped": by_stage["shipped"].get(part, 0),
            "in_stock": in_stock_for_orders + free_lots.get(part, 0) + free_units.get(part, 0),
            "on_order": max(ordered - in_stock_for_orders, 0),
        }

    seen: dict[int, int] = {}
    for line in lines:
        seen[line.part_id] = seen.get(line.part_id, 0) + 1
    remaining_lines = dict(seen)
    for line in lines:
        row = LineCoverage(
            line=line.pk,
            role=line.role,
            role_label=str(BomRole(line.role).label) if line.role in BomRole.values else line.role,
            part=line.part_id,
            part_number=line.part.part_number,
            part_name=line.part.name,
            quantity=line.quantity,
            shares_part=seen[line.part_id] > 1,
        )
        remaining_lines[line.part_id] -= 1
        left = totals[line.part_id]
        room = line.quantity
        for bucket in BUCKETS:
            # The last line of a part takes all that is left (a surplus shows on it).
            take = left[bucket] if remaining_lines[line.part_id] == 0 else min(left[bucket], room)
            setattr(row, bucket, take)
            left[bucket] -= take
            room = max(room - take, 0)
        coverage.lines.append(row)
    return coverage
