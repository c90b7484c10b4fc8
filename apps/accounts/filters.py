import django_filters
from django.db.models import Q
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from apps.core.countries import COUNTRY_CHOICES
from apps.core.search import SearchTermsFilter
from apps.core.sorting import SortFilter

from .models import ApiToken, Connection, Organisation, OrganisationKind


class OrganisationFilter(django_filters.FilterSet):
    q = SearchTermsFilter(method="search", label="Search")
    kind = django_filters.ChoiceFilter(choices=OrganisationKind.choices)
    country = django_filters.ChoiceFilter(choices=COUNTRY_CHOICES)
    # Sortable columns; any other `sort=` value is named on the page (400 in the API).
    # Not the user count: it is the page's annotation, absent from the API's queryset.
    sort = SortFilter(
        fields=(("legal_name", "name"), ("kind", "kind"), ("city", "city"), ("country", "country")),
        label="Sort",
    )

    class Meta:
        model = Organisation
        fields = ["q", "kind", "country"]

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(legal_name__icontains=value) | Q(trading_name__icontains=value) | Q(city__icontains=value)
        )


class ApiTokenFilter(django_filters.FilterSet):
    active = django_filters.BooleanFilter(method="filter_active", label="Active (not revoked or expired)")

    class Meta:
        model = ApiToken
        fields = ["active", "name"]

    def filter_active(self, queryset, name, value):
        active = Q(revoked_at__isnull=True) & (Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        return queryset.filter(active) if value else queryset.exclude(active)


@extend_schema_field(OpenApiTypes.INT)
class _OrganisationIdFilter(django_filters.ModelChoiceFilter):
    """An organisation by id (documented as an integer)."""


class ConnectionFilter(django_filters.FilterSet):
    organisation = _OrganisationIdFilter(
        queryset=Organisation.objects.all(), method="filter_organisation", label="Organisation (either side)"
    )

    class Meta:
        model = Connection
        fields = ["organisation"]

    def filter_organisation(self, queryset, name, value):
        return queryset.filter(Q(organisation_a=value) | Q(organisation_b=value)) if value else queryset
