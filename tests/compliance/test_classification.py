"""Part classification decisions that cannot be bypassed: typed figures, needs-confirmation,
bad stored figures, ECCN validation, and the change notice to open shipments."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from apps.compliance import services
from apps.compliance.engines.classification import NO_ACCELERATOR
from apps.compliance.models import ClassificationSource, ComplianceApproval, Licence, PartClassification
from apps.compliance.services import classification as classification_services
from tests.factories import PartFactory
from tests.four_eyes import classify_with_second_officer, second_officer_of


@pytest.fixture
def changes(monkeypatch):
    """Calls to part_classification_changed (its effect belongs to the checks' own tests)."""
    calls = []
    monkeypatch.setattr(
        classification_services,
        "part_classification_changed",
        lambda *, part, actor, reason: calls.append((part.pk, actor, reason)),
    )
    return calls


def server(**fields):
    return PartFactory(category="server", hs_code="847150", **fields)


# --- finding 1: a server with no accelerator is not a CPU-only computer ------------------------------


def test_dgx_b200_saved_without_its_accelerator_is_incomplete(db, changes):
    dgx = server(name="NVIDIA DGX B200", part_number="DGXB-G1440+P1CMI36")
    row = services.part_classify(part=dgx)
    assert (row.eccn, row.is_complete, row.needs_confirmation) == ("", False, False)
    assert row.missing == [NO_ACCELERATOR] == ["accelerator (or affirm the server is CPU-only)"]


def test_a_server_affirmed_cpu_only_is_4a994_needing_confirmation(db, changes):
    row = services.part_classify(part=server(name="CPU node", cpu_only=True))
    assert (row.eccn, row.is_complete, row.needs_confirmation) == ("4A994", True, True)
    assert row.figures_used["cpu_only"] == "yes"


# --- finding 2: needs_confirmation is stored and shown ------------------------------------------------


def test_needs_confirmation_is_stored_from_the_engine(db, changes):
    switch = PartFactory(category="network_switch", encryption=False)
    assert services.part_classify(part=switch).needs_confirmation is True
    gpu = PartFactory(category="accelerator", hs_code="847330", tpp=Decimal(5000))
    assert services.part_classify(part=gpu).needs_confirmation is False


def test_an_unchanged_answer_with_a_different_needs_confirmation_is_still_stored(db, changes):
    switch = PartFactory(category="network_switch", encryption=False)
    stale = services.part_classify(part=switch)
    # A row written before the flag existed: same ECCN, reasoning and rules, flag False.
    PartClassification.objects.filter(pk=stale.pk).update(needs_confirmation=False)
    row = services.part_classify(part=switch)
    assert row.pk != stale.pk and row.needs_confirmation is True and row.is_current
    assert PartClassification.objects.filter(part=switch, is_current=True).get() == row
    assert changes[-1][0] == switch.pk and "needs an officer's confirmation" in changes[-1][2]


def test_an_officer_override_needs_no_confirmation(db, compliance_officer, changes):
    switch = PartFactory(category="network_switch", encryption=False)
    assert services.part_classify(part=switch).needs_confirmation is True
    row = classify_with_second_officer(  # 5A991 → 5A991.b: another number, four eyes
        part=switch, eccn="5A991.b", reason="Manufacturer's classification letter", actor=compliance_officer
    )
    assert (row.eccn, row.needs_confirmation, row.source) == ("5A991.b", False, ClassificationSource.OFFICER)


def test_the_api_shows_needs_confirmation(coordinator, api_as, db):
    switch = PartFactory(category="network_switch", encryption=False)
    body = api_as(coordinator).post("/api/v1/classifications/run/", {"part": switch.pk}, format="json").json()
    assert body["eccn"] == "5A991" and body["needs_confirmation"] is True


def test_the_page_shows_a_default_as_needing_confirmation(coordinator, browser_as, db):
    switch = PartFactory(category="network_switch", encryption=False)
    services.part_classify(part=switch)
    page = browser_as(coordinator).get(f"/compliance/parts/{switch.pk}/").content.decode()
    assert (
        "default — needs an officer&#x27;s confirmation" in page
        or "default — needs an officer's confirmation" in page
    )


# --- finding 4: a bad stored figure gives an incomplete answer, never an exception ----------------------


@pytest.mark.parametrize(
    "bad, figure",
    [
        ({"tpp": Decimal("-5")}, "tpp"),
        ({"dense_tops": {"8": "lots"}}, "dense_tops"),
        ({"dense_tops": {"x": "1"}}, "dense_tops"),
    ],
)
def test_a_bad_stored_figure_is_an_incomplete_classification_naming_it(db, changes, bad, figure):
    gpu = PartFactory(category="accelerator", hs_code="847330")
    type(gpu).objects.filter(pk=gpu.pk).update(**bad)  # stored before validation existed
    gpu.refresh_from_db()
    row = services.part_classify(part=gpu)
    assert (row.eccn, row.is_complete) == ("", False)
    assert row.missing == [figure]
    assert any(figure in line for line in row.reasoning)


def test_a_bad_figure_on_the_accelerator_names_it_through_the_server(db, changes):
    gpu = PartFactory(category="accelerator", hs_code="847330")
    type(gpu).objects.filter(pk=gpu.pk).update(tpp=Decimal("-1"))
    gpu.refresh_from_db()
    dgx = server(accelerator=gpu, gpus_per_server=8)
    row = services.part_classify(part=dgx)
    assert (row.is_complete, row.missing) == (False, ["accelerator.tpp"])


# --- finding 5: ECCN overrides are validated and normalised ----------------------------------------------


@pytest.mark.parametrize("eccn", ["9Z999", "4A090.zz", "5A992c", "EAR 99", ""])
def test_an_override_to_a_malformed_eccn_is_refused(db, compliance_officer, eccn):
    part = PartFactory(category="network_switch", encryption=False)
    with pytest.raises(ValidationError) as caught:
        services.part_classification_override(
            part=part, eccn=eccn, reason="because", actor=compliance_officer
        )
    assert "eccn" in caught.value.message_dict
    assert not PartClassification.objects.filter(part=part).exists()


def test_an_override_normalises_the_case(db, compliance_officer, changes):
    part = PartFactory(category="network_switch", encryption=True, mass_market=True)
    row = services.part_classification_override(
        part=part, eccn="5a992.C", reason="Manufacturer's CCATS", actor=compliance_officer
    )
    assert row.eccn == "5A992.c"


def test_an_override_outside_the_known_entries_is_kept_with_a_warning(db, compliance_officer, changes):
    part = PartFactory(category="other", hs_code="854231")
    row = classify_with_second_officer(  # from unclassified: four eyes
        part=part, eccn="3A001.a.7", reason="Radiation-hardened FPGA", actor=compliance_officer
    )
    assert row.eccn == "3A001.a.7"
    assert any("not one of the entries Rackpass's rules know" in line for line in row.reasoning)


def test_the_api_refuses_a_malformed_override_naming_eccn(compliance_officer, api_as, db):
    part = PartFactory()
    response = api_as(compliance_officer).post(
        "/api/v1/classifications/", {"part": part.pk, "eccn": "9Z999", "reason": "x"}, format="json"
    )
    assert response.status_code == 400 and list(response.json()) == ["eccn"]
    response = api_as(compliance_officer).post(
        "/api/v1/classifications/", {"part": part.pk, "eccn": "5A992c", "reason": "x"}, format="json"
    )
    assert response.status_code == 400 and "5A992.c" in response.json()["eccn"][0]


def test_the_determination_endpoint_refuses_a_malformed_eccn(coordinator, api_as, country_data):
    for eccn in ("4A090.zz", "9Z999"):
        response = api_as(coordinator).post(
            "/api/v1/determinations/", {"eccn": eccn, "destination": "VN"}, format="json"
        )
        assert response.status_code == 400 and list(response.json()) == ["eccn"], eccn
    ok = api_as(coordinator).post(
        "/api/v1/determinations/", {"eccn": "4a090.A", "destination": "VN"}, format="json"
    )
    assert ok.status_code == 200


def test_the_override_form_offers_the_known_eccns_and_refuses_bad_ones(compliance_officer, browser_as, db):
    part = PartFactory(category="network_switch", encryption=False)
    client = browser_as(compliance_officer)
    page = client.get(f"/compliance/parts/{part.pk}/").content.decode()
    assert "<datalist" in page and 'value="4A090.a"' in page and 'value="5A992.c"' in page
    bad = client.post(f"/compliance/parts/{part.pk}/", {"eccn": "4A090.zz", "reason": "x"})
    assert bad.status_code == 400 and "eccn" in bad.context["form"].errors
    good = client.post(f"/compliance/parts/{part.pk}/", {"eccn": "5a991", "reason": "vendor letter"})
    assert good.status_code == 302
    # From unclassified to 5A991 lowers control: a second officer approves (test_four_eyes.py).
    assert not PartClassification.objects.filter(part=part, is_current=True).exists()
    pending = ComplianceApproval.objects.get(part=part, status="pending")
    assert pending.eccn == "5A991"
    services.approval_approve(approval=pending, actor=second_officer_of(compliance_officer))
    assert PartClassification.objects.get(part=part, is_current=True).eccn == "5A991"


def test_a_licence_refuses_malformed_eccns_and_normalises_the_rest(db):
    licence = Licence(eccns="4a090.A, 5A992c", destination_countries="SA")
    with pytest.raises(ValidationError) as caught:
        licence.clean()
    assert "eccns" in caught.value.message_dict and "5A992.c" in caught.value.message_dict["eccns"][0]
    licence = Licence(
        eccns="4a090.A, 3a090", destination_countries="SA", valid_from=dt.date(2026, 1, 1),
        expires_on=dt.date(2026, 12, 31),
    )  # fmt: skip
    licence.clean()
    assert licence.eccns == "4A090.a, 3A090"


def test_normalise_eccn_is_still_importable_from_the_licences_module():
    from apps.compliance.engines.eccn import normalise_eccn as pure
    from apps.compliance.models.licences import normalise_eccn

    assert normalise_eccn is pure


# --- the change notice --------------------------------------------------------------------------------


def test_a_changed_classification_notifies_open_shipments_and_an_unchanged_one_does_not(
    db, compliance_officer, changes
):
    dgx = server(name="DGX B200")
    services.part_classify(part=dgx)
    assert changes == []  # the first classification changes nothing that was decided
    services.part_classify(part=dgx)
    assert changes == []
    type(dgx).objects.filter(pk=dgx.pk).update(cpu_only=True)
    dgx.refresh_from_db()
    services.part_classify(part=dgx, actor=compliance_officer)
    ((part_pk, actor, reason),) = changes
    assert part_pk == dgx.pk and actor == compliance_officer
    assert "incomplete" in reason and "4A994" in reason
    classify_with_second_officer(  # confirming the default: four eyes
        part=dgx, eccn="4A994", reason="CPU-only, confirmed", actor=compliance_officer
    )
    assert len(changes) == 2
    assert "4A994" in changes[-1][2] and "compliance officer" in changes[-1][2]
