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

from collections import defaultdict
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
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
    return name_related([mask_event(event, viewer) for event in rows], viewer)


def mask_events(viewer, events: Iterable) -> list:
    return [mask_event(event, viewer) for event in events]


# --- the objects a change points at, by name ----------------------------------------------------
# The log stores a foreign key's value as it was (`"origin": [18, 21]`): the id, which outlives a
# rename and needs no join when written. For people, a trail shows "Origin: Siruseri DC1 →
# Singapore hub" instead, each a link to the object's page. `name_related` looks the ids of a page
# of events up in one query per related model (not per row) and leaves on each event a
# `related_names` map, which the trail's `audit_choice` tag reads:
# `{field name: {stored id (as text): (label, url or "")}}`. Only what the viewer may see is
# named: a model scoped by organisation is read through `visible_to(viewer)`, so another
# organisation's site a partner may not read stays unnamed (`HIDDEN`), and a person is named by
# `person_label`.
HIDDEN = "not visible to you"


def _relations(model) -> dict[str, type]:
    """The model's foreign keys (and one-to-ones) by field name → the model they point at."""
    return {
        field.name: field.related_model
        for field in model._meta.concrete_fields
        if field.is_relation and (field.many_to_one or field.one_to_one) and field.related_model is not None
    }


def _ids(value) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None and v != ""]
    return [str(value)]


def name_related(events: Iterable, viewer) -> list:
    """Attach `related_names` to each event (see above); returns the events."""
    events = list(events)
    wanted: dict[type, set[str]] = defaultdict(set)
    fields_of: dict[int, dict[str, type]] = {}
    for event in events:
        content_type_id = getattr(event, "content_type_id", None)
        model = ContentType.objects.get_for_id(content_type_id).model_class() if content_type_id else None
        relations = fields_of.setdefault(id(event), _relations(model) if model is not None else {})
        for name, pair in (event.changes or {}).items():
            related = relations.get(name)
            if related is None:
                continue
            for value in pair if isinstance(pair, (list, tuple)) else [pair]:
                wanted[related].update(_ids(value))
    found: dict[type, dict[str, tuple[str, str]]] = {}
    user_model = get_user_model()
    for related, ids in wanted.items():
        numeric = [i for i in ids if i.lstrip("-").isdigit()]
        if not numeric:
            found[related] = {}
            continue
        if related is user_model:
            rows = user_model.objects.select_related("organisation").filter(pk__in=numeric)
            found[related] = {str(u.pk): (person_label(u, viewer), "") for u in rows}
            continue
        # select_related(): what a name reads of other rows (a part's manufacturer) comes in the
        # same query.
        queryset = related._default_manager.select_related()
        if hasattr(queryset, "visible_to"):
            queryset = queryset.visible_to(viewer)
        found[related] = {
            str(obj.pk): (str(obj), obj.get_absolute_url() if hasattr(obj, "get_absolute_url") else "")
            for obj in queryset.filter(pk__in=numeric)
        }
    for event in events:
        relations = fields_of[id(event)]
        names = {}
        for name in event.changes or {}:
            related = relations.get(name)
            if related is not None:
                names[name] = found.get(related, {})
        event.related_names = names
    return events


def related_label(event, name: str, value) -> tuple[str, str] | None:
    """(label, url) for a foreign key's stored `value` on `event`, `(HIDDEN, "")` for an object
    the viewer may not see (or that is gone), None when `name` is not a foreign key."""
    names = getattr(event, "related_names", None) or {}
    if name not in names:
        return None
    return names[name].get(str(value), (HIDDEN, ""))
