"""Organisation scoping: the one door through which every app reads business objects.

Operator staff (users of the operator organisation) see everything; their role decides what
they may do. Users of any other organisation see only objects that belong to, or are shared
with, their organisation. A model says how it relates to organisations with
`org_scope_q(organisation_id, action)`; views and viewsets only call `visible_to`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import models

if TYPE_CHECKING:
    from apps.accounts.models import User

VIEW = "view"
CHANGE = "change"


class OrgScopedQuerySet(models.QuerySet):
    def visible_to(self, user: User, action: str = VIEW) -> OrgScopedQuerySet:
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
