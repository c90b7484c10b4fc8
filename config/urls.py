from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerView

from apps.core.api_docs import CachedSchemaView
from apps.core.dashboard import DashboardView
from apps.core.pickers import pick
from apps.core.views_health import health
from apps.core.views_search import SearchView

admin.site.site_header = "Rackpass administration"
admin.site.site_title = "Rackpass admin"

urlpatterns = [
    path("", DashboardView.as_view(), name="dashboard"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("parts/", include("apps.catalog.urls")),
    path("", include("apps.accounts.urls")),
    path("", include("apps.shipments.urls")),
    path("", include("apps.compliance.urls")),
    path("", include("apps.documents.urls")),
    path("stock/", include("apps.warehouse.urls")),
    path("clusters/", include("apps.clusters.urls")),
    path("exports/", include("apps.core.urls")),
    # One search over everything the user may see (apps/core/global_search.py).
    path("search/", SearchView.as_view(), name="search"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_urls")),
    # Generated once per process (apps/core/api_docs.py), then served from memory.
    path("api/schema/", CachedSchemaView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("healthz/", health, name="health"),
    # Search-as-you-type answers for the object pickers of the forms (apps/core/pickers.py).
    path("pick/<slug:kind>/", pick, name="pick"),
]

# JSON under /api/, the usual pages elsewhere (apps/core/errors.py).
handler400 = "apps.core.errors.bad_request"
handler403 = "apps.core.errors.permission_denied"
handler404 = "apps.core.errors.page_not_found"
handler500 = "apps.core.errors.server_error"
