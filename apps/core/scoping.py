"""Organisation scoping: the one door through which every app reads business objects.

Operator staff (users of the operator organisation) see everything; their role decides what
they may do. Users of any other organisation see only objects that belong to, or are shared
with, their organisation. A model says how it relates to organisations with
`org_scope_q(organisation_id, action)`; views and viewsets only call `visible_to`.
"""

from __future__ import annotations

from typing import Protocol

from django.db import models

VIEW = "view"
CHANGE = "change"


class ScopedUser(Protocol):
    """What scoping reads of a user. `accounts.User` (and Django's anonymous user, refused first)
    has it; `core` sits below `accounts` and names no model of it."""

    is_authenticated: bool
    is_active: bool
    is_operator_staff: bool
    organisation_id: int | None


class OrgScopedQuerySet(models.QuerySet):
    def visible_to(self, user: ScopedUser, action: str = VIEW) -> OrgScopedQuerySet:
        # `can_sign_in`: the user and its organisation are active.
        if not getattr(user, "is_authenticated", False) or not getattr(user, "can_sign_in", user.is_active):
            return self.none()
        if user.is_operator_staff:
            # A fresh queryset, never `self`: a viewset's class-level queryset evaluated once would
            # otherwise serve its cached rows to every later request of the process.
            return self.all()
        if user.organisation_id is None:
            return self.none()
        return self.filter(self.model.org_scope_q(user.organisation_id, action))
