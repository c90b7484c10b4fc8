"""What a partner reads of a compliance check (docs/security.md, "What a partner sees").

Operator staff read everything. A partner (a party or the owner of the shipment) reads the check's
result and summary, each line's classification, determination and reasoning (about the goods,
which it needs to correct a part's figures), its own organisation's party result without the
screening's reasoning, and each hold reason's kind and text — except that restricted-party
reasons (screening, blocked party) say only that a party is under review: which list entry a
party's name matched, the score and the officers' decisions are the operator's. How a reason was
resolved is shown, not the officer's note; the operator's people are "Rackpass staff".
Another organisation's licence is hidden where it always was (`visible_licences`).
"""

from __future__ import annotations

from .models import HoldKind

RESTRICTED_PARTY_KINDS = (HoldKind.SCREENING, HoldKind.BLOCKED)
RESTRICTED_PARTY_TEXT = (
    "A party of this shipment is under restricted-party review by Rackpass compliance; "
    "the shipment waits for the decision."
)


def is_partner(viewer) -> bool:
    return viewer is not None and not getattr(viewer, "is_operator_staff", False)


def hold_text(hold, viewer) -> str | None:
    """The text a partner reads instead of the hold reason's own, or None to read it as it is."""
    if is_partner(viewer) and hold.kind in RESTRICTED_PARTY_KINDS:
        return RESTRICTED_PARTY_TEXT
    return None


def hold_resolution(hold, viewer) -> str | None:
    """For a partner: how the reason was resolved, not the officer's note (None: staff read it)."""
    if not is_partner(viewer):
        return None
    return f"Resolved: {hold.get_resolved_via_display().lower()}." if hold.resolved_at else ""


def party_results_for(results, viewer) -> list:
    """The party results `viewer` reads: all for staff, its own organisation's for a partner."""
    results = list(results)
    if not is_partner(viewer):
        return results
    return [r for r in results if r.organisation_id == viewer.organisation_id]
