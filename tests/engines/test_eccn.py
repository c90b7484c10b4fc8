"""ECCN structure and normalisation (apps/compliance/engines/eccn.py), on worked examples."""

import pytest

from apps.compliance.engines import determination
from apps.compliance.engines.eccn import KNOWN_ECCNS, eccn_base, eccn_problem, is_known_eccn, normalise_eccn


@pytest.mark.parametrize(
    "raw, normalised",
    [
        ("4a090.A", "4A090.a"),
        (" 5A992.C ", "5A992.c"),
        ("ear99", "EAR99"),
        ("3a090.a.1", "3A090.a.1"),
        ("5A992c", "5A992C"),  # stays wrong: eccn_problem refuses it rather than guessing
        ("", ""),
    ],
)
def test_normalise_eccn(raw, normalised):
    assert normalise_eccn(raw) == normalised


@pytest.mark.parametrize(
    "value",
    [
        "EAR99",
        "ear99",
        "3A090",
        "3A090.a",
        "3A090.a.1",
        "3A090.b.2",
        "3A090.c",
        "4A090.a",
        "4A090.z",
        "5A992.c",
        "5A992.C",  # normalises to 5A992.c
        "5A002.a",
        "5A002.z",
        "4A994",
        "4a994.b",
        "3A001.b.2.a",
        "0A919.a.1",
    ],
)
def test_real_structures_are_accepted(value):
    assert eccn_problem(value) is None


@pytest.mark.parametrize(
    "value, words",
    [
        ("9Z999", "product group"),
        ("4A090.zz", "paragraph"),
        ("5A992c", "5A992.c"),  # the finding: stored as 5A992C
        ("4A09", "5 characters"),
        ("4A0900", "5 characters"),
        ("A4090", "category"),
        ("4AX90", "three digits"),
        ("4A090.", "paragraph"),
        ("4A090.1", "paragraph"),
        ("4A090.a.bb", "sub-paragraph"),
        ("4A090..a", "paragraph"),
        ("EAR 99", "not an ECCN"),
        ("EAR98", "not an ECCN"),
        ("", "Give an ECCN"),
        ("   ", "Give an ECCN"),
    ],
)
def test_malformed_eccns_are_refused_with_a_reason(value, words):
    problem = eccn_problem(value)
    assert problem is not None and words in problem, problem


def test_known_eccns_cover_the_reference_and_the_determination_engine():
    known = dict(KNOWN_ECCNS)
    for eccn in (
        "EAR99",
        "3A090.a",
        "3A090.b",
        "3A090.c",
        "4A090.a",
        "4A090.b",
        "5A992.c",
        "5A002.a",
        "4A994",
    ):
        assert eccn in known, eccn
    for z in ("3A001.z", "4A003.z", "4A004.z", "4A005.z", "5A002.z", "5A004.z", "5A992.z"):
        assert z in known, z
    bases = {eccn_base(e) for e in known}
    assert set(determination.REASONS_FOR_CONTROL) <= bases
    assert all(eccn_problem(e) is None and title for e, title in KNOWN_ECCNS)
    assert len(known) == len(KNOWN_ECCNS)  # no duplicates


def test_is_known_eccn():
    assert is_known_eccn("4A090.a") and is_known_eccn("4a090.A") and is_known_eccn("4A090")
    assert is_known_eccn("3A090.a.1")  # a sub-paragraph of a known entry
    assert is_known_eccn("5A991.b")  # a paragraph under a known bare entry
    assert not is_known_eccn("3A001.a")  # only 3A001.z is known
    assert not is_known_eccn("9A610.y")
    assert not is_known_eccn("9Z999")


def test_eccn_base():
    assert eccn_base("4A090.a.1") == "4A090"
    assert eccn_base("ear99") == "EAR99"


def test_the_module_is_pure():
    from pathlib import Path

    import apps.compliance.engines.eccn as module

    source = Path(module.__file__).read_text()
    assert "django" not in source.lower().replace("no django imports", "")
