"""`{% person who %}` / `{% person who stored_label %}`: a person recorded on a row (received by,
resolved by, the actor of a ledger row …) named as the page's viewer may read it — its own
organisation's people by name, the operator's as "Rackpass staff", another organisation's people
as that organisation (apps.core.disclosure). Templates never print a user's name themselves."""

from django import template

from apps.core.disclosure import recorded_person_label

register = template.Library()


@register.simple_tag(takes_context=True)
def person(context, who, stored_label: str = "") -> str:
    request = context.get("request")
    viewer = getattr(request, "user", None) or context.get("user")
    return recorded_person_label(who, stored_label or "", viewer)
