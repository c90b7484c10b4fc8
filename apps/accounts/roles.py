"""Roles and what each may do: one table, read by the API permission, the browser views and the menu."""

from django.db import models


class Role(models.TextChoices):
    COORDINATOR = "coordinator", "Logistics coordinator"
    COMPLIANCE_OFFICER = "compliance_officer", "Compliance officer"
    WAREHOUSE_OPERATOR = "warehouse_operator", "Warehouse operator"
    PARTNER = "partner", "Partner"  # a supplier, forwarder or customer: in the browser or by the API
    ADMIN = "admin", "Administrator"


ALL_ROLES = frozenset(Role)
STAFF_ROLES = frozenset({Role.COORDINATOR, Role.COMPLIANCE_OFFICER, Role.WAREHOUSE_OPERATOR, Role.ADMIN})

# capability → roles that hold it. Scoping (which objects) is separate: see apps.core.scoping.
CAPABILITIES: dict[str, frozenset[str]] = {
    "dashboard.view": ALL_ROLES,
    "catalog.view": ALL_ROLES,
    # Partners (suppliers) maintain their own parts; scoping limits them to those.
    "catalog.edit": frozenset({Role.COORDINATOR, Role.ADMIN, Role.PARTNER}),
    "organisations.view": ALL_ROLES,
    "organisations.edit": frozenset({Role.COORDINATOR, Role.ADMIN}),
    # Who works with whom (accounts.Connection): partners read their own, operator staff keep them.
    "connections.view": ALL_ROLES,
    "connections.manage": frozenset({Role.COORDINATOR, Role.ADMIN}),
    "users.manage": frozenset({Role.ADMIN}),
    "tokens.manage": ALL_ROLES,
    "audit.view": ALL_ROLES,
    # Shipments: partners act on their own (scoping decides which).
    "shipments.view": ALL_ROLES,
    "shipments.edit": frozenset({Role.COORDINATOR, Role.ADMIN, Role.PARTNER}),
    "shipments.submit": frozenset({Role.COORDINATOR, Role.ADMIN, Role.PARTNER}),
    "shipments.approve": frozenset({Role.COMPLIANCE_OFFICER, Role.ADMIN}),
    "shipments.book": frozenset({Role.COORDINATOR, Role.ADMIN}),
    "shipments.track": frozenset({Role.COORDINATOR, Role.ADMIN, Role.PARTNER, Role.WAREHOUSE_OPERATOR}),
    "shipments.hold": frozenset({Role.COORDINATOR, Role.COMPLIANCE_OFFICER, Role.ADMIN}),
    "shipments.release_customs_hold": frozenset({Role.COORDINATOR, Role.ADMIN, Role.PARTNER}),
    # Released by a compliance decision (four eyes: apps.compliance.services.approvals).
    "shipments.release_compliance_hold": frozenset({Role.COMPLIANCE_OFFICER}),
    "shipments.cancel": frozenset({Role.COORDINATOR, Role.ADMIN}),
    # Approved, not booked, back to draft: voids issued documents and reopens the compliance answer.
    "shipments.amend": frozenset({Role.COORDINATOR, Role.ADMIN}),
    "sites.view": ALL_ROLES,
    "sites.edit": frozenset({Role.COORDINATOR, Role.ADMIN, Role.PARTNER}),
    "compliance.view": ALL_ROLES,
    "compliance.run": frozenset({Role.COORDINATOR, Role.COMPLIANCE_OFFICER, Role.ADMIN}),
    "compliance.review": frozenset({Role.COMPLIANCE_OFFICER, Role.ADMIN}),
    # Compliance decisions that loosen control and the four-eyes policy itself: asking for one and
    # approving another officer's (override down, confirm a default, release a hold, lift a block).
    "compliance.decide": frozenset({Role.COMPLIANCE_OFFICER}),
    "screening.adhoc": ALL_ROLES,
    "tasks.view": ALL_ROLES,
    "documents.view": ALL_ROLES,
    "documents.generate": frozenset({Role.COORDINATOR, Role.COMPLIANCE_OFFICER, Role.ADMIN}),
    "documents.issue": frozenset({Role.COORDINATOR, Role.COMPLIANCE_OFFICER, Role.ADMIN}),
    "freight.view": ALL_ROLES,
    # The carrier rate table is the operator's: partners never read its rates.
    "freight.rates.view": STAFF_ROLES,
    "freight.edit": frozenset({Role.COORDINATOR, Role.ADMIN}),
    # Warehouse stock. Partners see the stock they own or that is held for them.
    "stock.view": ALL_ROLES,
    # Receive, put away, move, count, pick, pack and ship: the warehouse floor.
    "stock.operate": frozenset({Role.WAREHOUSE_OPERATOR, Role.ADMIN}),
    # Allocate stock to an outbound shipment's lines (and release it): planning, on the floor or not.
    "stock.allocate": frozenset({Role.COORDINATOR, Role.WAREHOUSE_OPERATOR, Role.ADMIN}),
    # Import serials in bulk, keep the warehouse's locations.
    "stock.manage": frozenset({Role.WAREHOUSE_OPERATOR, Role.COORDINATOR, Role.ADMIN}),
    # Cluster designs. Partners see the designs their organisation owns or is the
    # customer of; they plan (edit, size, turn into bills of materials, issue) only their own.
    "clusters.view": ALL_ROLES,
    "clusters.plan": frozenset({Role.COORDINATOR, Role.ADMIN, Role.PARTNER}),
}


# Held by the role alone: a superuser (or an administrator) without the compliance officer role is
# not a compliance officer, so one person cannot be both the officer and the second pair of eyes.
ROLE_BOUND = frozenset({"compliance.decide", "shipments.release_compliance_hold"})


def has_capability(role: str | None, capability: str, *, is_superuser: bool = False) -> bool:
    if is_superuser and capability not in ROLE_BOUND:
        return True
    if capability not in CAPABILITIES:
        raise KeyError(f"Unknown capability {capability!r}")
    return role in CAPABILITIES[capability]
