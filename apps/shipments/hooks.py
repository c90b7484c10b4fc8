"""What higher apps do when a shipment enters a status, what they require before it may, and what
they tell its page.

`shipments` sits below `compliance` and `documents`: it must not import them. A higher app
registers a callable for a status in its `AppConfig.ready()`; `shipment_transition` calls every
callable registered for the status it moves to, inside its own transaction, after the status is
saved. A callable that raises rolls the whole transition back; one that raises
`services.TransitionRefused` (e.g. documents: an issued file that cannot be voided) refuses the
move with its reasons — a 409 in the API and the pages.

Guards work the same way: a higher app registers, for a status, a callable that lists what stops
a shipment from entering it (compliance: approval needs a passing check; documents: booking needs
the required documents issued); `guard_problems` gathers them for `shipment_transition`.
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


Guard = Callable[[Any], list[str]]
_guards: dict[str, list[Guard]] = defaultdict(list)


def guard(status: str, check: Guard) -> None:
    """Register `check(shipment) -> [reason, …]` as a condition of entering `status` (idempotent)."""
    if check not in _guards[str(status)]:
        _guards[str(status)].append(check)


def guard_problems(status: str, shipment: Any) -> list[str]:
    """Every reason a registered guard gives against `shipment` entering `status`."""
    return [problem for check in _guards.get(str(status), ()) for problem in check(shipment)]


# The documents app answers which required documents are not issued yet (for the shipment page).
MissingDocuments = Callable[[Any], list[tuple[str, str, Any]]]
_missing_documents: list[MissingDocuments] = []


def report_missing_documents(provider: MissingDocuments) -> None:
    """Register `provider(shipment) -> [(document label, why, latest version or None), …]`."""
    if provider not in _missing_documents:
        _missing_documents.append(provider)


def missing_documents(shipment: Any) -> list[tuple[str, str, Any]]:
    return [row for provider in _missing_documents for row in provider(shipment)]
