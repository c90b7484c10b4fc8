"""Issue 11: the freight options of a consolidation (inbound legs to a hub, then the main carriage)
and the shipment page run the same number of queries for 5 and for 40 lines, and stay the size of
the route, not of the lines: each leg lists its pieces once, a leg's lines carried are shown as
runs, the page lists the first lines with a link to all. `bench/bench_freight.py` measures the
same at 300 and 3,000 lines."""

import datetime as dt
from decimal import Decimal as D

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.shipments import services
from apps.shipments.demo import load_rates
from apps.shipments.engines import freight as f
from apps.shipments.models import DestinationTax, ShipmentLine, Site, TariffRate
from apps.shipments.presenters import lines_carried
from tests.factories import PartFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def lane_rates(db):
    load_rates()  # the demo's rate table
    TariffRate.objects.create(destination_country="IN", hs_prefix="8517", duty_rate=D("0.20"))
    TariffRate.objects.create(destination_country="IN", hs_prefix="8544", duty_rate=D("0.10"))
    DestinationTax.objects.create(
        country="IN", vat_name="IGST", vat_rate=D("0.18"), levy_on_duty_rate=D("0.10"), brokerage_fee=D("350")
    )


@pytest.fixture
def consolidation(make_shipment, factory_site, hub, datacentre, supplier, lane_rates):
    """`build(n)`: a draft of n lines, the first half from Taiwan and the rest from Mexico to the
    hub, each half on its inbound leg, then hub → Chennai."""
    mexico = Site.objects.create(
        owner=supplier, name="Jabil GDL", kind="factory", city="Zapopan", country="MX"
    )
    parts = [
        PartFactory(
            part_number=number,
            category=category,
            hs_code=hs_code,
            is_serialised=False,
            unit_value=D(value),
            unit_weight_kg=D(kg),
            length_cm=D(length),
            width_cm=D(width),
            height_cm=D(height),
        )
        for number, category, hs_code, value, kg, length, width, height in (
            ("SW-64", "network_switch", "851762", "23800", "11", "70", "45", "9"),
            ("DAC-2M", "cable", "854442", "180", "0.6", "30", "20", "5"),
            ("OSFP-800G", "optical_transceiver", "851770", "1150", "0.15", "12", "6", "3"),
        )
    ]

    def build(n_lines: int):
        today = timezone.localdate()
        shipment = make_shipment(mode="multimodal", required_by=today + dt.timedelta(days=45))
        lines = ShipmentLine.objects.bulk_create(
            [
                ShipmentLine(
                    shipment=shipment,
                    line_number=number,
                    part=parts[number % len(parts)],
                    description=parts[number % len(parts)].name,
                    quantity=1 + number % 3,
                    unit_value=parts[number % len(parts)].unit_value,
                    country_of_origin="TW" if number <= n_lines // 2 else "MX",
                    hs_code=parts[number % len(parts)].hs_code,
                )
                for number in range(1, n_lines + 1)
            ]
        )
        half = n_lines // 2
        for origin, carried in ((factory_site, lines[:half]), (mexico, lines[half:])):
            services.leg_add(
                shipment=shipment,
                fields={"role": "inbound", "origin": origin, "destination": hub, "mode": "air"},
                lines=carried,
            )
        services.leg_add(
            shipment=shipment,
            fields={"role": "main", "origin": hub, "destination": datacentre, "mode": "air"},
        )
        return shipment

    return build


def counted(get) -> tuple[int, object]:
    get()  # warm-up: the token's once-a-minute last_used_at write is not counted
    with CaptureQueriesContext(connection) as captured:
        response = get()
    assert response.status_code == 200, response.content[:300]
    return len(captured), response


def test_freight_options_panel_and_page_run_as_many_queries_for_5_and_40_lines(
    consolidation, coordinator, api_as, browser_as
):
    api, browser = api_as(coordinator), browser_as(coordinator)
    counts = {}
    for n_lines in (5, 40):
        shipment = consolidation(n_lines)
        reference = shipment.reference
        api_queries, answer = counted(lambda r=reference: api.get(f"/api/v1/shipments/{r}/freight-options/"))
        panel_queries, panel = counted(
            lambda r=reference: browser.get(reverse("shipments:freight-panel", args=[r]))
        )
        page_queries, page = counted(lambda r=reference: browser.get(f"/shipments/{r}/"))
        counts[n_lines] = (api_queries, panel_queries, page_queries)

        route = answer.json()["route"]
        assert [leg["role"] for leg in route["legs"]] == ["inbound", "inbound", "main"]
        assert all(leg["chosen"] for leg in route["legs"])
        assert sum(len(leg["pieces_labels"]) for leg in route["legs"][:2]) == n_lines
        # Each option of a leg carries the leg's pieces: listed once, on the leg.
        assert not any(
            "pieces_labels" in o for leg in route["legs"] for o in [*leg["options"], leg["chosen"]]
        )
        assert 'id="freight-route-legs"' in panel.content.decode()
        assert reference in page.content.decode()
    assert counts[5] == counts[40], counts


def test_the_page_shows_the_lines_a_leg_carries_as_runs_and_the_first_lines_with_a_link(
    consolidation, coordinator, browser_as, monkeypatch
):
    monkeypatch.setattr("apps.shipments.views.detail.LINES_SHOWN", 15)
    shipment = consolidation(40)
    browser = browser_as(coordinator)
    page = browser.get(f"/shipments/{shipment.reference}/").content.decode()
    assert "Lines 1–20 (20 lines)" in page and "Lines 21–40 (20 lines)" in page
    assert "Showing the first 15 of 40 lines" in page and 'href="?lines=all#lines"' in page
    assert page.count('aria-label="Remove line ') == 15
    # The leg form still offers every line, labelled by the form.
    assert page.count('<option value="') >= 40 and "Line 40: " in page
    every = browser.get(f"/shipments/{shipment.reference}/?lines=all").content.decode()
    assert every.count('aria-label="Remove line ') == 40 and "Showing the first" not in every


def test_a_leg_added_through_the_quick_lines_widget_carries_the_lines_chosen(
    consolidation, coordinator, browser_as, factory_site, hub
):
    shipment = consolidation(6)
    extra = services.line_add(shipment=shipment, part=shipment.lines.first().part, quantity=1)
    browser = browser_as(coordinator)
    page = browser.get(f"/shipments/{shipment.reference}/").content.decode()
    assert f'<option value="{extra.pk}">Line 7: 1 × ' in page
    response = browser.post(
        f"/shipments/{shipment.reference}/legs/",
        {
            "role": "inbound",
            "origin": factory_site.pk,
            "destination": hub.pk,
            "mode": "ocean",
            "lines": [extra.pk],
        },
    )
    assert response.status_code == 302, response.content.decode()[:500]
    assert list(shipment.legs.get(sequence=4).lines.values_list("line_number", flat=True)) == [7]


def test_lines_carried_lists_a_few_and_runs_of_many():
    assert lines_carried([]) == ""
    assert lines_carried([2, 1]) == "Line 1, Line 2"
    numbers = [*range(1, 1501), 1503, *range(1600, 1700)]
    assert lines_carried(numbers) == "Lines 1–1,500, 1,503, 1,600–1,699 (1,601 lines)"


def test_alike_pieces_share_one_air_reason():
    rack = {"length_cm": D(120), "width_cm": D(60), "height_cm": D(220), "gross_kg": D(160)}
    pieces = [f.Piece(**rack, label=f"line {n}") for n in range(1, 31)]
    aircraft, reasons = f.air_acceptance(pieces)
    assert aircraft == f.AIRCRAFT_MAIN_DECK
    assert reasons == [
        "Pieces 'line 1', 'line 2', 'line 3', 'line 4', 'line 5' and 25 more are 220 cm tall (limit 160 cm), "
        "over the lower-deck limits: main-deck freighter only"
    ]
    # One piece reads as before.
    assert f.air_acceptance(pieces[:1])[1] == [
        "Piece 'line 1' is 220 cm tall (limit 160 cm), over the lower-deck limits: main-deck freighter only"
    ]
