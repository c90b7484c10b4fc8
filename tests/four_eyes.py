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


def clear_with_second_officer(*, hit, reason: str, actor, second=None):
    """`services.hit_clear` (a request while four eyes is on), approved by `second` (made if not
    given): the hit as cleared."""
    result = services.hit_clear(hit=hit, actor=actor, reason=reason)
    if result.status == "open":
        approval = ComplianceApproval.objects.get(hit=hit, status="pending")
        services.approval_approve(approval=approval, actor=second or second_officer_of(actor))
        result.refresh_from_db()
    return result


def classify_with_second_officer(*, part, eccn: str, reason: str, actor, second=None) -> PartClassification:
    """`services.part_classification_override`, approved by `second` (made if not given) when it waits."""
    result = services.part_classification_override(part=part, eccn=eccn, reason=reason, actor=actor)
    if isinstance(result, ComplianceApproval):
        services.approval_approve(approval=result, actor=second or second_officer_of(actor))
        result = services.current_classification(part)
    return result
