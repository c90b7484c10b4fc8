"""What a partner reads of the operator's own records: people and the audit trail.

Operator staff read everything. A partner reads the names of its own organisation's people; the
operator's people are "Rackpass staff" and another organisation's people are that organisation.
One rule for every page, export and API answer: templates name a person with `{% person %}`
(apps/core/templatetags/disclosure.py), exports and serializers call `person_label` or
`recorded_person_label`.
Of an object's audit trail a partner reads what changed, when and from where, the reasons of
status changes (every party reads a shipment's hold reason anyway) and the messages its own
people wrote — not the operator's internal notes (screening decisions, officers' resolutions,
licence use) nor the internal state changes (screening hits, block lifts). See docs/security.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

STAFF_LABEL = "Rackpass staff"
FORMER_USER_LABEL = "a former user"


def sees_everything(viewer) -> bool:
    return bool(getattr(viewer, "is_operator_staff", False))


def person_label(person, viewer, *, own: str | None = None) -> str:
    """How `person` (a user or None) is named to `viewer`. `own`: the label to use when the viewer
    may read the person's name (default: full name, else username)."""
    if person is None:
        return ""
    name = own if own is not None else (person.get_full_name() or person.get_username())
    if sees_everything(viewer):
        return name
    if getattr(person, "is_operator_staff", False) or getattr(person, "is_superuser", False):
        return STAFF_LABEL
    if person.organisation_id is not None and person.organisation_id == getattr(
        viewer, "organisation_id", None
    ):
        return name
    return str(person.organisation) if person.organisation_id else FORMER_USER_LABEL


def recorded_person_label(person, label: str, viewer) -> str:
    """How the person a row recorded (`person`: the user, or None once the user is gone; `label`:
    the name the row stored when it was written, such as a ledger row's "Wei Tan (Rackpass
    Technologies Inc.)") is named to `viewer`: by `person_label`; a gone user's stored label is for
    the operator's staff only. Pages, exports and the API all name recorded people through this."""
    if person is not None:
        return person_label(person, viewer, own=label or None)
    return label if sees_everything(viewer) else ""


def history_queryset(viewer, events: QuerySet) -> QuerySet:
    """The audit events of `events` that `viewer` may read (rows; `events_for` masks their text)."""
    events = events.select_related("actor__organisation")
    if sees_everything(viewer):
        return events
    own = Q(actor__organisation_id=getattr(viewer, "organisation_id", None))
    internal_transition = Q(action="transition") & ~Q(changes__has_key="status")
    # A message-only note (no field changed) is the operator's unless the viewer's people wrote it.
    internal_note = Q(action="update", changes={}) & ~own
    return events.exclude(internal_transition | internal_note)


def mask_event(event, viewer):
    """Rewrite an audit event in memory (the log refuses saving it) for a partner viewer."""
    if sees_everything(viewer):
        return event
    actor = event.actor
    own = actor is not None and actor.organisation_id == getattr(viewer, "organisation_id", None)
    if actor is None:
        event.actor_label = FORMER_USER_LABEL if event.actor_id else ""
    else:
        event.actor_label = person_label(actor, viewer, own=event.actor_label)
    is_status_change = event.action == "transition" and "status" in (event.changes or {})
    if not (own or is_status_change):
        event.message = ""
    return event


def events_for(viewer, events: QuerySet, limit: int | None = 100) -> list:
    """The events `viewer` may read, newest first, masked for a partner."""
    rows = history_queryset(viewer, events)
    if limit is not None:
        rows = rows[:limit]
    return [mask_event(event, viewer) for event in rows]


def mask_events(viewer, events: Iterable) -> list:
    return [mask_event(event, viewer) for event in events]
