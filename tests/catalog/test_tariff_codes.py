"""Issue 10: a part's national tariff codes (US Schedule B / HTS, India ITC-HS) as data on the part:
validated, edited through the API and the part form, shown on the part page, given to demo parts."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from apps.catalog.models import Part, PartTariffCode
from apps.catalog.services import part_tariff_codes_set
from tests.factories import ManufacturerFactory, PartFactory

from ..core.test_audit import PART_PAYLOAD


@pytest.fixture
def nvidia(db):
    return ManufacturerFactory(name="NVIDIA")


@pytest.mark.parametrize(
    ("country", "code", "message"),
    [
        ("US", "85176200", "A US Schedule B / HTS number has 10 digits; 85176200 has 8."),
        ("IN", "8517620090", "An Indian ITC-HS code has 8 digits; 8517620090 has 10."),
        ("SG", "8517620", "A tariff code of SG has 8 to 10 digits; 8517620 has 7."),
        ("US", "8471500150", "8471500150 does not extend the part's HS code 851762"),
        ("US", "85176200AB", "digits only"),
    ],
)
def test_a_code_extends_the_hs_code_with_the_countrys_digits(country, code, message):
    part = PartFactory.build(hs_code="851762")
    with pytest.raises(ValidationError) as excinfo:
        PartTariffCode(part=part, country=country, code=code).clean()
    assert message in excinfo.value.message_dict["code"][0]


def test_codes_are_normalised_and_one_per_country(db):
    part = PartFactory(hs_code="851762", schedule_b="")
    (tariff,) = part_tariff_codes_set(part=part, tariff_codes=[{"country": "us", "code": "8517.62.0090"}])
    assert (tariff.country, tariff.code) == ("US", "8517620090")
    with pytest.raises(IntegrityError):
        PartTariffCode.objects.create(part=part, country="US", code="8517620010")


def test_api_reads_and_writes_codes_atomically(coordinator, api_as, nvidia):
    api = api_as(coordinator)
    codes = [{"country": "US", "code": "8517.62.0090"}, {"country": "IN", "code": "85176290"}]
    response = api.post("/api/v1/parts/", PART_PAYLOAD | {"tariff_codes": codes}, format="json")
    assert response.status_code == 201, response.json()
    part_id = response.json()["id"]
    assert response.json()["tariff_codes"] == [
        {"country": "IN", "code": "85176290", "unit_of_quantity": "NO"},
        {"country": "US", "code": "8517620090", "unit_of_quantity": "NO"},
    ]
    # A write with codes replaces them; a wrong one refuses the whole write, naming the field.
    url = f"/api/v1/parts/{part_id}/"
    bad = [{"country": "US", "code": "8471500150"}]
    response = api.patch(url, {"name": "Renamed", "tariff_codes": bad}, format="json")
    assert response.status_code == 400
    assert "does not extend the part's HS code 851762" in str(response.json()["tariff_codes"])
    part = Part.objects.get(pk=part_id)
    assert part.name == "Quantum-2 QM9700" and part.tariff_codes.count() == 2
    response = api.patch(url, {"tariff_codes": [{"country": "US", "code": "8517620010"}]}, format="json")
    assert response.status_code == 200
    assert [(t.country, t.code) for t in part.tariff_codes.all()] == [("US", "8517620010")]
    # A write without codes keeps them; an HS code they no longer extend is refused.
    assert api.patch(url, {"name": "Quantum-2"}, format="json").status_code == 200
    response = api.patch(url, {"hs_code": "847150"}, format="json")
    assert response.status_code == 400 and "hs_code" in response.json()
    assert part.tariff_codes.count() == 1


def test_a_bad_code_on_create_saves_no_part(coordinator, api_as, nvidia):
    codes = [{"country": "IN", "code": "8517620090"}]
    response = api_as(coordinator).post(
        "/api/v1/parts/", PART_PAYLOAD | {"tariff_codes": codes}, format="json"
    )
    assert response.status_code == 400 and list(response.json()) == ["tariff_codes"]
    assert not Part.objects.exists()


def test_another_organisations_part_codes_are_refused(supplier_user, forwarder, api_as, nvidia):
    master = PartFactory(hs_code="851762")
    foreign = PartFactory(owner=forwarder, hs_code="851762")
    api = api_as(supplier_user)
    codes = {"tariff_codes": [{"country": "US", "code": "8517620010"}]}
    assert api.patch(f"/api/v1/parts/{foreign.pk}/", codes, format="json").status_code == 404
    assert api.patch(f"/api/v1/parts/{master.pk}/", codes, format="json").status_code == 404
    assert [t.code for t in PartTariffCode.objects.order_by("part")] == ["8517620000", "8517620000"]
    # The master catalogue's codes are read by everyone.
    assert api.get(f"/api/v1/parts/{master.pk}/").json()["tariff_codes"][0]["code"] == "8517620000"


def test_part_page_shows_and_form_edits_the_codes(coordinator, browser_as):
    part = PartFactory(hs_code="851762", schedule_b="8517620090")
    client = browser_as(coordinator)
    page = client.get(f"/parts/{part.pk}/").content.decode()
    assert "Schedule B / HTS <code>8517620090</code>" in page
    form = client.get(f"/parts/{part.pk}/edit/").context["form"]
    assert form.initial["tariff_codes"] == "US 8517620090"
    data = {name: value for name, value in form.initial.items() if value is not None}
    data |= {"manufacturer": part.manufacturer_id, "dense_tops": "{}", "attributes": "{}"}
    response = client.post(f"/parts/{part.pk}/edit/", data | {"tariff_codes": "US 8517.62.0090\nIN 8517.62"})
    assert response.status_code == 200
    assert "An Indian ITC-HS code has 8 digits" in str(response.context["form"].errors["tariff_codes"])
    response = client.post(f"/parts/{part.pk}/edit/", data | {"tariff_codes": "US 8517.62.0010\nin 85176290"})
    assert response.status_code == 302
    assert [(t.country, t.code) for t in part.tariff_codes.all()] == [
        ("IN", "85176290"),
        ("US", "8517620010"),
    ]
    assert "ITC-HS <code>85176290</code>" in client.get(f"/parts/{part.pk}/").content.decode()


def test_demo_parts_have_schedule_b_and_indian_codes(operator):
    from apps.catalog import demo

    demo.load()
    parts = list(Part.objects.prefetch_related("tariff_codes"))
    assert len(parts) == 47
    for part in parts:
        codes = {t.country: t.code for t in part.tariff_codes.all()}
        assert len(codes["US"]) == 10 and codes["US"].startswith(part.hs_code[:6]), part
        assert len(codes["IN"]) == 8 and codes["IN"].startswith(part.hs_code[:6]), part
    dgx = Part.objects.get(part_number="DGXH-G640F+P2CMI36")
    assert dgx.tariff_codes.get(country="US").code == "8471500150"
    demo.load()  # again: nothing added twice
    assert PartTariffCode.objects.count() == 94
