import pytest

from apps.core.hscodes import hs_code_problem, normalise_hs_code


@pytest.mark.parametrize(
    "raw, expected", [("8471.50", "847150"), ("8471 50 00", "84715000"), ("8517-62", "851762")]
)
def test_normalise_strips_separators(raw, expected):
    assert normalise_hs_code(raw) == expected


@pytest.mark.parametrize("code", ["847150", "84715000", "847150001", "8471500010", "851762"])
def test_valid_codes(code):
    assert hs_code_problem(code) is None


@pytest.mark.parametrize(
    "code, fragment",
    [
        ("84715", "has 5"),
        ("8471500", "has 7"),
        ("84715000101", "has 11"),
        ("84A150", "digits only"),
        ("770000", "chapter 77"),
        ("980000", "chapter 98"),
        ("000000", "chapter 00"),
    ],
)
def test_invalid_codes_say_why(code, fragment):
    assert fragment in hs_code_problem(code)
