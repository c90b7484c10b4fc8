import datetime as dt

from apps.shipments.engines.record_parties import (
    PartyFacts,
    RegistrationFact,
    exporter_of_record_need,
    importer_of_record_need,
)

TODAY = dt.date(2026, 12, 2)
INDIAN = PartyFacts("Chennai AI", "IN", (RegistrationFact("iec", "IN"), RegistrationFact("gstin", "IN")))


def test_indian_consignee_with_iec_and_gstin_imports_itself():
    need = importer_of_record_need("IN", INDIAN, today=TODAY)
    assert not need.needed and "(IEC, GSTIN)" in need.reasons[0]


def test_missing_or_expired_registration_needs_an_ior():
    expired = PartyFacts(
        "Chennai AI",
        "IN",
        (RegistrationFact("iec", "IN"), RegistrationFact("gstin", "IN", dt.date(2026, 1, 1))),
    )
    need = importer_of_record_need("IN", expired, today=TODAY)
    assert need.needed and "lacks a valid GSTIN in IN" in need.reasons[0]


def test_foreign_buyer_needs_an_ior_and_no_consignee_too():
    need = importer_of_record_need("IN", PartyFacts("SG Buyer", "SG"), today=TODAY)
    assert need.needed and need.reasons[0] == "SG Buyer has no registered entity in IN."
    assert importer_of_record_need("IN", None, today=TODAY).needed


def test_entity_by_registration_counts_as_presence():
    branch = PartyFacts("Global Co", "US", (RegistrationFact("iec", "IN"), RegistrationFact("gstin", "IN")))
    assert not importer_of_record_need("IN", branch, today=TODAY).needed


def test_exporter_of_record():
    assert not exporter_of_record_need("TW", PartyFacts("QCT", "TW"), today=TODAY).needed
    us = exporter_of_record_need("US", PartyFacts("Acme", "US"), today=TODAY)
    assert us.needed and "EIN" in us.reasons[0]
    assert exporter_of_record_need("TW", PartyFacts("Acme", "US"), today=TODAY).needed
