"""Every page below the top level shows where it is (issue 12): one breadcrumb trail, above the
title, whose links open and whose last item is the page itself (aria-current="page")."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import resolve, reverse

from apps.accounts.models import Organisation
from apps.catalog.models import Part, Unit
from apps.compliance.models import Licence
from apps.shipments.models import ExchangeRate, FreightRate, Leg, Shipment
from apps.warehouse.models import Location
from tests.world import World, build_world


class _Trail(HTMLParser):
    """The breadcrumb navs of a page: [(href or None, text, is_current)] each, and where the first
    <h1> came (after how many trails)."""

    def __init__(self) -> None:
        super().__init__()
        self.trails: list[list[dict]] = []
        self.trails_before_h1: int | None = None
        self._nav_depth = 0  # >0 inside a breadcrumb nav
        self._item: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "h1" and self.trails_before_h1 is None:
            self.trails_before_h1 = len(self.trails)
        if tag == "nav" and attrs.get("aria-label") == "Breadcrumb":
            self._nav_depth = 1
            self.trails.append([])
            self.ol_seen = False
            return
        if not self._nav_depth:
            return
        if tag == "nav":
            self._nav_depth += 1
        elif tag == "ol":
            self.ol_seen = True
        elif tag == "li":
            self._item = {"href": None, "text": "", "current": attrs.get("aria-current") == "page"}
            self.trails[-1].append(self._item)
        elif tag == "a" and self._item is not None:
            self._item["href"] = attrs.get("href")
            self._item["current"] |= attrs.get("aria-current") == "page"

    def handle_endtag(self, tag):
        if self._nav_depth and tag == "nav":
            self._nav_depth -= 1
        elif tag == "li":
            self._item = None

    def handle_data(self, data):
        if self._item is not None:
            self._item["text"] += data


def _title(html: str) -> str:
    start = html.index("<title>") + len("<title>")
    return " ".join(html[start : html.index("</title>", start)].split())


@pytest.fixture
def world(db) -> World:
    return build_world()


def _pages(world: World) -> dict[str, str]:
    """Every page below the top level, by what it is: its address."""
    shipment = world.first(Shipment)
    draft = world.shipment_b  # a draft: its edit page opens
    part = world.first(Part)
    organisation = world.first(Organisation)
    licence = world.first(Licence)
    leg = world.first(Leg)
    return {
        "shipment detail": reverse("shipments:shipment-detail", args=[shipment.reference]),
        "new shipment": reverse("shipments:shipment-create"),
        "shipment edit": reverse("shipments:shipment-update", args=[draft.reference]),
        "leg edit": reverse("shipments:leg-edit", args=[shipment.reference, leg.pk]),
        "shipment documents": reverse("documents:shipment", args=[shipment.reference]),
        "shipment compliance": reverse("compliance:shipment", args=[shipment.reference]),
        "part detail": reverse("catalog:part-detail", args=[part.pk]),
        "new part": reverse("catalog:part-create"),
        "part edit": reverse("catalog:part-update", args=[part.pk]),
        "part classification": reverse("compliance:part", args=[part.pk]),
        "organisation detail": reverse("accounts:organisation-detail", args=[organisation.pk]),
        "new organisation": reverse("accounts:organisation-create"),
        "organisation edit": reverse("accounts:organisation-update", args=[organisation.pk]),
        "new registration": reverse("accounts:registration-create", args=[organisation.pk]),
        "new contact": reverse("accounts:contact-create", args=[organisation.pk]),
        "new site": reverse("shipments:site-create"),
        "new freight rate": reverse("shipments:rate-create"),
        "freight rate edit": reverse("shipments:rate-update", args=[FreightRate.objects.first().pk]),
        "new exchange rate": reverse("shipments:fx-create"),
        "exchange rate edit": reverse("shipments:fx-update", args=[ExchangeRate.objects.first().pk]),
        "licence detail": reverse("compliance:licence", args=[licence.pk]),
        "licence edit": reverse("compliance:licence-edit", args=[licence.pk]),
        "EAR countries": reverse("compliance:countries"),
        "stock lots": reverse("warehouse:lot-list"),
        "stock locations": reverse("warehouse:location-list"),
        "stock movements": reverse("warehouse:movement-list"),
        "new location": reverse("warehouse:location-create"),
        "stock location": reverse("warehouse:location-detail", args=[world.first(Location).pk]),
        "location count": reverse("warehouse:location-count", args=[world.first(Location).pk]),
        "unit detail": reverse("warehouse:unit-detail", args=[world.first(Unit).pk]),
        "receive stock": reverse("warehouse:receive"),
        "move stock": reverse("warehouse:move"),
        "allocate stock": reverse("warehouse:allocate"),
        "pick stock": reverse("warehouse:pick"),
        "ship a line": reverse("warehouse:ship"),
    }


# The top-level pages (the menu's) carry no trail.
TOP_LEVEL = (
    "dashboard",
    "shipments:shipment-list",
    "catalog:part-list",
    "compliance:licences",
    "warehouse:stock-list",
)


def test_each_page_below_the_top_level_has_a_trail_to_itself(world):
    client = Client()
    client.force_login(world.admin)
    problems: list[str] = []
    checked_links: dict[str, int] = {}
    for page, url in _pages(world).items():
        response = client.get(url)
        assert response.status_code == 200, f"{page}: {url} answered {response.status_code}"
        html = response.content.decode()
        parser = _Trail()
        parser.feed(html)
        if len(parser.trails) != 1:
            problems.append(f"{page}: {len(parser.trails)} breadcrumb trails")
            continue
        trail = parser.trails[0]
        if not parser.ol_seen:
            problems.append(f"{page}: the trail is not an ordered list")
        if parser.trails_before_h1 != 1:
            problems.append(f"{page}: the trail is not above the page's title")
        *links, last = trail
        if not links:
            problems.append(f"{page}: the trail names only the page")
        if not last["current"] or last["href"] is not None:
            problems.append(f"{page}: the last item is not the page itself: {last}")
        if any(item["current"] for item in links):
            problems.append(f"{page}: an item before the last is marked current")
        label = " ".join(last["text"].split())
        if not label or label not in _title(html):
            problems.append(f"{page}: the last item {label!r} is not the page ({_title(html)!r})")
        for item in links:
            href = item["href"]
            if not href or not href.startswith("/"):
                problems.append(f"{page}: {item['text']!r} has no link")
                continue
            resolve(href.split("#")[0])  # raises Resolver404 for an address the site does not have
            if href not in checked_links:
                checked_links[href] = client.get(href).status_code
            if checked_links[href] != 200:
                problems.append(f"{page}: {item['text']!r} → {href} answered {checked_links[href]}")
    assert not problems, "\n".join(problems)


def test_the_trail_of_a_nested_page_goes_through_its_parents(world):
    client = Client()
    client.force_login(world.admin)
    shipment = world.first(Shipment)
    leg = world.first(Leg)
    parser = _Trail()
    parser.feed(client.get(reverse("shipments:leg-edit", args=[shipment.reference, leg.pk])).content.decode())
    assert [(item["href"], " ".join(item["text"].split())) for item in parser.trails[0]] == [
        (reverse("shipments:shipment-list"), "Shipments"),
        (shipment.get_absolute_url(), shipment.reference),
        (None, f"Leg {leg.sequence}"),
    ]


def test_a_partner_sees_the_trail_of_its_own_shipment(world):
    """The trail's links are pages the partner may open (no 403 on the way up)."""
    client = Client()
    client.force_login(world.user_a)
    shipment = world.first(Shipment)
    for url in (
        reverse("shipments:shipment-detail", args=[shipment.reference]),
        reverse("documents:shipment", args=[shipment.reference]),
        reverse("compliance:shipment", args=[shipment.reference]),
    ):
        parser = _Trail()
        parser.feed(client.get(url).content.decode())
        (trail,) = parser.trails
        for item in trail[:-1]:
            assert client.get(item["href"]).status_code == 200, item


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_pages_have_no_trail(world, name):
    client = Client()
    client.force_login(world.admin)
    parser = _Trail()
    parser.feed(client.get(reverse(name)).content.decode())
    assert parser.trails == []
