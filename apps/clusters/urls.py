"""Cluster design pages under /clusters/ (issue 14). Everything below a design names it (`pk`):
its runs (`run_pk`), bill-of-materials versions (`bom_pk`) and lines (`line_pk`) are found only
through it."""

from django.urls import path

from . import views, views_bom
from .views_plan import plan_urlpatterns
from .views_summary import summary_urlpatterns

app_name = "clusters"

urlpatterns = [
    path("", views.DesignListView.as_view(), name="design-list"),
    path("new/", views.DesignCreateView.as_view(), name="design-create"),
    path("<int:pk>/", views.DesignDetailView.as_view(), name="design-detail"),
    path("<int:pk>/edit/", views.DesignUpdateView.as_view(), name="design-update"),
    path("<int:pk>/what-if/", views.WhatIfView.as_view(), name="what-if"),
    path("<int:pk>/runs/", views.RunStartView.as_view(), name="run-start"),
    path("<int:pk>/runs/compare/", views.RunCompareView.as_view(), name="run-compare"),
    path("<int:pk>/runs/<int:run_pk>/", views.RunDetailView.as_view(), name="run-detail"),
    path("<int:pk>/runs/<int:run_pk>/bom/", views_bom.BomCreateView.as_view(), name="bom-create"),
    path("<int:pk>/bom/", views_bom.BomView.as_view(), name="bom"),
    path("<int:pk>/bom/<int:bom_pk>/", views_bom.BomView.as_view(), name="bom-version"),
    path("<int:pk>/bom/<int:bom_pk>/issue/", views_bom.BomIssueView.as_view(), name="bom-issue"),
    path("<int:pk>/bom/<int:bom_pk>/csv/", views_bom.BomCsvView.as_view(), name="bom-csv"),
    path("<int:pk>/bom/<int:bom_pk>/pdf/", views_bom.BomPdfView.as_view(), name="bom-pdf"),
    path("<int:pk>/bom/lines/<int:line_pk>/", views_bom.BomLineEditView.as_view(), name="bom-line-edit"),
    *plan_urlpatterns,
    *summary_urlpatterns,
]
