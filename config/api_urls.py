"""`/api/v1/`: one router for every app's viewsets."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from apps.accounts.api import views as accounts
from apps.catalog.api import views as catalog
from apps.clusters.api import designs as clusters
from apps.clusters.api import plan as cluster_plan
from apps.clusters.api import summary as cluster_summary
from apps.compliance.api import views as compliance
from apps.core.views_search import SearchApiView
from apps.documents.api import views as documents
from apps.shipments.api import views as shipments
from apps.warehouse.api import receipts as warehouse_notices
from apps.warehouse.api import stock as warehouse
from apps.warehouse.api.expected import ExpectedViewSet
from apps.warehouse.api.imports import SerialImportViewSet

app_name = "api"


class ApiRoot(DefaultRouter.APIRootView):
    """Rackpass partner API, version 1."""

    capabilities = {"read": "dashboard.view", "write": "dashboard.view"}


router = DefaultRouter()
router.APIRootView = ApiRoot
# No `.json` suffix routes: `?format=` does the same, and the schema documents neither.
router.include_format_suffixes = False
router.register("organisations", accounts.OrganisationViewSet, basename="organisation")
router.register("registrations", accounts.RegistrationViewSet, basename="registration")
router.register("contacts", accounts.ContactViewSet, basename="contact")
router.register("connections", accounts.ConnectionViewSet, basename="connection")
router.register("tokens", accounts.ApiTokenViewSet, basename="token")
router.register("parts", catalog.PartViewSet, basename="part")
router.register("manufacturers", catalog.ManufacturerViewSet, basename="manufacturer")
router.register("sites", shipments.SiteViewSet, basename="site")
router.register("shipments", shipments.ShipmentViewSet, basename="shipment")
router.register("freight-rates", shipments.FreightRateViewSet, basename="freight-rate")
router.register("exchange-rates", shipments.ExchangeRateViewSet, basename="exchange-rate")
router.register("classifications", compliance.ClassificationViewSet, basename="classification")
router.register("licences", compliance.LicenceViewSet, basename="licence")
router.register("screening-lists", compliance.ScreeningListViewSet, basename="screening-list")
router.register("screenings", compliance.ScreeningViewSet, basename="screening")
router.register("screening-hits", compliance.ScreeningHitViewSet, basename="screening-hit")
router.register("party-blocks", compliance.PartyBlockViewSet, basename="party-block")
router.register("compliance-checks", compliance.ComplianceCheckViewSet, basename="compliance-check")
router.register("hold-reasons", compliance.HoldReasonViewSet, basename="hold-reason")
router.register("compliance-approvals", compliance.ApprovalViewSet, basename="compliance-approval")
router.register("documents", documents.DocumentViewSet, basename="document")
router.register("units", warehouse.UnitViewSet, basename="unit")
router.register("stock/locations", warehouse.LocationViewSet, basename="stock-location")
router.register("stock/lots", warehouse.LotViewSet, basename="stock-lot")
router.register("stock/movements", warehouse.MovementViewSet, basename="stock-movement")
router.register("stock/on-hand", warehouse.OnHandViewSet, basename="stock-on-hand")
router.register("stock/receipts", warehouse.ReceiptViewSet, basename="stock-receipt")
router.register("stock/moves", warehouse.MoveViewSet, basename="stock-move")
router.register("stock/adjustments", warehouse.AdjustmentViewSet, basename="stock-adjustment")
router.register("stock/counts", warehouse.CountViewSet, basename="stock-count")
router.register("stock/allocations", warehouse.AllocationViewSet, basename="stock-allocation")
router.register("stock/picks", warehouse.PickViewSet, basename="stock-pick")
router.register("stock/dispatches", warehouse.DispatchViewSet, basename="stock-dispatch")
router.register("stock/imports", SerialImportViewSet, basename="stock-import")
router.register("clusters", clusters.ClusterDesignViewSet, basename="cluster")
router.register(
    "stock/notice-receipts", warehouse_notices.NoticeReceiptViewSet, basename="stock-notice-receipt"
)
router.register("stock/discrepancies", warehouse_notices.DiscrepancyViewSet, basename="stock-discrepancy")
router.register("stock/packs", warehouse_notices.PackViewSet, basename="stock-pack")
router.register("stock/expected", ExpectedViewSet, basename="stock-expected")


def _nested(prefix: str, viewset, basename: str) -> list:
    """`shipments/{reference}/<prefix>/` routes for a child viewset."""
    base = f"shipments/<str:shipment_reference>/{prefix}/"
    return [
        path(base, viewset.as_view({"get": "list", "post": "create"}), name=f"{basename}-list"),
        path(
            f"{base}<int:pk>/",
            viewset.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
            name=f"{basename}-detail",
        ),
        path(f"{base}<int:pk>/history/", viewset.as_view({"get": "history"}), name=f"{basename}-history"),
    ]


urlpatterns = [
    path("me/", accounts.MeView.as_view(), name="me"),
    path("search/", SearchApiView.as_view(), name="search"),
    path("determinations/", compliance.DeterminationView.as_view(), name="determination"),
    path("countries/<str:code>/", compliance.CountryView.as_view(), name="country"),
    path("tasks/<str:task_id>/", compliance.TaskStatusView.as_view(), name="task"),
    path(
        "clusters/<int:pk>/compliance-summary/",
        cluster_summary.ComplianceSummaryView.as_view(),
        name="cluster-compliance-summary",
    ),
    path("clusters/<int:pk>/coverage/", cluster_summary.CoverageView.as_view(), name="cluster-coverage"),
    path(
        "shipments/<str:shipment_reference>/documents/",
        documents.ShipmentDocumentsView.as_view(),
        name="shipment-documents",
    ),
    path(
        "shipments/<str:shipment_reference>/documents/bundle/",
        documents.BundleView.as_view(),
        name="shipment-documents-bundle",
    ),
    path(
        "shipments/<str:shipment_reference>/compliance-check/",
        compliance.ComplianceCheckStartView.as_view(),
        name="shipment-compliance-check",
    ),
    path(
        "clusters/<int:pk>/shipment-plan/",
        cluster_plan.ShipmentPlanView.as_view(),
        name="cluster-shipment-plan",
    ),
    path("clusters/<int:pk>/own-or-rent/", cluster_plan.OwnOrRentView.as_view(), name="cluster-own-or-rent"),
    *_nested("lines", shipments.LineViewSet, "shipment-line"),
    *_nested("packages", shipments.PackageViewSet, "shipment-package"),
    *_nested("legs", shipments.LegViewSet, "shipment-leg"),
    *router.urls,
]
