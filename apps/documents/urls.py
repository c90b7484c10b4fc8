from django.urls import path

from . import views

app_name = "documents"

urlpatterns = [
    path("shipments/<str:reference>/documents/", views.ShipmentDocumentsView.as_view(), name="shipment"),
    path("shipments/<str:reference>/documents/generate/", views.GenerateView.as_view(), name="generate"),
    path("shipments/<str:reference>/documents/bundle/", views.BundleView.as_view(), name="bundle"),
    path("shipments/<str:reference>/documents/issue-all/", views.IssueAllView.as_view(), name="issue-all"),
    path("documents/<int:pk>/preview/", views.PreviewView.as_view(), name="preview"),
    path("documents/<int:pk>/download/", views.DownloadView.as_view(), name="download"),
    path("documents/<int:pk>/issue/", views.IssueView.as_view(), name="issue"),
    path("documents/<int:pk>/void/", views.VoidView.as_view(), name="void"),
]
