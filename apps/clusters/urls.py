"""Cluster design pages under /clusters/. Everything below a design names it (`pk`):
its runs (`run_pk`), bill-of-materials versions (`bom_pk`) and lines (`line_pk`) are found only
through it."""

from django.urls import path

from .views import boms, designs
from .views.plan import plan_urlpatterns
from .views.summary import summary_urlpatterns

app_name = "clusters"

urlpatterns = [
    path("", designs.DesignListView.as_view(), name="design-list"),
    path("new/", designs.DesignCreateView.as_view(), name="design-create"),
    path("<int:pk>/", designs.DesignDetailView.as_view(), name="design-detail"),
    path("<int:pk>/edit/", designs.DesignUpdateView.as_view(), name="design-update"),
    path("<int:pk>/what-if/", designs.WhatIfView.as_view(), name="what-if"),
    path("<int:pk>/runs/", designs.RunStartView.as_view(), name="run-start"),
    path("<int:pk>/runs/compare/", designs.RunCompareView.as_view(), name="run-compare"),
    path("<int:pk>/runs/<int:run_pk>/", designs.RunDetailView.as_view(), name="run-detail"),
    path("<int:pk>/runs/<int:run_pk>/bom/", boms.BomCreateView.as_view(), name="bom-create"),
    path("<int:pk>/bom/", boms.BomView.as_view(), name="bom"),
    path("<int:pk>/bom/<int:bom_pk>/", boms.BomView.as_view(), name="bom-version"),
    path("<int:pk>/bom/<int:bom_pk>/issue/", boms.BomIssueView.as_view(), name="bom-issue"),
    path("<int:pk>/bom/<int:bom_pk>/csv/", boms.BomCsvView.as_view(), name="bom-csv"),
    path("<int:pk>/bom/<int:bom_pk>/pdf/", boms.BomPdfView.as_view(), name="bom-pdf"),
    path("<int:pk>/bom/lines/<int:line_pk>/", boms.BomLineEditView.as_view(), name="bom-line-edit"),
    path(
        "<int:pk>/bom/lines/<int:line_pk>/lead-time/",
        boms.BomLineLeadTimeView.as_view(),
        name="bom-line-lead-time",
    ),
    *plan_urlpatterns,
    *summary_urlpatterns,
]
