"""A screening decision taken: a hit cleared or confirmed, a block lifted (the match reversed).

Screening raises the event inside the transaction that took the decision (`decided`); the hold
reasons of the compliance checks listen (`services.holds`, from the app's `ready`): a cleared hit
resolves the reasons it raised, a confirmed one turns them into blocked-party reasons, a lifted
block resolves its reasons, and the shipments concerned move on or are checked again. A listener
that fails rolls the decision back with it. So screening imports nothing of the check above it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HitDecided:
    """`hit` (a ScreeningHit of an organisation) was cleared or confirmed by `actor`."""

    hit: Any
    actor: Any = None


@dataclass(frozen=True)
class BlockLifted:
    """`block` (a PartyBlock) was lifted: the match it rests on was reversed."""

    block: Any
    actor: Any = None


Decision = HitDecided | BlockLifted
Listener = Callable[[Decision], None]
_listeners: list[Listener] = []


def listen(listener: Listener) -> None:
    """Register `listener` (idempotent)."""
    if listener not in _listeners:
        _listeners.append(listener)


def decided(decision: Decision) -> None:
    for listener in _listeners:
        listener(decision)
