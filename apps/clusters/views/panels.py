"""The design page's panels that other parts of the clusters app add: the compliance summary, the
shipment plan, the coverage of the bill of materials, own or rent.

A panel is registered once (at import, or in `AppConfig.ready()`) with the template that draws it
and a function giving its context for one design and request, or None when it has nothing to show
to that user (a capability it lacks, no bill of materials yet). The design page renders each in
`order` under its sizing results:

    from apps.clusters.views.panels import DesignPanel, register_design_panel

    register_design_panel(DesignPanel(
        key="compliance-summary", title="Compliance summary",
        template="clusters/_compliance_summary.html", context=compliance_summary_context, order=10,
    ))

The template receives its context plus `design`, `panel` and `request`; it draws the panel's inside
(the page wraps it in a card with the title and `id="<key>"`, so a task's progress box can refresh
it by that id)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

PanelContext = Callable[[Any, Any], "dict[str, Any] | None"]  # (request, design) → context | None


@dataclass(frozen=True)
class DesignPanel:
    key: str  # the card's element id: letters, digits and hyphens
    title: str
    template: str
    context: PanelContext
    order: int = 100


@dataclass(frozen=True)
class RenderedPanel:
    key: str
    title: str
    html: SafeString


_panels: dict[str, DesignPanel] = {}


def register_design_panel(panel: DesignPanel) -> None:
    """Add (or replace, by key: registering twice is harmless) a panel of the design page."""
    _panels[panel.key] = panel


def design_panels(request, design) -> list[RenderedPanel]:
    """The registered panels with something to show this user for `design`, drawn, in order."""
    rendered = []
    for panel in sorted(_panels.values(), key=lambda p: (p.order, p.key)):
        context = panel.context(request, design)
        if context is None:
            continue
        html = render_to_string(
            panel.template, {**context, "design": design, "panel": panel}, request=request
        )
        rendered.append(RenderedPanel(key=panel.key, title=panel.title, html=SafeString(html)))
    return rendered
