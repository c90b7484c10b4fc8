"""The dashboard: each app puts its own tiles and panels on it (imports point one way, down).

The dashboard view lives in core, below every app, and reads what the apps registered in their
`AppConfig.ready()`: shipments its open / on hold / late counts, catalog the parts tile and the
catalogue by category, accounts organisations and API tokens; the warehouse and clusters add theirs
the same way. A provider answers for one user (scoped with `visible_to`, checked with `user.can`)
and returns nothing where the user may not see the figure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.views.generic import TemplateView

from .access import CapabilityRequiredMixin
from .models import AuditEvent


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


def recent_activity(user) -> Panel | None:
    """The operator's staff see the last changes across Rackpass (the audit log)."""
    if not user.is_operator_staff:
        return None
    events = list(AuditEvent.objects.select_related("content_type")[:12])
    return Panel("Recent activity", "includes/dashboard_activity.html", {"events": events})


panel(recent_activity, order=900)


class DashboardView(CapabilityRequiredMixin, TemplateView):
    capability = "dashboard.view"
    template_name = "dashboard.html"

    def get_context_data(self, **kwargs):
        user = self.request.user
        return super().get_context_data(tiles=tiles_for(user), panels=panels_for(user), **kwargs)
