"""The shipment plan (issue 14): the pure planner on hand-worked examples (air vs ocean by the
required date, consolidation through the hub, no rate → no figure), the service that makes the
proposals into draft shipments (lines, legs, the supplier as shipper, link to the design, all or
nothing, idempotent per BOM version unless asked again), and its API and page, refused to
another organisation.

The rate table of the worked examples (as the demo's, simplified):
  air TW → SG 2.10 USD/kg (min 150, 3 days) · air MX → SG 5.80 (min 300, 6 days)
  air SG → IN 1.90 (min 150, 2 days) · ocean US → IN LCL 90/m³ or 60/t (min 200, 32 days)
  hub handling in Singapore 0.18 USD per gross kg (min 95).
Lines: 4 servers from Taiwan (130 kg, 90 × 48 × 36 cm), 4 switches from Mexico (15 kg,
66 × 44 × 5 cm), 2 racks from the US (170 kg, 120 × 60 × 225 cm). Ready 2027-01-04.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from apps.accounts.models import OrganisationKind
from apps.clusters.engines import shipment_plan as sp
from apps.clusters.models import ClusterDesign, ClusterShipment
from apps.clusters.services import shipment_plan as service
from apps.shipments.engines.freight import Rate
from apps.shipments.models import Leg, Shipment, ShipmentLine, ShipmentParty
from tests.factories import OrganisationFactory, UserFactory

from . import plan_world

READY = dt.date(2027, 1, 4)
RATES = (
    Rate("air", "TW", "SG", "USD", 3, price_per_kg=D("2.10"), minimum_charge=D("150")),
    Rate("air", "MX", "SG", "USD", 6, price_per_kg=D("5.80"), minimum_charge=D("300")),
    Rate("air", "SG", "IN", "USD", 2, price_per_kg=D("1.90"), minimum_charge=D("150")),
    Rate(
        "ocean",
        "US",
        "IN",
        "USD",
        32,
        price_per_cbm=D("90"),
        price_per_tonne=D("60"),
        minimum_charge=D("200"),
    ),
)
HUB = sp.Hub("Bonded Hub Singapore", "SG", D("0.18"), D("95"), "USD")


def line(key, category, quantity, kg, dims, value, origin, supplier) -> sp.PlanLine:
    return sp.PlanLine(
        key=key, description=f"part {key}", category=category, quantity=quantity, unit_weight_kg=D(kg),
        length_cm=D(dims[0]), width_cm=D(dims[1]), height_cm=D(dims[2]), unit_value=D(value),
        currency="USD", country_of_origin=origin, supplier=supplier,
    )  # fmt: skip


SERVERS = line("1", "server", 4, "130", (90, 48, 36), "300000", "TW", "NVIDIA")
SWITCHES = line("2", "network_switch", 4, "15", (66, 44, 5), "30000", "MX", "NVIDIA")
RACKS = line("3", "rack", 2, "170", (120, 60, 225), "3000", "US", "Schneider Electric")


def plan(required_by, *, lines=(SERVERS, SWITCHES, RACKS), rates=RATES, hub=HUB) -> sp.ShipmentPlan:
    return sp.plan(sp.PlanInputs(tuple(lines), "IN", READY, required_by, tuple(rates), hub))


def by_key(result: sp.ShipmentPlan) -> dict[str, sp.Proposal]:
    return {p.key: p for p in result.proposals}


# --- the engine --------------------------------------------------------------------------------


def test_consolidation_through_the_hub_priced_leg_by_leg_by_hand():
    proposals = by_key(plan(dt.date(2027, 3, 1)))
    assert list(proposals) == ["air-via-sg", "ocean-us-schneider-electric"]
    via = proposals["air-via-sg"]
    assert via.kind == sp.CONSOLIDATED and via.mode == "air" and via.hub == "Bonded Hub Singapore"
    assert via.origin_countries == ("MX", "TW")
    # TW → SG: 4 × 130 = 520 kg gross > 4 × 90·48·36/6000 = 103.68 kg volumetric: 520 × 2.10 = 1,092.00
    # MX → SG: 60 kg gross > 9.68 kg volumetric: 60 × 5.80 = 348.00
    # SG → IN: 580 kg × 1.90 = 1,102.00; hub handling 580 × 0.18 = 104.40 (over the 95 minimum)
    assert [(leg.role, leg.origin_country, leg.destination_country, leg.cost) for leg in via.legs] == [
        ("inbound", "TW", "SG", D("1092.00")),
        ("inbound", "MX", "SG", D("348.00")),
        ("main", "SG", "IN", D("1102.00")),
    ]
    assert via.cost == D("2646.40")  # 1,092 + 348 + 1,102 + 104.40
    # The main carriage waits for the later inbound leg (MX: 6 days, 2027-01-10), then 2 days.
    assert via.arrival == dt.date(2027, 1, 12) and via.on_time is True
    assert via.legs[0].line_keys == ("1",) and via.legs[1].line_keys == ("2",)
    assert via.legs[2].line_keys == ("1", "2")
    assert "2 countries (MX, TW)" in via.reasons[0]
    assert all(planned.why.startswith("air: light, high-value") for planned in via.lines)
    assert via.goods_value == {"USD": D("1320000")}  # 4 × 300,000 + 4 × 30,000
    # The working quotes the rate card and is kept apart from the reasons (operator staff only).
    assert any("× 2.10 USD/kg" in step for step in via.breakdown)
    assert not any("USD/kg" in reason for reason in via.reasons)
    assert (
        "Priced leg by leg: 2,646.40 USD with the hub's handling, arriving 2027-01-12 (in time)"
        in via.reasons
    )


def test_racks_by_sea_when_the_required_date_allows():
    racks = by_key(plan(dt.date(2027, 3, 1)))["ocean-us-schneider-electric"]
    assert racks.kind == sp.DIRECT and racks.mode == "ocean"
    # 2 × 1.2 × 0.6 × 2.25 = 3.24 m³ × 90 = 291.60 against 0.34 t × 60 = 20.40: the volume is charged.
    assert racks.cost == D("291.60") and racks.currency == "USD"
    assert racks.arrival == dt.date(2027, 2, 5)  # 32 days
    assert "arrives 2027-02-05, by the required 2027-03-01" in racks.lines[0].why


def test_racks_fly_when_the_sea_is_too_slow_and_say_why_and_that_no_rate_prices_them():
    result = plan(dt.date(2027, 1, 20))
    proposals = by_key(result)
    racks = proposals["air-us-schneider-electric"]
    assert racks.lines[0].why == (
        "air: rack, bulky or low value for its weight, but the fastest sea route (32 days) would arrive "
        "2027-02-05, after the required 2027-01-20"
    )
    # No air rate US → IN and none US → SG: not priced, and no made-up figure.
    assert racks.cost is None and not racks.priced
    assert racks.missing == ("no air rate for lane US → IN valid on 2027-01-04: add one in the rate table",)
    assert result.unpriced == ("air-us-schneider-electric",)
    assert result.freight_by_currency == {"USD": D("2646.40")}  # the priced consolidation only
    assert "ocean-us-schneider-electric" not in proposals


def test_no_required_date_sends_the_racks_by_sea():
    racks = by_key(plan(None))["ocean-us-schneider-electric"]
    assert "no required date" in racks.lines[0].why


def test_heavy_air_first_hardware_goes_by_sea():
    rack_scale = line("9", "server", 1, "1360", (120, 60, 227), "3400000", "US", "NVIDIA")
    proposal = by_key(plan(dt.date(2027, 3, 1), lines=[rack_scale]))["ocean-us-nvidia"]
    assert proposal.lines[0].why.startswith("ocean: heavy (1,360 kg a unit, over 500 kg)")


def test_without_a_hub_every_origin_goes_direct():
    proposals = by_key(plan(dt.date(2027, 3, 1), rates=(*RATES, TW_IN_AIR), hub=None))
    assert list(proposals) == ["air-tw-nvidia", "air-mx-nvidia", "ocean-us-schneider-electric"]
    assert proposals["air-tw-nvidia"].cost == D("2184.00")  # 520 kg × 4.20
    assert proposals["air-mx-nvidia"].cost is None  # no MX → IN air rate
    assert "no air rate for lane MX → IN" in proposals["air-mx-nvidia"].missing[0]


TW_IN_AIR = Rate("air", "TW", "IN", "USD", 5, price_per_kg=D("4.20"), minimum_charge=D("250"))


def test_one_country_with_hub_lanes_is_no_consolidation():
    optics = line("4", "optical_transceiver", 100, "0.1", (11, 2.3, 1.5), "1200", "TH", "NVIDIA")
    result = plan(dt.date(2027, 3, 1), lines=[SERVERS, optics], rates=(*RATES, TW_IN_AIR))
    assert [p.key for p in result.proposals] == ["air-tw-nvidia", "air-th-nvidia"]
    assert "fewer than two have air rates to Bonded Hub Singapore" in result.reasons[0]


def test_an_origin_with_no_direct_rate_goes_through_the_hub_alone():
    [via] = plan(dt.date(2027, 3, 1), lines=[SERVERS]).proposals
    assert via.key == "air-via-sg" and via.origin_countries == ("TW",)
    assert via.reasons[0] == (
        "Through Bonded Hub Singapore (SG): no air rate straight from TW to the site, but the rate table "
        "has TW → SG and SG → IN"
    )
    # 520 kg: 1,092.00 to Singapore + 988.00 on (× 1.90) + 93.60 handling, raised to the 95.00 minimum
    assert via.cost == D("2175.00")


@pytest.mark.parametrize(
    ("lines", "required", "field", "message"),
    [
        ((), dt.date(2027, 3, 1), "bom", "no lines"),
        ((SERVERS,), dt.date(2027, 1, 1), "required_on_site", "before the goods can be ready"),
        ((line("7", "rack", 1, "0", (1, 1, 1), "1", "US", "X"),), None, "7", "no weight"),
    ],
)
def test_bad_input_is_named(lines, required, field, message):
    with pytest.raises(sp.PlanError) as caught:
        plan(required, lines=lines)
    assert caught.value.field == field and message in caught.value.message


# --- the service -------------------------------------------------------------------------------


@pytest.fixture
def world(operator, design):
    plan_world.rates()
    hub = plan_world.hub(operator)
    sites = plan_world.factories(operator)
    parts = plan_world.plan_parts(operator)
    ClusterDesign.objects.filter(pk=design.pk).update(required_on_site=dt.date(2027, 3, 1))
    design.refresh_from_db()
    return {"hub": hub, "sites": sites, "parts": parts, "bom": plan_world.bom(design, parts)}


def test_plan_for_reads_the_bom_the_site_and_the_rate_table(world, django_assert_max_num_queries):
    with django_assert_max_num_queries(8):
        result = service.plan_for(world["bom"], today=READY)
    proposals = by_key(result)
    assert list(proposals) == ["air-via-sg", "ocean-us-schneider-electric"]
    assert proposals["air-via-sg"].cost == D("2646.40")
    assert proposals["ocean-us-schneider-electric"].cost == D("291.60")
    data = service.plan_as_dict(result, world["bom"])
    assert data["bom_version"] == 1 and data["freight_by_currency"] == {"USD": "2938.00"}
    assert data["proposals"][0]["legs"][0]["bom_lines"] == [world["bom"].lines.get(role="system").pk]


def test_drafts_are_made_with_their_lines_and_legs_and_linked_to_the_design(
    world, design, coordinator, customer
):
    jabil = OrganisationFactory(
        kind=OrganisationKind.SUPPLIER, legal_name="Jabil Circuit de México", country="MX"
    )
    schneider = OrganisationFactory(
        kind=OrganisationKind.SUPPLIER, legal_name="Schneider Electric SE", country="FR"
    )
    made = service.shipments_create_from_plan(bom=world["bom"], actor=coordinator, today=READY).made
    assert len(made) == 2
    via, racks = made
    assert via.status == "draft" and via.mode == "air" and via.destination_id == design.site_id
    assert via.origin == world["sites"]["TW"] and via.required_by == dt.date(2027, 3, 1)
    assert via.instructions.startswith(f"[Cluster plan {design.pk} BOM v1] Proposal air-via-sg")
    lines = via.lines.order_by("line_number")
    assert [(ln.part.part_number, ln.quantity, ln.hs_code, ln.unit_value) for ln in lines] == [
        ("DGX-T", 4, "847150", D("300000.00")),
        ("QM-T", 4, "851762", D("30000.00")),
    ]  # fmt: skip
    legs = list(Leg.objects.filter(shipment=via).order_by("sequence").prefetch_related("lines__part"))
    assert [(leg.role, leg.origin.name, leg.destination.name) for leg in legs] == [
        ("inbound", "Formosa Guishan factory", "Bonded Hub Singapore"),
        ("inbound", "Jabil Guadalajara (NVIDIA networking)", "Bonded Hub Singapore"),
        ("main", "Bonded Hub Singapore", design.site.name),
    ]
    assert [[ln.part.part_number for ln in leg.lines.all()] for leg in legs] == [["DGX-T"], ["QM-T"], []]
    assert legs[1].planned_arrival == dt.date(2027, 1, 10)
    assert racks.mode == "ocean" and racks.origin == world["sites"]["US"] and racks.legs.count() == 0
    assert [(ln.part.part_number, ln.quantity) for ln in racks.lines.all()] == [("RACK-T", 2)]
    assert set(ClusterShipment.objects.filter(design=design).values_list("shipment_id", flat=True)) == {
        via.pk,
        racks.pk,
    }
    assert ShipmentParty.objects.get(shipment=via, role="consignee").organisation == customer
    # The shipper is the supplier: the Taiwanese factory's owner ships the consolidation, and the
    # Mexican line names the contract manufacturer whose plant it leaves from (by the site's name).
    formosa = world["sites"]["TW"].owner
    assert ShipmentParty.objects.get(shipment=via, role="shipper").organisation == formosa
    assert [(ln.part.part_number, ln.shipper) for ln in lines] == [("DGX-T", None), ("QM-T", jabil)]
    # The racks' maker has an organisation of its name: it ships them.
    assert ShipmentParty.objects.get(shipment=racks, role="shipper").organisation == schneider
    assert "No shipper named" not in racks.instructions


def test_a_supplier_with_no_organisation_leaves_the_shipper_unnamed_and_says_so(world, coordinator):
    result = service.shipments_create_from_plan(
        bom=world["bom"], actor=coordinator, today=READY, proposals=["ocean-us-schneider-electric"]
    )
    [racks] = result.made
    assert not ShipmentParty.objects.filter(shipment=racks, role="shipper").exists()
    assert "No shipper named for Schneider Electric: no supplier organisation found" in racks.instructions


def test_asking_again_makes_no_duplicates_and_reports_the_drafts_made(world, coordinator):
    [via] = service.shipments_create_from_plan(
        bom=world["bom"], actor=coordinator, today=READY, proposals=["air-via-sg"]
    ).made
    # Every proposal asked for: the one made is reported, only the other is made.
    second = service.shipments_create_from_plan(bom=world["bom"], actor=coordinator, today=READY)
    assert second.already == {"air-via-sg": [via.reference]}
    [racks] = second.made
    assert "Proposal ocean-us-schneider-electric" in racks.instructions
    # A third click makes nothing and reports both.
    third = service.shipments_create_from_plan(bom=world["bom"], actor=coordinator, today=READY)
    assert third.made == [] and third.already == {
        "air-via-sg": [via.reference],
        "ocean-us-schneider-electric": [racks.reference],
    }
    assert Shipment.objects.count() == 2
    # A cancelled draft does not count.
    Shipment.objects.filter(pk=via.pk).update(status="cancelled")
    service.shipments_create_from_plan(
        bom=world["bom"], actor=coordinator, today=READY, proposals=["air-via-sg"]
    )
    assert Shipment.objects.count() == 3
    # Only asking for another set on purpose makes one.
    again = service.shipments_create_from_plan(
        bom=world["bom"],
        actor=coordinator,
        today=READY,
        again=True,
        proposals=["ocean-us-schneider-electric"],
    )
    assert len(again.made) == 1 and Shipment.objects.count() == 4


def test_all_or_nothing_when_a_later_proposal_fails(world, coordinator, monkeypatch):
    real = service.shipment_services.line_add

    def refuse_racks(*, shipment, part, **kwargs):
        if part.part_number == "RACK-T":
            raise ValidationError({"unit_value": "refused for the test"})
        return real(shipment=shipment, part=part, **kwargs)

    monkeypatch.setattr(service.shipment_services, "line_add", refuse_racks)
    with pytest.raises(ValidationError):
        service.shipments_create_from_plan(bom=world["bom"], actor=coordinator, today=READY)
    # The consolidation was made first; it is gone with the rest.
    assert Shipment.objects.count() == 0 and ShipmentLine.objects.count() == 0
    assert Leg.objects.count() == 0 and ClusterShipment.objects.count() == 0


def test_an_origin_without_a_site_to_ship_from_is_named_and_nothing_is_made(world, coordinator):
    world["sites"]["US"].delete()
    with pytest.raises(ValidationError) as caught:
        service.shipments_create_from_plan(bom=world["bom"], actor=coordinator, today=READY)
    assert caught.value.message_dict["proposals"] == [
        "ocean-us-schneider-electric: no factory or supplier warehouse in US to ship "
        "Schneider Electric's goods from; add the supplier's site first."
    ]
    assert Shipment.objects.count() == 0


def test_unknown_proposal_and_missing_required_date_are_named(world, design, coordinator):
    with pytest.raises(ValidationError) as caught:
        service.shipments_create_from_plan(
            bom=world["bom"], actor=coordinator, today=READY, proposals=["sea-x"]
        )
    assert "No proposal sea-x in the plan" in caught.value.message_dict["proposals"][0]
    ClusterDesign.objects.filter(pk=design.pk).update(required_on_site=None)
    with pytest.raises(ValidationError) as caught:
        service.shipments_create_from_plan(bom=world["bom"], actor=coordinator, today=READY)
    assert "required_on_site" in caught.value.message_dict
    assert Shipment.objects.count() == 0


# --- API and page ------------------------------------------------------------------------------


@pytest.fixture
def live_world(world, design):
    """The world priced today (the API and pages plan from today's date)."""
    ClusterDesign.objects.filter(pk=design.pk).update(
        required_on_site=dt.date.today() + dt.timedelta(days=90)
    )
    return world


@pytest.fixture
def outsider(db):
    org = OrganisationFactory(
        kind=OrganisationKind.FREIGHT_FORWARDER, legal_name="Bravo Freight", country="SG"
    )
    return UserFactory(organisation=org, role="partner", username="bravo")


@pytest.fixture
def customer_user(customer):
    return UserFactory(organisation=customer, role="partner", username="customer-planner")


def _url(design) -> str:
    return f"/api/v1/clusters/{design.pk}/shipment-plan/"


def test_api_get_the_plan(live_world, design, coordinator, customer_user, outsider, api_as):
    answer = api_as(coordinator).get(_url(design))
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert [p["key"] for p in body["proposals"]] == ["air-via-sg", "ocean-us-schneider-electric"]
    assert body["proposals"][0]["cost"] == "2646.40" and body["proposals"][0]["priced"] is True
    assert "breakdown" in body["proposals"][0] and "2.10 USD/kg" in answer.content.decode()
    read = api_as(customer_user).get(_url(design))  # the customer reads its plan: totals, no rate card
    assert read.status_code == 200 and read.json()["proposals"][0]["cost"] == "2646.40"
    assert "breakdown" not in read.json()["proposals"][0] and "USD/kg" not in read.content.decode()
    assert api_as(outsider).get(_url(design)).status_code == 404
    assert api_as(coordinator).get(_url(design) + "?bom=9").status_code == 400


def test_api_post_makes_drafts_once(live_world, design, coordinator, api_as):
    client = api_as(coordinator)
    made = client.post(_url(design), {"proposals": ["air-via-sg"]}, format="json")
    assert made.status_code == 201, made.content
    [row] = made.json()["shipments"]
    assert row["mode"] == "air" and row["lines"] == 2 and row["legs"] == 3
    assert row["shipper"] == "Formosa Servers Co." and made.json()["already"] == {}
    again = client.post(_url(design), {"proposals": ["air-via-sg"]}, format="json")
    assert again.status_code == 200, again.content
    assert again.json() == {"shipments": [], "already": {"air-via-sg": [row["reference"]]}}
    assert Shipment.objects.count() == 1


def test_api_post_refused_to_other_roles_and_organisations(
    live_world, design, compliance_officer, customer_user, outsider, api_as
):
    assert api_as(compliance_officer).post(_url(design), {}, format="json").status_code == 403
    assert api_as(outsider).post(_url(design), {}, format="json").status_code == 404
    assert api_as(customer_user).post(_url(design), {}, format="json").status_code == 404  # reads, not plans
    assert Shipment.objects.count() == 0


def test_page_panel_and_drafts(live_world, design, coordinator, customer_user, outsider, browser_as, client):
    url = reverse("clusters:shipment-plan-panel", args=[design.pk])
    page = browser_as(coordinator).get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "air-via-sg" in text and "2,646.40 USD" in text and "Create draft shipments" in text
    assert "× 2.10 USD/kg" in text  # operator staff read the working
    made = client.post(
        reverse("clusters:shipment-plan-create", args=[design.pk]),
        {"proposals": ["ocean-us-schneider-electric"]},
        HTTP_HX_REQUEST="true",
    )
    assert made.status_code == 200 and "Draft shipments made" in made.content.decode()
    create = reverse("clusters:shipment-plan-create", args=[design.pk])
    ocean = {"proposals": ["ocean-us-schneider-electric"]}
    reference = Shipment.objects.get().reference
    # A second click makes nothing and says what was made.
    again = client.post(create, ocean, HTTP_HX_REQUEST="true")
    text = again.content.decode()
    assert again.status_code == 200 and "Draft shipments made" not in text
    assert f"not made again: ocean-us-schneider-electric ({reference})." in text
    assert f"Made: {reference}" in text and 'data-made="yes"' in text
    without_htmx = client.post(create, ocean)
    assert without_htmx.status_code == 302
    none_ticked = client.post(create, {})
    assert none_ticked.status_code == 400 and "tick at least one proposal" in none_ticked.content.decode()
    assert Shipment.objects.count() == 1
    client.logout()
    reader = browser_as(customer_user).get(url)
    assert reader.status_code == 200 and "Create draft shipments" not in reader.content.decode()
    assert "2,646.40 USD" in reader.content.decode() and "USD/kg" not in reader.content.decode()
    client.logout()
    assert browser_as(outsider).get(url).status_code == 404
    outsider_post = client.post(reverse("clusters:shipment-plan-create", args=[design.pk]), {})
    assert outsider_post.status_code == 404
    assert Shipment.objects.count() == 1


def test_the_design_page_loads_both_panels(live_world, design, coordinator, browser_as):
    page = browser_as(coordinator).get(reverse("clusters:design-detail", args=[design.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert f'hx-get="{reverse("clusters:shipment-plan-panel", args=[design.pk])}"' in text
    assert f'hx-get="{reverse("clusters:own-or-rent-panel", args=[design.pk])}"' in text


def test_page_unticks_a_proposal_with_no_site_to_ship_from(live_world, design, coordinator, browser_as):
    live_world["sites"]["US"].delete()
    text = (
        browser_as(coordinator)
        .get(reverse("clusters:shipment-plan-panel", args=[design.pk]))
        .content.decode()
    )
    assert 'value="air-via-sg" id="make-air-via-sg" checked' in text
    assert 'value="ocean-us-schneider-electric" id="make-ocean-us-schneider-electric" aria-label' in text
    assert "no factory or supplier warehouse in US" in text


def test_page_without_htmx_redirects_to_the_design_with_a_message(
    live_world, design, coordinator, browser_as
):
    client = browser_as(coordinator)
    made = client.post(
        reverse("clusters:shipment-plan-create", args=[design.pk]), {"proposals": ["air-via-sg"]}
    )
    assert made.status_code == 302
    assert made["Location"] == reverse("clusters:design-detail", args=[design.pk]) + "#shipment-plan"
    page = client.get(made["Location"])
    assert f"Draft shipments made: {Shipment.objects.get().reference}." in page.content.decode()


def test_the_panel_lists_the_drafts_made_that_its_reader_may_see(
    live_world, design, coordinator, customer_user, browser_as, client
):
    """The drafts made from a plan are shipments: the panel lists those its reader is a party to."""
    made = service.shipments_create_from_plan(bom=live_world["bom"], actor=coordinator).made
    url = reverse("clusters:shipment-plan-panel", args=[design.pk])
    text = browser_as(customer_user).get(url).content.decode()
    assert all(s.reference in text for s in made)
    # The customer is taken off the first draft (the operator consigns it to itself instead).
    ShipmentParty.objects.filter(shipment=made[0], organisation=design.customer).delete()
    text = browser_as(customer_user).get(url).content.decode()
    assert made[0].reference not in text and made[1].reference in text
    client.logout()
    assert made[0].reference in browser_as(coordinator).get(url).content.decode()
