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


# What the shipment says changed (a party named or removed, a line added, changed or removed, the
# terms or route): compliance marks its last answer stale with the reason. Called inside the
# change's transaction. listener(shipment, reason, actor).
Changed = Callable[[Any, str, Any], None]
_on_change: list[Changed] = []


def on_change(listener: Changed) -> None:
    """Register `listener` for changes to what a shipment says (idempotent)."""
    if listener not in _on_change:
        _on_change.append(listener)


def changed(shipment: Any, reason: str, actor: Any = None) -> None:
    for listener in list(_on_change):
        listener(shipment, reason, actor)


# A person releasing a hold of a kind (e.g. "compliance") through the status flow: a higher app
# that decides such releases itself (compliance: four eyes) registers why it is refused here.
# check(shipment, actor) -> [reason, …]. Moves the system makes (check_capability=False) skip it.
ReleaseGuard = Callable[[Any, Any], list[str]]
_release_guards: dict[str, list[ReleaseGuard]] = defaultdict(list)


def release_guard(hold_kind: str, check: ReleaseGuard) -> None:
    """Register `check` for releases of holds of `hold_kind` (idempotent)."""
    if check not in _release_guards[str(hold_kind)]:
        _release_guards[str(hold_kind)].append(check)


def release_problems(shipment: Any, actor: Any) -> list[str]:
    """Every reason a registered release guard gives against `actor` releasing `shipment`'s hold."""
    return [p for check in _release_guards.get(str(shipment.hold_kind), ()) for p in check(shipment, actor)]


# The documents app answers which required documents are not issued yet (for the shipment page).
MissingDocuments = Callable[[Any], list[tuple[str, str, Any]]]
_missing_documents: list[MissingDocuments] = []


def report_missing_documents(provider: MissingDocuments) -> None:
    """Register `provider(shipment) -> [(document label, why, latest version or None), …]`."""
    if provider not in _missing_documents:
        _missing_documents.append(provider)


def missing_documents(shipment: Any) -> list[tuple[str, str, Any]]:
    return [row for provider in _missing_documents for row in provider(shipment)]


# What amending an approved shipment will undo, for its confirmation page: the documents app lists
# the issued documents to be voided and the drafts to be superseded.
AmendEffects = Callable[[Any], list[str]]
_amend_effects: list[AmendEffects] = []


def report_amend_effects(provider: AmendEffects) -> None:
    """Register `provider(shipment) -> [sentence, …]` (idempotent)."""
    if provider not in _amend_effects:
        _amend_effects.append(provider)


def amend_effects(shipment: Any) -> list[str]:
    return [sentence for provider in _amend_effects for sentence in provider(shipment)]


# --- Bulk actions on the shipments list -------------------------------------------------------
# The list shows a button per registered action to a user holding its capability, and one view
# (`views.ShipmentBulkView`) runs the chosen one on the selected shipments the user may change.
# Shipments registers its own (cancel drafts, in `ShipmentsConfig.ready`); documents registers
# "Generate required documents" in its `ready`, so shipments still never imports documents.


@dataclass(frozen=True)
class BulkResult:
    """What an action did: the references it acted on, and those it did not, each with why."""

    done: list[str]
    refused: list[tuple[str, str]]


# run(shipments=[…] in primary-key order, actor=user, reason="…") -> BulkResult. The view calls it
# inside the request's transaction; the action makes each shipment's work its own atomic block,
# so one shipment refused leaves the others done.
BulkRun = Callable[..., BulkResult]


@dataclass(frozen=True)
class BulkAction:
    name: str  # the POSTed `action`
    label: str  # the button
    capability: str  # who sees the button and may run it (apps.accounts.roles)
    run: BulkRun
    done: tuple[str, str]  # the summary's words for one / several: ("draft cancelled", "drafts cancelled")
    not_done: str  # "SHP-… <not_done>: <why>", e.g. "not cancelled"; "" when each why says it
    needs_reason: bool = False  # the reason is recorded (a cancel must say why)
    danger: bool = False  # shown as a destructive button


_bulk_actions: dict[str, BulkAction] = {}


def bulk_action(action: BulkAction) -> None:
    """Register `action` for the shipments list (idempotent: the same name again replaces it)."""
    _bulk_actions[action.name] = action


def bulk_actions_for(user: Any) -> list[BulkAction]:
    """The actions `user` may run, in the order they were registered."""
    return [action for action in _bulk_actions.values() if user.can(action.capability)]


def get_bulk_action(name: str) -> BulkAction | None:
    return _bulk_actions.get(name)


def bulk_summary(action: BulkAction, result: BulkResult) -> str:
    """One sentence for the flash message: "2 drafts cancelled; SHP-… not cancelled: it is booked"."""
    n = len(result.done)
    parts = [f"{n} {action.done[0] if n == 1 else action.done[1]}"]
    parts += [
        f"{reference} {action.not_done}: {why}" if action.not_done else f"{reference}: {why}"
        for reference, why in result.refused
    ]
    return "; ".join(parts) + "."


# --- Links from the shipment page to higher apps' pages ----------------------------------------
# The warehouse offers "Receive at warehouse" on an inbound shipment and "Allocate", "Pick" and
# "Pack" on an outbound one; shipments draws whatever is registered without importing warehouse.

# provider(shipment, user) -> [(label, url), …]: only the links that apply to the shipment now and
# that `user` may follow (the provider checks the capability). The shipment comes with its page's
# prefetches (lines, legs with their sites), so a provider can often answer without a query.
PageAction = Callable[[Any, Any], list[tuple[str, str]]]
_page_actions: list[PageAction] = []


def register_page_action(provider: PageAction) -> None:
    """Register `provider` for the shipment page (idempotent: the same callable twice is harmless)."""
    if provider not in _page_actions:
        _page_actions.append(provider)


def page_actions(shipment: Any, user: Any) -> list[tuple[str, str]]:
    """Every registered provider's links for `shipment` and `user`, in the order registered."""
    return [link for provider in _page_actions for link in provider(shipment, user)]


# --- the shipments list's "needs" filter ------------------------------------------------------
# The dashboards' tiles link to the shipments list filtered to exactly what they count
# (`?needs=stale_check`, …). Some of those conditions are known only to higher apps (a stale
# compliance answer, documents not issued); each registers, for its key of `NEEDS`, a callable
# `condition(user) -> Q` on Shipment that its tile counts with too, so the tile's number is the
# list's number by construction.

# The keys the list accepts (declared here so the filter and the API schema know them all).
NEEDS = {
    "compliance_hold": "On compliance hold",
    "stale_check": "Compliance answer stale",
    "awaiting_documents": "Waiting for documents",
    "ready_to_book": "Ready to book",
    "milestones": "Milestones to report",
    "serials": "Serial numbers to give",
}
Condition = Callable[[Any], Any]
_needs: dict[str, Condition] = {}


def need_condition(key: str, condition: Condition) -> None:
    """Register `condition(user) -> Q` for the list's `needs=<key>` (the last registration wins)."""
    if key not in NEEDS:
        raise KeyError(f"Unknown shipments list condition {key!r}")
    _needs[key] = condition


def need_q(key: str, user: Any):
    """The Q of `needs=<key>` for `user`, or None when no app registered one (nothing matches)."""
    condition = _needs.get(key)
    return condition(user) if condition is not None else None
