import django_filters
from django.db.models import Q
from django.utils import timezone

from apps.core.countries import COUNTRY_CHOICES

from .models import ApiToken, Organisation, OrganisationKind


class OrganisationFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="Search")
    kind = django_filters.ChoiceFilter(choices=OrganisationKind.choices)
    country = django_filters.ChoiceFilter(choices=COUNTRY_CHOICES)

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
