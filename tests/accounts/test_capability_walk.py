"""Every capability of `roles.py` has a page or an action in the browser (issue 12).

`WALK` maps each capability to the browser page (GET) or action (POST) that exercises it, and to
where its link or button shows. For each role: a role holding the capability gets an answer that
is not a refusal and sees the link or button; a role lacking it does not see them and is refused
on the address. A capability added to `CAPABILITIES` without a row here fails
`test_every_capability_has_a_page_or_an_action`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from apps.accounts.context_processors import _NAV
from apps.accounts.models import Organisation, User
from apps.accounts.roles import CAPABILITIES, Role
from apps.catalog.models import Part
from apps.documents.models import Document
from apps.shipments.models import Shipment
from tests.factories import UserFactory
from tests.world import World, build_world

ROLE_REFUSED = "Your role may not"  # services.shipment_transition's refusal


@dataclass
class Ctx:
    """What the walk acts on: organisation A's shipment, part and document (a partner of A may act
    on them; operator staff see everything) and the operator."""

    world: World
    shipment: Shipment
    part: Part
    document: Document
    operator: Organisation
    partner_org: Organisation

    @property
    def reference(self) -> str:
        return self.shipment.reference


@dataclass(frozen=True)
class Walk:
    """The browser's way to use a capability.

    `url(ctx)` is the address, `method` GET (a page) or POST (an action) with `data`. `shown_on(ctx)`
    is the page that offers the link or button ("" for none to check) and `marker(ctx, url)` the
    HTML that is the link or button. `status` puts the shipment in a status first (a transition).
    A role lacking the capability gets `refusal` (403; see the transitions below).
    """

    url: Callable[[Ctx], str]
    method: str = "GET"
    data: dict[str, Any] = field(default_factory=dict)
    shown_on: Callable[[Ctx], str] = lambda ctx: ""
    marker: Callable[[Ctx, str], str] | None = None
    status: dict[str, str] | None = None
    refusal: int = 403
    note: str = ""

    def link(self, ctx: Ctx, url: str) -> str:
        if self.marker is not None:
            return self.marker(ctx, url)
        return f'href="{url}"' if self.method == "GET" else f'action="{url}"'


def _menu(ctx: Ctx) -> str:
    return reverse("dashboard")


def _shipment_page(ctx: Ctx) -> str:
    return ctx.shipment.get_absolute_url()


def _transition(to: str, *, status: dict[str, str], data: dict[str, str] | None = None) -> Walk:
    """A status change: the button on the shipment page posts `to` to the transition view.

    A role without the capability is refused with the styled 403 page ("Your role may not move a
    shipment to …"; the API answers 403 too); a move the flow does not allow stays a 409.
    """
    return Walk(
        url=lambda ctx: reverse("shipments:shipment-transition", args=[ctx.reference]),
        method="POST",
        data={"to": to, **(data or {})},
        shown_on=_shipment_page,
        marker=lambda ctx, url: f'name="to" value="{to}"',
        status=status,
        refusal=403,
    )


WALK: dict[str, Walk] = {
    "dashboard.view": Walk(url=lambda ctx: reverse("dashboard"), shown_on=_menu),
    "catalog.view": Walk(url=lambda ctx: reverse("catalog:part-list"), shown_on=_menu),
    "catalog.edit": Walk(
        url=lambda ctx: reverse("catalog:part-create"), shown_on=lambda ctx: reverse("catalog:part-list")
    ),
    "organisations.view": Walk(url=lambda ctx: reverse("accounts:organisation-list"), shown_on=_menu),
    "organisations.edit": Walk(
        url=lambda ctx: reverse("accounts:organisation-create"),
        shown_on=lambda ctx: reverse("accounts:organisation-list"),
    ),
    # The organisation page lists its connections (the browser checks only organisations.view).
    "connections.view": Walk(
        url=lambda ctx: ctx.partner_org.get_absolute_url(),
        marker=lambda ctx, url: 'id="connections"',
        shown_on=lambda ctx: ctx.partner_org.get_absolute_url(),
    ),
    "connections.manage": Walk(
        url=lambda ctx: reverse("accounts:connection-create", args=[ctx.partner_org.pk]),
        method="POST",
        shown_on=lambda ctx: ctx.partner_org.get_absolute_url(),
    ),
    # Users are managed in Django's admin site, which checks is_staff and Django's model
    # permissions, not this capability: the menu's "Admin" link is the button.
    "users.manage": Walk(
        url=lambda ctx: reverse("admin:accounts_user_changelist"),
        shown_on=_menu,
        marker=lambda ctx, url: f'href="{reverse("admin:index")}"',
        refusal=302,
        note="Django admin (is_staff), not checked against users.manage",
    ),
    "tokens.manage": Walk(url=lambda ctx: reverse("accounts:token-list"), shown_on=_menu),
    # The audit trail at the foot of every detail page.
    "audit.view": Walk(
        url=_shipment_page, shown_on=_shipment_page, marker=lambda ctx, url: "<h2>Audit trail</h2>"
    ),
    "shipments.view": Walk(url=lambda ctx: reverse("shipments:shipment-list"), shown_on=_menu),
    "shipments.edit": Walk(
        url=lambda ctx: reverse("shipments:shipment-create"),
        shown_on=lambda ctx: reverse("shipments:shipment-list"),
    ),
    "shipments.submit": _transition("compliance_review", status={"status": "draft"}),
    "shipments.approve": _transition("approved", status={"status": "compliance_review"}),
    "shipments.book": _transition("booked", status={"status": "approved"}),
    "shipments.track": Walk(
        url=lambda ctx: reverse("shipments:event-add", args=[ctx.reference]),
        method="POST",
        data={"code": "departed", "occurred_at": "2026-12-01T10:00"},
        shown_on=_shipment_page,
        status={"status": "booked"},
    ),
    "shipments.hold": _transition(
        "on_hold", status={"status": "booked"}, data={"reason": "Customs query", "hold_kind": "customs"}
    ),
    "shipments.release_customs_hold": _transition(
        "release",
        status={"status": "on_hold", "held_from": "booked", "hold_kind": "customs", "hold_reason": "Query"},
    ),
    # A compliance decision (four eyes): asked for on the compliance page, which the shipment page
    # links to; the shipment page's own release button is not offered for a compliance hold.
    "shipments.release_compliance_hold": Walk(
        url=lambda ctx: reverse("compliance:hold-release", args=[ctx.reference]),
        method="POST",
        data={"reason": "Licence granted; the reasons are answered"},
        shown_on=lambda ctx: reverse("compliance:shipment", args=[ctx.reference]),
        status={"status": "on_hold", "held_from": "booked", "hold_kind": "compliance", "hold_reason": "Hit"},
    ),
    "shipments.cancel": _transition(
        "cancelled", status={"status": "draft"}, data={"reason": "Order withdrawn by the customer"}
    ),
    # Approved back to draft: a button on the shipment page to the confirmation form.
    "shipments.amend": Walk(
        url=lambda ctx: reverse("shipments:shipment-amend", args=[ctx.reference]),
        shown_on=_shipment_page,
        status={"status": "approved"},
    ),
    "sites.view": Walk(url=lambda ctx: reverse("shipments:site-list"), shown_on=_menu),
    "sites.edit": Walk(
        url=lambda ctx: reverse("shipments:site-create"), shown_on=lambda ctx: reverse("shipments:site-list")
    ),
    "compliance.view": Walk(url=lambda ctx: reverse("compliance:licences"), shown_on=_menu),
    "compliance.run": Walk(
        url=lambda ctx: reverse("compliance:run", args=[ctx.reference]),
        method="POST",
        shown_on=lambda ctx: reverse("compliance:shipment", args=[ctx.reference]),
    ),
    "compliance.review": Walk(url=lambda ctx: reverse("compliance:queue"), shown_on=_menu),
    # Four-eyes decisions, e.g. asking to switch the policy (a second officer approves it).
    "compliance.decide": Walk(
        url=lambda ctx: reverse("compliance:four-eyes"),
        method="POST",
        data={"reason": "Audit week: one officer on duty"},
        shown_on=lambda ctx: reverse("compliance:four-eyes"),
        marker=lambda ctx, url: 'name="reason"',
    ),
    "screening.adhoc": Walk(
        url=lambda ctx: reverse("compliance:lists"),
        method="POST",
        data={"action": "screen", "name": "Acme Trading", "threshold": "0.85"},
        shown_on=lambda ctx: reverse("compliance:lists"),
        marker=lambda ctx, url: 'name="action" value="screen"',
    ),
    "tasks.view": Walk(url=lambda ctx: reverse("compliance:task", args=[ctx.world.task_id])),
    "documents.view": Walk(
        url=lambda ctx: reverse("documents:shipment", args=[ctx.reference]), shown_on=_shipment_page
    ),
    "documents.generate": Walk(
        url=lambda ctx: reverse("documents:generate", args=[ctx.reference]),
        method="POST",
        shown_on=lambda ctx: reverse("documents:shipment", args=[ctx.reference]),
    ),
    "documents.issue": Walk(
        url=lambda ctx: reverse("documents:issue", args=[ctx.document.pk]),
        method="POST",
        shown_on=lambda ctx: reverse("documents:shipment", args=[ctx.reference]),
    ),
    # The freight options panel the shipment page loads.
    "freight.view": Walk(
        url=lambda ctx: reverse("shipments:freight-panel", args=[ctx.reference]),
        shown_on=_shipment_page,
        marker=lambda ctx, url: f'hx-get="{url}"',
    ),
    "freight.rates.view": Walk(url=lambda ctx: reverse("shipments:rate-list"), shown_on=_menu),
    "freight.edit": Walk(
        url=lambda ctx: reverse("shipments:rate-create"), shown_on=lambda ctx: reverse("shipments:rate-list")
    ),
    # The warehouse (issue 13): its lists, the flow forms offered above them, a new location.
    "stock.view": Walk(url=lambda ctx: reverse("warehouse:stock-list"), shown_on=_menu),
    "stock.operate": Walk(
        url=lambda ctx: reverse("warehouse:receive"), shown_on=lambda ctx: reverse("warehouse:stock-list")
    ),
    "stock.allocate": Walk(
        url=lambda ctx: reverse("warehouse:allocate"), shown_on=lambda ctx: reverse("warehouse:stock-list")
    ),
    "stock.manage": Walk(
        url=lambda ctx: reverse("warehouse:location-create"),
        shown_on=lambda ctx: reverse("warehouse:location-list"),
    ),
    # Cluster designs (issue 14): the designs list in the menu; sizing a design is the "Run sizing"
    # button on its page (organisation A's design: its partner owns it, operator staff plan any).
    "clusters.view": Walk(url=lambda ctx: reverse("clusters:design-list"), shown_on=_menu),
    "clusters.plan": Walk(
        url=lambda ctx: reverse("clusters:run-start", args=[_design(ctx).pk]),
        method="POST",
        shown_on=lambda ctx: reverse("clusters:design-detail", args=[_design(ctx).pk]),
    ),
}


def _design(ctx: Ctx):
    from apps.clusters.models import ClusterDesign

    return ctx.world.first(ClusterDesign)


# (capability, role) pairs that fail the walk today, with why: the test fails when one is fixed,
# so that it is taken off this list.
KNOWN_GAPS: dict[tuple[str, str], str] = {}


def test_every_capability_has_a_page_or_an_action():
    assert set(WALK) == set(CAPABILITIES), (
        f"without a browser page or action: {sorted(set(CAPABILITIES) - set(WALK))}; "
        f"not capabilities: {sorted(set(WALK) - set(CAPABILITIES))}"
    )


@pytest.fixture
def ctx(db) -> Ctx:
    world = build_world()
    shipment = world.first(Shipment)
    document = world.first(Document)
    # Issuable (no DRAFT mark), so the Issue button shows to those who may press it.
    Document.objects.filter(pk=document.pk).update(watermark="")
    document.refresh_from_db()
    return Ctx(
        world=world,
        shipment=shipment,
        part=world.first(Part),
        document=document,
        operator=world.operator,
        partner_org=world.org_a,
    )


@pytest.fixture
def users(ctx) -> dict[str, User]:
    operator = ctx.operator
    return {
        Role.COORDINATOR: ctx.world.coordinator,
        Role.COMPLIANCE_OFFICER: UserFactory(
            organisation=operator, role=Role.COMPLIANCE_OFFICER, username="walk-officer"
        ),
        Role.WAREHOUSE_OPERATOR: UserFactory(
            organisation=operator, role=Role.WAREHOUSE_OPERATOR, username="walk-warehouse"
        ),
        Role.PARTNER: ctx.world.user_a,
        Role.ADMIN: ctx.world.admin,
    }


def _rolled_back(fn):
    """Run `fn` and undo whatever it wrote: each step of the walk starts from the same world."""
    with transaction.atomic():
        result = fn()
        transaction.set_rollback(True)
    return result


def _walk_one(client: Client, ctx: Ctx, walk: Walk, holds: bool) -> list[str]:
    problems: list[str] = []
    url = walk.url(ctx)

    def step():
        if walk.status:
            Shipment.objects.filter(pk=ctx.shipment.pk).update(**walk.status, updated_at=timezone.now())
        shown = ""
        page = walk.shown_on(ctx)
        if page:
            answer = client.get(page)
            shown = answer.content.decode() if answer.status_code == 200 else ""
        response = client.get(url) if walk.method == "GET" else client.post(url, walk.data)
        return shown, page, response

    shown, page, response = _rolled_back(step)
    body = response.content.decode(errors="replace")
    marker = walk.link(ctx, url)
    if walk.refusal == 302:  # Django's admin sends who may not use it to its own login page
        refused = response.status_code == 302 and "/admin/login/" in response.get("Location", "")
    else:  # 403, or a transition's 409 that names the role (403 would do as well)
        refused = response.status_code == 403 or (response.status_code == 409 and ROLE_REFUSED in body)
    if holds:
        if refused:
            problems.append(f"{walk.method} {url} refused ({response.status_code}) a role holding it")
        if page and marker not in shown:
            problems.append(f"no link or button ({marker}) on {page}")
    else:
        if page and marker in shown:
            problems.append(f"shows the link or button ({marker}) on {page}")
        if walk.refusal == 0:  # a field: the page may open, without it
            if response.status_code == 200 and marker in body:
                problems.append(f"{url} offers {marker}")
        elif not refused:
            problems.append(f"{walk.method} {url} answered {response.status_code}, expected {walk.refusal}")
    return problems


def test_each_role_can_do_what_it_holds_and_is_refused_the_rest(ctx, users):
    problems: list[str] = []
    fixed: list[str] = []
    for role, user in users.items():
        client = Client()
        client.force_login(user)
        for capability, walk in WALK.items():
            holds = role in CAPABILITIES[capability]
            found = _walk_one(client, ctx, walk, holds)
            known = KNOWN_GAPS.get((capability, role))
            if known and not found:
                fixed.append(f"{capability} / {role}: fixed, take it off KNOWN_GAPS")
            elif found and not known:
                problems += [f"{capability} / {role} ({'holds' if holds else 'lacks'}): {p}" for p in found]
    assert not problems + fixed, "\n".join(problems + fixed)


def test_no_menu_item_leads_to_a_refusal(ctx, users):
    """Each role's menu (the warehouse operator's too, before its own pages come in issue 13)
    offers only pages it may open."""
    for role, user in users.items():
        client = Client()
        client.force_login(user)
        menu = client.get(reverse("dashboard")).context["nav_items"]
        assert menu, role
        for item in menu:
            assert client.get(item["url"]).status_code == 200, f"{role}: {item['label']} → {item['url']}"
        offered = {item["url"] for item in menu}
        for label, url_name, _capability in _NAV:
            if reverse(url_name) not in offered:
                assert client.get(reverse(url_name)).status_code == 403, (
                    f"{role}: {label} is hidden but opens"
                )


def test_the_classification_engine_button_shows_only_to_who_may_run_it(ctx, users):
    """A second way to use compliance.run: "Run the engine" on a part's classification page."""
    url = reverse("compliance:part", args=[ctx.part.pk])
    for role, user in users.items():
        client = Client()
        client.force_login(user)
        holds = role in CAPABILITIES["compliance.run"]
        page = client.get(url).content.decode()
        assert ('name="action" value="run"' in page) == holds, role
        response = _rolled_back(lambda: client.post(url, {"action": "run"}))  # noqa: B023
        assert (response.status_code != 403) == holds, (role, response.status_code)
