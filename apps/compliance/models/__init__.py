from .alerts import ComplianceAlert
from .approvals import APPROVAL_TRANSITIONS, ApprovalKind, ApprovalStatus, ComplianceApproval
from .checks import (
    CheckLineResult,
    CheckPartyResult,
    CheckResult,
    ComplianceCheck,
    HoldKind,
    HoldReason,
    ResolvedVia,
)
from .classification import ClassificationSource, PartCertification, PartClassification
from .countries import CountryDataVersion, ImportRequirement, RequirementKind
from .licences import Licence, LicenceDrawdown
from .screening import HitStatus, PartyBlock, Screening, ScreeningHit, ScreeningList, ScreeningListEntry

__all__ = [
    "APPROVAL_TRANSITIONS",
    "ApprovalKind",
    "ApprovalStatus",
    "CheckLineResult",
    "CheckPartyResult",
    "CheckResult",
    "ClassificationSource",
    "ComplianceAlert",
    "ComplianceApproval",
    "ComplianceCheck",
    "CountryDataVersion",
    "HitStatus",
    "HoldKind",
    "HoldReason",
    "ImportRequirement",
    "Licence",
    "LicenceDrawdown",
    "PartCertification",
    "PartClassification",
    "PartyBlock",
    "RequirementKind",
    "ResolvedVia",
    "Screening",
    "ScreeningHit",
    "ScreeningList",
    "ScreeningListEntry",
]
