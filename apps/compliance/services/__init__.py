"""Compliance services, by topic. Import from here."""

from .alerts import alert_acknowledge, open_alerts
from .checks import (
    approval_problems,
    compliance_check_run,
    compliance_check_start,
    hold_reason_resolve,
    latest_check,
    shipment_fingerprint,
)
from .classification import current_classification, part_classification_override, part_classify, part_figures
from .countries import active_country_data, country_data_load, country_data_load_default
from .licences import licence_expire, licence_save, remaining
from .screening import (
    adhoc_screen,
    attach_shipments,
    block_lift_approve,
    block_lift_request,
    block_lift_withdraw,
    block_reversal_needs_second_officer,
    default_threshold,
    hit_clear,
    hit_confirm,
    open_hits_for,
    organisation_screen,
    rescreen_all,
    review_queue,
    screening_list_import,
)

__all__ = [
    "alert_acknowledge",
    "open_alerts",
    "active_country_data",
    "adhoc_screen",
    "approval_problems",
    "attach_shipments",
    "block_lift_approve",
    "block_lift_request",
    "block_lift_withdraw",
    "block_reversal_needs_second_officer",
    "compliance_check_run",
    "compliance_check_start",
    "country_data_load",
    "country_data_load_default",
    "current_classification",
    "default_threshold",
    "hit_clear",
    "hit_confirm",
    "hold_reason_resolve",
    "latest_check",
    "licence_expire",
    "licence_save",
    "open_hits_for",
    "organisation_screen",
    "part_classification_override",
    "part_classify",
    "part_figures",
    "remaining",
    "rescreen_all",
    "review_queue",
    "screening_list_import",
    "shipment_fingerprint",
]
