"""What a compliance answer rests on changed: the event a service raises, and who listens.

A shipment's compliance answer depends on the restricted-party lists, the EAR country data, the
parts' classifications, the licences held, the parties and their organisations, the lines and the
terms. The service that changes one of them calls `inputs_changed` inside its own transaction,
saying which shipments it concerns and why; the check subscribes (`services.stale`, from the app's
`ready`) and marks those answers stale and checks them again. So the list import, the country data,
the licences and the classifications import nothing of the check above them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q


@dataclass(frozen=True)
class InputsChanged:
    """`reason` says what changed in words every party of a shipment may read (never a list entry a
    party matched, nor an officer's name); `shipments` narrows which shipments it concerns (an empty
    Q: every open one). `check_now`: check those not departed yet in this very transaction instead
    of after it (a party newly matching a list entry is held before anything can depart)."""

    reason: str
    shipments: Q
    actor: Any = None
    check_now: bool = False


Listener = Callable[[InputsChanged], None]
_listeners: list[Listener] = []


def listen(listener: Listener) -> None:
    """Register `listener` (idempotent)."""
    if listener not in _listeners:
        _listeners.append(listener)


def inputs_changed(change: InputsChanged) -> None:
    for listener in list(_listeners):
        listener(change)


def naming(organisation_ids) -> Q:
    """Shipments on which any of the organisations acts: as a party, or as a line's shipper or
    exporter of record (a consolidation's suppliers)."""
    ids = list(organisation_ids)
    return (
        Q(parties__organisation_id__in=ids)
        | Q(lines__shipper_id__in=ids)
        | Q(lines__exporter_of_record_id__in=ids)
    )
