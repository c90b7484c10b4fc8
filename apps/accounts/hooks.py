"""What higher apps do when an organisation's facts change.

`accounts` sits below every app that reads organisations: it imports none of them. A higher app
registers a listener in its `AppConfig.ready()` (compliance: a party's names and country are what
its answers screen and decide on), and the services here call the listeners inside their own
transaction with the names of the facts that changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

OrganisationListener = Callable[[Any, set[str], Any], None]
_organisation_listeners: list[OrganisationListener] = []


def on_organisation_change(listener: OrganisationListener) -> None:
    """Register `listener(organisation, changed field names, actor)` (idempotent)."""
    if listener not in _organisation_listeners:
        _organisation_listeners.append(listener)


def organisation_changed(organisation: Any, fields: set[str], actor: Any = None) -> None:
    if not fields:
        return
    for listener in list(_organisation_listeners):
        listener(organisation, fields, actor)
