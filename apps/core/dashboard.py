"""The dashboard: each app puts its own tiles and panels on it (imports point one way, down).

The dashboard view lives in core, below every app, and reads what the apps registered in their
`AppConfig.ready()`: shipments its open / on hold / late counts, catalog the parts tile and the
catalogue by category, accounts organisations and API tokens; the warehouse and clusters add theirs
the same way. Each role's own work comes first (compliance's tiles for the officer, documents' for
the coordinator, the milestones a partner owes), and every tile links to the list filtered to
exactly what it counts. The operator's staff also see what people did last (`people_activity`).
A provider answers for one user (scoped with `visible_to`, checked with `user.can`) and returns
nothing where the user may not see the figure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.views.generic import TemplateView

from .access import CapabilityRequiredMixin
from .disclosure import person_label
from .models import AuditChannel, AuditEvent


@dataclass(frozen=True)
class Tile:
    count: int
    label: str
    url: str


@dataclass(frozen=True)
class Panel:
    """A card of the dashboard: its title and the template that draws it with `context`."""

    title: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)


TileProvider = Callable[[Any], list[Tile]]
PanelProvider = Callable[[Any], Panel | None]
_tiles: list[tuple[int, TileProvider]] = []
_panels: list[tuple[int, PanelProvider]] = []


def tiles(provider: TileProvider, *, order: int = 100) -> None:
    """Register `provider(user) -> [Tile, …]`; lower `order` first (idempotent)."""
    if all(existing is not provider for _, existing in _tiles):
        _tiles.append((order, provider))


def panel(provider: PanelProvider, *, order: int = 100) -> None:
    """Register `provider(user) -> Panel | None`; lower `order` first (idempotent)."""
    if all(existing is not provider for _, existing in _panels):
        _panels.append((order, provider))


def tiles_for(user) -> list[Tile]:
    return [tile for _, provider in sorted(_tiles, key=lambda entry: entry[0]) for tile in provider(user)]


def panels_for(user) -> list[Panel]:
    found = (provider(user) for _, provider in sorted(_panels, key=lambda entry: entry[0]))
    return [card for card in found if card is not None]


# What people did: in the browser, through the API or on the admin site, signed in. Background
# work (channel "task") and commands (channel "system": `load_demo` and its simulated partner
# messages, migrations, sweeps) are the system's doing, recorded on each object's trail but not
# anybody's activity.
PEOPLE_CHANNELS = (AuditChannel.BROWSER, AuditChannel.API, AuditChannel.ADMIN)


def people_activity(user, *, limit: int = 12) -> list[AuditEvent]:
    """The last things people did, each event with `person` (named as `user` may read it) and
    `object_url` (the object's page, when it has one `user` may see): a query for the events and
    one per kind of object among them."""
    events = list(
        AuditEvent.objects.filter(channel__in=PEOPLE_CHANNELS, actor__isnull=False)
        .select_related("actor__organisation", "content_type")
        .order_by("-timestamp", "-id")[:limit]
    )
    wanted: dict[int, set[str]] = defaultdict(set)
    for event in events:
        event.person = person_label(event.actor, user)
        wanted[event.content_type_id].add(event.object_id)
    urls: dict[tuple[int, str], str] = {}
    for content_type_id, ids in wanted.items():
        model = ContentType.objects.get_for_id(content_type_id).model_class()
        if model is None or not hasattr(model, "get_absolute_url"):
            continue
        objects = model._default_manager.all()
        if hasattr(objects, "visible_to"):
            objects = objects.visible_to(user)
        numeric = [i for i in ids if i.isdigit()]
        for obj in objects.filter(pk__in=numeric):
            urls[(content_type_id, str(obj.pk))] = obj.get_absolute_url()
    for event in events:
        event.object_url = urls.get((event.content_type_id, event.object_id), "")
    return events


def recent_activity(user) -> Panel | None:
    """The operator's staff see what people did last across Rackpass (the audit log)."""
    if not user.is_operator_staff:
        return None
    return Panel("Recent activity", "includes/dashboard_activity.html", {"events": people_activity(user)})


panel(recent_activity, order=900)


class DashboardView(CapabilityRequiredMixin, TemplateView):
    capability = "dashboard.view"
    template_name = "dashboard.html"

    def get_context_data(self, **kwargs):
        user = self.request.user
        return super().get_context_data(tiles=tiles_for(user), panels=panels_for(user), **kwargs)
