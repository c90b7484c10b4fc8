"""FilterSets for the compliance pages."""

import django_filters
from django.db.models import Q

from apps.core.search import SearchTermsFilter
from apps.core.sorting import SortFilter

from .models import Licence
from .services.licences import running_low


class LicenceFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Search")
    # In force and a fifth or less left (quantity or value), or ending within 30 days: the
    # compliance officer's dashboard tile links here.
    running_low = django_filters.ChoiceFilter(
        method="filter_running_low",
        label="Running low",
        choices=[("true", "Running low only")],
        empty_label="Any",
    )
    # Sortable columns; any other `sort=` value is named on the page.
    sort = SortFilter(
        fields=(
            ("number", "number"),
            ("licensee__legal_name", "licensee"),
            ("consignee__legal_name", "consignee"),
            ("valid_from", "valid_from"),
            ("expires_on", "expires_on"),
            ("drawdown_count", "drawdowns"),
        ),
        label="Sort",
    )

    class Meta:
        model = Licence
        fields = ["q"]

    def filter_running_low(self, queryset, name, value):
        return running_low(queryset) if value == "true" else queryset

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(number__icontains=value)
            | Q(eccns__icontains=value)
            | Q(destination_countries__icontains=value)
            | Q(licensee__legal_name__icontains=value)
            | Q(consignee__legal_name__icontains=value)
        )
