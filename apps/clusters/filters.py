"""The cluster designs list's filters and sortable columns (the page; the API keeps its own
`filterset_fields`)."""

import django_filters
from django.db.models import Q

from apps.accounts.models import Organisation
from apps.core.search import SearchTermsFilter
from apps.core.sorting import SortFilter
from apps.shipments.models import Site, SiteKind

from .dashboard import STAGE_CHOICES, stage_q
from .models import ClusterDesign, Cooling, FabricKind


def _data_centres(request):
    return Site.objects.filter(kind=SiteKind.DATA_CENTRE).order_by("country", "name")


def _organisations(request):
    return Organisation.objects.order_by("legal_name")


class DesignFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Search")
    cooling = django_filters.ChoiceFilter(choices=Cooling.choices, empty_label="Any")
    compute_fabric = django_filters.ChoiceFilter(
        choices=FabricKind.choices, label="Compute fabric", empty_label="Any"
    )
    # Chosen among what the user sees (apps.core.filters.scope_filter_choices, run by the page).
    site = django_filters.ModelChoiceFilter(queryset=_data_centres, label="Site")
    customer = django_filters.ModelChoiceFilter(queryset=_organisations, label="Customer")
    # How far planning has come (the planner's dashboard tiles link here).
    stage = django_filters.ChoiceFilter(
        method="filter_stage", choices=STAGE_CHOICES, label="Stage", empty_label="Any"
    )
    sort = SortFilter(
        fields=(
            ("name", "name"),
            ("customer__legal_name", "customer"),
            ("site__name", "site"),
            ("gpus", "gpus"),
            ("cooling", "cooling"),
            ("updated_at", "updated"),
        ),
        label="Sort",
    )

    class Meta:
        model = ClusterDesign
        fields = ["q", "cooling", "compute_fabric", "site", "customer"]

    def filter_stage(self, queryset, name, value):
        return queryset.filter(stage_q(value)) if value else queryset

    def search(self, queryset, name, value):
        for term in value.split():
            queryset = queryset.filter(
                Q(name__icontains=term)
                | Q(customer__legal_name__icontains=term)
                | Q(site__name__icontains=term)
                | Q(site__city__icontains=term)
                | Q(system__part_number__icontains=term)
                | Q(system__name__icontains=term)
            )
        return queryset
