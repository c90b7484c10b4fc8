"""Compliance services, by topic. Import from here."""

from .alerts import alert_acknowledge, open_alerts
from .approvals import (
    approval_approve,
    approval_reject,
    approval_withdraw,
    block_lift_approve,
    block_lift_request,
    block_lift_withdraw,
    classification_decision,
    compliance_hold_release_request,
    four_eyes_policy,
    four_eyes_policy_request,
    hit_clear,
    hold_reason_resolve,
    is_compliance_officer,
    part_classification_override,
)
from .checks import approval_problems, compliance_check_run, compliance_check_start, latest_check
from .classification import current_classification, part_classify, part_figures
from .countries import active_country_data, country_data_load, country_data_load_default
from .fingerprint import shipment_fingerprint
from .licences import licence_expire, licence_save, remaining, running_low
from .requirements import (
    import_requirement_delete,
    import_requirement_save,
    part_certification_delete,
    part_certification_save,
)
from .screening import (
    adhoc_screen,
    attach_shipments,
    default_threshold,
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
    "approval_approve",
    "approval_problems",
    "approval_reject",
    "approval_withdraw",
    "attach_shipments",
    "block_lift_approve",
    "block_lift_request",
    "block_lift_withdraw",
    "classification_decision",
    "compliance_hold_release_request",
    "compliance_check_run",
    "compliance_check_start",
    "country_data_load",
    "country_data_load_default",
    "current_classification",
    "default_threshold",
    "four_eyes_policy",
    "four_eyes_policy_request",
    "hit_clear",
    "hit_confirm",
    "hold_reason_resolve",
    "is_compliance_officer",
    "latest_check",
    "licence_expire",
    "licence_save",
    "open_hits_for",
    "organisation_screen",
    "part_classification_override",
    "part_classify",
    "import_requirement_delete",
    "import_requirement_save",
    "part_certification_delete",
    "part_certification_save",
    "part_figures",
    "remaining",
    "running_low",
    "rescreen_all",
    "review_queue",
    "screening_list_import",
    "shipment_fingerprint",
]
