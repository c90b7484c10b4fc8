"""What higher apps do when a shipment enters a status.

`shipments` sits below `compliance` and `documents`: it must not import them. A higher app
registers a callable for a status in its `AppConfig.ready()`; `shipment_transition` calls every
callable registered for the status it moves to, inside its own transaction, after the status is
saved. A callable that raises rolls the whole transition back; one that raises
`services.TransitionRefused` (e.g. documents: an issued file that cannot be voided) refuses the
move with its reasons — a 409 in the API and the pages.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Entered:
    """What a hook is told: the shipment (saved, locked), where it came from and who moved it."""

    shipment: Any
    before: str
    after: str
    actor: Any
    released: bool  # True when the move is a release from a hold back to where it was
    reason: str


Hook = Callable[[Entered], None]
_on_enter: dict[str, list[Hook]] = defaultdict(list)


def on_enter(status: str, hook: Hook) -> None:
    """Register `hook` for `status` (idempotent: registering the same callable twice is harmless)."""
    if hook not in _on_enter[str(status)]:
        _on_enter[str(status)].append(hook)


def run_on_enter(event: Entered) -> None:
    for hook in list(_on_enter.get(str(event.after), ())):
        hook(event)
