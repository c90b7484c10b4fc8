"""Sites: the list and adding one."""

from __future__ import annotations

from django.contrib import messages
from django.views.generic import CreateView, TemplateView

from apps.core.access import CapabilityRequiredMixin
from apps.core.views import FilteredListMixin, ScopedQuerysetMixin, ServiceFormMixin

from .. import services
from ..filters import SiteFilter
from ..forms import SiteForm
from ..models import Site


class SiteListView(ScopedQuerysetMixin, FilteredListMixin, TemplateView):
    capability = "sites.view"
    template_name = "shipments/site_list.html"
    partial_template_name = "shipments/_site_table.html"
    filterset_class = SiteFilter
    export_name = "sites"
    export_columns = (
        ("Name", lambda site: site.name),
        ("Kind", lambda site: site.get_kind_display()),
        ("Bonded", lambda site: site.is_bonded),
        ("Address", lambda site: site.address_line1),
        ("City", lambda site: site.city),
        ("Postal code", lambda site: site.postal_code),
        ("Country", lambda site: site.country),
        ("IATA code", lambda site: site.iata_code),
        ("UN/LOCODE", lambda site: site.unlocode),
        ("Owner", lambda site: site.owner.legal_name),
    )

    def get_queryset(self):
        return (
            Site.objects.visible_to(self.request.user)
            .select_related("owner")
            .order_by("country", "city", "name")
        )


class SiteCreateView(CapabilityRequiredMixin, ServiceFormMixin, CreateView):
    capability = "sites.edit"
    model = Site
    form_class = SiteForm
    template_name = "shipments/site_form.html"

    def get_form_kwargs(self):
        return super().get_form_kwargs() | {"user": self.request.user}

    def get_form(self, form_class=None):
        form = super().get_form(form_class)
        form.instance.owner = services.owner_for(self.request.user)
        return form

    def save_with_service(self, form):
        site = services.site_create(actor=self.request.user, fields=form.cleaned_data)
        messages.success(self.request, f"Site {site} added.")
        return site
