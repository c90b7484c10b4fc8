"""Which classification changes lower control (and so need a second compliance officer)."""

import pytest

from apps.compliance.engines.control import ControlTier, control_change, control_tier


@pytest.mark.parametrize(
    ("eccn", "tier"),
    [
        ("4A090.a", ControlTier.CONTROLLED),
        ("3A090", ControlTier.CONTROLLED),
        ("3A001.a.7", ControlTier.CONTROLLED),
        ("5A002.a", ControlTier.CONTROLLED),
        ("9A610.a", ControlTier.CONTROLLED),  # 600 series
        ("0A501", ControlTier.CONTROLLED),  # 0x5zz
        ("9A515.a", ControlTier.CONTROLLED),
        ("5A992.z", ControlTier.CONTROLLED),  # a .z paragraph: controlled as 3A090/4A090
        ("5A992.c", ControlTier.ANTI_TERRORISM),
        ("4A994", ControlTier.ANTI_TERRORISM),
        ("3A991", ControlTier.ANTI_TERRORISM),
        ("5a991", ControlTier.ANTI_TERRORISM),  # case is normalised
        ("EAR99", ControlTier.EAR99),
        ("ear99", ControlTier.EAR99),
        ("", ControlTier.UNCLASSIFIED),
        (None, ControlTier.UNCLASSIFIED),
        ("5A992c", ControlTier.UNCLASSIFIED),  # not an ECCN
        ("EAR98", ControlTier.UNCLASSIFIED),
    ],
)
def test_tiers(eccn, tier):
    assert control_tier(eccn) == tier


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("4A090.a", "EAR99"),
        ("4A090.a", "5A992.c"),
        ("4A090.a", "4A994"),
        ("3A090", "3A991"),
        ("5A992.z", "5A992.c"),
        ("4A994", "EAR99"),
        ("", "4A090.a"),  # unclassified is held as the most controlled
        (None, "EAR99"),
        ("4A090.a", "5A002.a"),  # same tier, another number: licence exception ENC opens
        ("3A090.a", "3A090.b"),
        ("5A992.c", "5A991"),
    ],
)
def test_changes_that_lower_control(before, after):
    change = control_change(before, after)
    assert change.lowers_control, change.explanation


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("EAR99", "4A994"),
        ("EAR99", "4A090.a"),
        ("4A994", "4A090.a"),
        ("5A992.c", "5A992.z"),
        ("4A090.a", "4A090.a"),  # kept
        ("4a090.A", "4A090.a"),
    ],
)
def test_changes_that_do_not(before, after):
    change = control_change(before, after)
    assert not change.lowers_control, change.explanation


def test_the_explanation_names_both_numbers_and_tiers():
    change = control_change("4A090.a", "EAR99")
    assert (change.before_tier, change.after_tier) == (ControlTier.CONTROLLED, ControlTier.EAR99)
    assert change.explanation.startswith("4A090.a (a controlled entry") and "EAR99" in change.explanation
    assert "lowers control" in change.explanation
    assert "raises control" in control_change("EAR99", "4A090.a").explanation
    assert "unclassified" in control_change(None, "4A994").explanation
