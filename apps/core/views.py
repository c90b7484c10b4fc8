"""Browser building blocks: organisation-scoped list/detail/edit views with the audit trail."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponseRedirect

from apps.accounts.permissions import CapabilityRequiredMixin

from .models import AuditEvent
from .scoping import VIEW


class ScopedQuerysetMixin(CapabilityRequiredMixin):
    """`get_queryset` through `visible_to`: another organisation's object is a 404 here too."""

    scope_action = VIEW

    def get_queryset(self):
        return super().get_queryset().visible_to(self.request.user, self.scope_action)


class AuditTrailMixin:
    """Puts the object's audit trail in the context of a detail page."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["audit_events"] = list(AuditEvent.objects.for_object(self.object)[:100])
        return context


class FilteredListMixin:
    """A list page driven by a django-filter FilterSet; htmx requests get only the results table."""

    filterset_class = None
    paginate_by = 50
    partial_template_name: str = ""

    def get_filterset(self):
        return self.filterset_class(
            self.request.GET or None, queryset=self.get_queryset(), request=self.request
        )

    def get_context_data(self, **kwargs):
        filterset = self.get_filterset()
        qs = filterset.qs if filterset.is_bound and filterset.is_valid() else filterset.queryset
        page = Paginator(qs, self.paginate_by).get_page(self.request.GET.get("page"))
        page.object_list = self.decorate_page(list(page.object_list))
        query = self.request.GET.copy()
        query.pop("page", None)
        kwargs.update(
            filterset=filterset, page_obj=page, object_list=page.object_list, querystring=query.urlencode()
        )
        return super().get_context_data(**kwargs)

    def decorate_page(self, objects: list) -> list:
        """Add per-row figures to one page of objects (a fixed number of queries)."""
        return objects

    def get_template_names(self):
        if getattr(self.request, "htmx", False) and self.partial_template_name:
            return [self.partial_template_name]
        return super().get_template_names()


class ServiceFormMixin:
    """Forms whose save goes through a service: service ValidationErrors land on the form's fields.

    The view defines `save_with_service(form)` returning the saved object.
    """

    def form_valid(self, form):
        try:
            self.object = self.save_with_service(form)
        except ValidationError as exc:
            form.add_error(None, exc)
            return self.form_invalid(form)
        return HttpResponseRedirect(self.get_success_url())

    def get_success_url(self):
        return self.object.get_absolute_url()
