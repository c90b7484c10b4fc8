import pytest

from apps.accounts.registrations import format_problem, normalise


@pytest.mark.parametrize(
    "scheme, number",
    [
        ("gstin", "33AAKCC5521M1Z2"),
        ("iec", "AAKCC5521M"),
        ("eori", "DE123456789012345"),
        ("ein", "12-3456789"),
        ("uen", "201912345K"),
        ("other", "anything goes"),
    ],
)
def test_valid_numbers(scheme, number):
    assert format_problem(scheme, normalise(scheme, number)) is None


@pytest.mark.parametrize(
    "scheme, number",
    [("gstin", "33AAKCC5521M1X2"), ("iec", "AAKCC5521"), ("eori", "123456"), ("ein", "12-345678")],
)
def test_invalid_numbers_name_the_expected_format(scheme, number):
    problem = format_problem(scheme, normalise(scheme, number))
    assert problem and "expected" in problem


def test_normalise_uppercases_and_formats_ein():
    assert normalise("gstin", " 33aakcc5521m1z2 ") == "33AAKCC5521M1Z2"
    assert normalise("ein", "123456789") == "12-3456789"
