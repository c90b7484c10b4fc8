import pytest

from apps.shipments.validators import air_waybill_problem, iata_problem, locode_problem


@pytest.mark.parametrize("number", ["618-20240010", "695-12345675", "02045678905", "020 45678905"])
def test_valid_air_waybills(number):
    assert air_waybill_problem(number) is None


@pytest.mark.parametrize(
    "number, fragment", [("618-20240011", "check digit (expected 0)"), ("618-2024", "11 digits")]
)
def test_invalid_air_waybills(number, fragment):
    assert fragment in air_waybill_problem(number)


def test_iata_codes_are_checked_against_the_airport_list_and_country():
    assert iata_problem("MAA", "IN") is None
    assert "not a known IATA" in iata_problem("QQQ", "IN")
    assert "Singapore Changi" in iata_problem("SIN", "IN")


def test_locode_format_and_country():
    assert locode_problem("INMAA", "IN") is None
    assert "is in IN" in locode_problem("INMAA", "SG")
    assert "not a UN/LOCODE" in locode_problem("IN-MA", "IN")
