"""Test helper: an officer's classification taking effect, with a second officer's approval where
four eyes asks for one (apps.compliance.services.approvals; the rules are in
tests/compliance/test_four_eyes.py)."""

from __future__ import annotations

from apps.accounts.roles import Role
from apps.compliance import services
from apps.compliance.models import ComplianceApproval, PartClassification
from tests.factories import UserFactory


def second_officer_of(officer):
    """Another compliance officer of `officer`'s organisation."""
    return UserFactory(organisation=officer.organisation, role=Role.COMPLIANCE_OFFICER)


def classify_with_second_officer(*, part, eccn: str, reason: str, actor, second=None) -> PartClassification:
    """`services.part_classification_override`, approved by `second` (made if not given) when it waits."""
    result = services.part_classification_override(part=part, eccn=eccn, reason=reason, actor=actor)
    if isinstance(result, ComplianceApproval):
        services.approval_approve(approval=result, actor=second or second_officer_of(actor))
        result = services.current_classification(part)
    return result
