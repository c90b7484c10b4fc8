"""Writes for shipments, by subject: shipments and their parties, lines and serials, packages,
legs, the one status-changing service (`status`), milestones, sites and rates. Import from here."""

from .base import owner_for, require_draft, validated_save
from .legs import GATEWAY_KINDS, HUB_KINDS, leg_add, leg_remove, leg_update
from .lines import (
    LINE_PARTY_ROLES,
    LIVE_STATUSES,
    goods_owner_id,
    line_add,
    line_remove,
    line_update,
    serials_set,
    trade_description,
)
from .milestones import event_record
from .packages import package_add, package_remove, package_suggestion
from .parties import check_party, party_set
from .shipments import shipment_create, shipment_update
from .sites import exchange_rate_save, freight_rate_save, site_create, site_update
from .status import (
    AMEND_CAPABILITY,
    RELEASE,
    TRANSITION_CAPABILITY,
    RecordPartyProblem,
    TransitionForbidden,
    TransitionRefused,
    departed_at,
    guard_problems,
    shipment_amend,
    shipment_transition,
    transition_capability,
)

__all__ = [
    "AMEND_CAPABILITY",
    "GATEWAY_KINDS",
    "HUB_KINDS",
    "LINE_PARTY_ROLES",
    "LIVE_STATUSES",
    "RELEASE",
    "RecordPartyProblem",
    "TRANSITION_CAPABILITY",
    "TransitionForbidden",
    "TransitionRefused",
    "check_party",
    "departed_at",
    "event_record",
    "exchange_rate_save",
    "freight_rate_save",
    "goods_owner_id",
    "guard_problems",
    "leg_add",
    "leg_remove",
    "leg_update",
    "line_add",
    "line_remove",
    "line_update",
    "owner_for",
    "package_add",
    "package_suggestion",
    "package_remove",
    "party_set",
    "require_draft",
    "serials_set",
    "shipment_amend",
    "shipment_create",
    "shipment_transition",
    "shipment_update",
    "site_create",
    "site_update",
    "trade_description",
    "transition_capability",
    "validated_save",
]
