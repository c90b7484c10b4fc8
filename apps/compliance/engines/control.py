"""How controlled an ECCN is, and whether changing a classification lowers control.

No Django imports. A compliance officer's override of an export classification is a decision
that a second officer checks when it lowers control (the four-eyes rule, applied by the
compliance services): moving a 4A090.a server to EAR99 takes it off the licence requirements of
the Commerce Control List, and one person alone must not be able to do that.

Control is ranked in tiers, read from the ECCN's structure (15 CFR 738.2(d)):

- **unclassified** (no ECCN, an incomplete answer, a string that is no ECCN) is the most
  controlled: nothing shows it is less, so it is held as if it were controlled;
- **controlled**: entries whose three digits start 0–8 — national security and multilateral
  entries (3A001, 4A090, 5A002), the 600 series (9A610, 3A611), the 0x5zz entries (0A501, 9A515) —
  and every ``.z`` paragraph (5A992.z is a 5A992 item that also meets 3A090/4A090: controlled as
  that, not as 5A992);
- **anti-terrorism only**: the x9xx entries (3A991, 4A994, 5A991, 5A992.c);
- **EAR99**: subject to the EAR but on no CCL entry, the least controlled.

A change lowers control when it moves to a lower tier, or to a different number in the same
tier: within a tier the reasons for control and the licence exceptions differ (4A090.a → 5A002.a
opens licence exception ENC, 3A090.a → 3A090.b changes the destinations that need a licence), and
the ranking cannot show that such a move is not a loosening — so it is treated as one. Only
keeping the same number, or moving to a more controlled tier (an upgrade), is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from .eccn import eccn_problem, normalise_eccn

__all__ = ["ControlChange", "ControlTier", "control_change", "control_tier"]


class ControlTier(IntEnum):
    """Tiers of control, least controlled first (compare with < and >)."""

    EAR99 = 0
    ANTI_TERRORISM = 1
    CONTROLLED = 2
    UNCLASSIFIED = 3

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    ControlTier.EAR99: "EAR99: on no CCL entry",
    ControlTier.ANTI_TERRORISM: "an anti-terrorism-only (x9xx) entry",
    ControlTier.CONTROLLED: "a controlled entry (x0xx–x8xx, 600 series, .z paragraph)",
    ControlTier.UNCLASSIFIED: "unclassified (held as the most controlled)",
}


def control_tier(eccn: str | None) -> ControlTier:
    """The tier of ``eccn``; anything that is not an ECCN (empty, malformed) is unclassified."""
    value = normalise_eccn(eccn or "")
    if not value or eccn_problem(value) is not None:
        return ControlTier.UNCLASSIFIED
    if value == "EAR99":
        return ControlTier.EAR99
    entry, _, paragraphs = value.partition(".")
    if paragraphs.split(".")[0] == "z":
        return ControlTier.CONTROLLED
    return ControlTier.ANTI_TERRORISM if entry[2] == "9" else ControlTier.CONTROLLED


@dataclass(frozen=True)
class ControlChange:
    """What moving a classification from ``before`` to ``after`` does to control."""

    before: str
    after: str
    before_tier: ControlTier
    after_tier: ControlTier
    lowers_control: bool
    explanation: str


def control_change(before: str | None, after: str) -> ControlChange:
    """Compare two classifications (``before`` empty or None: unclassified)."""
    was, new = normalise_eccn(before or ""), normalise_eccn(after or "")
    was_tier, new_tier = control_tier(was), control_tier(new)
    shown_was = was if was_tier != ControlTier.UNCLASSIFIED else "unclassified"
    shown_new = new or "unclassified"
    if was == new and was_tier != ControlTier.UNCLASSIFIED:
        lowers, why = False, f"{shown_new} is kept: control does not change"
    elif new_tier > was_tier:
        lowers, why = False, f"{shown_was} ({was_tier.label}) → {shown_new} ({new_tier.label}) raises control"
    elif new_tier < was_tier:
        lowers, why = True, f"{shown_was} ({was_tier.label}) → {shown_new} ({new_tier.label}) lowers control"
    else:
        lowers, why = (
            True,
            f"{shown_was} → {shown_new}: another number in the same tier ({new_tier.label}); its reasons "
            "for control and licence exceptions differ, so the move counts as lowering control",
        )
    return ControlChange(
        before=was,
        after=new,
        before_tier=was_tier,
        after_tier=new_tier,
        lowers_control=lowers,
        explanation=why,
    )
